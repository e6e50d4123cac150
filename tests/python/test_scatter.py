"""ufuncx.scatter (StableHLO/XLA) against JAX's lax.scatter* and against a
plain reference of the StableHLO spec; the seed's worked examples; errors."""
import itertools

import numpy as np
import pytest

import ufuncx as ux
from conftest import assert_same

import jax  # noqa: E402  (the oracle; tools/test.sh installs it)

jax.config.update("jax_enable_x64", True)
from jax import lax  # noqa: E402

PLANS = ["auto", "window_runs", "rows", "element", "local_target", "partitioned",
         "sorted_parallel", "generic"]


def reference(operand, indices, updates, uwd, iwd, sdod, ivd, ibd=(), sibd=(), combine=None,
              mode="skip"):
    """The StableHLO spec, one update element at a time."""
    out = operand.copy()
    usd = [d for d in range(updates.ndim) if d not in uwd]
    wod = [d for d in range(operand.ndim) if d not in iwd and d not in ibd]
    ext = [1] * operand.ndim
    for k, d in enumerate(wod):
        ext[d] = updates.shape[uwd[k]]
    for ui in itertools.product(*map(range, updates.shape)):
        si = [ui[d] for d in usd]
        if ivd < indices.ndim:
            start = [indices[tuple(si[:ivd] + [j] + si[ivd:])] for j in range(indices.shape[ivd])]
        else:
            start = [indices[tuple(si)]]
        fs = [0] * operand.ndim
        for j, d in enumerate(sdod):
            fs[d] = int(start[j])
        for b, sb in zip(ibd, sibd):
            fs[b] = si[sb - (0 if sb < ivd else 1)]
        fw = [0] * operand.ndim
        for k, d in enumerate(wod):
            fw[d] = ui[uwd[k]]
        inside = all(0 <= fs[d] <= operand.shape[d] - ext[d] for d in range(operand.ndim))
        if not inside and mode == "skip_window":
            continue
        if not inside and mode == "clip":
            fs = [min(max(fs[d], 0), operand.shape[d] - ext[d]) for d in range(operand.ndim)]
        ri = tuple(f + w for f, w in zip(fs, fw))
        if not all(0 <= ri[d] < operand.shape[d] for d in range(operand.ndim)):
            continue
        out[ri] = updates[ui] if combine is None else combine(out[ri], updates[ui])
    return out


def test_seed_walkthrough_example():
    operand = np.arange(1, 25, dtype=np.int64).reshape(3, 4, 2)
    indices = np.array([[[0, 2], [1, 0], [2, 1]], [[0, 1], [1, 0], [2, 0]]])
    updates = np.ones((2, 3, 2, 2), np.int64)
    kw = dict(update_window_dims=(2, 3), inserted_window_dims=(0,),
              scatter_dims_to_operand_dims=(1, 0), index_vector_dim=2)
    res = ux.scatter(operand, indices, updates, combiner=ux.add, **kw)
    assert res[2, 1, 0] == 20
    assert_same(res, reference(operand, indices, updates, (2, 3), (0,), (1, 0), 2,
                               combine=np.add))
    # The README's second copy of the indices ([1, 2, :] = [0, 2]) also
    # reaches [2, 1, 0] from row [0, 0].
    indices[1, 2] = [0, 2]
    res = ux.scatter((operand,), indices, (updates,), combiner="add", **kw)[0]
    assert res[2, 1, 0] == 21
    assert operand[2, 1, 0] == 19  # functional: the input is unchanged


def test_seed_interpreter_1x4():
    res = ux.scatter(np.array([[0, 1, 2, 3]]), np.array([[0, 1], [0, 2], [0, 3]]),
                     np.array([[4], [5], [6]]), update_window_dims=(1,),
                     inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0, 1),
                     index_vector_dim=1)
    assert_same(res, np.array([[0, 4, 5, 6]]))


JAX_MODES = {"skip_window": lax.GatherScatterMode.FILL_OR_DROP,
             "clip": lax.GatherScatterMode.CLIP}


JAX_CASES = [(m, c, f) for m in ["skip_window", "clip"]
             for c, f in [("add", lax.scatter_add), ("multiply", lax.scatter_mul),
                          ("maximum", lax.scatter_max), ("minimum", lax.scatter_min),
                          (None, lax.scatter)]
             if not (c is None and m == "clip")]  # clipped replaces collide: order-free only


