"""Pages and figures the docs build writes before Sphinx reads them: the
reference of every ufunc (from the installed package's generated docstrings)
and the SVG figures of the scatter dimension numbers."""
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
