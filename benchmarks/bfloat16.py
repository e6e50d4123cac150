"""bfloat16 scatter and elementwise math: ufuncx against torch (bfloat16
tensors, 1 thread) and JAX (CPU, jit-compiled, bfloat16 arrays), in one run.

    python benchmarks/bfloat16.py [--quick]

Each row prints milliseconds per call (min of repeats) for ufuncx, torch and
JAX, and the rivals' times over ufuncx's (> 1.0 means ufuncx is faster).
The scatters are functional in JAX (a new array per call), in place in
torch and ufuncx (ufuncx.at and torchlike; ufuncx.scatter is functional).
"""
from __future__ import annotations

import argparse
import os
import timeit

os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false "
                                   "intra_op_parallelism_threads=1")

import ml_dtypes  # noqa: E402
import numpy as np  # noqa: E402

import ufuncx as ux  # noqa: E402

bf16 = ml_dtypes.bfloat16


def best(f, number, repeat):
    return min(timeit.repeat(f, number=number, repeat=repeat)) / number


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true")
    args = p.parse_args()
    import jax
    import jax.numpy as jnp
    import torch
    torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    scale = 4 if args.quick else 1
    rows, n, width = 100_000 // scale, 200_000 // scale, 16
    flat_n = 1_000_000 // scale
    target = np.zeros((rows, width), bf16)
    index = rng.integers(0, rows, n)
    source = rng.standard_normal((n, width)).astype(bf16)
    flat = np.zeros(rows, bf16)
    flat_index = rng.integers(0, rows, flat_n)
    flat_values = rng.standard_normal(flat_n).astype(bf16)
    a = rng.standard_normal(flat_n).astype(bf16)
    b = rng.standard_normal(flat_n).astype(bf16)

    def tensor(x):
        return torch.from_numpy(x.view(np.int16)).view(torch.bfloat16)

    t_target, t_index, t_source = tensor(target.copy()), torch.from_numpy(index), tensor(source)
    t_flat, t_flat_index, t_flat_values = (tensor(flat.copy()), torch.from_numpy(flat_index),
                                           tensor(flat_values))
    t_a, t_b = tensor(a), tensor(b)
    j_target, j_index, j_source = jnp.asarray(target), jnp.asarray(index), jnp.asarray(source)
    j_flat, j_flat_index, j_flat_values = (jnp.asarray(flat), jnp.asarray(flat_index),
                                           jnp.asarray(flat_values))
    j_a, j_b = jnp.asarray(a), jnp.asarray(b)
    rows_add = jax.jit(lambda x, i, v: x.at[i].add(v))
    jadd = jax.jit(lambda x, y: x + y)
    jexp = jax.jit(jnp.exp)
    ux_target = target.copy()

    def block(f):
        return lambda: f().block_until_ready()

    cases = [
        (f"add.at: {flat_n} values into [{rows}]",
         lambda: ux.add.at(flat, flat_index, flat_values),
         lambda: t_flat.index_add_(0, t_flat_index, t_flat_values),
         block(lambda: rows_add(j_flat, j_flat_index, j_flat_values)), 3),
        (f"row scatter-add: {n} rows of {width} into [{rows},{width}]",
         lambda: ux.at(ux_target)[index].add(source),
         lambda: t_target.index_add_(0, t_index, t_source),
         block(lambda: rows_add(j_target, j_index, j_source)), 3),
        (f"torchlike.index_add_ (same rows, in place)",
         lambda: ux.torchlike.index_add_(ux_target, 0, index, source),
         lambda: t_target.index_add_(0, t_index, t_source),
         block(lambda: rows_add(j_target, j_index, j_source)), 3),
        (f"add: {flat_n} elements",
         lambda: ux.add(a, b), lambda: t_a + t_b, block(lambda: jadd(j_a, j_b)), 10),
        (f"exp: {flat_n} elements",
         lambda: ux.exp(a), lambda: torch.exp(t_a), block(lambda: jexp(j_a)), 10),
    ]
    print(f"numpy {np.__version__}; torch {torch.__version__} (1 thread); jax {jax.__version__} "
          f"(CPU); ml_dtypes {ml_dtypes.__version__}")
    print(f"{'case':58s} {'ufuncx ms':>9s} {'torch ms':>9s} {'jax ms':>9s} "
          f"{'torch/ux':>8s} {'jax/ux':>7s}")
    for name, fu, ft, fj, number in cases:
        for f in (fu, ft, fj):
            f()  # warm up (and compile)
        tu = best(fu, number, 5)
        tt = best(ft, number, 5)
        tj = best(fj, number, 5)
        print(f"{name:58s} {tu * 1e3:9.3f} {tt * 1e3:9.3f} {tj * 1e3:9.3f} "
              f"{tt / tu:8.2f} {tj / tu:7.2f}")


if __name__ == "__main__":
    main()
