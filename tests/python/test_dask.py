"""ufuncx on dask arrays (ufuncx/dask.py), computed on a real
dask.distributed LocalCluster of two worker processes: the ufuncs and the
tasks' functions are pickled to the workers. The oracle is NumPy (and
ufuncx itself on NumPy arrays, for ufuncx.scatter)."""
import numpy as np
import pytest

import ufuncx as ux

da = pytest.importorskip("dask.array", reason="installed by the test command (tools/setup.sh)")
distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None, silence_logs=40)
    c = distributed.Client(cluster)
    assert len(c.scheduler_info()["workers"]) == 2
    yield c
    c.close()
    cluster.close()


def same(got, want):
    got = np.asarray(got)
    want = np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert np.array_equal(got, want, equal_nan=want.dtype.kind in "fc"), (got, want)


def ints(rng, shape, lo=-50, hi=50, dtype=np.int64):
    return rng.integers(lo, hi, shape).astype(dtype)


# --- elementwise --------------------------------------------------------------

def test_elementwise_is_lazy_and_matches_numpy(client, rng):
    a = rng.random((7, 9))
    b = rng.random(9)
    x, y = da.from_array(a, chunks=(3, 4)), da.from_array(b, chunks=4)
    for f, args, ref in [
        (ux.add, (x, y), np.add(a, b)),
        (ux.multiply, (x, 2.5), np.multiply(a, 2.5)),
        (ux.sqrt, (x,), np.sqrt(a)),
        # (arctan2 is within an ULP of NumPy's, not bit for bit - NumPy's
        # float64 body depends on the CPU: the workers give the eager result)
        (ux.arctan2, (x, y), ux.arctan2(a, b)),
        (ux.less, (x, y), np.less(a, b)),
        (ux.add, (x, np.float32(1)), np.add(a, np.float32(1))),
    ]:
        r = f(*args)
        assert isinstance(r, da.Array)
        same(r.compute(), ref)
    # NEP 50: a Python int stays weak against a uint8 array.
    u = np.arange(10, dtype=np.uint8)
    same(ux.add(da.from_array(u, chunks=4), 3).compute(), np.add(u, 3))


def test_elementwise_dtype_out_where(client, rng):
    a, b = rng.random(10), rng.random(10)
    x, y = da.from_array(a, chunks=3), da.from_array(b, chunks=3)
    same(ux.add(x, y, dtype=np.float32).compute(), np.add(a, b, dtype=np.float32))
    out = da.zeros(10, chunks=5)
    r = ux.multiply(x, y, out=out)
    assert r is out
    same(out.compute(), a * b)
    mask = a > 0.5
    out = da.from_array(np.full(10, -1.0), chunks=4)
    ux.add(x, y, out=out, where=da.from_array(mask, chunks=2))
    want = np.full(10, -1.0)
    np.add(a, b, out=want, where=mask)
    same(out.compute(), want)
    # A NumPy out= is written at once, as NumPy's call would.
    nout = np.full(10, 7.0)
    r = ux.subtract(x, y, out=nout, where=mask)
    want = np.full(10, 7.0)
    np.subtract(a, b, out=want, where=mask)
    assert r is nout
    same(nout, want)


def test_multiple_outputs_and_gufuncs(client, rng):
    a = rng.random(11) * 100 - 50
    x = da.from_array(a, chunks=4)
    for f in (ux.divmod,):
        got = f(x, 7.0)
        for g, w in zip(got, np.divmod(a, 7.0)):
            same(g.compute(), w)
    for g, w in zip(ux.frexp(x), np.frexp(a)):
        same(g.compute(), w)
    for g, w in zip(ux.modf(x), np.modf(a)):
        same(g.compute(), w)
    m, n = rng.random((6, 5)), rng.random((5, 4))
    dm, dn = da.from_array(m, chunks=(2, 2)), da.from_array(n, chunks=(3, 2))
    same(ux.matmul(dm, dn).compute(), ux.matmul(m, n))
    v = rng.random(5)
    same(ux.matmul(dm, da.from_array(v, chunks=2)).compute(), ux.matmul(m, v))
    same(ux.matmul(da.from_array(v, chunks=2), dn).compute(), ux.matmul(v, n))
    same(ux.vecdot(dm, da.from_array(v, chunks=3)).compute(), ux.vecdot(m, v))


