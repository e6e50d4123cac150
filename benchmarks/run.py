"""Times ufuncx against NumPy side by side, in one process and one run.

    python benchmarks/run.py            # full table + benchmarks/results/call.png
    python benchmarks/run.py --quick    # fewer sizes, for a smoke run
    python benchmarks/run.py --json docs/benchmarks/call.json   # also save the figures

Each cell is min-of-repeats time(ufuncx) / time(numpy) for the same call on
the same arrays; < 1.0 means ufuncx is faster.
"""
from __future__ import annotations

import argparse
import os
import pathlib
import timeit

import numpy as np

import ufuncx as ux

OPS = ["add", "multiply", "maximum", "sqrt", "exp", "less"]
DTYPES = ["float32", "float64", "int32", "int64"]
LAYOUTS = ["contiguous", "strided", "broadcast"]


def operands(op, dtype, n, layout, rng):
    nin = getattr(np, op).nin
    if np.dtype(dtype).kind == "f":
        make = lambda m: (rng.random(m) * 4 + 0.5).astype(dtype)  # noqa: E731
    else:
        make = lambda m: rng.integers(1, 1000, m).astype(dtype)  # noqa: E731
    if layout == "contiguous":
        return [make(n) for _ in range(nin)]
    if layout == "strided":
        return [make(2 * n)[::2] for _ in range(nin)]
    if nin == 1:  # broadcast a unary op: a (1, n) row over (m, n)
        return [np.broadcast_to(make(max(n // 8, 1)), (8, max(n // 8, 1)))]
    return [make(n), make(1)[0]]  # array op scalar


def best_time(fn, target_s=0.05, repeats=5):
    t = timeit.Timer(fn)
    number, elapsed = 1, t.timeit(1)
    while elapsed < target_s / 10 and number < 1 << 20:
        number *= 4
        elapsed = t.timeit(number)
    number = max(1, int(number * (target_s / 10) / max(elapsed, 1e-9)))
    return min(t.repeat(repeats, number)) / number


def measure(sizes, dtypes, layouts, ops):
    rng = np.random.default_rng(0)
    rows = []
    for op in ops:
        for dtype in dtypes:
            if op in ("sqrt", "exp") and np.dtype(dtype).kind != "f":
                continue
            for layout in layouts:
                for n in sizes:
                    args = operands(op, dtype, n, layout, rng)
                    nf, uf = getattr(np, op), getattr(ux, op)
                    with np.errstate(all="ignore"):
                        np.testing.assert_array_equal(uf(*args).dtype, nf(*args).dtype)
                        tn = best_time(lambda: nf(*args))
                        tu = best_time(lambda: uf(*args))
                    rows.append(dict(op=op, dtype=dtype, layout=layout, n=n, numpy=tn,
                                     ufuncx=tu, ratio=tu / tn))
    return rows


def table(rows, sizes):
    head = f"| op | dtype | layout | " + " | ".join(f"{n:.0e}" if n >= 1000 else str(n)
                                                    for n in sizes) + " |"
    lines = [head, "|" + "---|" * (3 + len(sizes))]
    keys = sorted({(r["op"], r["dtype"], r["layout"]) for r in rows},
                  key=lambda k: (OPS.index(k[0]), DTYPES.index(k[1]), LAYOUTS.index(k[2])))
    for k in keys:
        cells = {r["n"]: r["ratio"] for r in rows if (r["op"], r["dtype"], r["layout"]) == k}
        lines.append(f"| {k[0]} | {k[1]} | {k[2]} | " +
                     " | ".join(f"{cells[n]:.2f}" if n in cells else "" for n in sizes) + " |")
    return "\n".join(lines)


def plot(rows, path):
    import _record
    plt = _record.pyplot("plot")
    if plt is None:
        return
    fig, axes = plt.subplots(1, len(OPS), figsize=(4 * len(OPS), 3.6), sharey=True)
    for ax, op in zip(axes, OPS):
        for dtype in DTYPES:
            pts = [(r["n"], r["ratio"]) for r in rows
                   if r["op"] == op and r["dtype"] == dtype and r["layout"] == "contiguous"]
            if pts:
                ax.plot(*zip(*pts), marker="o", label=dtype)
        ax.axhline(1.0, color="grey", lw=0.8)
        ax.set_xscale("log")
        ax.set_title(op)
        ax.set_xlabel("elements (contiguous)")
    axes[0].set_ylabel("time ufuncx / numpy")
    axes[0].legend()
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=90)
    print(f"plot: {path}")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--ops", default=",".join(OPS))
    p.add_argument("--json", metavar="PATH", help="also save the measurements as JSON")
    a = p.parse_args()
    sizes = [1, 100, 10**4, 10**6] if a.quick else [1, 10, 100, 10**3, 10**4, 10**5, 10**6, 10**7]
    ops = a.ops.split(",")
    rows = measure(sizes, DTYPES, LAYOUTS, ops)
    print(f"numpy {np.__version__}; ufuncx SIMD targets {sorted(set(ux.simd_targets().values()))}; "
          f"cpus {os.cpu_count()}")
    print(table(rows, sizes))
    plot(rows, pathlib.Path(__file__).parent / "results" / "call.png")
    if a.json:
        import _record
        _record.save(a.json, "python benchmarks/run.py" + (" --quick" if a.quick else ""), rows)


if __name__ == "__main__":
    main()
