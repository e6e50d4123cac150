"""The generated docstrings: numpydoc sections on every built-in ufunc, whose
Examples (worked out by NumPy at build time) run here as doctests against
ufuncx, and the module docstrings' examples."""
import doctest

import numpy as np
import pytest

import ufuncx as ux

SECTIONS = ("Parameters\n----------", "Returns\n-------", "See Also\n--------",
            "Examples\n--------")


@pytest.mark.parametrize("name", ux.registry())
def test_docstring_is_numpydoc_and_its_examples_pass(name):
    f = getattr(ux, name)
    doc = f.__doc__
    assert doc.startswith(f"{name}(")  # NumPy's first line
    for section in SECTIONS:
        assert section in doc, section
    assert f"numpy.{name} :" in doc
    test = doctest.DocTestParser().get_doctest(doc, {}, f"ufuncx.{name}", None, 0)
    assert len(test.examples) >= 4  # the imports, an input and at least one call
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    with np.printoptions(legacy=False):
        runner.run(test)
    assert runner.summarize(verbose=False).failed == 0


def test_a_set_docstring_wins_and_deleting_it_brings_the_generated_one_back():
    f = ux.add
    generated = f.__doc__
    try:
        f.__doc__ = "mine"
        assert f.__doc__ == "mine"
    finally:
        del f.__doc__
    assert f.__doc__ == generated and "Examples" in generated


@pytest.mark.parametrize("module", ["ufuncx", "ufuncx.torchlike", "ufuncx.asctile",
                                    "ufuncx._jax_at", "ufuncx._scatter"])
def test_module_doctests(module):
    import importlib
    m = importlib.import_module(module)
    failed, _ = doctest.testmod(m, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert failed == 0


def _front_ends():
    import ufuncx.asctile
    import ufuncx.torchlike
    fns = [ux.scatter, ux.at, ux.registry, ux.load_plugin, ufuncx.asctile.scatter]
    fns += [getattr(ufuncx.torchlike, n) for n in ufuncx.torchlike.__all__]
    return fns


@pytest.mark.parametrize("fn", _front_ends(), ids=lambda f: f.__qualname__)
def test_front_end_docstrings_are_numpydoc_and_document_exactly_their_parameters(fn):
    import inspect
    import re
    doc = inspect.getdoc(fn)
    sections = set(re.findall(r"^(\w[\w ]*)\n-{3,}$", doc, re.M))
    assert "Parameters" in sections or not inspect.signature(fn).parameters
    if not isinstance(fn, type):
        assert "Returns" in sections
    if fn is not ux.load_plugin:  # (its example needs a built plugin: docs/plugins.md)
        assert "Examples" in sections
    params = doc.split("Parameters\n----------\n", 1)[-1].split("\n\n", 1)[0]
    documented = [name.strip() for line in re.findall(r"^(\w[\w, ]*) :", params, re.M)
                  for name in line.split(",")]
    target = fn.__init__ if isinstance(fn, type) else fn
    actual = [p for p in inspect.signature(target).parameters if p != "self" or target is fn]
    assert documented == actual