# --- reduce family ---------------------------------------------------------------

@pytest.mark.parametrize("name", ["add", "multiply", "maximum", "minimum", "bitwise_or",
                                  "bitwise_xor", "logical_and", "gcd"])
def test_integer_reduce_is_numpys_bit_for_bit(client, rng, name):
    a = ints(rng, (13, 10), -9, 9)
    if name == "multiply":
        a = ints(rng, (13, 10), -2, 3)
    x = da.from_array(a, chunks=(4, 3))
    uf, nf = getattr(ux, name), getattr(np, name)
    for axis in (0, 1, None, (0, 1), -1):
        for keepdims in (False, True):
            same(uf.reduce(x, axis=axis, keepdims=keepdims).compute(),
                 nf.reduce(a, axis=axis, keepdims=keepdims))
    same(uf.reduce(x, axis=0, split_every=2).compute(), nf.reduce(a, axis=0))


def test_reduce_initial_where_dtype(client, rng):
    a = ints(rng, (9, 8), 0, 100, np.int32)
    x = da.from_array(a, chunks=(2, 3))
    mask = rng.random((9, 8)) > 0.4
    w = da.from_array(mask, chunks=(3, 3))
    same(ux.add.reduce(x, axis=0, initial=1000).compute(), np.add.reduce(a, axis=0, initial=1000))
    same(ux.add.reduce(x, axis=None, where=w).compute(), np.add.reduce(a, axis=None, where=mask))
    same(ux.add.reduce(x, axis=1, dtype=np.int8).compute(), np.add.reduce(a, axis=1, dtype=np.int8))
    same(ux.add.reduce(x, axis=0, dtype=np.float64).compute(),
         np.add.reduce(a, axis=0, dtype=np.float64))
    same(ux.maximum.reduce(x, axis=1, where=w, initial=-5).compute(),
         np.maximum.reduce(a, axis=1, where=mask, initial=-5))
    # int32 add widens to int64 in NumPy; the tree keeps that dtype.
    assert ux.add.reduce(x).dtype == np.add.reduce(a).dtype
    out = da.zeros(8, dtype=np.int64, chunks=4)
    ux.add.reduce(x, axis=0, out=out)
    same(out.compute(), np.add.reduce(a, axis=0).astype(np.int64))


def test_float_add_reduce_equals_numpy_on_one_chunk(client, rng):
    a = rng.random((5, 3000))
    one = da.from_array(a, chunks=(5, 3000))
    same(ux.add.reduce(one, axis=1).compute(), np.add.reduce(a, axis=1))
    many = da.from_array(a, chunks=(5, 700))
    got = ux.add.reduce(many, axis=1).compute()
    np.testing.assert_allclose(got, np.add.reduce(a, axis=1), rtol=1e-13)


def test_reduce_not_reorderable_and_errors(client, rng):
    a = ints(rng, (7, 6))
    x = da.from_array(a, chunks=(2, 4))
    same(ux.subtract.reduce(x, axis=0).compute(), np.subtract.reduce(a, axis=0))
    same(ux.subtract.reduce(x, axis=1, initial=3).compute(),
         np.subtract.reduce(a, axis=1, initial=3))
    with pytest.raises(ValueError, match="not reorderable"):
        ux.subtract.reduce(x, axis=(0, 1))
    with pytest.raises(np.exceptions.AxisError):
        ux.add.reduce(x, axis=2)
    with pytest.raises(ValueError, match="identity"):
        ux.maximum.reduce(da.zeros((0, 3), chunks=2), axis=0)


