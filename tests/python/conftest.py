"""Shared helpers for the differential tests against NumPy 2.x."""
import os
import pathlib
import sys
import tomllib


def _numpy_without_avx512():
    """NumPy 2.4's AVX-512 (X86_V4) bodies of float power and arctan2 give
    wrong reductions: the body reads the accumulator once per vector, so
    np.arctan2.reduce([1.2, 0.7, 1.9]) is arctan2(1.2, 1.9). The oracle runs
    NumPy's AVX2 bodies instead, as on the machines without AVX-512."""
    try:
        with open("/proc/cpuinfo") as f:
            avx512 = " avx512f" in f.read()
    except OSError:
        return
    if avx512 and "numpy" not in sys.modules:
        os.environ.setdefault("NPY_DISABLE_CPU_FEATURES", "X86_V4")


_numpy_without_avx512()

import numpy as np  # noqa: E402
import pytest

import ufuncx as ux

ROOT = pathlib.Path(__file__).resolve().parents[2]
# NumPy's generalized ufuncs (tests/python/test_gufunc.py) and the
# datetime-only ufunc ufuncx does not support.
GUFUNCS = {"matmul", "vecdot", "matvec", "vecmat"}
NOT_ELEMENTWISE = GUFUNCS | {"isnat"}


def _table():
    with open(ROOT / "ufuncs" / "ufuncs.toml", "rb") as f:
        return {u["name"]: u for u in tomllib.load(f)["ufunc"]}


TABLE = _table()


def numpy_ufunc_names():
    names = set()
    for n in dir(np):
        u = getattr(np, n)
        if isinstance(u, np.ufunc) and u.__name__ not in NOT_ELEMENTWISE:
            names.add(u.__name__)
    return sorted(names)


def numpy_types(u):
    """NumPy's loop list in ufuncx's notation (64-bit ints as l/L, no q/Q)."""
    out = []
    for t in u.types:
        if any(c in t for c in "OmM"):
            continue
        t = t.replace("q", "l").replace("Q", "L")
        if t not in out:
            out.append(t)
    return out


@pytest.fixture(scope="session")
def rng():
    return np.random.default_rng(12345)


def special_values(dtype):
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return np.array([True, False, True, True, False], dtype=dt)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        vals = [0, 1, 2, 3, 7, info.max, info.max - 1, info.min, info.min + 1]
        if dt.kind == "i":
            vals += [-1, -2, -3, -7]
        return np.array(vals, dtype=dt)
    if dt.kind == "f":
        info = np.finfo(dt)
        vals = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, np.inf, -np.inf, np.nan,
                float(info.tiny), float(info.tiny) / 4, -float(info.tiny) / 4,
                float(info.max), -float(info.max), float(info.eps), 100.0, -7.25]
        return np.array(vals, dtype=dt)
    real = special_values(np.empty(0, dt).real.dtype)
    return (real[:, None] + 1j * real[None, ::3]).ravel().astype(dt)


def random_values(dtype, n, rng):
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.integers(0, 2, n).astype(dt)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        small = rng.integers(max(info.min, -100), min(info.max, 100), n // 2, endpoint=True)
        big = rng.integers(info.min, info.max, n - n // 2, endpoint=True, dtype=dt)
        return np.concatenate([small.astype(dt), big])
    if dt.kind == "f":
        a = rng.standard_normal(n) * 10.0 ** rng.integers(-3, 4, n)
        return a.astype(dt)
    return (random_values(np.empty(0, dt).real.dtype, n, rng)
            + 1j * random_values(np.empty(0, dt).real.dtype, n, rng)).astype(dt)


def outcome(call):
    """What call() ends with, for comparing against an oracle: "ok", or the
    exception's class and words."""
    try:
        call()
        return "ok"
    except Exception as e:  # noqa: BLE001 (class and words are the result)
        return f"{type(e).__name__}: {e}"


def assert_same(actual, expected, ulp=0, what=""):
    """Bit-identical for ints and bools; floats equal (NaN == NaN, same
    infinities) within `ulp` units in the last place."""
    actual = np.asarray(actual)
    expected = np.asarray(expected)
    assert actual.dtype == expected.dtype, f"{what}: dtype {actual.dtype} != {expected.dtype}"
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != {expected.shape}"
    if expected.dtype.kind in "biu":
        np.testing.assert_array_equal(actual, expected, err_msg=what)
        return
    if expected.dtype.kind == "c":
        assert_same(actual.real, expected.real, ulp, what + " (real)")
        assert_same(actual.imag, expected.imag, ulp, what + " (imag)")
        return
    a = actual.astype(np.longdouble if expected.dtype == np.longdouble else np.float64)
    e = expected.astype(a.dtype)
    nan_a, nan_e = np.isnan(a), np.isnan(e)
    bad = nan_a != nan_e
    both = ~nan_a & ~nan_e
    inf = np.isinf(e) | np.isinf(a)
    bad |= both & inf & (a != e)
    finite = both & ~inf
    if ulp == 0:
        bad |= finite & (a != e)
    else:
        sp = np.spacing(np.maximum(np.abs(e), np.finfo(expected.dtype).tiny).astype(expected.dtype))
        sp = np.abs(sp.astype(a.dtype))
        bad |= finite & (np.abs(a - e) > ulp * sp)
    if bad.any():
        idx = np.flatnonzero(bad.ravel())[:8]
        raise AssertionError(
            f"{what}: {bad.sum()} mismatches (ulp={ulp}); first at {idx}: "
            f"got {actual.ravel()[idx]}, expected {expected.ravel()[idx]}")


def run_held_to(target, code, *args):
    """The JSON that `code` prints, run in a child process with ufuncx held
    to a SIMD target (UFUNCX_SIMD_TARGET; None: the CPU's best)."""
    import json
    import os
    import subprocess
    import sys
    env = dict(os.environ)
    env.pop("UFUNCX_SIMD_TARGET", None)
    if target is not None:
        env["UFUNCX_SIMD_TARGET"] = target
    out = subprocess.run([sys.executable, "-c", code, *args], env=env, check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)
