"""pytest plugin: run NumPy's own ufunc tests with ufuncx's ufuncs in NumPy's place.

    python -m pytest -p ufuncx_numpy_shim --pyargs numpy._core.tests.test_ufunc \
        numpy._core.tests.test_umath

After collection, every NumPy ufunc that ufuncx also defines (same name) is
replaced by ufuncx's in `numpy` and `numpy._core.umath`, the two places the
test files read them from, and in the tests' parametrized arguments. NumPy's C internals (ndarray operators, np.sum)
keep NumPy's own ufuncs, so a failure is a difference in the ufunc called by
name. The replaced names are printed in the header.
"""
import numpy as np
# NumPy's test extensions register loops on NumPy's ufuncs, which they find
# by name in the numpy module when imported: import them before the swap.
import numpy._core._operand_flag_tests  # noqa: F401
import numpy._core._rational_tests  # noqa: F401
import numpy._core._umath_tests  # noqa: F401
import numpy._core.umath as ncu
import numpy.linalg._umath_linalg  # noqa: F401

import ufuncx as ux

REPLACED = []


def _swap():
    for name in sorted(dir(ncu)):
        theirs = getattr(ncu, name)
        if not isinstance(theirs, np.ufunc):
            continue
        ours = getattr(ux, name, None)
        if ours is None or not hasattr(ours, "nin"):
            continue
        setattr(ncu, name, ours)
        if getattr(np, name, None) is theirs:
            setattr(np, name, ours)
        REPLACED.append(name)


def _ours(v, depth=2):
    """v with NumPy's ufuncs replaced by ufuncx's, also inside tuples,
    lists and dict keys (two levels deep)."""
    if isinstance(v, np.ufunc):
        return getattr(ux, v.__name__) if v.__name__ in REPLACED else v
    if depth == 0:
        return v
    if type(v) is tuple:
        return tuple(_ours(x, depth - 1) for x in v)
    if type(v) is list:
        return [_ours(x, depth - 1) for x in v]
    if type(v) is dict:
        return {_ours(k, depth - 1): _ours(x, depth - 1) for k, x in v.items()}
    return v


def _swap_tables(namespace):
    """Module- and class-level tables of ufuncs (lists of ufuncs that expect
    an error, results keyed by ufunc) get ufuncx's in place of NumPy's."""
    for k, v in list(vars(namespace).items()):
        if type(v) in (list, tuple, dict) or isinstance(v, np.ufunc):
            try:
                setattr(namespace, k, _ours(v))
            except (AttributeError, TypeError):
                pass


def pytest_collection_modifyitems(session, config, items):
    # After collection: the test modules have built their module-level
    # tables (which pick ufuncs with isinstance(x, np.ufunc)), so the swap
    # reaches the test bodies and the parametrized ufunc arguments.
    _swap()
    seen = set()
    for item in items:
        for holder in (getattr(item, "module", None), getattr(item, "cls", None)):
            if holder is not None and id(holder) not in seen:
                seen.add(id(holder))
                _swap_tables(holder)
        callspec = getattr(item, "callspec", None)
        if callspec is not None:
            for k, v in list(callspec.params.items()):
                callspec.params[k] = _ours(v)


def pytest_report_header(config):
    return [f"ufuncx in NumPy's place for {len(REPLACED)} ufuncs: {' '.join(REPLACED)}"]