def test_accumulate(client, rng):
    a = ints(rng, (10, 7))
    x = da.from_array(a, chunks=(3, 2))
    for name in ("add", "multiply", "maximum", "subtract", "bitwise_xor"):
        uf, nf = getattr(ux, name), getattr(np, name)
        for axis in (0, 1):
            same(uf.accumulate(x, axis=axis).compute(), nf.accumulate(a, axis=axis))
    same(ux.add.accumulate(x, axis=1, dtype=np.float32).compute(),
         np.add.accumulate(a, axis=1, dtype=np.float32))
    f = rng.random(1000)
    same(ux.add.accumulate(da.from_array(f, chunks=1000)).compute(), np.add.accumulate(f))
    # Not reorderable: chunk after chunk from the carry, NumPy's order exactly.
    same(ux.subtract.accumulate(da.from_array(f, chunks=77)).compute(), np.subtract.accumulate(f))
    same(ux.divide.accumulate(da.from_array(f + 1, chunks=77)).compute(),
         np.divide.accumulate(f + 1))
    np.testing.assert_allclose(ux.add.accumulate(da.from_array(f, chunks=77)).compute(),
                               np.add.accumulate(f), rtol=1e-12)
    # One axis only, as NumPy: axis=None is the one of 1-D operands.
    same(ux.add.accumulate(da.from_array(a[0], chunks=3), axis=None).compute(),
         np.add.accumulate(a[0], axis=None))
    for axis in (None, (0, 1)):
        with pytest.raises(ValueError, match="accumulate does not allow multiple axes"):
            ux.add.accumulate(x, axis=axis)
        with pytest.raises(ValueError, match="reduceat does not allow multiple axes"):
            ux.add.reduceat(x, [0], axis=axis)


def test_reduceat_and_outer(client, rng):
    a = ints(rng, (12, 5))
    x = da.from_array(a, chunks=(5, 2))
    idx = [0, 4, 3, 11, 2]
    for axis in (0, 1):
        i = idx if axis == 0 else [0, 2, 1, 4]
        same(ux.add.reduceat(x, i, axis=axis).compute(), np.add.reduceat(a, i, axis=axis))
        same(ux.maximum.reduceat(x, i, axis=axis).compute(), np.maximum.reduceat(a, i, axis=axis))
    with pytest.raises(IndexError):
        ux.add.reduceat(x, [0, 12])
    b = ints(rng, (3,))
    same(ux.multiply.outer(x, da.from_array(b, chunks=2)).compute(), np.multiply.outer(a, b))
    same(ux.subtract.outer(x, b).compute(), np.subtract.outer(a, b))
    for g, w in zip(ux.divmod.outer(x, da.from_array(b + 100, chunks=2)), np.divmod.outer(a, b + 100)):
        same(g.compute(), w)


# --- ufunc.at -----------------------------------------------------------------------

@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "maximum", "minimum",
                                  "bitwise_xor"])
def test_at_is_sequential_numpy_bit_for_bit(client, rng, name):
    t0 = rng.random(1000) if name != "bitwise_xor" else ints(rng, 1000)
    idx = rng.integers(-1000, 1000, 5000)
    v = rng.random(5000) if name != "bitwise_xor" else ints(rng, 5000)
    want = t0.copy()
    getattr(np, name).at(want, idx, v)
    t = da.from_array(t0, chunks=128)
    old_name = t.name
    assert getattr(ux, name).at(t, idx, v) is None
    assert t.name != old_name and t.chunks == ((128,) * 7 + (104,),)
    same(t.compute(), want)
    # Dask indices and values, chunked apart from the target.
    t = da.from_array(t0, chunks=300)
    getattr(ux, name).at(t, da.from_array(idx, chunks=1100), da.from_array(v, chunks=700))
    same(t.compute(), want)


def test_at_rows_tuples_scalars_and_unary(client, rng):
    t0 = rng.random((40, 6))
    rows = rng.integers(0, 40, 300)
    v = rng.random((300, 6))
    want = t0.copy()
    np.add.at(want, rows, v)
    t = da.from_array(t0, chunks=(7, 4))
    ux.add.at(t, rows, v)
    same(t.compute(), want)
    assert t.chunks == ((7,) * 5 + (5,), (4, 2))
    # A tuple of index arrays (broadcast together) and a scalar value.
    cols = rng.integers(0, 6, (300,))
    want = t0.copy()
    np.multiply.at(want, (rows, cols), 1.5)
    t = da.from_array(t0, chunks=(7, 4))
    ux.multiply.at(t, (rows, cols), 1.5)
    same(t.compute(), want)
    # Trailing ':' and a boolean mask.
    mask = rng.random(40) > 0.5
    want = t0.copy()
    np.subtract.at(want, (mask, slice(None)), 2.0)
    t = da.from_array(t0, chunks=(7, 4))
    ux.subtract.at(t, (mask, slice(None)), 2.0)
    same(t.compute(), want)
    # Unary at.
    want = t0.copy()
    np.negative.at(want, rows)
    t = da.from_array(t0, chunks=(9, 6))
    ux.negative.at(t, rows)
    same(t.compute(), want)


