# Sphinx configuration of ufuncx's documentation site (docs/).
# Build: python -m sphinx -W -b html docs build/docs   (and -b doctest)
# It documents the installed ufuncx package: build it first (pip install .).
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _generate  # noqa: E402  (the per-ufunc reference and the figures)

import ufuncx  # noqa: E402

project = "ufuncx"
author = "The ufuncx developers"
copyright = "2026, The ufuncx developers"
release = version = ufuncx.__version__

extensions = [
    "myst_parser",          # the pages are Markdown
    "sphinx.ext.autodoc",   # the front ends' docstrings
    "sphinx.ext.doctest",   # every >>> example on every page runs
    "numpydoc",             # numpydoc sections in docstrings
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
myst_enable_extensions = ["colon_fence"]
myst_heading_anchors = 3
exclude_patterns = ["_build"]
html_theme = "alabaster"
html_static_path = ["_static"]
numpydoc_show_class_members = False
numpydoc_validation_checks = set()
# Docstrings of the hand-written front ends are prose, not numpydoc sections.
numpydoc_xref_param_type = False
autodoc_default_options = {"members": False}
doctest_global_setup = "import numpy as np\nimport ufuncx as ux"
suppress_warnings = ["myst.xref_missing"]


def _escape_trailing_underscores(app, what, name, obj, options, lines):
    # The PyTorch-style names (Tensor.scatter_) in prose docstrings are names,
    # not rST references.
    if name.startswith("ufuncx.torchlike"):
        import re
        lines[:] = [re.sub(r"(\w)_(?=[\s.,;:)]|$)", r"\1\\_", line) for line in lines]


def setup(app):
    app.connect("autodoc-process-docstring", _escape_trailing_underscores)
    _generate.reference(os.path.join(os.path.dirname(__file__), "reference_ufuncs.rst"))
    _generate.figures(os.path.join(os.path.dirname(__file__), "_static"))
