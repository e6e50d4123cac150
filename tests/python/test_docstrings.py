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
