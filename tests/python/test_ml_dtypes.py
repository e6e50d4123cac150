"""ml_dtypes' bfloat16, float8_e4m3fn and float8_e5m2 from Python, against
ml_dtypes' own NumPy loops (np.add on a bfloat16 array runs ml_dtypes'
loop), JAX and torch.

Results are compared bit for bit. The one allowance: where an arithmetic
result is NaN, only NaN-ness is compared, since the sign a NaN gets from
float arithmetic depends on the compiler's operand order (ml_dtypes' own
bit operations -- negative, abs, copysign, sign, the max/min family -- are
compared bit for bit, NaNs included)."""
import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest

import ufuncx as ux

ML = [ml_dtypes.bfloat16, ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2]
IDS = [np.dtype(t).name for t in ML]
# ufuncs whose ml_dtypes loops move bits without computing
BIT_EXACT = {"negative", "positive", "absolute", "fabs", "conjugate", "copysign", "sign",
             "maximum", "minimum", "fmax", "fmin", "nextafter", "spacing", "isnan", "isinf",
             "isfinite", "signbit", "equal", "not_equal", "less", "less_equal", "greater",
             "greater_equal", "floor", "ceil", "trunc", "rint"}


def every_value(t):
    d = np.dtype(t)
    return np.arange(2 ** (8 * d.itemsize), dtype=f"u{d.itemsize}").view(d)


def assert_same(r, e, exact):
    assert r.dtype == e.dtype and r.shape == e.shape
    if r.dtype.kind == "b" or r.dtype.kind in "iu":
        np.testing.assert_array_equal(r, e)
        return
    bits = f"u{r.dtype.itemsize}"
    same = r.view(bits) == e.view(bits)
    if not exact:
        with np.errstate(invalid="ignore"):
            same |= np.isnan(r.astype(np.float64)) & np.isnan(e.astype(np.float64))
    bad = np.flatnonzero(~same)
    assert bad.size == 0, (f"{bad.size} differ; first: {r.ravel()[bad[0]]!r} vs "
                           f"{e.ravel()[bad[0]]!r}")


def elementwise_names():
    return sorted(n for n in dir(ux) if isinstance(getattr(ux, n), ux.ufunc)
                  and hasattr(np, n) and isinstance(getattr(np, n), np.ufunc)
                  and getattr(ux, n).signature is None and n != "isnat")


def run(f, *args):
    with np.errstate(all="ignore"):
        try:
            out = f(*args)
        except TypeError as e:
            return e
    return out if isinstance(out, tuple) else (out,)


@pytest.mark.parametrize("t", ML, ids=IDS)
def test_every_ufunc_on_every_value_as_ml_dtypes(t):
    """Unary ufuncs on every bit pattern; binary ones on every pair (float8)
    or 300,000 random pairs with the special values (bfloat16)."""
    v = every_value(t)
    rng = np.random.default_rng(7)
    if v.size == 256:
        a, b = np.repeat(v, 256), np.tile(v, 256)
    else:
        a, b = v[rng.integers(0, v.size, 300_000)], v[rng.integers(0, v.size, 300_000)]
        special = v[np.r_[0, 1, 0x7f7f, 0x7f80, 0x7f81, 0x7fc0, 0x8000, 0xff80, 0xffc0, 0x3f80]]
        a, b = np.r_[a, np.repeat(special, 10)], np.r_[b, np.tile(special, 10)]
    checked = 0
    for name in elementwise_names():
        u, n = getattr(ux, name), getattr(np, name)
        args = (v,) if u.nin == 1 else (a, b)
        if name == "ldexp":
            args = (a, rng.integers(-12, 12, a.size).astype(np.int32))
        expected, got = run(n, *args), run(u, *args)
        if isinstance(expected, Exception):
            assert isinstance(got, TypeError), name
            continue
        assert not isinstance(got, Exception), (name, got)
        for r, e in zip(got, expected):
            assert_same(r, e, exact=name in BIT_EXACT)
        checked += 1
    assert checked > 70


PARTNERS = [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.int64, np.uint64,
            np.float16, np.float32, np.float64, np.complex64] + ML