def test_at_errors_leave_the_target_alone(client, rng):
    t0 = rng.random(50)
    t = da.from_array(t0, chunks=10)
    name = t.name
    with pytest.raises(IndexError, match="index 50 is out of bounds for axis 0 with size 50"):
        ux.add.at(t, [1, 50], 1.0)
    with pytest.raises(IndexError, match="index -51 is out of bounds"):
        ux.add.at(t, [-51], 1.0)
    with pytest.raises(ValueError, match="not broadcastable"):
        ux.add.at(t, [1, 2], [1.0, 2.0, 3.0])
    with pytest.raises(IndexError, match="integer"):
        ux.add.at(t, np.array([1.0]), 1.0)
    with pytest.raises(IndexError, match="too many indices"):
        ux.add.at(t, ([1], [1]), 1.0)
    with pytest.raises(TypeError):
        ux.add.at(t, [1], np.array(["a"]))  # no loop
    with pytest.raises(IndexError, match="out of bounds"):  # (not wrapped to -1)
        ux.add.at(t, np.array([2**64 - 1], np.uint64), 1.0)
    assert t.name == name
    same(t.compute(), t0)
    # Dask indices: the error comes at compute; the old blocks are untouched.
    t = da.from_array(t0, chunks=10)
    old = t.copy()
    ux.add.at(t, da.from_array(np.array([3, 99]), chunks=1), 1.0)
    with pytest.raises(IndexError, match="index 99 is out of bounds"):
        t.compute()
    t = da.from_array(t0, chunks=10)
    ux.add.at(t, da.from_array(np.array([2**64 - 1], np.uint64), chunks=1), 1.0)
    with pytest.raises(IndexError, match="out of bounds"):
        t.compute()
    same(old.compute(), t0)


def test_at_with_dask_indices_wraps_negatives_and_raises_numpys_error(client, rng):
    t0 = rng.random((9, 6))
    saved = t0.copy()
    rows = rng.integers(-9, 9, 300)
    cols = rng.integers(-6, 6, 300)
    vals = rng.random(300)
    want = t0.copy()
    np.add.at(want, (rows, cols), vals)
    t = da.from_array(t0, chunks=(4, 6))
    ux.add.at(t, (da.from_array(rows, chunks=70), da.from_array(cols, chunks=70)),
              da.from_array(vals, chunks=70))
    same(t.compute(), want)
    for r, c, msg in [(3, 6, "index 6 is out of bounds for axis 1 with size 6"),
                      (-10, 0, "index -10 is out of bounds for axis 0 with size 9"),
                      (0, -7, "index -7 is out of bounds for axis 1 with size 6")]:
        t = da.from_array(t0, chunks=(4, 6))
        ux.add.at(t, (da.from_array(np.array([1, r]), chunks=1),
                      da.from_array(np.array([1, c]), chunks=1)), 1.0)
        with pytest.raises(IndexError, match=msg):
            t.compute()
        same(t0, saved)  # (the blocks are views of t0: copied before a write)


def test_at_into_constant_targets_keeps_their_value(client, rng):
    # da.zeros / da.full chunks are broadcasts of one element: the first
    # update step makes them writable without reading them (negative zero is
    # not all-zero bytes, and stays negative zero where nothing lands).
    idx = rng.integers(0, 40, 100)
    vals = rng.random(100)
    for make, fill in [(da.zeros, 0.0), (lambda n, chunks: da.full(n, -0.0, chunks=chunks), -0.0),
                       (lambda n, chunks: da.full(n, 2.5, chunks=chunks), 2.5)]:
        want = np.full(60, fill)
        np.add.at(want, idx, vals)
        t = make(60, chunks=16)
        ux.add.at(t, da.from_array(idx, chunks=30), vals)
        got = t.compute()
        same(got, want)
        assert np.array_equal(np.signbit(got), np.signbit(want))


