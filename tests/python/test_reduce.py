"""reduce, accumulate, reduceat and outer against NumPy 2.x: every binary
ufunc and every loop type, the keywords, empty and 0-d operands, strided and
reversed views, error classes, and bit-identity of float add."""
import warnings

import numpy as np
import pytest

import ufuncx as ux
from conftest import TABLE, assert_same, numpy_types, random_values, special_values

BINARY = sorted(n for n, e in TABLE.items() if e["nin"] == 2 and e["nout"] == 1 and "signature" not in e)


def run(fn):
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return fn(), None
        except Exception as e:  # noqa: BLE001 - the class is what we compare
            return None, e


def check(np_fn, ux_fn, what, ulp=0):
    want, want_err = run(np_fn)
    got, got_err = run(ux_fn)
    if want_err is not None:
        assert got_err is not None, f"{what}: numpy raised {want_err!r}, ufuncx returned {got!r}"
        builtin = next(c for c in type(want_err).__mro__ if c.__module__ == "builtins")
        assert isinstance(got_err, builtin), f"{what}: {got_err!r} vs numpy {want_err!r}"
        return
    assert got_err is None, f"{what}: ufuncx raised {got_err!r}, numpy returned {want!r}"
    if isinstance(want, tuple):
        for g, w in zip(got, want):
            assert_same(g, w, ulp, what)
        return
    assert type(got) is type(want) or isinstance(want, np.ndarray) == isinstance(got, np.ndarray), \
        f"{what}: {type(got)} vs {type(want)}"
    assert_same(got, want, ulp, what)


def operand(t, shape, rng):
    n = int(np.prod(shape))
    vals = np.concatenate([special_values(t), random_values(t, n, rng)])
    return rng.permutation(vals)[:n].reshape(shape)


def loop_operand(name, dt, shape, rng):
    a = operand(dt, shape, rng)
    if dt.kind in "iu" and name in ("power", "left_shift", "right_shift"):
        a = np.abs(a % 5).astype(dt)  # NumPy raises for negative powers; keep both in range
    return a


def ulp_of(name):
    u = TABLE[name].get("ulp", 0)
    return 0 if u == 0 else 16 * u


@pytest.mark.parametrize("name", BINARY)
def test_reduce_every_loop(name, rng):
    nu, xu = getattr(np, name), getattr(ux, name)
    ulp = ulp_of(name)
    for t in numpy_types(nu):
        dt = np.dtype(t[0])
        a = loop_operand(name, dt, (4, 6), rng)
        w = f"{name}[{t}]"
        for axis in (0, 1, -1, None, (0, 1), ()):
            for keepdims in (False, True):
                check(lambda: nu.reduce(a, axis=axis, keepdims=keepdims),
                      lambda: xu.reduce(a, axis=axis, keepdims=keepdims),
                      f"{w} axis={axis} keepdims={keepdims}", ulp)
        init = a.flat[3]
        check(lambda: nu.reduce(a, axis=1, initial=init), lambda: xu.reduce(a, axis=1, initial=init),
              f"{w} initial", ulp)
        mask = (np.arange(24).reshape(4, 6) % 3) != 1
        check(lambda: nu.reduce(a, axis=0, initial=init, where=mask),
              lambda: xu.reduce(a, axis=0, initial=init, where=mask), f"{w} where", ulp)
        check(lambda: nu.reduce(a, axis=None, where=mask[0]), lambda: xu.reduce(a, axis=None, where=mask[0]),
              f"{w} where without initial", ulp)
        # Truncation to int16 magnifies the documented ULP differences.
        for odt in (np.float64, np.complex128) + ((np.int16,) if ulp == 0 else ()):
            o1, o2 = np.zeros(6, odt), np.zeros(6, odt)
            check(lambda: nu.reduce(a, axis=0, out=o1), lambda: xu.reduce(a, axis=0, out=o2),
                  f"{w} out={np.dtype(odt)}", ulp)
        v = a[::2, ::-1]
        check(lambda: nu.reduce(v, axis=1), lambda: xu.reduce(v, axis=1), f"{w} strided view", ulp)
        check(lambda: nu.reduce(v.T, axis=None), lambda: xu.reduce(v.T, axis=None),
              f"{w} transposed view", ulp)
        e = a[:0]
        for axis in (0, 1, None):
            check(lambda: nu.reduce(e, axis=axis), lambda: xu.reduce(e, axis=axis), f"{w} empty axis={axis}")
        check(lambda: nu.reduce(a[:0, :0], axis=1), lambda: xu.reduce(a[:0, :0], axis=1), f"{w} empty/empty")
        s = a[1, 2][()] if a.ndim else a
        check(lambda: nu.reduce(np.asarray(s), axis=None), lambda: xu.reduce(np.asarray(s), axis=None),
              f"{w} 0-d")