@pytest.mark.parametrize("mode,combiner,jfn", JAX_CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
def test_against_jax(mode, combiner, jfn, dtype, rng):
    for trial in range(6):
        X, Y, R, W = 6, 5, 4 + trial % 4, 1 + trial % 3
        operand = (rng.standard_normal((X, Y)) * 10).astype(dtype)
        indices = rng.integers(-2, X + 1, (R, 1))
        updates = (rng.standard_normal((R, W)) * 10).astype(dtype)
        if combiner is None:
            indices = rng.permutation(X + 2)[:R].reshape(R, 1) - 1  # unique: order-free
        # Window of width W along dim 1, starting at column 1.
        idx2 = np.concatenate([indices, np.ones((R, 1), np.int64)], axis=1)
        dn = lax.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,),
                                         scatter_dims_to_operand_dims=(0, 1))
        expected = np.asarray(jfn(operand, idx2, updates, dn, mode=JAX_MODES[mode]))
        for plan in PLANS:
            got = ux.scatter(operand, idx2, updates, update_window_dims=(1,),
                             inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0, 1),
                             index_vector_dim=1, combiner=combiner, mode=mode, plan=plan)
            assert_same(got, expected, what=f"{combiner} {mode} {plan}")


def test_batching_dims_against_jax(rng):
    operand = rng.standard_normal((3, 7, 4))
    indices = rng.integers(0, 7, (3, 5, 1))
    updates = rng.standard_normal((3, 5, 4))
    dn = lax.ScatterDimensionNumbers(update_window_dims=(2,), inserted_window_dims=(1,),
                                     scatter_dims_to_operand_dims=(1,),
                                     operand_batching_dims=(0,),
                                     scatter_indices_batching_dims=(0,))
    expected = np.asarray(lax.scatter_add(operand, indices, updates, dn))
    for plan in PLANS:
        got = ux.scatter(operand, indices, updates, update_window_dims=(2,),
                         inserted_window_dims=(1,), scatter_dims_to_operand_dims=(1,),
                         index_vector_dim=2, input_batching_dims=(0,),
                         scatter_indices_batching_dims=(0,), combiner=ux.add, plan=plan)
        # JAX may reassociate duplicate float adds; compare to the spec order
        # exactly, and to JAX within rounding.
        ref = reference(operand, indices, updates, (2,), (1,), (1,), 2, (0,), (0,), np.add)
        assert_same(got, ref)
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("ivd", [0, 1, 2])
def test_index_vector_dim_anywhere_and_skip_mode(ivd, rng):
    operand = rng.standard_normal((5, 6))
    base = rng.integers(-2, 7, (4, 3, 2))  # (rows..., vector)
    indices = np.moveaxis(base, 2, ivd)
    updates = rng.standard_normal((4, 3, 2))
    for plan in PLANS:
        got = ux.scatter(operand, indices, updates, update_window_dims=(2,),
                         inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0, 1),
                         index_vector_dim=ivd, combiner="add", mode="skip", plan=plan)
        ref = reference(operand, indices, updates, (2,), (0,), (0, 1), ivd, combine=np.add)
        assert_same(got, ref, what=f"ivd={ivd} {plan}")


def test_unsigned_indices_are_not_sign_extended():
    operand = np.zeros(300)
    idx = np.array([[255], [1]], np.uint8)
    res = ux.scatter(operand, idx, np.array([1.0, 2.0]), update_window_dims=(),
                     inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,),
                     index_vector_dim=1, combiner="add")
    assert res[255] == 1.0 and res[1] == 2.0
    big = np.array([[2**64 - 1]], np.uint64)
    res = ux.scatter(np.zeros(4), big, np.array([1.0]), update_window_dims=(),
                     inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,),
                     index_vector_dim=1, combiner="add", mode="clip")
    assert res[3] == 1.0  # clamped high, not treated as -1


def test_variadic_operands():
    a, b = np.zeros(4), np.ones(4, np.int64)
    ra, rb = ux.scatter((a, b), np.array([[1], [1]]), (np.array([5.0, 6.0]), np.array([2, 3])),
                        update_window_dims=(), inserted_window_dims=(0,),
                        scatter_dims_to_operand_dims=(0,), index_vector_dim=1)
    assert_same(ra, np.array([0.0, 6.0, 0.0, 0.0]))
    assert_same(rb, np.array([1, 3, 1, 1]))


