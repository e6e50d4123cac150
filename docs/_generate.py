"""Pages and figures the docs build writes before Sphinx reads them: the
reference of every ufunc (from the installed package's generated docstrings),
the SVG figures of the scatter dimension numbers, and the plots of the
benchmark figures recorded in docs/benchmarks/."""
import os
import sys
import textwrap

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from tools.ufuncgen.ufuncgen import write as _write  # noqa: E402 (writes only what changed)


def reference(path):
    """reference_ufuncs.rst: one section per registered ufunc, its numpydoc
    docstring rendered by numpydoc (the examples become doctest blocks)."""
    from numpydoc.docscrape_sphinx import SphinxDocString

    import ufuncx as ux
    lines = ["Every ufunc", "===========", "",
             "Generated from the table (``ufuncs/ufuncs.toml``) through each ufunc's",
             "docstring; the examples were worked out by NumPy and run here against ufuncx.",
             ""]
    aliases = {}
    for alias, name in ux._core.aliases():
        aliases.setdefault(name, []).append(alias)
    for name in ux.registry():
        f = getattr(ux, name)
        first, _, rest = f.__doc__.partition("\n\n")
        title = f"ufuncx.{name}"
        lines += [title, "-" * len(title), "", "``" + first.strip() + "``", ""]
        if name in aliases:
            lines += ["Aliases: " + ", ".join(f"``ufuncx.{a}``" for a in aliases[name]), ""]
        body = str(SphinxDocString(textwrap.dedent(rest)))
        # |x1| in the prose is an absolute value, not an rST substitution
        # (the examples, after the rubric, are left as they are).
        prose, rubric, examples = body.partition(".. rubric:: Examples")
        body = prose.replace("|", "\\|") + rubric + examples
        lines += [body, ""]
    _write(path, "\n".join(lines))


# ---- figures: StableHLO scatter's dimension numbers, drawn as SVG ----

_CELL = 26


def _grid(x, y, rows, cols, fill, label=None, marks=()):
    out = []
    for r in range(rows):
        for c in range(cols):
            color = "#f4a261" if (r, c) in marks else fill
            out.append(f'<rect x="{x + c * _CELL}" y="{y + r * _CELL}" width="{_CELL}" '
                       f'height="{_CELL}" fill="{color}" stroke="#333" stroke-width="1"/>')
    if label:
        out.append(f'<text x="{x}" y="{y - 8}" font-size="13" font-family="sans-serif">{label}</text>')
    return out


def _svg(width, height, parts, caption):
    return "\n".join([f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
                      f'viewBox="0 0 {width} {height}">', f"<title>{caption}</title>",
                      '<rect width="100%" height="100%" fill="white"/>', *parts, "</svg>", ""])


def _arrow(x1, y1, x2, y2):
    return (f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="#264653" stroke-width="2" '
            f'marker-end="url(#a)"/>')


_MARKER = ('<defs><marker id="a" markerWidth="8" markerHeight="8" refX="7" refY="4" '
           'orient="auto"><path d="M0,0 L8,4 L0,8 z" fill="#264653"/></marker></defs>')


