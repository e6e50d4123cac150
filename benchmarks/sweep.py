"""Every numeric ufunc against NumPy, side by side in one process and one run:
each public ufunc that NumPy and ufuncx share x float32 / float64 / int32 /
int64 / complex128 x four layouts (contiguous 1e5, contiguous 1e3, stride 3
over 1e4, one element).

    python benchmarks/sweep.py                 # the summary table and the worst 30
    python benchmarks/sweep.py --only sqrt,rint --dtypes float32
    python benchmarks/sweep.py --json docs/benchmarks/sweep.json
    python benchmarks/sweep.py --avx2          # both held to AVX2 on an AVX-512 CPU

Each case is min-of-repeats time(ufuncx) / time(numpy) for the same call on
the same arrays (below 1: ufuncx is faster). A case runs only when NumPy has
a loop for those operands without casting, and both give the same result
dtype. With matplotlib installed, a heat map (ufunc x dtype x layout) is
written to benchmarks/results/sweep.png.
"""
from __future__ import annotations

import argparse
import math
import os
import pathlib
import sys
import warnings

if "--avx2" in sys.argv:
    # Before NumPy and ufuncx load (both read these once): NumPy's dispatch
    # without its AVX-512 groups (NumPy 2.4's names) and ufuncx's Highway
    # targets at AVX2, to see on an AVX-512 machine what an AVX2 one sees.
    os.environ["NPY_DISABLE_CPU_FEATURES"] = "X86_V4 AVX512_ICL AVX512_SPR"
    os.environ["UFUNCX_SIMD_TARGET"] = "AVX2"

import numpy as np

import ufuncx as ux
from run import best_time  # (benchmarks/run.py: min of repeats, auto-scaled)

DTYPES = ["float32", "float64", "int32", "int64", "complex128"]
LAYOUTS = {  # name -> (elements, step)
    "contiguous 1e5": (10**5, 1),
    "contiguous 1e3": (10**3, 1),
    "strided 1e4 (step 3)": (10**4, 3),
    "one element": (1, 1),
}


def shared_ufuncs():
    names = []
    for name in sorted(ux.registry()):
        nf = getattr(np, name, None)
        if isinstance(nf, np.ufunc) and nf.signature is None and name not in ("isnat",):
            names.append(name)
    return names


def values(dtype, n, rng, second=False):
    """Operands every ufunc takes without a domain error: floats in
    (0.1, 0.9) (arcsin, arctanh, log; arccosh's are moved up by 1), small
    positive ints (shifts, powers)."""
    dt = np.dtype(dtype)
    if dt.kind == "f":
        return (rng.random(n) * 0.8 + 0.1).astype(dt)
    if dt.kind == "c":
        return (rng.random(n) * 0.8 + 0.1 + 1j * (rng.random(n) * 0.8 + 0.1)).astype(dt)
    return rng.integers(1, 8 if second else 100, n).astype(dt)


def operands(ufunc, dtype, layout, rng):
    n, step = LAYOUTS[layout]
    ops = []
    for k in range(ufunc.nin):
        full = values(dtype, n * step, rng, second=k > 0)
        if ufunc.__name__ == "arccosh" and full.dtype.kind == "f":
            full = full + full.dtype.type(1)  # (its domain starts at 1)
        ops.append(full[::step] if step > 1 else full)
    return ops


def runs(nf, uf, args):
    """Whether NumPy takes these operands without casting, and ufuncx gives
    the same result dtypes."""
    try:
        types = nf.resolve_dtypes(tuple(a.dtype for a in args) + (None,) * nf.nout)
    except (TypeError, ValueError):  # (no loop for these dtypes)
        return False
    if any(t != a.dtype for t, a in zip(types, args)):
        return False
    try:
        r_np, r_ux = nf(*args), uf(*args)
    except (TypeError, ValueError):
        return False
    r_np = r_np if isinstance(r_np, tuple) else (r_np,)
    r_ux = r_ux if isinstance(r_ux, tuple) else (r_ux,)
    return all(np.asarray(a).dtype == np.asarray(b).dtype for a, b in zip(r_np, r_ux))