def test_at_with_an_empty_index_tuple(client, rng):
    for shape in ((), (4, 3)):
        t0 = rng.random(shape)
        want = t0.copy()
        np.add.at(want, (), 2.5)
        t = da.from_array(t0, chunks=2 if shape else ())
        ux.add.at(t, (), 2.5)
        same(t.compute(), want)


def test_at_numpy_target_with_dask_indices(client, rng):
    t = np.zeros(10)
    ux.add.at(t, da.from_array(np.array([1, 1, 3]), chunks=2), da.from_array(np.ones(3), chunks=2))
    same(t, np.array([0, 2, 0, 1, 0, 0, 0, 0, 0, 0], float))


# --- ufuncx.scatter ---------------------------------------------------------------

ELEMENT = dict(update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,),
               index_vector_dim=1)


@pytest.mark.parametrize("mode", ["skip", "skip_window", "clip", "raise"])
def test_scatter_modes_match_ufuncx_on_numpy(client, rng, mode):
    op = rng.random(100)
    idx = rng.integers(-20 if mode != "raise" else 0, 120 if mode != "raise" else 100, (400, 1))
    upd = rng.random(400)
    for combiner in ("add", "maximum", None):
        want = ux.scatter(op, idx, upd, combiner=combiner, mode=mode, **ELEMENT)
        for o, i, u in [(da.from_array(op, chunks=16), idx, upd),
                        (op, da.from_array(idx, chunks=(90, 1)), upd),
                        (da.from_array(op, chunks=30), da.from_array(idx, chunks=(70, 1)),
                         da.from_array(upd, chunks=50))]:
            got = ux.scatter(o, i, u, combiner=combiner, mode=mode, **ELEMENT)
            assert isinstance(got, da.Array)
            same(got.compute(), want)


def test_scatter_raise(client, rng):
    op = da.zeros(10, chunks=3)
    with pytest.raises(IndexError, match="out of bounds"):
        ux.scatter(op, np.array([[1], [10]]), np.ones(2), combiner="add", mode="raise", **ELEMENT)
    lazy = ux.scatter(op, da.from_array(np.array([[1], [10]]), chunks=(1, 1)), np.ones(2),
                      combiner="add", mode="raise", **ELEMENT)
    with pytest.raises(IndexError, match="out of bounds"):
        lazy.compute()


def test_window_and_batching_scatter(client, rng):
    # Rows: operand [50, 8] <- 200 windows of one row each.
    op = rng.random((50, 8))
    idx = rng.integers(0, 50, (200, 1))
    upd = rng.random((200, 8))
    kw = dict(update_window_dims=(1,), inserted_window_dims=(0,),
              scatter_dims_to_operand_dims=(0,), index_vector_dim=1, combiner="add")
    want = ux.scatter(op, idx, upd, **kw)
    got = ux.scatter(da.from_array(op, chunks=(9, 3)), da.from_array(idx, chunks=(64, 1)),
                     da.from_array(upd, chunks=(50, 4)), **kw)
    same(got.compute(), want)
    # A [2, 3] window at (i, j) into [12, 10], with clipping.
    op = rng.random((12, 10))
    idx = rng.integers(-2, 12, (40, 2))
    upd = rng.random((40, 2, 3))
    kw = dict(update_window_dims=(1, 2), inserted_window_dims=(),
              scatter_dims_to_operand_dims=(0, 1), index_vector_dim=1, combiner="add")
    for mode in ("clip", "skip_window", "skip"):
        want = ux.scatter(op, idx, upd, mode=mode, **kw)
        got = ux.scatter(da.from_array(op, chunks=(5, 4)), idx, upd, mode=mode, **kw)
        same(got.compute(), want)
    # Batching dims: operand [4, 20] with batch dim 0, indices [4, 30, 1].
    op = rng.random((4, 20))
    idx = rng.integers(0, 20, (4, 30, 1))
    upd = rng.random((4, 30))
    kw = dict(update_window_dims=(), inserted_window_dims=(1,), input_batching_dims=(0,),
              scatter_indices_batching_dims=(0,), scatter_dims_to_operand_dims=(1,),
              index_vector_dim=2, combiner="multiply")
    want = ux.scatter(op, idx, upd, **kw)
    got = ux.scatter(da.from_array(op, chunks=(2, 6)), da.from_array(idx, chunks=(1, 10, 1)),
                     upd, **kw)
    same(got.compute(), want)


