"""ufunc.at against numpy's: every ufunc with nin 1 or 2 and nout 1, every
index form, broadcasting of b, casting, strides, and errors before writes."""
import numpy as np
import pytest

import ufuncx as ux
from conftest import TABLE, assert_same, numpy_ufunc_names, outcome

AT_UFUNCS = [n for n in numpy_ufunc_names() if getattr(np, n).nout == 1]


def _dtypes_for(name):
    types = [t for t in getattr(np, name).types if "O" not in t and "m" not in t and "M" not in t]
    nin = getattr(np, name).nin
    # Same-typed loops only: at writes the result back into a.
    same = [t for t in types if len(set(t.replace("->", ""))) == 1]
    chars = [t[0] for t in same if t[0] in "?bhiIlfdFD"]
    return chars or [types[-1][0]]


@pytest.mark.parametrize("name", AT_UFUNCS)
def test_at_matches_numpy_for_every_ufunc(name, rng):
    u, nu = getattr(ux, name), getattr(np, name)
    ulp = TABLE[name].get("ulp", 0)
    for ch in _dtypes_for(name):
        dt = np.dtype(ch)
        a = (rng.random(12) * 4 + 0.5).astype(dt) if dt.kind in "fc" else rng.integers(
            1, 6, 12).astype(dt)
        idx = rng.integers(-12, 12, 40)
        if ulp:  # repeated transcendental steps compound their rounding: unique here
            idx = rng.permutation(12) - 12 * (rng.random(12) < 0.5)
        exp, got = a.copy(), a.copy()
        n = idx.shape[0]
        args = [] if nu.nin == 1 else [(rng.random(n) * 3 + 0.5).astype(dt) if dt.kind in "fc"
                                       else rng.integers(0, 4, n).astype(dt)]
        if name in ("left_shift", "right_shift", "power") and args:
            args[0] = np.abs(args[0]) % 3
        if name == "ldexp":  # exponents are integers: loop 'dl->d'
            args[0] = rng.integers(-3, 4, n)
        with np.errstate(all="ignore"):
            nu.at(exp, idx, *args)
            u.at(got, idx, *args)
        assert_same(got, exp, ulp, f"{name}.at {dt}")


INDEX_FORMS = [
    (slice(None), None),
    (slice(1, 5), None),
    ([0, 1, 1, 2], None),
    (np.array([[0, 1], [1, -1]]), None),
    ((slice(None), [0, 0, 2]), None),
    (([0, 1, 1], [2, 2, 0]), None),
    (([0, 1], slice(None), [1, 1]), None),
    ((Ellipsis, [1, 1]), None),
    ((1, slice(None), [0, 1, 1]), None),
    ((np.newaxis, [0, 0]), None),
    (([[0], [1]], [0, 1, 2]), None),
    ((slice(None), np.array([True, False, True, True])), None),
    (np.array([[True, False, True, False]] * 3).reshape(3, 4, 1).repeat(2, 2)[..., 0], None),
    ((2, 3, 1), None),
    ((), None),
]


@pytest.mark.parametrize("index,_", INDEX_FORMS)
@pytest.mark.parametrize("bshape", ["scalar", "full"])
def test_index_forms(index, _, bshape, rng):
    a = rng.random((3, 4, 2))
    probe = np.zeros_like(a)
    shape = probe[index].shape
    b = 2.5 if bshape == "scalar" else rng.random(shape)
    exp, got = a.copy(), a.copy()
    np.add.at(exp, index, b)
    ux.add.at(got, index, b)
    assert_same(got, exp)
    np.multiply.at(exp, index, b)
    ux.multiply.at(got, index, b)
    assert_same(got, exp)


def test_b_broadcast_and_casting(rng):
    a = np.zeros((4, 3), np.int32)
    exp, got = a.copy(), a.copy()
    np.add.at(exp, [0, 0, 3], [1.7, 2.2, 3.9])  # float b into int a: unsafe cast
    ux.add.at(got, [0, 0, 3], [1.7, 2.2, 3.9])
    assert_same(got, exp)
    f = np.ones(6, np.float32)
    exp, got = f.copy(), f.copy()
    np.add.at(exp, [1, 1, 5], np.arange(3, dtype=np.int64))
    ux.add.at(got, [1, 1, 5], np.arange(3, dtype=np.int64))
    assert_same(got, exp)
    h = np.ones(5, np.float16)
    exp, got = h.copy(), h.copy()
    np.add.at(exp, [0] * 50, np.float16(0.1))
    ux.add.at(got, [0] * 50, np.float16(0.1))
    assert_same(got, exp)


