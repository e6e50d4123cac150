"""Inputs that end (or start) exactly at an inaccessible page: a loop that
reads one byte past its view's last element, or before its first, takes a
segmentation fault here instead of going unnoticed; its results must be
those of a contiguous copy, bit for bit. Run in a child process
held to each SIMD target the strided and contiguous slots have bodies for
(a fault kills the child, and the test sees its exit status)."""
import json
import subprocess
import sys

import pytest

CHILD = r"""
import ctypes, json, mmap, sys
import numpy as np
import ufuncx as ux

PAGE = mmap.PAGESIZE
libc = ctypes.CDLL(None, use_errno=True)
libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
PROT_NONE = 0

# Three pages, the outer two inaccessible; views live in the middle one.
area = mmap.mmap(-1, 3 * PAGE)
base = ctypes.addressof(ctypes.c_char.from_buffer(area))
assert libc.mprotect(base, PAGE, PROT_NONE) == 0
assert libc.mprotect(base + 2 * PAGE, PAGE, PROT_NONE) == 0

def guarded(dtype, n, step, at_end):
    # n elements at `step`, the last ending at the upper guard (at_end) or
    # the first starting at the lower one.
    item = np.dtype(dtype).itemsize
    span = ((n - 1) * step + 1) * item if n else 0
    offset = 2 * PAGE - span if at_end else PAGE
    flat = np.frombuffer(area, dtype, count=span // item, offset=offset)
    rng = np.random.default_rng(n * 7 + step)
    if np.dtype(dtype).kind == "f":
        flat[:] = rng.random(flat.size) * 4 - 2
    else:
        flat[:] = rng.integers(1, 60, flat.size)
    return flat[::step]

checked = 0
for name in sys.argv[1].split(","):
    f, g = getattr(ux, name), getattr(np, name)
    for dtype in ("float32", "float64", "int32", "int64"):
        if f.nin == 2:
            try:
                g(np.ones(1, dtype), np.ones(1, dtype))
            except TypeError:
                continue
        else:
            try:
                g(np.ones(1, dtype))
            except TypeError:
                continue
        for step in (1, 2, 3, 4, 5):
            for n in list(range(0, 41)) + [255, 333]:
                if ((n - 1) * step + 1) * np.dtype(dtype).itemsize > PAGE:
                    continue
                for at_end in (True, False):
                    x = guarded(dtype, n, step, at_end)
                    with np.errstate(all="ignore"):
                        if f.nin == 2:
                            y = np.arange(n, dtype=dtype) % 5 + 1
                            got, want = f(x, y), f(x.copy(), y)
                            got2, want2 = f(y, x), f(y, x.copy())
                            assert np.array_equal(got2, want2, equal_nan=True), (name, dtype, step, n)
                        else:
                            got, want = f(x), f(x.copy())
                    assert np.array_equal(got, want, equal_nan=True), (name, dtype, step, n)
                    checked += 1
print(json.dumps(checked))
"""

NAMES = ["add", "subtract", "maximum", "fmin", "less", "not_equal", "multiply", "negative",
         "absolute", "square", "sqrt", "isnan", "isinf", "isfinite", "signbit",
         "bitwise_count", "bitwise_and", "rint", "exp", "log2"]


# (a target the CPU lacks holds the loops to the best it has below it)
@pytest.mark.parametrize("target", [None, "AVX2", "SSE4", "SSSE3"])
def test_loops_read_nothing_outside_their_views(target):
    import os
    env = dict(os.environ)
    env.pop("UFUNCX_SIMD_TARGET", None)
    if target:
        env["UFUNCX_SIMD_TARGET"] = target
    r = subprocess.run([sys.executable, "-c", CHILD, ",".join(NAMES)], env=env,
                       capture_output=True, text=True)
    assert r.returncode == 0, (target, r.returncode, r.stderr[-2000:])
    assert json.loads(r.stdout) > 1000