@pytest.mark.parametrize("name", BINARY)
def test_accumulate_reduceat_outer_every_loop(name, rng):
    nu, xu = getattr(np, name), getattr(ux, name)
    ulp = ulp_of(name)
    for t in numpy_types(nu):
        dt = np.dtype(t[0])
        a = loop_operand(name, dt, (5, 7), rng)
        w = f"{name}[{t}]"
        for axis in (0, 1, -1):
            check(lambda: nu.accumulate(a, axis=axis), lambda: xu.accumulate(a, axis=axis),
                  f"{w} accumulate axis={axis}", ulp)
        check(lambda: nu.accumulate(a[::-2, 1::2], axis=1), lambda: xu.accumulate(a[::-2, 1::2], axis=1),
              f"{w} accumulate strided", ulp)
        o1, o2 = np.zeros((5, 7), np.complex128), np.zeros((5, 7), np.complex128)
        check(lambda: nu.accumulate(a, out=o1), lambda: xu.accumulate(a, out=o2), f"{w} accumulate out", ulp)
        for idx, axis in (([0, 3, 1, 4, 4, 6], 1), ([2, 0, 4], 0), ([4], 0), ([], 1)):
            check(lambda: nu.reduceat(a, idx, axis=axis), lambda: xu.reduceat(a, idx, axis=axis),
                  f"{w} reduceat {idx} axis={axis}", ulp)
        b = operand(np.dtype(t[1]), (3,), rng)
        check(lambda: nu.outer(a[0], b), lambda: xu.outer(a[0], b), f"{w} outer", ulp)


def bits(x):
    x = np.asarray(x)
    if x.dtype.kind in "fc" and x.dtype.itemsize // (2 if x.dtype.kind == "c" else 1) == 16:
        # x87 long double: 10 value bytes, 6 bytes of padding
        return x.reshape(-1).view(np.uint8).reshape(-1, 16)[:, :10].tobytes()
    return x.tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_add_reduce_and_accumulate_bit_identical(dtype, rng):
    lengths = list(range(0, 300)) + [511, 512, 513, 1023, 1024, 1025, 4095, 4096, 4097, 8191,
                                     8192, 8193] + list(rng.integers(300, 10001, 40)) + [10000]
    for n in lengths:
        a = (rng.standard_normal(n) * 10.0 ** rng.integers(-6, 7, n)).astype(dtype)
        assert bits(ux.add.reduce(a)) == bits(np.add.reduce(a)), n
        assert bits(ux.add.accumulate(a)) == bits(np.add.accumulate(a)), n
    a = (rng.standard_normal(100_000) * 1e3).astype(dtype)
    for v in (a[::3], a[::-1], a[5:-7]):
        assert bits(ux.add.reduce(v)) == bits(np.add.reduce(v))
    m = a[:99_000].reshape(99, 1000)
    for axis in (0, 1, None):
        assert bits(ux.add.reduce(m, axis=axis)) == bits(np.add.reduce(m, axis=axis)), axis
    # Casting through NumPy-sized buffers keeps the same order.
    assert bits(ux.add.reduce(a.astype(np.float32), dtype=np.float64)) == \
        bits(np.add.reduce(a.astype(np.float32), dtype=np.float64))


