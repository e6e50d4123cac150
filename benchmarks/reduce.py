"""Times ufuncx's reduce family and gufuncs against NumPy, side by side in one run.

    python benchmarks/reduce.py           # float32/float64 at 1e6 and 1e7
    python benchmarks/reduce.py --quick   # 1e6 only

Cells are min-of-repeats time(ufuncx) / time(numpy) on the same arrays;
< 1.0 means ufuncx is faster. Results are checked equal before timing.
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np

import ufuncx as ux
from run import best_time


def cases(dtype, n, rng):
    a = (rng.random(n) * 4 - 2).astype(dtype)
    side = 1000
    m = (rng.random((side, side)) * 4 - 2).astype(dtype)
    seg = np.sort(rng.choice(n, 1000, replace=False))
    seg[0] = 0
    v = (rng.random(1000) * 4 - 2).astype(dtype)
    return [
        ("add.reduce", "contiguous", lambda f: f.add.reduce(a)),
        ("maximum.reduce", "contiguous", lambda f: f.maximum.reduce(a)),
        ("add.reduce", "1000x1000 axis=0", lambda f: f.add.reduce(m, axis=0)),
        ("add.reduce", "1000x1000 axis=1", lambda f: f.add.reduce(m, axis=1)),
        ("maximum.reduce", "1000x1000 axis=0", lambda f: f.maximum.reduce(m, axis=0)),
        ("maximum.reduce", "1000x1000 axis=1", lambda f: f.maximum.reduce(m, axis=1)),
        ("add.accumulate", "contiguous", lambda f: f.add.accumulate(a)),
        ("add.reduceat", "1000 segments", lambda f: f.add.reduceat(a, seg)),
        ("multiply.outer", "1000x1000", lambda f: f.multiply.outer(v, v)),
    ]


def check(name, x, y, dtype):
    if name in ("matmul",):
        np.testing.assert_allclose(x, y, rtol=1e-3, atol=1e-4 if dtype == "float32" else 1e-10)
    else:
        np.testing.assert_array_equal(x, y)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true")
    a = p.parse_args()
    sizes = [10**6] if a.quick else [10**6, 10**7]
    rng = np.random.default_rng(0)
    rows = []
    for dtype in ["float32", "float64"]:
        for n in sizes:
            for name, layout, fn in cases(dtype, n, rng):
                if layout != "contiguous" and name != "add.reduceat" and n != sizes[0]:
                    continue  # fixed-size cases once per dtype
                check(name, fn(ux), fn(np), dtype)
                tn, tu = best_time(lambda: fn(np)), best_time(lambda: fn(ux))
                rows.append((name, dtype, layout, n if layout in ("contiguous", "1000 segments") else "", tu / tn, tn))
        mats = [(rng.random((512, 512)) - 0.5).astype(dtype) for _ in range(2)]
        check("matmul", ux.matmul(*mats), np.matmul(*mats), dtype)
        time.sleep(0.3)
        # OpenBLAS's threads spin for about 0.1 s after NumPy's matmul and
        # hold the second core: ufuncx's product then takes its one-thread
        # time (about 2x). Each library is timed on settled cores.
        tu = best_time(lambda: ux.matmul(*mats))
        tn = best_time(lambda: np.matmul(*mats))
        time.sleep(0.3)
        rows.append(("matmul", dtype, "512x512", "", tu / tn, tn))
    for dtype in ["int64"]:
        for n in sizes:
            x = rng.integers(-1000, 1000, n).astype(dtype)
            np.testing.assert_array_equal(ux.add.accumulate(x), np.add.accumulate(x))
            tn, tu = best_time(lambda: np.add.accumulate(x)), best_time(lambda: ux.add.accumulate(x))
            rows.append(("add.accumulate", dtype, "contiguous", n, tu / tn, tn))
    print(f"numpy {np.__version__}; ufuncx SIMD targets {sorted(set(ux.simd_targets().values()))}; "
          f"cpus {os.cpu_count()}")
    print("| method | dtype | case | n | ufuncx/numpy | numpy ms |")
    print("|---|---|---|---|---|---|")
    for name, dtype, layout, n, ratio, tn in rows:
        ns = f"{n:.0e}" if n else ""
        print(f"| {name} | {dtype} | {layout} | {ns} | {ratio:.2f} | {tn * 1e3:.3f} |")


if __name__ == "__main__":
    main()