@pytest.mark.parametrize("t", ML, ids=IDS)
@pytest.mark.parametrize("other", PARTNERS, ids=[np.dtype(p).name for p in PARTNERS])
def test_promotion_as_ml_dtypes(t, other):
    """bfloat16 + float16 -> float32, float8 + float8 of the other kind ->
    float32, float8 + bfloat16 -> bfloat16, int8 + float8 -> float8, ..."""
    x = np.array([1.5, -2.0, 3.25], t)
    y = np.array([1, 0, 1]).astype(other)
    for name in ("add", "maximum", "arctan2", "less", "copysign"):
        expected = run(getattr(np, name), x, y)
        got = run(getattr(ux, name), x, y)
        if isinstance(expected, Exception):
            assert isinstance(got, TypeError), name
            continue
        # (a float32 or float64 arctan2 runs its SIMD body: within the
        # table's bound of NumPy's; the narrow types round to the same value)
        check = same_within_table_ulp(name) if got[0].dtype.char in "fd" else \
            (lambda r, e: assert_same(r, e, exact=False))
        check(got[0], expected[0])
        check(run(getattr(ux, name), y, x)[0], run(getattr(np, name), y, x)[0])


def same_within_table_ulp(name):
    from conftest import TABLE
    from conftest import assert_same as assert_close
    return lambda r, e: assert_close(r, e, TABLE[name].get("ulp", 0), name)


def test_ml_loops_only_for_ml_inputs():
    """int8 casts safely to float8_e4m3fn, yet sqrt(int8) stays float16 and
    int8 + uint8 stays int16, as in NumPy with ml_dtypes loaded."""
    i8 = np.array([1, 4], np.int8)
    assert ux.sqrt(i8).dtype == np.float16
    assert ux.add(i8, np.array([1, 2], np.uint8)).dtype == np.int16
    assert ux.float_power(i8, i8).dtype == np.float64
    assert ux.degrees(np.array([1], ml_dtypes.bfloat16)).dtype == np.float32  # no ml loop


@pytest.mark.parametrize("t", ML, ids=IDS)
def test_scalars_nep50(t):
    x = np.array([1.5, -2.25, 3.0, 100.0], t)
    for s in (1.5, 3, -2, np.float64(2.5), np.int8(3), np.float32(0.1), t(2.5), True, 1e10):
        with np.errstate(all="ignore"):
            assert_same(ux.multiply(x, s), np.multiply(x, s), exact=False)
            assert_same(ux.subtract(s, x), np.subtract(s, x), exact=False)
    assert_same(ux.add(t(1.5), t(2)), np.asarray(np.add(t(1.5), t(2))), exact=True)


@pytest.mark.parametrize("t", ML, ids=IDS)
def test_reduce_family_rounds_every_step(t):
    """ml_dtypes reduces with its binary loop: every step rounds to the type
    (1000 ones in bfloat16 sum to 256), unlike NumPy's float16 pairwise sum."""
    rng = np.random.default_rng(3)
    x = (rng.standard_normal((5, 40)) * 3).astype(t)
    assert ux.add.reduce(np.ones(1000, ml_dtypes.bfloat16)) == 256
    # a non-empty reduction starts from its first element, not the identity
    assert np.signbit(ux.add.reduce(np.array([-0.0], t)))
    with pytest.raises(ValueError, match="no identity"):
        ux.logaddexp.reduce(np.array([], ml_dtypes.float8_e4m3fn))  # -inf: none in e4m3fn
    for name in ("add", "multiply", "maximum", "minimum", "fmax", "fmin", "logaddexp"):
        u, n = getattr(ux, name), getattr(np, name)
        with np.errstate(all="ignore"):
            for axis in (0, 1, None):
                assert_same(np.atleast_1d(u.reduce(x, axis=axis)),
                            np.atleast_1d(n.reduce(x, axis=axis)), exact=False)
            assert_same(u.accumulate(x, axis=1), n.accumulate(x, axis=1), exact=False)
            assert_same(u.reduceat(x, [0, 7, 30], axis=1), n.reduceat(x, [0, 7, 30], axis=1),
                        exact=False)
            assert_same(u.outer(x[0], x[1]), n.outer(x[0], x[1]), exact=False)
            assert_same(u.reduce(x, axis=1, dtype=np.float32),
                        n.reduce(x, axis=1, dtype=np.float32), exact=False)
            idx = rng.integers(-40, 40, 300)
            got, expected = x[0].copy(), x[0].copy()
            u.at(got, idx, x[1][idx])
            n.at(expected, idx, x[1][idx])
            assert_same(got, expected, exact=False)


@pytest.mark.parametrize("t", ML, ids=IDS)
def test_dtype_signature_out_where(t):
    name = np.dtype(t).name
    x = np.array([0.3, -1.7, 2.2, 9.0], np.float32)
    for dtype in (t, np.dtype(t), name):
        assert_same(ux.add(x, x, dtype=dtype), np.add(x, x, dtype=t), exact=True)
    assert_same(ux.add(x, 1, signature=(t, t, t)), np.add(x, 1, signature=(t, t, t)), exact=True)
    y = x.astype(t)
    assert_same(ux.add(y, y, dtype=np.float32), np.add(y, y, dtype=np.float32), exact=True)
    out, expected = np.zeros(4, t), np.zeros(4, t)
    ux.multiply(y, y, out=out, where=x > 0)
    np.multiply(y, y, out=expected, where=x > 0)
    assert_same(out, expected, exact=True)
    wide = np.zeros(4, np.float64)
    ux.add(y, y, out=wide)
    np.testing.assert_array_equal(wide, np.add(y, y, out=np.zeros(4, np.float64)))
    assert f"{ux.add.extra_types}".count("->") == 3