def test_pairwise_example():
    a = np.array([2.0**24] + [1.0] * 15, np.float32)
    assert ux.add.reduce(a) == np.float32(16777230)
    assert bits(ux.add.reduce(a)) == bits(np.add.reduce(a))


@pytest.mark.parametrize("dtype", [np.float16, np.complex64, np.complex128, np.longdouble])
def test_add_reduce_other_floats_bit_identical(dtype, rng):
    for n in (0, 1, 3, 7, 8, 9, 64, 65, 127, 128, 129, 1000, 4097):
        a = random_values(dtype, n, rng)
        if np.dtype(dtype).kind == "f":
            a = np.clip(a, -1000, 1000).astype(dtype)
        assert bits(ux.add.reduce(a)) == bits(np.add.reduce(a)), (dtype, n)
        assert bits(ux.add.accumulate(a)) == bits(np.add.accumulate(a)), (dtype, n)
        for op in ("multiply", "subtract"):
            if n == 0:
                continue
            assert_same(getattr(ux, op).reduce(a[:20]), getattr(np, op).reduce(a[:20]), 0, op)


def test_integer_accumulators():
    for t in (np.bool_, np.int8, np.int16, np.int32, np.uint8, np.uint16, np.uint32):
        a = np.arange(10).astype(t)
        for op in ("add", "multiply"):
            for method in ("reduce", "accumulate"):
                want = getattr(getattr(np, op), method)(a)
                got = getattr(getattr(ux, op), method)(a)
                assert_same(got, want, 0, f"{op}.{method} {np.dtype(t)}")
            want = getattr(np, op).reduceat(a, [0, 5])
            assert_same(getattr(ux, op).reduceat(a, [0, 5]), want, 0, f"{op}.reduceat")
        assert ux.add.reduce(a, dtype=np.int8).dtype == np.int8
        assert ux.add.reduce(a, out=np.zeros((), np.int8)).dtype == np.int8


def test_reduceat_rules():
    a = np.arange(10.0)
    for idx in ([0, 4, 1, 5], [0, 4, 4, 7], [3, 3, 3], [9], [0], [5, 2, 8, 1], [0, 9, 0, 9]):
        assert_same(ux.add.reduceat(a, idx), np.add.reduceat(a, idx), 0, str(idx))
        assert_same(ux.maximum.reduceat(a[::-1], idx), np.maximum.reduceat(a[::-1], idx), 0, str(idx))
    m = np.arange(24.0).reshape(4, 6)
    assert_same(ux.multiply.reduceat(m, [1, 0, 3], axis=0), np.multiply.reduceat(m, [1, 0, 3], axis=0))
    for bad in ([10], [-1], [0, 11]):
        with pytest.raises(IndexError, match="out-of-bounds in add.reduceat"):
            ux.add.reduceat(a, bad)
    with pytest.raises(TypeError, match="cannot reduceat on a scalar"):
        ux.add.reduceat(np.float64(1), [0])


