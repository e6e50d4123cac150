"""A plugin's SIMD loop against the built-in loop with the same kernel.

    python benchmarks/plugin.py

Builds benchmarks/plugin_table.toml with ufuncx-codegen (fmax_plugin: the
built-in fmax's scalar op and Highway body), loads it, and prints
time(plugin) / time(built-in) for calls and reductions; 1.0 is parity.
"""
import os
import pathlib
import subprocess
import sys
import tempfile

import numpy as np

import ufuncx as ux
from run import best_time


def main():
    here = pathlib.Path(__file__).resolve().parent
    out = pathlib.Path(tempfile.mkdtemp()) / "bench_kernels"
    r = subprocess.run([sys.executable, "-m", "ufuncx.codegen", str(here / "plugin_table.toml"),
                        "-o", str(out), "--build"], capture_output=True, text=True, check=True)
    ux.load_plugin(r.stdout.strip().splitlines()[-1])
    rng = np.random.default_rng(0)
    print(f"ufuncx SIMD targets {sorted(set(ux.simd_targets().values()))}; plugin loop target "
          f"{ux.loop_targets('fmax_plugin')['dd->d']}; cpus {os.cpu_count()}")
    print("| case | dtype | n | plugin/built-in |")
    print("|---|---|---|---|")
    for dt in ("float32", "float64"):
        for n in (10**4, 10**6):
            a, b = rng.random(n).astype(dt), rng.random(n).astype(dt)
            out_ = np.empty_like(a)
            np.testing.assert_array_equal(ux.fmax_plugin(a, b), ux.fmax(a, b))
            for case, fp, fb in (
                    ("call", lambda: ux.fmax_plugin(a, b, out=out_), lambda: ux.fmax(a, b, out=out_)),
                    ("reduce", lambda: ux.fmax_plugin.reduce(a), lambda: ux.fmax.reduce(a))):
                tb, tp = best_time(fb), best_time(fp)
                print(f"| {case} | {dt} | {n:.0e} | {tp / tb:.2f} |")


if __name__ == "__main__":
    main()