def figures(static_dir):
    os.makedirs(static_dir, exist_ok=True)
    # 1. Inserted window dims: each update element is a point (ufunc.at).
    p = [_MARKER, *_grid(20, 40, 1, 3, "#a8dadc", "updates (3,)"),
         *_grid(20, 120, 3, 1, "#e9ecef", "indices (3, 1)"),
         *_grid(220, 40, 1, 8, "#e9ecef", "operand (8,)", marks={(0, 1), (0, 4), (0, 6)}),
         _arrow(60, 80, 255, 70), _arrow(85, 80, 340, 70), _arrow(100, 80, 390, 70),
         '<text x="220" y="120" font-size="12" font-family="sans-serif">inserted_window_dims=(0,): '
         'a window of size 1, dropped from the update</text>']
    _write(os.path.join(static_dir, "scatter_inserted.svg"),
           _svg(640, 210, p, "inserted window dims: each update element lands at one index"))
    # 2. Update window dims: each index places a row (a window) of the update.
    p = [_MARKER, *_grid(20, 40, 2, 4, "#a8dadc", "updates (2, 4): dim 1 is a window dim"),
         *_grid(20, 140, 2, 1, "#e9ecef", "indices (2, 1)"),
         *_grid(300, 40, 5, 4, "#e9ecef", "operand (5, 4)",
                marks={(1, c) for c in range(4)} | {(3, c) for c in range(4)}),
         _arrow(125, 53, 295, 79), _arrow(125, 79, 295, 131),
         '<text x="300" y="190" font-size="12" font-family="sans-serif">update_window_dims=(1,), '
         'inserted_window_dims=(0,)</text>']
    _write(os.path.join(static_dir, "scatter_window.svg"),
           _svg(640, 210, p, "update window dims: each index places a whole row"))
    # 3. Batching dims: batch b of the updates only reaches batch b of the operand.
    p = [_MARKER, *_grid(20, 40, 2, 3, "#a8dadc", "updates (2, 3): dim 0 is the batch"),
         *_grid(300, 40, 2, 6, "#e9ecef", "operand (2, 6): dim 0 is input_batching_dims",
                marks={(0, 0), (0, 2), (0, 5), (1, 1), (1, 3), (1, 4)}),
         _arrow(100, 53, 295, 53), _arrow(100, 79, 295, 79),
         '<text x="20" y="130" font-size="12" font-family="sans-serif">input_batching_dims=(0,), '
         'scatter_indices_batching_dims=(0,): row b of the indices picks positions inside '
         'row b of the operand</text>']
    _write(os.path.join(static_dir, "scatter_batching.svg"),
           _svg(760, 150, p, "batching dims: batch b of updates goes to batch b of the operand"))


# ---- figures: the recorded benchmark figures (docs/benchmarks/*.json) ----

_COLORS = ["#264653", "#2a9d8f", "#e9c46a", "#f4a261", "#e76f51", "#6d597a", "#8d99ae",
           "#9c6644", "#90be6d"]


def _text(x, y, s, size=11, anchor="start", **attrs):
    extra = "".join(f' {k.replace("_", "-")}="{v}"' for k, v in attrs.items())
    s = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" font-family="sans-serif" '
            f'text-anchor="{anchor}"{extra}>{s}</text>')


def _line(x1, y1, x2, y2, color="#999", width=1, dash=None):
    d = f' stroke-dasharray="{dash}"' if dash else ""
    return (f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="{color}" '
            f'stroke-width="{width}"{d}/>')


def _log_axis(lo, hi, a, b):
    """Maps a value in [lo, hi] on a log scale onto the pixel range [a, b]."""
    import math
    span = math.log(hi) - math.log(lo)
    return lambda v: a + (math.log(min(max(v, lo), hi)) - math.log(lo)) / span * (b - a)


def _source(meta):
    versions = ", ".join(f"{k} {meta[k]}" for k in ("numpy", "torch", "jax") if k in meta)
    return (f"{meta['command']} on {meta['date']}: {meta['cpus']} cpus, "
            f"SIMD {'/'.join(meta['simd'])}; {versions}")