def test_reduce_errors_match_numpy():
    a = np.ones((2, 3))
    with pytest.raises(ValueError, match="is not reorderable, so at most one axis"):
        ux.subtract.reduce(a, axis=None)
    with pytest.raises(ValueError, match="zero-size array to reduction operation maximum which has no identity"):
        ux.maximum.reduce(np.ones((0, 0)), axis=1)
    with pytest.raises(ValueError, match="does not have an identity, so to use a where mask"):
        ux.maximum.reduce(a, where=np.ones(3, bool))
    with pytest.raises(np.exceptions.AxisError, match="axis 2 is out of bounds"):
        ux.add.reduce(a, axis=2)
    with pytest.raises(ValueError, match="duplicate value in 'axis'"):
        ux.add.reduce(a, axis=(1, -1))
    with pytest.raises(ValueError, match="reduce only supported for binary functions"):
        ux.sin.reduce(a)
    with pytest.raises(ValueError, match="only supported for functions returning a single value"):
        ux.divmod.accumulate(a)
    with pytest.raises(ValueError, match="outer product only supported for binary functions"):
        ux.sqrt.outer(a, a)
    with pytest.raises(TypeError, match="No loop matching"):
        ux.less.reduce(np.arange(3))
    with pytest.raises(TypeError, match="cannot accumulate on a scalar"):
        ux.add.accumulate(np.float64(3))
    with pytest.raises(ValueError, match="accumulate does not allow multiple axes"):
        ux.add.accumulate(a, axis=None)
    with pytest.raises(ValueError, match="wrong number of dimensions"):
        ux.add.reduce(a, axis=1, out=np.zeros((2, 1)))
    with pytest.raises(OverflowError):
        ux.add.reduce(np.arange(3, dtype=np.int8), dtype=np.int8, initial=300)
    with pytest.raises(ValueError, match="negative integer powers"):
        ux.power.reduce(np.array([2, 3, -1]))


def test_failed_reduce_leaves_out_unchanged():
    out = np.full(3, 7.0)
    with pytest.raises(ValueError):
        ux.maximum.reduce(np.ones((0, 3)), axis=0, out=out)
    assert (out == 7.0).all()


def test_out_aliasing_and_in_place_accumulate(rng):
    a = rng.standard_normal(1000)
    want = np.add.accumulate(a)
    b = a.copy()
    assert ux.add.accumulate(b, out=b) is b
    assert bits(b) == bits(want)
    c = a.copy()
    ux.add.accumulate(c[:-1], out=c[1:])  # overlapping: must read the input first
    d = a.copy()
    np.add.accumulate(d[:-1], out=d[1:])
    assert bits(c) == bits(d)
    m = rng.standard_normal((50, 40))
    out = m[:, 0]
    want = np.add.reduce(m, axis=1)
    ux.add.reduce(m, axis=1, out=out)
    assert bits(out) == bits(want)


def test_column_and_large_reductions(rng):
    m = rng.standard_normal((1000, 1000))
    for name in ("add", "maximum", "minimum", "fmax", "multiply"):
        for axis in (0, 1, None):
            assert_same(getattr(ux, name).reduce(m, axis=axis), getattr(np, name).reduce(m, axis=axis),
                        0, f"{name} axis={axis}")
    i = rng.integers(-1000, 1000, (300, 301))
    for name in ("add", "multiply", "bitwise_xor", "maximum", "bitwise_and"):
        for axis in (0, 1, None):
            assert_same(getattr(ux, name).reduce(i, axis=axis), getattr(np, name).reduce(i, axis=axis),
                        0, f"{name} int axis={axis}")
        assert_same(getattr(ux, name).accumulate(i, axis=0), getattr(np, name).accumulate(i, axis=0))
        assert_same(getattr(ux, name).accumulate(i, axis=1), getattr(np, name).accumulate(i, axis=1))


def test_outer_shapes_and_keywords():
    a, b = np.arange(6).reshape(2, 3), np.arange(4.0)
    assert_same(ux.multiply.outer(a, b), np.multiply.outer(a, b))
    assert ux.add.outer(1, 2) == np.add.outer(1, 2)
    assert_same(ux.add.outer(a, b, dtype=np.float32), np.add.outer(a, b, dtype=np.float32))
    out = np.zeros((2, 3, 4))
    assert ux.subtract.outer(a, b, out=out) is out
    assert_same(out, np.subtract.outer(a, b))
    q, r = ux.divmod.outer(np.arange(1, 4), np.arange(1, 3))
    wq, wr = np.divmod.outer(np.arange(1, 4), np.arange(1, 3))
    assert_same(q, wq)
    assert_same(r, wr)