def test_scatter_variadic_and_apply(client, rng):
    a, b = rng.random(30), rng.random(30)
    idx = rng.integers(0, 30, (90, 1))
    u, w = rng.random(90), rng.random(90)
    want = ux.scatter((a, b), idx, (u, w), combiner=None, **ELEMENT)
    got = ux.scatter((da.from_array(a, chunks=7), da.from_array(b, chunks=7)), idx, (u, w),
                     combiner=None, **ELEMENT)
    assert isinstance(got, tuple) and len(got) == 2
    for g, x in zip(got, want):
        same(g.compute(), x)
    want = ux.scatter(a, idx, None, combiner="negative", update_shape=(90,), **ELEMENT)
    got = ux.scatter(da.from_array(a, chunks=8), idx, None, combiner="negative",
                     update_shape=(90,), **ELEMENT)
    same(got.compute(), want)


def test_persisted_indices_are_not_written(client, rng):
    # The partition step localises coordinates in a copy: a persisted index
    # chunk (which the step may receive as a view) keeps its values.
    idx_np = rng.integers(0, 1000, 3000)
    v_np = rng.random(3000)
    idx = da.from_array(idx_np, chunks=700).persist()
    v = da.from_array(v_np, chunks=700).persist()
    want = np.zeros(1000)
    np.add.at(want, idx_np, v_np)
    for _ in range(2):
        t = da.zeros(1000, chunks=125)
        ux.add.at(t, idx, v)
        t = t.persist()
        same(t.compute(), want)
    same(idx.compute(), idx_np)


def _most_alive(collection, group_of):
    """The most groups alive at once in the order dask runs a collection's
    graph: group_of(key) names the group a task belongs to (or None), and a
    group lives from its first task to its last."""
    from dask.order import order
    life = {}
    for key, p in order(dict(collection.__dask_graph__())).items():
        g = group_of(key) if isinstance(key, tuple) else None
        if g is not None:
            life.setdefault(g, []).append(p)
    spans = [(min(ps), max(ps)) for ps in life.values()]
    return len(spans), max(sum(lo <= at <= hi for lo, hi in spans) for at, _ in spans)


def test_at_keeps_the_larger_side_out_of_memory_in_dasks_order():
    # A partition (a copy of one point chunk, split by block) lives from its
    # task until the last block took its piece. When the points outweigh the
    # target, one partition is alive at a time in the order dask runs the
    # graph (_PARTITIONS_AHEAD), not one per point chunk.
    def partition_life(key):
        if key[0].startswith("ufuncx-partition-"):
            return key[1]
        if key[0].startswith("ufuncx-scatter-") and len(key) == 3:
            return key[2]  # block key[1]'s step for point chunk key[2]
        return None
    idx = np.arange(8000) % 997
    t = da.zeros(997, chunks=170)
    ux.add.at(t, da.from_array(idx, chunks=1000), da.ones(8000, chunks=1000))
    assert _most_alive(t, partition_life) == (8, 1)
    same(t.compute(scheduler="sync"), np.bincount(idx).astype(float))

    # A target that outweighs the points keeps dask's own order (one block's
    # chain to its end, then the next): a sum downstream frees each block
    # once it is summed, so few are alive at once.
    def block_life(key):
        if key[0].startswith("ufuncx-scatter-") and len(key) == 3:
            return key[1]
        if key[0].startswith("sum-") and len(key) == 2:
            return key[1]  # the block's partial sum
        return None
    big = da.zeros(80_000, chunks=10_000)
    ux.add.at(big, da.from_array(idx, chunks=1000), da.ones(8000, chunks=1000))
    total = big.sum()
    blocks, most = _most_alive(total, block_life)
    assert blocks == 8 and most <= 2
    assert float(total.compute(scheduler="sync")) == 8000.0


