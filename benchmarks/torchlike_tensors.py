"""ufuncx.torchlike on torch tensors against the same call on NumPy arrays
(the cost of taking tensors: one Tensor.numpy() per argument), and against
torch's own method (1 thread), in one run.

    python benchmarks/torchlike_tensors.py [--quick]

Each row prints milliseconds per call (min of repeats) on arrays and on
tensors, tensors/arrays (1.00 = free), and torch's time over ufuncx's on
tensors (> 1.0 means ufuncx is faster).
"""
from __future__ import annotations

import argparse
import timeit

import numpy as np

import ufuncx as ux

tl = ux.torchlike


def best(f, number, repeat):
    return min(timeit.repeat(f, number=number, repeat=repeat)) / number


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true")
    args = p.parse_args()
    import torch
    torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    scale = 4 if args.quick else 1
    rows, n = 100_000 // scale, 200_000 // scale
    target = np.zeros((rows, 16), np.float32)
    index = rng.integers(0, rows, n)
    source = rng.standard_normal((n, 16)).astype(np.float32)
    small = np.zeros((1000, 16), np.float32)
    index2 = rng.integers(0, 1000, (n // 2, 16))
    source2 = rng.standard_normal((n // 2, 16)).astype(np.float32)
    few_index, few_source = index[:2] % 1000, source[:2].copy()
    t = {k: torch.from_numpy(v.copy()) for k, v in
         dict(target=target, index=index, source=source, small=small, index2=index2,
              source2=source2, few_index=few_index, few_source=few_source).items()}
    cases = [
        (f"index_add_ [{rows},16] <- {n} rows",
         lambda: tl.index_add_(target, 0, index, source),
         lambda: tl.index_add_(t["target"], 0, t["index"], t["source"]),
         lambda: t["target"].index_add_(0, t["index"], t["source"]), 10),
        (f"scatter_reduce_ amax [1000,16] <- [{n // 2},16]",
         lambda: tl.scatter_reduce_(small, 0, index2, source2, "amax"),
         lambda: tl.scatter_reduce_(t["small"], 0, t["index2"], t["source2"], "amax"),
         lambda: t["small"].scatter_reduce_(0, t["index2"], t["source2"], "amax"), 3),
        ("index_add_ of 2 rows into [1000,16]",
         lambda: tl.index_add_(small, 0, few_index, few_source),
         lambda: tl.index_add_(t["small"], 0, t["few_index"], t["few_source"]),
         lambda: t["small"].index_add_(0, t["few_index"], t["few_source"]), 2000),
    ]
    print(f"numpy {np.__version__}; torch {torch.__version__} (1 thread)")
    for name, on_arrays, on_tensors, torch_itself, number in cases:
        a = best(on_arrays, number, 5)
        b = best(on_tensors, number, 5)
        c = best(torch_itself, number, 5)
        print(f"{name:46s} arrays {a * 1e3:9.4f} ms  tensors {b * 1e3:9.4f} ms  "
              f"tensors/arrays {b / a:5.2f}  torch {c * 1e3:9.4f} ms ({c / b:5.2f}x)")


if __name__ == "__main__":
    main()