def test_logical_reductions_promote_to_bool():
    for a in (np.array([1, 2, 0]), np.array([0.5, 0.0]), np.array([1 + 1j, 0j])):
        for name in ("logical_and", "logical_or", "logical_xor"):
            assert_same(getattr(ux, name).reduce(a), getattr(np, name).reduce(a), 0, name)
            assert_same(getattr(ux, name).accumulate(a), getattr(np, name).accumulate(a), 0, name)


def test_strided_multi_axis_reductions_follow_numpys_buffer_order(rng):
    # NumPy hands a reduced block that is not one run to the loop as one
    # buffer (pairwise over the whole block); the sums must match bit for bit.
    for trial in range(50):
        a = (rng.standard_normal((6, 10, 12)) * 10.0 ** rng.integers(-4, 3, (6, 10, 12))).astype(np.float32)
        for view, axis in ((a[:, ::2, ::2], (1, 2)), (a[::2, ::3, ::-1], None), (a.transpose(2, 1, 0), (0, 1)),
                           (a[:, ::3, :], 1)):
            assert bits(ux.add.reduce(view, axis=axis)) == bits(np.add.reduce(view, axis=axis)), (trial, axis)
        h = a[:, ::2, ::3].astype(np.float16)
        assert_same(ux.multiply.reduce(h, axis=(1, 2)), np.multiply.reduce(h, axis=(1, 2)), 0, "half")