def test_persisted_target_and_earlier_results_are_not_written(client, rng):
    # Each destination block is a chain of steps, one per index chunk; the
    # first step that writes copies the block it was given, later steps
    # write their own buffer. A persisted target, and a persisted result
    # that a second at() starts from, keep their values; index chunks that
    # send nothing to a block leave its chain unchanged.
    t0 = rng.random(1000)
    base = da.from_array(t0, chunks=250).persist()
    idx = np.concatenate([rng.integers(0, 250, 600), rng.integers(500, 1000, 600)])
    v = rng.random(1200)
    t = base.copy()
    ux.add.at(t, da.from_array(idx, chunks=300), da.from_array(v, chunks=300))
    first = t.persist()
    want = t0.copy()
    np.add.at(want, idx, v)
    same(first.compute(), want)
    ux.multiply.at(first, idx[::-1], 0.5)
    again = want.copy()
    np.multiply.at(again, idx[::-1], 0.5)
    same(first.compute(), again)
    same(base.compute(), t0)
    same(t.compute(), want)


def test_partition_step_rejects_bad_arrays():
    ok = np.zeros((4, 1), np.int64)
    for bad in [np.zeros((4, 1), np.int32), np.zeros(4, np.int64), np.zeros((4, 2), np.int64)[:, :1],
                [[0], [1]]]:
        with pytest.raises(TypeError, match="C-contiguous 2-d int64"):
            ux._core._partition_points(bad, [(0, [0, 2, 4])], True)
    with pytest.raises(TypeError, match="one row per point"):
        ux._core._partition_points(ok, [(0, [0, 2, 4])], True, [np.zeros(3)])
    with pytest.raises(TypeError, match="one row per point"):
        ux._core._partition_points(ok, [(0, [0, 2, 4])], True, [np.zeros(4, object)])
    with pytest.raises(ValueError, match="cuts must rise"):
        ux._core._partition_points(ok, [(0, [0, 3, 2])], True)
    order, starts, local, rows = ux._core._partition_points(
        np.array([[3], [0], [5], [2]]), [(0, [0, 2, 4])], False, [np.arange(4.0)])
    assert order is None and starts.tolist() == [0, 1, 3]
    assert local.ravel().tolist() == [0, 1, 0] and rows[0].tolist() == [1.0, 0.0, 3.0]


def test_workers_run_ufuncx_single_threaded(client):
    # dask's workers set OMP_NUM_THREADS=1; ufuncx takes it as its thread
    # cap, so one task uses one core.
    assert set(client.run(ux.get_num_threads).values()) == {1}


def test_each_destination_block_stays_on_one_worker(client, rng):
    # The chain of a destination block writes one buffer in place, step
    # after step: a scheduler plugin keeps every step of a block on one
    # worker and deals the blocks out over both, so no block travels
    # between steps (dask's own placement moved whole blocks to the less
    # busy worker, and crowded them onto one).
    n = 40_000
    t0 = rng.random(n)
    idx = rng.integers(-n, n, 8 * n)
    v = rng.random(8 * n)
    want = t0.copy()
    np.add.at(want, idx, v)
    t = da.from_array(t0, chunks=n // 8)
    ux.add.at(t, da.from_array(idx, chunks=n), da.from_array(v, chunks=n))
    assert client.run_on_scheduler(
        lambda dask_scheduler: "ufuncx-chain-placement" in dask_scheduler.plugins)
    with distributed.get_task_stream(client) as ts:
        got = t.compute()
    same(got, want)
    where = {}
    for task in ts.data:
        key = task["key"]
        if isinstance(key, tuple) and key[0].startswith("ufuncx-scatter-") and \
                key[0].count("-") == 2:
            where.setdefault(key[1], set()).add(task["worker"])
    assert sorted(where) == list(range(8))
    assert all(len(w) == 1 for w in where.values()), where
    workers = [next(iter(w)) for _, w in sorted(where.items())]
    assert len(set(workers)) == 2
    assert workers[0::2] == [workers[0]] * 4 and workers[1::2] == [workers[1]] * 4  # in turn


def test_chain_placement_without_running_workers_places_nothing():
    from ufuncx.dask import ChainPlacement

    class Task:
        state, worker_restrictions, loose_restrictions = "released", None, False

    class Scheduler:
        running = set()
        workers = {}
        tasks = {("ufuncx-scatter-abc", 0, 0): Task()}

    ChainPlacement().update_graph(Scheduler(), tasks=list(Scheduler.tasks))
    assert Scheduler.tasks[("ufuncx-scatter-abc", 0, 0)].worker_restrictions is None
