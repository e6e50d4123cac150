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
# The front ends' docstrings are numpydoc, checked here (warnings fail the
# build): every parameter documented and none that does not exist, a Returns
# section, Examples (which the doctest builder runs).
numpydoc_validation_checks = {"PR01", "PR02", "RT01", "EX01"}
# Objects whose docstrings come from elsewhere: the ufunc class (NumPy's
# signature line, each ufunc's docs are in reference_ufuncs), the runtime's
# C++ functions, and load_plugin (its example needs a built plugin: the
# plugins page walks through one).
# torchlike's first parameter is torch's `self` (documented; numpydoc takes
# any `self` for a method's and calls it unknown): test_docstrings.py checks
# those parameter lists against the signatures instead.
numpydoc_validation_overrides = {"PR02": [r"self : ndarray or torch\.Tensor"]}
numpydoc_validation_exclude = {r"^ufuncx\.ufunc$", r"^ufuncx\.(simd_targets|loop_targets|"
                               r"promote_types|can_cast|set_num_threads|get_num_threads|"
                               r"release_memory)$", r"^ufuncx\.load_plugin$"}
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
    _generate.benchmark_plots(os.path.join(os.path.dirname(__file__), "benchmarks"),
                              os.path.join(os.path.dirname(__file__), "_static"))