def call_plot(data, path):
    """Small multiples, one per ufunc: time(ufuncx) / time(NumPy) against the
    number of elements (contiguous), one line per dtype."""
    rows = [r for r in data["rows"] if r["layout"] == "contiguous"]
    ops = list(dict.fromkeys(r["op"] for r in rows))
    dtypes = list(dict.fromkeys(r["dtype"] for r in rows))
    sizes = sorted({r["n"] for r in rows})
    w, h, cols = 250, 170, 3
    gx, gy = 50, 40
    parts = [_text(10, 20, "time(ufuncx) / time(NumPy), contiguous operands: below 1 is faster",
                   13)]
    for k, op in enumerate(ops):
        x0 = gx + (k % cols) * (w + 30)
        y0 = gy + (k // cols) * (h + 50)
        fx = _log_axis(sizes[0], sizes[-1], x0, x0 + w)
        fy = _log_axis(0.125, 4.0, y0 + h, y0)
        parts.append(f'<rect x="{x0}" y="{y0}" width="{w}" height="{h}" fill="none" '
                     f'stroke="#ccc"/>')
        for v in (0.25, 0.5, 1.0, 2.0):
            parts.append(_line(x0, fy(v), x0 + w, fy(v), "#555" if v == 1 else "#e5e5e5",
                               1.2 if v == 1 else 1))
            parts.append(_text(x0 - 4, fy(v) + 4, f"{v:g}", 9, "end"))
        for n in sizes:
            parts.append(_text(fx(n), y0 + h + 13, f"1e{len(str(n)) - 1}" if n >= 10 else str(n),
                               9, "middle"))
        parts.append(_text(x0 + w / 2, y0 - 6, op, 12, "middle", font_weight="bold"))
        for c, dtype in enumerate(dtypes):
            pts = sorted((r["n"], r["ratio"]) for r in rows if r["op"] == op and r["dtype"] == dtype)
            if pts:
                d = " ".join(f"{fx(n):.1f},{fy(q):.1f}" for n, q in pts)
                parts.append(f'<polyline points="{d}" fill="none" stroke="{_COLORS[c]}" '
                             f'stroke-width="1.8"/>')
    y = gy + ((len(ops) + cols - 1) // cols) * (h + 50) - 10
    for c, dtype in enumerate(dtypes):
        parts.append(_line(gx + c * 110, y, gx + c * 110 + 24, y, _COLORS[c], 3))
        parts.append(_text(gx + c * 110 + 30, y + 4, dtype, 11))
    parts.append(_text(gx, y + 24, "elements per operand (log scale); ratio on a log scale. " +
                       _source(data["meta"]), 10, fill="#555"))
    width = gx + cols * (w + 30)
    _write(path, _svg(width, y + 36, parts, "ufuncx against NumPy, elementwise calls"))


def scatter_plot(data, path):
    """One group of bars per case: how many times faster ufuncx is than each
    rival (rival's time / ufuncx's), on a log scale."""
    rows = data["rows"]
    rivals = list(dict.fromkeys(k for r in rows for k in r["seconds"] if k != "ufuncx"))
    import math
    bar, gap, label_w, plot_w = 11, 14, 360, 420
    most = max(r["seconds"][k] / r["seconds"]["ufuncx"] for r in rows for k in r["seconds"])
    lo, hi = 0.5, 2.0 ** max(2, math.ceil(math.log2(most)))
    fx = _log_axis(lo, hi, label_w, label_w + plot_w)
    parts = [_text(10, 20, "speed-up of ufuncx: rival's time / ufuncx's (right of 1: ufuncx "
                   "is faster)", 13)]
    y = 40
    for r in rows:
        s = r["seconds"]
        present = [k for k in rivals if k in s]
        top = y
        parts.append(_text(label_w - 8, y + bar * len(present) / 2 + 4, r["case"], 10, "end"))
        for k in present:
            q = s[k] / s["ufuncx"]
            c = _COLORS[rivals.index(k) % len(_COLORS)]
            parts.append(f'<rect x="{fx(lo):.1f}" y="{y}" width="{fx(q) - fx(lo):.1f}" '
                         f'height="{bar - 2}" fill="{c}"/>')
            parts.append(_text(fx(q) + 3, y + bar - 3, f"{q:.2f}", 9))
            y += bar
        y += gap
        parts.append(_line(label_w - 4, top - gap / 2, label_w + plot_w, top - gap / 2, "#eee"))
    for v in (2.0 ** e for e in range(-1, int(math.log2(hi)) + 1)):
        parts.append(_line(fx(v), 34, fx(v), y, "#555" if v == 1 else "#e5e5e5",
                           1.2 if v == 1 else 1))
        parts.append(_text(fx(v), y + 12, f"{v:g}x", 9, "middle"))
    y += 30
    for i, k in enumerate(rivals):
        x = 10 + (i % 4) * 190
        yy = y + (i // 4) * 18
        parts.append(f'<rect x="{x}" y="{yy - 9}" width="14" height="10" '
                     f'fill="{_COLORS[i % len(_COLORS)]}"/>')
        parts.append(_text(x + 20, yy, k, 11))
    y += ((len(rivals) + 3) // 4) * 18 + 8
    parts.append(_text(10, y, _source(data["meta"]), 10, fill="#555"))
    _write(path, _svg(label_w + plot_w + 60, y + 14, parts, "ufuncx scatter against its rivals"))


def _heat(q):
    """A colour for a time ratio: green below 1 (ufuncx faster), red above,
    white at 1, full at 4x either way."""
    import math
    t = max(-1.0, min(1.0, math.log2(q) / 2))
    if t < 0:
        r, g, b = 255 + t * (255 - 42), 255 + t * (255 - 157), 255 + t * (255 - 143)
    else:
        r, g, b = 255 - t * (255 - 231), 255 - t * (255 - 111), 255 - t * (255 - 81)
    return f"rgb({r:.0f},{g:.0f},{b:.0f})"


def sweep_plot(data, path):
    """A heat map of benchmarks/sweep.py: one row per ufunc, one column per
    dtype and layout, coloured by time(ufuncx) / time(NumPy)."""
    rows = data["rows"]
    names = sorted({r["ufunc"] for r in rows})
    dtypes = list(dict.fromkeys(r["dtype"] for r in rows))
    layouts = list(dict.fromkeys(r["layout"] for r in rows))
    cell, row_h, left, top = 13, 12, 110, 150
    cells = {(r["ufunc"], r["dtype"], r["layout"]): r["ratio"] for r in rows}
    parts = [_text(10, 20, "time(ufuncx) / time(NumPy): green faster, red slower", 13),
             _text(10, 36, "(saturated at 4x either way; blank: NumPy has no such loop)", 11)]
    for j, (dt, lay) in enumerate((d, lay) for d in dtypes for lay in layouts):
        x = left + j * cell + (j // len(layouts)) * 6
        parts.append(f'<text x="{x + 9}" y="{top - 6}" font-size="9" font-family="sans-serif" '
                     f'transform="rotate(-60 {x + 9} {top - 6})">{dt} {lay}</text>')
    for i, name in enumerate(names):
        y = top + i * row_h
        parts.append(_text(left - 4, y + 9, name, 9, "end"))
        for j, (dt, lay) in enumerate((d, lay) for d in dtypes for lay in layouts):
            q = cells.get((name, dt, lay))
            if q is None:
                continue
            x = left + j * cell + (j // len(layouts)) * 6
            parts.append(f'<rect x="{x}" y="{y}" width="{cell - 1}" height="{row_h - 1}" '
                         f'fill="{_heat(q)}"><title>{name} {dt} {lay}: {q:.2f}</title></rect>')
    y = top + len(names) * row_h + 16
    for k, q in enumerate((0.25, 0.5, 1, 2, 4)):
        parts.append(f'<rect x="{left + k * 60}" y="{y}" width="14" height="10" '
                     f'fill="{_heat(q)}" stroke="#999"/>')
        parts.append(_text(left + k * 60 + 18, y + 9, f"{q:g}x", 10))
    parts.append(_text(10, y + 30, _source(data["meta"]), 10, fill="#555"))
    width = left + len(dtypes) * len(layouts) * cell + len(dtypes) * 6 + 20
    _write(path, _svg(width + 90, y + 44, parts, "every ufunc against NumPy"))


def benchmark_plots(data_dir, static_dir):
    """The plots of the figures recorded in data_dir (by the benchmarks'
    --json option); each recorded file must be there."""
    import json
    os.makedirs(static_dir, exist_ok=True)
    for name, draw in (("call", call_plot), ("scatter", scatter_plot), ("sweep", sweep_plot)):
        with open(os.path.join(data_dir, f"{name}.json")) as f:
            draw(json.load(f), os.path.join(static_dir, f"bench_{name}.svg"))