@pytest.mark.parametrize("name", ["logical_and", "logical_or", "logical_xor"])
def test_logical_bool_reductions_every_length_and_position(name):
    # The Highway reduce slot of '??->?': one flipped element at every
    # position of every length around the vector widths, and bool views of
    # bytes other than 0 and 1 (NumPy counts any nonzero byte as true).
    nu, ux_f = getattr(np, name), getattr(ux, name)
    for n in range(0, 150):
        for fill in (False, True):
            for pos in sorted({0, n // 2, n - 1}) if n else [None]:
                a = np.full(n, fill)
                if pos is not None:
                    a[pos] = not fill
                assert ux_f.reduce(a) == nu.reduce(a), (n, fill, pos)
    raw = np.array([2, 0, 7, 1, 255] * 30, np.uint8)
    for n in (5, 64, 150):
        b = raw[:n].view(np.bool_)
        assert ux_f.reduce(b) == nu.reduce(b)
        assert ux_f.reduce(b[::-1]) == nu.reduce(b[::-1])


@pytest.mark.parametrize("name", ["maximum", "minimum", "fmax", "fmin", "add", "multiply",
                                  "bitwise_xor", "logical_or"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.uint32, np.bool_])
def test_large_reductions_split_over_threads_match_numpy(name, dtype, rng):
    # Over 2 MiB: reductions run on two threads where that cannot change a
    # bit: selections and integer and bool arithmetic and logic in pieces
    # of dim 0; any ufunc when dim 0 is kept (split in pieces) or reduced
    # with another dim kept (that dim split in halves). Every case must
    # equal NumPy's result exactly.
    ufunc, ref = getattr(ux, name), getattr(np, name)
    if np.dtype(dtype).kind == "f" and name.startswith("bitwise"):
        return  # no float loops (TypeError, as in NumPy: test_reduce covers errors)
    n = (3 << 20) // np.dtype(dtype).itemsize + 37
    if np.dtype(dtype).kind == "f":
        a = rng.standard_normal(n).astype(dtype)
        if name == "multiply":
            a = (1 + a * 1e-3).astype(dtype)
        a[[5, n // 2 + 3, n - 2]] = np.nan  # NaNs in several pieces
        a[n // 3] = -0.0
    elif dtype == np.bool_:
        a = rng.random(n) < 0.001
    else:
        a = rng.integers(0, 1 << 20, n).astype(dtype)
    for arr in (a, a[::-1], a.reshape(-1, 1)[:, 0]):
        assert_same(ufunc.reduce(arr), ref.reduce(arr))
    m = a[: (n // 1000) * 1000].reshape(-1, 1000)
    for axis in (0, 1):
        assert_same(ufunc.reduce(m, axis=axis), ref.reduce(m, axis=axis))
        assert_same(ufunc.reduce(m.T, axis=axis), ref.reduce(m.T, axis=axis))
    out = np.empty(1000, dtype=m.dtype)
    assert_same(ufunc.reduce(m, axis=0, out=out), ref.reduce(m, axis=0, out=np.empty_like(out)))
    cube = a[: (n // 2000) * 2000].reshape(-1, 80, 25)  # dim 0 reduced, the kept 80 split
    for axis in (0, (0, 2), (0, 1)):
        assert_same(ufunc.reduce(cube, axis=axis), ref.reduce(cube, axis=axis))
    for view in (m[:, ::-3], m[::-1], m[::-2, 7:]):
        assert_same(ufunc.reduce(view, axis=0), ref.reduce(view, axis=0))


@pytest.mark.parametrize("name", ["add", "multiply", "maximum", "minimum", "bitwise_xor",
                                  "logical_or", "subtract", "fmax"])
@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint16, np.float64])
@pytest.mark.parametrize("mib", [3, 20])
def test_large_scans_split_over_threads_match_numpy(name, dtype, mib, rng):
    # Over 2 MiB: 1-D integer scans of associative ops run on two threads.
    # Up to 32 MiB of operand and result, halves are scanned apart and the
    # second offset by the first's last value; beyond, one thread reduces
    # the head while the other scans it, then scans and offsets the tail
    # chunk by chunk (not in place). Float scans and non-associative ops
    # (subtract) stay sequential. Every case must equal NumPy's result
    # exactly, wrap-around included.
    ufunc, ref = getattr(ux, name), getattr(np, name)
    n = (mib << 20) // np.dtype(dtype).itemsize + 11
    if np.dtype(dtype).kind == "f":
        if name.startswith("bitwise"):
            return  # no float loops
        a = rng.standard_normal(n).astype(dtype)
        a[n // 2 + 1] = np.nan
    else:
        a = rng.integers(0, np.iinfo(dtype).max, n, dtype=dtype)
        if name == "multiply":
            a = (a % 7 + 1).astype(dtype)  # wraps many times
    for arr in (a, a[::-1], a[::3]):
        assert_same(ufunc.accumulate(arr), ref.accumulate(arr))
    out = np.empty_like(a)
    assert_same(ufunc.accumulate(a, out=out), ref.accumulate(a, out=np.empty_like(a)))
    b, c = a.copy(), a.copy()
    ufunc.accumulate(b, out=b)  # in place
    ref.accumulate(c, out=c)
    assert_same(b, c)


@pytest.mark.parametrize("call", [
    lambda m: m.equal.reduce(np.arange(3), axis=5),
    lambda m: m.equal.accumulate(np.arange(3), axis=5),
    lambda m: m.equal.reduceat(np.arange(3), [0], axis=5),
    lambda m: m.equal.reduceat(np.arange(3.0), [-1]),
    lambda m: m.gcd.reduceat(np.arange(3.0), [7]),
    lambda m: m.gcd.reduceat(np.arange(3.0), [0], out=np.empty(1)),
    lambda m: m.sqrt.reduce(np.arange(3), axis=5),
    lambda m: m.equal.reduceat(np.arange(3), [0]),
    lambda m: m.ldexp.reduce(np.ones(3, np.float16), dtype=np.float16),  # dtype is every operand's
])
def test_argument_errors_come_before_missing_loops(call):
    # NumPy checks the method's ufunc, the axis and reduceat's indices before
    # it looks for a loop: a bad axis is an AxisError even for a ufunc (equal,
    # gcd on floats) that has no reduction loop for the operand.
    with pytest.raises(Exception) as want:
        call(np)
    with pytest.raises(Exception) as got:
        call(ux)
    if isinstance(want.value, TypeError):  # NumPy's UFuncTypeError is one
        assert isinstance(got.value, TypeError)
    else:
        assert type(got.value) is type(want.value)
        assert str(got.value) == str(want.value)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_large_reduceat_splits_segments_over_threads(dtype, rng):
    # 1-D reduceat over 2 MiB and more reduces its segments on two threads
    # (each segment as on one thread): NumPy's results bit for bit, with
    # decreasing, repeated and last-segment indices, into out= as well.
    n = (3 << 20) // np.dtype(dtype).itemsize + 5
    a = (rng.standard_normal(n) * 100).astype(dtype)
    idx = np.sort(rng.choice(n, 997, replace=False))
    idx[0] = 0
    idx = np.concatenate([idx, [idx[500], 3, 3, n - 1], idx[::-7]])
    for name in ("add", "maximum", "multiply"):
        assert_same(getattr(ux, name).reduceat(a, idx), getattr(np, name).reduceat(a, idx))
    out = np.empty(len(idx), dtype)
    assert_same(ux.add.reduceat(a, idx, out=out), np.add.reduceat(a, idx))
    assert_same(out, np.add.reduceat(a, idx))
    assert_same(ux.add.reduceat(a[::-1], idx), np.add.reduceat(a[::-1], idx))
    if dtype == np.int64:  # a failing segment on either thread raises NumPy's error
        bad = np.tile(np.array([2, 1, -1], np.int64), n // 3)
        with pytest.raises(ValueError, match="negative integer powers"):
            ux.power.reduceat(bad, np.arange(0, len(bad), 1000))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_large_float_sums_split_at_the_pairwise_midpoint(dtype, rng):
    # Over 2 MiB, a 1-D float add.reduce sums the two halves of NumPy's
    # pairwise split on two threads: bit for bit NumPy's sum, signed zeros,
    # infinities and cancellation included.
    n = (5 << 20) // np.dtype(dtype).itemsize + 13
    cases = [rng.standard_normal(n).astype(dtype),
             np.full(n, -0.0, dtype),
             np.concatenate([np.full(n // 2, 1e30, dtype), np.full(n - n // 2, -1e30, dtype)]),
             np.where(np.arange(n) == n - 3, np.inf, 1.0).astype(dtype)]
    cases[3][5] = -np.inf  # inf - inf in different halves: NaN
    for a in cases:
        for v in (a, a[::-1], a[1::2], a[: n // 2 + 7]):
            got, want = ux.add.reduce(v), np.add.reduce(v)
            assert np.asarray(got).tobytes() == np.asarray(want).tobytes()
        assert np.asarray(ux.add.reduce(a, initial=-0.0)).tobytes() == \
            np.asarray(np.add.reduce(a, initial=-0.0)).tobytes()


@pytest.mark.parametrize("call", [
    lambda m: m.equal.reduce(np.ones((2, 2), bool), axis=None),  # loop found, then not reorderable
    lambda m: m.equal.reduce(np.ones((2, 2)), axis=None),  # no reduction loop first
    lambda m: m.ldexp.reduce(np.ones((2, 2, 2), np.uint8), axis=(0, 2), dtype=np.float16),
    lambda m: m.ldexp.reduce(np.ones(3, np.float16), dtype=np.float16),
    lambda m: m.ldexp.reduce(np.array(3, np.uint32), axis=0, dtype=np.float32),
    lambda m: m.ldexp.reduce(np.ones(3, np.uint8), dtype=np.float16),
    lambda m: m.add.reduce(np.ones(3), dtype=np.int8),
    lambda m: m.logical_and.reduce(np.ones(3, np.uint32), dtype=bool),
    lambda m: m.equal.accumulate(np.ones(2, np.float32), dtype=bool),
])
def test_reduce_dtype_resolution_matches_numpy(call):
    # dtype= is every operand's type when the ufunc has that loop (add,
    # comparisons and logic with bool); otherwise (ldexp) it fixes the
    # accumulator and the operand casts safely to its slot. The loop is
    # resolved before the reorderable check.
    try:
        want = call(np)
    except (TypeError, ValueError) as e:
        with pytest.raises(TypeError if isinstance(e, TypeError) else ValueError):
            call(ux)
        return
    assert_same(call(ux), want)


@pytest.mark.parametrize("shape,axis", [((4, 6), None), ((3, 4, 6), (1, 2)), ((5, 6), (0, 1))])
def test_masked_float_sum_runs_cross_rows_as_numpys_buffer(shape, axis):
    # NumPy hands a block reduced into one element to the masked loop as one
    # buffer; each run of true positions in it (a run may continue from one
    # row into the next) is summed pairwise, then added. Values of mixed
    # magnitude make any other grouping show in the last bits.
    rng = np.random.default_rng(7)
    for _ in range(20):
        a = rng.standard_normal(shape) * 10.0 ** rng.integers(-3, 4, shape)
        mask = rng.random(shape[-1]) > 0.3
        got = ux.add.reduce(a, axis=axis, where=mask)
        want = np.add.reduce(a, axis=axis, where=mask)
        assert np.asarray(got).tobytes() == np.asarray(want).tobytes(), (got, want)


def test_a_non_reorderable_reduce_over_axes_is_refused_before_initial_is_read():
    # NumPy: the loop, then the axes, then initial (-1 does not fit uint8)
    a = np.zeros((1, 4), np.uint8)
    for m in (np, ux):
        with pytest.raises(ValueError, match="'remainder' is not reorderable"):
            m.remainder.reduce(a, axis=None, keepdims=True, initial=-1)


def test_transcendental_reduce_folds_in_order():
    # out = f(out, x) element after element. (NumPy's AVX-512 arctan2 and
    # power loops, given the reduce's aliased accumulator, compute every
    # element from the first and keep the last: 2.8198 here; its AVX2 and
    # baseline loops fold, as ufuncx does.)
    import math
    x = np.array([0.5, 2.0, -1.5])
    fold = pytest.approx  # (each step within an ULP or so of libm's)
    assert ux.arctan2.reduce(x) == fold(math.atan2(math.atan2(0.5, 2.0), -1.5), rel=1e-14)
    assert ux.arctan2.reduce(x, initial=1.0) == fold(
        math.atan2(math.atan2(math.atan2(1.0, 0.5), 2.0), -1.5), rel=1e-14)
    y = np.array([1.5, 0.5, 3.0])
    assert ux.power.reduce(y) == fold((1.5 ** 0.5) ** 3.0, rel=1e-14)


def test_accumulate_and_reduceat_take_axis_none_on_one_dimension():
    # axis=None names all the axes: the one of a 1-D operand; more is
    # NumPy's ValueError, a 0-d operand its TypeError.
    x = np.arange(1, 6, dtype=np.int64)
    assert_same(ux.add.accumulate(x, axis=None), np.add.accumulate(x, axis=None))
    assert_same(ux.multiply.reduceat(x, [0, 2], axis=None), np.multiply.reduceat(x, [0, 2], axis=None))
    with pytest.raises(ValueError, match="accumulate does not allow multiple axes"):
        ux.add.accumulate(np.ones((2, 2)), axis=None)
    with pytest.raises(ValueError, match="reduceat does not allow multiple axes"):
        ux.add.reduceat(np.ones((2, 2)), [0], axis=None)
    with pytest.raises(TypeError, match="cannot accumulate on a scalar"):
        ux.add.accumulate(np.float64(3), axis=None)