@pytest.mark.parametrize("t", ML, ids=IDS)
def test_scatter_bit_identical_to_jax(t):
    jax = pytest.importorskip("jax")  # installed by tools/test.sh
    import jax.numpy as jnp
    from jax import lax
    rng = np.random.default_rng(11)
    x = rng.standard_normal((40, 6)).astype(t)
    upd = rng.standard_normal((500, 6)).astype(t)
    idx = rng.integers(-45, 45, 500)
    for method in ("add", "multiply", "min", "max", "set"):
        for mode in ("drop", "clip"):
            expected = np.asarray(getattr(jnp.asarray(x).at[idx], method)(upd, mode=mode))
            got = getattr(ux.at(x)[idx], method)(upd, mode=mode)
            assert_same(got, expected, exact=True)
    dn = lax.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,),
                                     scatter_dims_to_operand_dims=(0,))
    rows = rng.integers(0, 40, (500, 1))
    expected = np.asarray(lax.scatter_add(jnp.asarray(x), jnp.asarray(rows), jnp.asarray(upd), dn))
    got = ux.scatter(x, rows, upd, update_window_dims=(1,), inserted_window_dims=(0,),
                     scatter_dims_to_operand_dims=(0,), index_vector_dim=1, combiner=ux.add)
    assert_same(np.asarray(got), expected, exact=True)
    assert jax.__version__


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_torchlike_reduced_float_tensors_as_torch(dtype):
    """bfloat16 (and float16) tensors in place, with torch's arithmetic:
    scatter_add_/scatter_reduce_ combine in float32, index_add_ in the type."""
    torch = pytest.importorskip("torch")  # installed by tools/test.sh
    from ufuncx import torchlike as tl
    dt = getattr(torch, dtype)
    self = torch.zeros(3, dtype=dt)
    src = torch.full((2000,), 0.1, dtype=dt)
    index = torch.zeros(2000, dtype=torch.long)
    for op, args in (("scatter_add_", (0, index, src)), ("index_add_", (0, index, src)),
                     ("scatter_reduce_", (0, index[:7], src[:7] * torch.arange(7, dtype=dt), "mean")),
                     ("scatter_reduce_", (0, index, src, "sum"))):
        target = self.clone()
        got = getattr(tl, op)(target, *args)
        assert got is target and got.dtype == dt
        assert torch.equal(got, getattr(self.clone(), op)(*args)), op
    out = tl.index_add(self, 0, index, src)
    assert out.dtype == dt and torch.equal(out, self.index_add(0, index, src))


def test_torchlike_float8_tensor_shares_storage():
    torch = pytest.importorskip("torch")
    from ufuncx import torchlike as tl
    t = torch.zeros(4, dtype=torch.float8_e4m3fn)
    src = torch.tensor([1.0, 2.0, 3.0]).to(torch.float8_e4m3fn)
    got = tl.index_copy_(t, 0, torch.tensor([3, 0, 1]), src)
    assert got is t
    assert t.float().tolist() == [2.0, 3.0, 0.0, 1.0]


def test_asctile_row_scatter_bfloat16():
    from ufuncx import asctile
    src = np.array([[1.5, 2, 3], [4, 5, 6]], ml_dtypes.bfloat16)
    dst = np.zeros((4, 3), ml_dtypes.bfloat16)
    asctile.scatter(src, 0, np.array([2, 0]), dst, [0])
    expected = np.zeros((4, 3), ml_dtypes.bfloat16)
    expected[[2, 0]] = src
    assert_same(dst, expected, exact=True)


def test_without_ml_dtypes_everything_else_works():
    code = """
import sys
sys.modules["ml_dtypes"] = None  # import ml_dtypes now fails
import numpy as np, ufuncx as ux
assert (ux.add(np.arange(3.), 1) == [1, 2, 3]).all()
assert ux.add.extra_types == ['44->4', '55->5', 'EE->E']
for spec in ("bfloat16", "float8_e4m3fn"):
    try:
        ux.add(np.arange(3.), 1, dtype=spec)
    except TypeError as e:
        assert "ml_dtypes" in str(e), e
    else:
        raise AssertionError(spec)
print("ok")
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "ok", out.stderr