def test_strided_and_negative_stride_targets(rng):
    base = rng.random(40)
    for view in (lambda x: x[::3], lambda x: x[::-2], lambda x: x.reshape(5, 8)[:, 1::3]):
        exp, got = base.copy(), base.copy()
        idx = rng.integers(0, view(exp).shape[0], 30)
        np.add.at(view(exp), idx, 1.25)
        ux.add.at(view(got), idx, 1.25)
        assert_same(got, exp)


def test_float_add_with_many_duplicates_is_bit_identical(rng):
    for n, target in [(100000, 10), (200000, 3000), (300000, 2_000_000)]:
        a = rng.random(target).astype(np.float32)
        idx = rng.integers(0, target, n)
        v = rng.standard_normal(n).astype(np.float32) * 1e3
        exp, got = a.copy(), a.copy()
        np.add.at(exp, idx, v)
        ux.add.at(got, idx, v)
        assert_same(got, exp)


def test_errors_leave_target_unchanged():
    a = np.arange(5.0)
    before = a.copy()
    with pytest.raises(IndexError, match="index 7 is out of bounds for axis 0 with size 5"):
        ux.add.at(a, [0, 1, 7], 1.0)
    with pytest.raises(IndexError, match="index -7 is out of bounds"):
        ux.add.at(a, [0, -7], 1.0)
    assert_same(a, before)
    with pytest.raises(IndexError, match="only integers"):
        ux.add.at(a, [1.5], 1.0)
    for index in (np.array([1.0]), np.array([]), (np.array(["a"]),)):  # NumPy's wording for arrays
        with pytest.raises(IndexError, match="arrays used as indices must be of integer"):
            ux.add.at(a, index, 1.0)
        with pytest.raises(IndexError, match="arrays used as indices must be of integer"):
            np.add.at(a.copy(), index, 1.0)
    ux.add.at(a, [], 1.0)  # an empty list is an (integer) index
    with pytest.raises(IndexError, match="too many indices"):
        ux.add.at(a, (0, 0), 1.0)
    with pytest.raises(ValueError, match="second operand needed"):
        ux.add.at(a, [0])
    with pytest.raises(ValueError, match="second operand provided"):
        ux.negative.at(a, [0], 1.0)
    with pytest.raises(ValueError, match="Only single output"):
        ux.divmod.at(a, [0], 1.0)
    with pytest.raises(ValueError, match="not broadcastable"):
        ux.add.at(a, [0, 1], [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="Integers to negative integer powers"):
        ux.power.at(np.arange(3), [0], -1)
    assert_same(a, before)


@pytest.mark.parametrize("n", [3, 5000, 300000])
def test_a_failing_combiner_leaves_the_target_unchanged(n, rng):
    # Integer power fails on a negative exponent part-way through the
    # updates (NumPy's at keeps the updates before it); ufuncx restores the
    # target, whatever the plan, and raises NumPy's error.
    a = rng.integers(-3, 4, n)
    before = a.copy()
    idx = rng.integers(0, n, 2 * n)
    b = np.full(2 * n, 2)
    b[-1] = -1
    with pytest.raises(ValueError, match="Integers to negative integer powers"):
        ux.power.at(a, idx, b)
    assert_same(a, before)
    m = a.reshape(-1, 1) if n % 2 else a.reshape(-1, 2)
    with pytest.raises(ValueError, match="Integers to negative integer powers"):
        ux.power.at(m, (slice(None), 0), np.where(np.arange(m.shape[0]) == m.shape[0] // 2, -1, 1))
    assert_same(a, before)
    ux.power.at(a, idx[:5], 2)  # no failure: applied as NumPy does
    want = before.copy()
    np.power.at(want, idx[:5], 2)
    assert_same(a, want)


def test_missing_loop_comes_before_index_errors():
    # NumPy's at resolves the loop first: a TypeError even with an index out
    # of bounds.
    for lib in (np, ux):
        with pytest.raises(TypeError):
            lib.left_shift.at(np.arange(3), [0, 5], np.ones(2, complex))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.complex128])
@pytest.mark.parametrize("order", ["random", "sorted", "one", "negative"])
def test_many_updates_into_small_targets(dtype, order, rng):
    # Many more updates than target elements: the check and the writes share
    # one pass over blocks; sorted data takes the run-combining body.
    n, size = 50_003, 37
    idx = rng.integers(-size if order == "negative" else 0, size, n)
    if order == "sorted":
        idx.sort()
    elif order == "one":
        idx[:] = 5
    base = (rng.standard_normal(size) * 100).astype(dtype)
    v = (rng.standard_normal(n) * 1e3).astype(dtype)
    for view in (lambda x: x, lambda x: x[::-1]):
        exp, got = base.copy(), base.copy()
        np.add.at(view(exp), idx, v)
        ux.add.at(view(got), idx, v)
        assert_same(got, exp)


@pytest.mark.parametrize("name", ["add", "maximum", "subtract"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_updates_into_targets_beyond_the_caches(name, dtype, rng):
    # Targets of more than 4 MiB take the body that prefetches destinations
    # 32 updates ahead: the last 32 updates (nothing left to prefetch), runs
    # of one index, and the first and last elements must all land.
    size = 600_001 if dtype == np.float64 or dtype == np.int64 else 1_200_001
    idx = rng.integers(0, size, 200_003)
    idx[300:305] = 0  # (runs after the first 256: the plain body, not the runs one)
    idx[-40:] = size - 1
    idx[1000:1064] = 12345
    base = (rng.standard_normal(size) * 100).astype(dtype)
    v = (rng.standard_normal(idx.size) * 1e3).astype(dtype)
    exp, got = base.copy(), base.copy()
    getattr(np, name).at(exp, idx, v)
    getattr(ux, name).at(got, idx, v)
    assert_same(got, exp)
    with pytest.raises(IndexError):
        ux.add.at(got, np.append(idx, size), v[0])
    assert_same(got, exp)


@pytest.mark.parametrize("itype", [np.int64, np.int32])
@pytest.mark.parametrize("where", ["first", "before_half", "at_half", "last"])
def test_long_index_arrays_checked_in_halves(itype, where, rng):
    # Index arrays of 2 MiB and more are checked on two threads, a half
    # each: a bad index in either half (or at the split) changes nothing,
    # and negative indices in only one half are still wrapped.
    n, size = 1_200_001, 400_000  # (a target this large is not saved: the check runs first)
    idx = rng.integers(0, size, n).astype(itype)
    pos = {"first": 0, "before_half": n // 2 - 1, "at_half": n // 2, "last": n - 1}[where]
    neg = idx.copy()
    neg[pos] = -3  # the only negative index
    v = rng.standard_normal(n)
    exp, got = np.zeros(size), np.zeros(size)
    np.add.at(exp, neg, v)
    ux.add.at(got, neg, v)
    np.testing.assert_allclose(got, exp, rtol=1e-9, atol=1e-9)
    for bad in (size, -size - 1):
        idx[pos] = bad
        before = got.copy()
        with pytest.raises(IndexError, match="out of bounds"):
            ux.add.at(got, idx, v)
        assert_same(got, before)


@pytest.mark.parametrize("bad", [37, -38, 2**40])
@pytest.mark.parametrize("where", [0, 2047, 2048, 40_000, 50_002])
def test_bad_index_late_in_a_long_index_array_changes_nothing(bad, where, rng):
    n, size = 50_003, 37
    a = rng.standard_normal(size)
    strided = np.repeat(a, 2)[::2]
    idx = rng.integers(-size, size, n)
    idx[where] = bad
    for target in (a, strided):
        before = target.copy()
        with pytest.raises(IndexError, match=f"index {bad} is out of bounds for axis 0 with size 37"):
            ux.add.at(target, idx, 1.5)
        assert_same(target, before)
    ints = np.arange(size)
    before = ints.copy()
    exps = np.ones(n, np.int64)
    exps[where] = -1
    with pytest.raises(ValueError, match="Integers to negative integer powers"):
        ux.power.at(ints, np.abs(idx) % size, exps)
    assert_same(ints, before)


def test_negative_index_at_every_tail_position(rng):
    # The bounds pass learns whether any index is negative; one at the very
    # end of any length must still wrap.
    for size in (3, 5000):
        for n in range(1, 40):
            idx = rng.integers(0, size, n)
            idx[-1] = -1
            exp, got = np.zeros(size), np.zeros(size)
            np.add.at(exp, idx, 1.0)
            ux.add.at(got, idx, 1.0)
            assert_same(got, exp)


def test_aliasing_b_and_a():
    a = np.arange(6.0)
    exp, got = a.copy(), a.copy()
    np.add.at(exp, [5, 4, 3, 2, 1, 0], exp)
    ux.add.at(got, [5, 4, 3, 2, 1, 0], got)
    assert_same(got, exp)


def test_byte_swapped_targets_and_indices_as_numpy():
    for make in (lambda: np.array([1, 2, 3, 4], ">f4"), lambda: np.arange(4.0)):
        for idx in ([1, 2, 1], np.array([1, 2, 1], ">i4")):
            for b in (3, np.array([1.5, 2.5, 3.5], ">f8"), np.array(2, ">i2"),
                      np.array([1.5, 2.5, 3.5], ">f8")[::-1]):
                for index in (idx, (idx,)):
                    got, want = make(), make()
                    ux.add.at(got, index, b)
                    np.add.at(want, index, b)
                    assert got.dtype == want.dtype
                    np.testing.assert_array_equal(got, want)
    a = np.array([1, 2, 3, 4], ">f4")
    with pytest.raises(IndexError):
        ux.add.at(a, [1, 9], 3)
    np.testing.assert_array_equal(a, [1, 2, 3, 4])  # unchanged after the error


def _at_on_one_and_two_threads(name, base, idx, vals):
    """NumPy's name.at on a copy of base, and ufuncx's with 1 and 2 threads."""
    want = base.copy()
    with np.errstate(all="ignore"):
        getattr(np, name).at(want, idx, vals)
    results = []
    for threads in (1, 2):
        ux.set_num_threads(threads)
        try:
            got = base.copy()
            with np.errstate(all="ignore"):
                getattr(ux, name).at(got, idx, vals)
        finally:
            ux.set_num_threads(0)
        results.append((threads, got))
    return want, results


@pytest.mark.parametrize("dtype", [np.int8, np.float16, np.float32, np.float64, np.complex128,
                                   np.clongdouble])
@pytest.mark.parametrize("name", ["add", "multiply", "maximum"])
def test_at_splits_large_targets_between_two_writers_bit_for_bit(dtype, name):
    # A target over 32 MiB with many random updates: two writers, each
    # owning half of the positions, read every index (negative ones wrap)
    # and apply theirs in update order; the result is the one-thread one
    # and NumPy's, bit for bit, for every item size (1 to 32 bytes).
    rng = np.random.default_rng(3)
    size = (33 << 20) // np.dtype(dtype).itemsize
    n = 200_000
    idx = rng.integers(-size, size, n)
    vals = (rng.standard_normal(n) * 3).astype(dtype) if np.dtype(dtype).kind != "i" \
        else rng.integers(-3, 4, n).astype(dtype)
    base = (rng.standard_normal(size)).astype(dtype) if np.dtype(dtype).kind != "i" \
        else rng.integers(-50, 50, size).astype(dtype)
    if dtype == np.float16 and name == "multiply":
        vals = np.where(np.abs(vals) > 1.5, np.float16(1.0), vals)
    want, results = _at_on_one_and_two_threads(name, base, idx, vals)
    for threads, got in results:
        if dtype == np.clongdouble:  # (by value: long double padding bytes hold garbage)
            assert np.array_equal(got, want, equal_nan=True), (threads, name)
            assert np.array_equal(np.signbit(got.real), np.signbit(want.real))
        else:
            assert got.tobytes() == want.tobytes(), (threads, name, dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.complex128])
@pytest.mark.parametrize("name", ["add", "subtract", "divide", "maximum"])
@pytest.mark.parametrize("shape", ["sorted", "sorted_tail_shuffled", "one_index_past_half",
                                   "sorted_strided_updates"])
def test_sorted_indices_split_between_two_writers_bit_for_bit(dtype, name, shape):
    # Sorted indices (runs of equal ones) into a target the index array
    # outweighs: the updates are cut at a run boundary near the middle and
    # each writer owns the positions from its first index on, checking every
    # index against its range. Data that only looks sorted (a sorted prefix,
    # a shuffled tail) stops a writer: the target is restored and the
    # one-thread pass gives the result. Bit for bit NumPy's, either way.
    if name == "divide" and np.dtype(dtype).kind == "i":
        name = "floor_divide"
    if name == "maximum" and dtype == np.complex128:
        name = "multiply"
    rng = np.random.default_rng(5)
    n, size = 300_001, 20_000
    idx = np.sort(rng.integers(0, size, n))
    if shape == "sorted_tail_shuffled":
        tail = idx[n // 2 + 10:]
        rng.shuffle(tail)
    elif shape == "one_index_past_half":
        idx[n // 3:] = size - 1  # (the cut moves to the end: one writer)
    kind = np.dtype(dtype).kind
    if kind == "i":
        vals = rng.integers(1, 4, n).astype(dtype)
        base = rng.integers(-50, 50, size).astype(dtype)
    else:
        vals = (rng.standard_normal(n) * 10.0 ** rng.integers(-3, 4, n)).astype(dtype)
        if kind == "c":
            vals = vals + 1j * vals[::-1]
        base = (rng.standard_normal(size) * 100).astype(dtype)
    if shape == "sorted_strided_updates":
        vals = np.repeat(vals, 2)[::2]
    want, results = _at_on_one_and_two_threads(name, base, idx, vals)
    for threads, got in results:
        assert got.tobytes() == want.tobytes(), (threads, name, dtype, shape)


@pytest.mark.parametrize("where", ["first_half", "second_half", "at_cut", "last"])
def test_sorted_split_with_a_bad_index_changes_nothing(where, rng):
    # An index out of bounds in either writer's part (or where the parts
    # meet), and a failing combiner in either: IndexError / ValueError, the
    # target as before, and no floating-point warning from the undone work.
    n, size = 200_001, 5_000
    idx = np.sort(rng.integers(0, size, n))
    pos = {"first_half": n // 4, "second_half": 3 * n // 4, "at_cut": n // 2, "last": n - 1}[where]
    a = rng.standard_normal(size)
    before = a.copy()
    for bad in (size, -1 - size, 2**62):
        bad_idx = idx.copy()
        bad_idx[pos] = bad
        with pytest.raises(IndexError, match="out of bounds"):
            ux.add.at(a, bad_idx, 1.0)
        assert_same(a, before)
    ints = rng.integers(-5, 5, size)
    ints_before = ints.copy()
    exps = np.full(n, 2)
    exps[pos] = -1
    with pytest.raises(ValueError, match="Integers to negative integer powers"):
        ux.power.at(ints, idx, exps)
    assert_same(ints, ints_before)
    # A split that stops part-way leaves no floating-point flag behind: the
    # indices look sorted up to the middle, where the second writer (owning
    # bins 5-9) first adds 1e308 twice to bins 5 and 9 - inf, an overflow -
    # before it meets bin 0 and stops. In order those two updates follow the
    # first half's -1e308 in each bin: no overflow, and none must be raised.
    half = 100_000
    idx = np.concatenate([np.repeat(np.arange(10), half // 10), [5, 5, 9, 9],
                          rng.integers(0, 10, half - 4)])
    vals = np.zeros(idx.size)
    vals[np.arange(10) * (half // 10)] = -1e308
    vals[half:half + 4] = 1e308
    want = np.zeros(10)
    np.add.at(want, idx, vals)
    got = np.zeros(10)
    with np.errstate(over="raise"):
        ux.add.at(got, idx, vals)
    assert_same(got, want)


@pytest.mark.parametrize("path", ["fused", "checked_first"])
@pytest.mark.parametrize("dtype", [np.float64, np.int64, np.float32, np.complex128])
@pytest.mark.parametrize("name", ["add", "subtract", "maximum"])
def test_random_updates_into_cache_sized_targets_split_bit_for_bit(dtype, name, path):
    # A target of 1 MiB or more and random updates, either many (index
    # bytes at least four times the target's: the target is saved, nothing
    # is checked first) or fewer (a Highway pass checks them first): two
    # writers each keep the updates landing in their half (a Highway
    # compress pass for 8-byte items), negative indices wrapped. NumPy's
    # result bit for bit, on one thread and two.
    if name == "maximum" and dtype == np.complex128:
        name = "multiply"
    rng = np.random.default_rng(11)
    size = (1100 << 10) // np.dtype(dtype).itemsize
    fused_from = size * np.dtype(dtype).itemsize // 2  # (index bytes = 4x the target's)
    n = fused_from + 1000 if path == "fused" else fused_from // 2
    idx = rng.integers(-size, size, n)
    kind = np.dtype(dtype).kind
    vals = (rng.standard_normal(n) * 10.0 ** rng.integers(-3, 4, n)).astype(dtype) \
        if kind != "i" else rng.integers(-9, 9, n).astype(dtype)
    base = (rng.standard_normal(size) * 100).astype(dtype) if kind != "i" \
        else rng.integers(-50, 50, size).astype(dtype)
    want, results = _at_on_one_and_two_threads(name, base, idx, vals)
    for threads, got in results:
        assert got.tobytes() == want.tobytes(), (threads, name, dtype)


@pytest.mark.parametrize("where", [0, 1023, 1024, "middle", "last"])
@pytest.mark.parametrize("bad", ["past_end", "below_minus_size", "int64_min"])
def test_split_of_a_cache_sized_target_with_a_bad_index_changes_nothing(where, bad, rng):
    # An index outside the target is kept by neither writer: the split's
    # work is undone (target and floating-point flags), and the call raises
    # NumPy's IndexError.
    size = 150_000
    n = 700_000
    idx = rng.integers(-size, size, n)
    pos = {"middle": n // 2, "last": n - 1}.get(where, where)
    value = {"past_end": size, "below_minus_size": -size - 1,
             "int64_min": np.iinfo(np.int64).min}[bad]
    idx[pos] = value
    a = rng.standard_normal(size)
    before = a.copy()
    vals = np.full(n, 1e308)
    with np.errstate(over="raise"):
        with pytest.raises(IndexError, match=f"index {value} is out of bounds for axis 0 with size {size}"):
            ux.add.at(a, idx, vals)
    assert_same(a, before)


@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "maximum", "minimum", "fmax",
                                  "bitwise_or", "logical_and", "power", "true_divide"])
@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "int32", "int8", "bool",
                                   "complex128", "float16"])
def test_small_calls_match_numpy(name, dtype, rng):
    # The smallest calls (one 1-D index array, up to 256 indices) take a
    # path of their own before the planner builds a request: NumPy's
    # results for every index form and update shape, with repeats,
    # negatives, int32 indices, Python numbers, strided and 0-d updates,
    # strided and unaligned targets (which go to the planner).
    nf, uf = getattr(np, name), getattr(ux, name)
    dt = np.dtype(dtype)
    try:
        nf.at(np.zeros(1, dt), [0], np.ones(1, dt))
    except TypeError:
        # (no loop for these types: the small path refuses them as NumPy does)
        with pytest.raises(TypeError):
            uf.at(np.zeros(1, dt), [0], np.ones(1, dt))
        return

    def values(n):
        v = rng.integers(1, 4, n) if dt.kind in "iub" else rng.standard_normal(n) * 3
        return v.astype(dt)

    for n in (0, 1, 3, 17, 256, 257, 600):
        idx = rng.integers(-20, 20, n)
        for form in (idx, idx.astype(np.int32), list(idx), idx[::-1]):
            for b in (values(n), values(2 * n)[::2], values(1), values(1).reshape(()),
                      1 if dt.kind != "b" else True):
                want = values(20)
                got = want.copy()
                with np.errstate(all="ignore"):
                    nf.at(want, form, b)
                    uf.at(got, form, b)
                assert_same(got, want)


def test_small_calls_check_every_index_first(rng):
    # An index out of bounds anywhere raises NumPy's IndexError before any
    # write; the int32 and list forms too; and the small path leaves calls
    # it does not take (casts, overlaps, an unaligned or strided target) to
    # the planner, with NumPy's results.
    t = np.arange(10.0)
    for idx in ([0, 1, 10], [-11, 0], np.array([3, 2, 1, 12], np.int32)):
        with pytest.raises(IndexError, match="out of bounds for axis 0 with size 10"):
            ux.add.at(t, idx, 1.0)
        assert_same(t, np.arange(10.0))
    with pytest.raises(IndexError, match="index 0 is out of bounds for axis 0 with size 0"):
        ux.add.at(np.zeros(0), np.array([0]), 1.0)
    with pytest.raises(ValueError, match="not broadcastable"):
        ux.add.at(t, np.array([0, 1, 2]), np.ones(2))
    assert_same(t, np.arange(10.0))
    # Casts: float32 target, float64 updates; int target, float updates.
    for tdt, b in (("float32", np.ones(3) / 3), ("int64", 2.5), ("int8", 300)):
        want, got = np.zeros(5, tdt), np.zeros(5, tdt)
        try:
            np.add.at(want, [0, 1, 1], b)
        except Exception as e:  # noqa: BLE001
            with pytest.raises(type(e)):
                ux.add.at(got, [0, 1, 1], b)
            continue
        ux.add.at(got, [0, 1, 1], b)
        assert_same(got, want)
    # Updates and indices that share memory with the target.
    want, got = np.arange(8.0), np.arange(8.0)
    np.add.at(want, [0, 1, 2], want[3:6])
    ux.add.at(got, [0, 1, 2], got[3:6])
    assert_same(got, want)
    buf = np.zeros(8, np.int64)
    buf[4:] = [0, 1, 1, 2]
    want = buf.copy()
    np.add.at(want, want[4:].copy(), 5)
    ux.add.at(buf, buf[4:], 5)
    assert_same(buf, want)
    # Strided and unaligned targets.
    base = np.arange(20.0)
    want, got = base.copy(), base.copy()
    np.multiply.at(want[::3], [0, 2, 2, -1], 2.0)
    ux.multiply.at(got[::3], [0, 2, 2, -1], 2.0)
    assert_same(got, want)
    raw = np.zeros(8 * 6 + 1, np.uint8)
    unaligned = raw[1:].view(np.float64)
    ux.add.at(unaligned, [0, 5, 5], 1.5)
    assert_same(unaligned, np.array([1.5, 0, 0, 0, 0, 3.0]))
    # Integer power of a negative exponent fails: the target keeps its values.
    t = np.arange(1, 6)
    with pytest.raises(ValueError, match="negative integer powers"):
        ux.power.at(t, [0, 1], np.array([2, -1]))
    assert_same(t, np.arange(1, 6))


EMPTY_SELECTIONS = {
    # an integer beside an index that selects nothing is still checked
    "int beside an all-false mask": ((4, 1, 1), (np.zeros(4, bool), -2)),
    "int beside an empty array": ((1, 1, 1), (np.array([], np.int64), 0, -2)),
    "int before an empty mask": ((3, 1), (3, np.array([False]))),
    # an index array beside an empty slice is checked, an empty broadcast is not
    "array beside an empty slice": ((3, 3), (slice(3, None), np.array([5]))),
    "array after an empty slice": ((3, 3, 1), (np.array([-3, 3, 0]), slice(3, None), 0)),
    "empty broadcast": ((3, 3), (np.array([5]), np.zeros(0, np.int64))),
    "empty broadcast of 2-D": ((3, 3), (np.zeros((0, 1), np.int64), np.array([[7, 8]]))),
    # a target with an empty window: each index still lands on a row
    "one array into an empty window": ((3, 0), np.array([5])),
    "a negative one into an empty window": ((3, 0), np.array([2, -3, -9])),
    "arrays around an empty window": ((3, 0, 2), (np.array([1]), slice(None), np.array([7]))),
    # the axis named is the operand's, whatever None entries come before
    "None before an empty slice": ((3, 3), (None, slice(3, None), np.array([5]))),
    "None before a bad index": ((3, 3), (None, slice(None), np.array([5]))),
    "Nones before a bad index": ((3, 3), (slice(None), None, None, np.array([7]))),
}


@pytest.mark.parametrize("case", EMPTY_SELECTIONS)
def test_indices_beside_empty_selections_are_checked_as_numpy_does(case):
    shape, index = EMPTY_SELECTIONS[case]
    a, b = np.zeros(shape), np.zeros(shape)
    assert outcome(lambda: ux.add.at(b, index, 1.0)) == outcome(lambda: np.add.at(a, index, 1.0))
    assert_same(b, a)


@pytest.mark.parametrize("index", [(4, -2), (np.array([0, -1]), np.array([-1, 9])), (-3,),
                                   (slice(None), 5)])
def test_a_missing_loop_is_reported_before_a_bad_index(index):
    # NumPy resolves the loop first: invert of floats, bitwise_and of complex
    for name, dtype, extra in [("invert", np.float16, ()), ("bitwise_and", np.complex128, (1,))]:
        a = np.zeros((2, 2), dtype)
        want = outcome(lambda: getattr(np, name).at(a, index, *extra))
        assert want.startswith("TypeError")
        assert outcome(lambda: getattr(ux, name).at(a, index, *extra)) == want
