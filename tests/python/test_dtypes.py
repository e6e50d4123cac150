"""promote_types and can_cast for every pair, against NumPy itself."""
import itertools

import numpy as np
import pytest

import ufuncx as ux

CHARS = "?bBhHiIlLefdgFDG"
CASTINGS = ["no", "equiv", "safe", "same_kind", "unsafe"]


@pytest.mark.parametrize("a", CHARS)
def test_promote_types_matches_numpy(a):
    for b in CHARS:
        assert ux.promote_types(a, b) == np.promote_types(a, b), (a, b)


@pytest.mark.parametrize("casting", CASTINGS)
def test_can_cast_matches_numpy(casting):
    for a, b in itertools.product(CHARS, CHARS):
        assert ux.can_cast(a, b, casting) == np.can_cast(a, b, casting), (a, b, casting)


def test_dtype_spellings():
    for spec in ["f4", "float32", np.float32, np.dtype("f"), "single"]:
        assert ux.promote_types(spec, "?") == np.float32
    assert ux.promote_types("q", "Q") == np.float64
    with pytest.raises(TypeError):
        ux.promote_types("not-a-dtype", "f")
    with pytest.raises(ValueError):
        ux.can_cast("f", "d", "sometimes")