def test_raise_mode_and_constraint_errors():
    operand = np.zeros((4, 3))
    kw = dict(update_window_dims=(1,), inserted_window_dims=(0,),
              scatter_dims_to_operand_dims=(0,), index_vector_dim=1)
    with pytest.raises(IndexError, match="out of bounds"):
        ux.scatter(operand, np.array([[1], [4]]), np.ones((2, 3)), mode="raise", **kw)
    with pytest.raises(ValueError, match="C7"):
        ux.scatter(operand, np.array([[1]]), np.ones((1, 3)),
                   **dict(kw, update_window_dims=(1, 1)))
    with pytest.raises(ValueError, match="C19"):
        ux.scatter(operand, np.array([[1]]), np.ones((1, 3)),
                   **dict(kw, scatter_dims_to_operand_dims=(0, 1)))
    with pytest.raises(ValueError, match="C22"):
        ux.scatter(operand, np.array([[1]]), np.ones((1, 3)), **dict(kw, index_vector_dim=5))
    with pytest.raises(ValueError, match="C4"):
        ux.scatter(operand, np.array([[1]]), np.ones((2, 3)), **kw)
    with pytest.raises(TypeError, match="integer"):
        ux.scatter(operand, np.array([[1.0]]), np.ones((1, 3)), **kw)
    with pytest.raises(ValueError, match="mode"):
        ux.scatter(operand, np.array([[1]]), np.ones((1, 3)), mode="wrap", **kw)


@pytest.mark.parametrize("plan", ["element", "partitioned", "sorted_parallel"])
@pytest.mark.parametrize("mode", ["skip", "clip", "raise"])
def test_reordering_plans_with_one_and_two_threads(plan, mode, rng):
    # Enough updates for two workers; float32 sums with many duplicates make
    # any change of order visible in the bits.
    size, n = 300_000, 200_000
    op = rng.standard_normal(size).astype(np.float32)
    hi = size if mode == "raise" else size + 1000
    idx = rng.integers(0 if mode == "raise" else -1000, hi, (n, 1))
    idx[: n // 2] //= 1000  # many duplicates
    upd = (rng.standard_normal(n) * 1e3).astype(np.float32)
    kw = dict(update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,),
              index_vector_dim=1, combiner="add", mode=mode)
    # NumPy's add.at is sequential: the reference, bit for bit.
    expect, i = op.copy(), idx[:, 0]
    if mode == "skip":
        keep = (i >= 0) & (i < size)
        np.add.at(expect, i[keep], upd[keep])
    else:
        np.add.at(expect, np.clip(i, 0, size - 1), upd)
    for threads in (1, 2):
        got, ran = ux.scatter(op, idx, upd, plan=plan, threads=threads, return_plan=True, **kw)
        assert ran == plan
        assert_same(got, expect)
    with pytest.raises(ValueError, match="threads must be at least 1"):
        ux.scatter(op, idx, upd, threads=0, **kw)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
@pytest.mark.parametrize("mode", ["skip", "skip_window", "clip", "raise"])
def test_row_scatter_with_one_and_two_workers(dtype, mode, rng):
    # Over 4 MiB of update rows: the rows slot splits the destination rows
    # between two workers. Rows repeat often, so any change of order shows in
    # the float bits; out-of-range rows exercise every bounds mode.
    rows, cols, n = 700, 48, 30_000
    op = (rng.standard_normal((rows, cols)) * 10).astype(dtype)
    lo, hi = (0, rows) if mode == "raise" else (-50, rows + 50)
    idx = rng.integers(lo, hi, (n, 1))
    idx[: n // 3] //= 40
    upd = (rng.standard_normal((n, cols)) * 1e3).astype(dtype)
    i = idx[:, 0]
    expect = op.copy()
    if mode == "clip":
        np.add.at(expect, np.clip(i, 0, rows - 1), upd)
    else:
        keep = (i >= 0) & (i < rows)
        np.add.at(expect, i[keep], upd[keep])
    kw = dict(update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,),
              index_vector_dim=1, combiner="add", mode=mode)
    for threads in (1, 2):
        got, ran = ux.scatter(op, idx, upd, threads=threads, return_plan=True, **kw)
        assert ran == "rows"
        assert_same(got, expect)
    # The torch front end takes the same path (in place, rows of a 2-D self).
    if mode == "raise":
        t = op.copy()
        ux.torchlike.index_add_(t, 0, i, upd)
        assert_same(t, expect)
        bad = i.copy()
        bad[-1] = rows
        t = op.copy()
        with pytest.raises(RuntimeError, match="out of bounds"):  # torch's class
            ux.torchlike.index_add_(t, 0, bad, upd)
        assert_same(t, op)
