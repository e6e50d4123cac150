"""The SIMD bodies against NumPy on arrays long enough to run them (every
lane count, with tails), and the strided path that copies blocks through
scratch to run them (the table's `strided`): results are NumPy's bit for
bit, signed zeros, NaN and infinities included."""
import numpy as np
import pytest

import ufuncx as ux

SPECIAL = [0.0, -0.0, 0.5, -0.5, 1.5, 2.5, -2.5, 0.49999999999999994, 1e300, -1e-310,
           np.inf, -np.inf, np.nan, 4503599627370497.0, 3.4e38, -7.75]


def floats(dtype, n=1003, seed=0):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(n) * 100).astype(dtype)
    with np.errstate(over="ignore"):
        x[:len(SPECIAL)] = np.array(SPECIAL).astype(dtype)
    rng.shuffle(x)
    return x


def same_bits(got, want):
    assert got.dtype == want.dtype and got.shape == want.shape
    if got.dtype.kind == "f":
        assert np.array_equal(np.isnan(got), np.isnan(want))
        ok = ~np.isnan(want)
        assert np.array_equal(got[ok], want[ok])
        assert np.array_equal(np.signbit(got[ok]), np.signbit(want[ok]))  # signed zeros
    else:
        assert np.array_equal(got, want)


@pytest.mark.parametrize("name", ["rint", "floor", "ceil", "trunc", "sqrt", "reciprocal",
                                  "positive", "conjugate", "signbit", "isnan", "isinf",
                                  "isfinite"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("layout", ["contiguous", "step 3", "step -2", "2-D columns"])
def test_float_bodies_match_numpy_in_every_layout(name, dtype, layout):
    x = floats(dtype, 3 * 1003)
    if layout == "contiguous":
        x = x[:1003]
    elif layout == "step 3":
        x = x[::3]
    elif layout == "step -2":
        x = x[::-2]
    else:
        x = x[:3000].reshape(1000, 3)[:, 1:]
    with np.errstate(all="ignore"):
        same_bits(getattr(ux, name)(x), getattr(np, name)(x))


@pytest.mark.parametrize("name", ["floor", "ceil", "trunc", "positive", "conjugate", "sign",
                                  "invert", "isnan", "isinf", "isfinite", "square"])
@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "uint16", "int32", "uint32",
                                   "int64", "uint64"])
def test_integer_bodies_match_numpy(name, dtype):
    info = np.iinfo(dtype)
    rng = np.random.default_rng(1)
    x = rng.integers(info.min, info.max, 1003, dtype=dtype, endpoint=True)
    x[:4] = [0, info.min, info.max, 1]
    for a in (x, x[::3]):
        same_bits(getattr(ux, name)(a), getattr(np, name)(a))


@pytest.mark.parametrize("name", ["left_shift", "right_shift"])
@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "uint16", "int32", "uint32",
                                   "int64", "uint64"])
def test_shifts_follow_numpy_for_counts_out_of_range(name, dtype):
    """Counts of the width or more, and negative counts, give NumPy's 0 or -1."""
    info = np.iinfo(dtype)
    bits = info.bits
    rng = np.random.default_rng(2)
    a = rng.integers(info.min, info.max, 1003, dtype=dtype, endpoint=True)
    counts = np.arange(-3, bits + 4)
    if info.min == 0:
        counts = counts[counts >= 0]
    b = np.resize(counts, 1003).astype(dtype)
    rng.shuffle(b)
    same_bits(getattr(ux, name)(a, b), getattr(np, name)(a, b))
    same_bits(getattr(ux, name)(a, b[0]), getattr(np, name)(a, b[0]))  # broadcast count


def test_integer_predicates_are_constants_without_reading():
    x = np.arange(10**5, dtype=np.int64)
    assert not ux.isnan(x).any() and not ux.isinf(x).any() and ux.isfinite(x).all()
    out = np.ones(10**5, bool)
    ux.isnan(x, out=out)
    assert not out.any()


def test_strided_in_place_through_scratch():
    """out is the very input, strided: each block is read before it is written."""
    x = floats("float64", 3000)
    want = np.floor(x[::3])
    ux.floor(x[::3], out=x[::3])
    same_bits(x[::3], want)
    y = floats("float32", 3000)
    keep = y[1::3].copy()
    with np.errstate(invalid="ignore"):
        want = np.sqrt(y[::3])
        ux.sqrt(y[::3], out=y[2::3])
    same_bits(y[2::3], want)
    same_bits(y[1::3], keep)


@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "divide", "conjugate",
                                  "square", "negative"])
def test_complex_loops_match_numpy(name):
    rng = np.random.default_rng(3)
    a = rng.standard_normal(1003) + 1j * rng.standard_normal(1003)
    b = rng.standard_normal(1003) + 1j * rng.standard_normal(1003)
    f, g = getattr(ux, name), getattr(np, name)
    args = (a, b) if g.nin == 2 else (a,)
    assert np.array_equal(f(*args), g(*args))
    strided = tuple(x[::3] for x in args)
    assert np.array_equal(f(*strided), g(*strided))