def measure(names, dtypes, layouts):
    rng = np.random.default_rng(0)
    rows = []
    for name in names:
        nf, uf = getattr(np, name), getattr(ux, name)
        for dtype in dtypes:
            for layout in layouts:
                args = operands(nf, dtype, layout, rng)
                with np.errstate(all="ignore"), warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    if not runs(nf, uf, args):
                        break  # (the same for every layout)
                    tn = best_time(lambda: nf(*args), 0.02, 3)
                    tu = best_time(lambda: uf(*args), 0.02, 3)
                rows.append(dict(ufunc=name, dtype=dtype, layout=layout, numpy=tn, ufuncx=tu,
                                 ratio=tu / tn))
    return rows


def summary(rows, layouts):
    lines = ["| | cases | geomean | over 1.2 | over 2 | worst |", "|---|---|---|---|---|---|"]
    for layout in layouts:
        q = [r["ratio"] for r in rows if r["layout"] == layout]
        if not q:
            continue
        geo = math.exp(sum(map(math.log, q)) / len(q))
        lines.append(f"| {layout} | {len(q)} | {geo:.2f} | {sum(x > 1.2 for x in q)} | "
                     f"{sum(x > 2 for x in q)} | {max(q):.2f} |")
    return "\n".join(lines)


def worst(rows, k=30):
    lines = [f"{'ufunc':16s} {'dtype':11s} {'layout':15s} {'ratio':>6s} {'ufuncx':>10s} {'numpy':>10s}"]
    for r in sorted(rows, key=lambda r: -r["ratio"])[:k]:
        lines.append(f"{r['ufunc']:16s} {r['dtype']:11s} {r['layout']:15s} {r['ratio']:6.2f} "
                     f"{r['ufuncx'] * 1e6:8.2f}us {r['numpy'] * 1e6:8.2f}us")
    return "\n".join(lines)


def heat_map(rows, path):
    import _record
    plt = _record.pyplot("heat map")
    if plt is None:
        return
    names = sorted({r["ufunc"] for r in rows})
    cols = [(d, lay) for d in DTYPES for lay in LAYOUTS]
    grid = np.full((len(names), len(cols)), np.nan)
    for r in rows:
        grid[names.index(r["ufunc"]), cols.index((r["dtype"], r["layout"]))] = r["ratio"]
    fig, ax = plt.subplots(figsize=(12, 0.22 * len(names) + 2))
    im = ax.imshow(np.log2(grid), cmap="RdYlGn_r", vmin=-2, vmax=2, aspect="auto")
    ax.set_yticks(range(len(names)), names, fontsize=7)
    ax.set_xticks(range(len(cols)), [f"{d} {lay}" for d, lay in cols], rotation=90, fontsize=7)
    fig.colorbar(im, label="log2(time ufuncx / time numpy)")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=90)
    print(f"heat map: {path}")


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--only", help="comma-separated ufunc names")
    p.add_argument("--dtypes", default=",".join(DTYPES))
    p.add_argument("--layouts", default=",".join(LAYOUTS), help="comma-separated layout names")
    p.add_argument("--worst", type=int, default=30)
    p.add_argument("--json", metavar="PATH", help="also save the measurements as JSON")
    p.add_argument("--avx2", action="store_true",
                   help="hold NumPy and ufuncx to AVX2 (set before either loads)")
    a = p.parse_args()
    names = a.only.split(",") if a.only else shared_ufuncs()
    layouts = [s.strip() for s in a.layouts.split(",")]
    rows = measure(names, a.dtypes.split(","), layouts)
    print(f"numpy {np.__version__}; ufuncx SIMD targets {sorted(set(ux.simd_targets().values()))}; "
          f"cpus {os.cpu_count()}; NPY_DISABLE_CPU_FEATURES="
          f"{os.environ.get('NPY_DISABLE_CPU_FEATURES', '')!r}")
    print(summary(rows, layouts))
    print()
    print(worst(rows, a.worst))
    heat_map(rows, pathlib.Path(__file__).parent / "results" / "sweep.png")
    if a.json:
        import _record
        _record.save(a.json, "python benchmarks/sweep.py", rows)


if __name__ == "__main__":
    main()
