"""pytest plugin: run NumPy's own ufunc tests with ufuncx's ufuncs in NumPy's place.

    python -m pytest -p ufuncx_numpy_shim --pyargs numpy._core.tests.test_ufunc \
        numpy._core.tests.test_umath

After collection, every NumPy ufunc that ufuncx also defines (same name) is
replaced by ufuncx's in `numpy` and `numpy._core.umath`, the two places the
test files read them from, and in the tests' parametrized arguments.
The tests known to fail (known_failures.py: object, datetime and string
loops, and the few other causes named there) are marked strict xfail:
anything else that fails, or a known failure that passes, fails the run.
UFX_NUMPY_SUITE_ALL=1 runs them as plain tests (for counts), and
UFX_NUMPY_SUITE_REPORT=FILE writes each failure with its error. NumPy's C internals (ndarray operators, np.sum)
keep NumPy's own ufuncs, so a failure is a difference in the ufunc called by
name. The replaced names are printed in the header.
"""
import os

import numpy as np
# NumPy's test extensions register loops on NumPy's ufuncs, which they find
# by name in the numpy module when imported: import them before the swap.
import numpy._core._operand_flag_tests  # noqa: F401
import numpy._core._rational_tests  # noqa: F401
import numpy._core._umath_tests  # noqa: F401
import numpy._core.umath as ncu
import numpy.linalg._umath_linalg  # noqa: F401

import pytest

import ufuncx as ux
from known_failures import KNOWN_FAILURES, NUMPY_RELEASE

REPLACED = []
_SAME_RELEASE = np.__version__.startswith(NUMPY_RELEASE + ".")


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
    known = {} if os.environ.get("UFX_NUMPY_SUITE_ALL") else KNOWN_FAILURES
    seen = set()
    for item in items:
        reason = known.get(_key(str(item.fspath), item.nodeid))
        if reason:
            # strict: a known failure that passes is reported, so the list
            # shrinks as ufuncx grows
            # (non-strict under another NumPy release, whose tests differ)
            item.add_marker(pytest.mark.xfail(reason=reason, strict=_SAME_RELEASE))
        for holder in (getattr(item, "module", None), getattr(item, "cls", None)):
            if holder is not None and id(holder) not in seen:
                seen.add(id(holder))
                _swap_tables(holder)
        callspec = getattr(item, "callspec", None)
        if callspec is not None:
            for k, v in list(callspec.params.items()):
                callspec.params[k] = _ours(v)


def pytest_report_header(config):
    lines = [f"ufuncx in NumPy's place for {len(REPLACED)} ufuncs: {' '.join(REPLACED)}"]
    if not _SAME_RELEASE:
        lines.append(f"known_failures.py lists NumPy {NUMPY_RELEASE}'s tests; this is NumPy "
                     f"{np.__version__}: known failures are not strict")
    return lines


def pytest_runtest_logreport(report):
    # UFX_NUMPY_SUITE_REPORT=FILE: one line per failing test, its node id
    # and the last line of its error (for sorting failures by cause).
    path = os.environ.get("UFX_NUMPY_SUITE_REPORT")
    if path and report.failed:
        crash = getattr(report.longrepr, "reprcrash", None)
        message = crash.message.splitlines()[0] if crash is not None else str(report.longrepr)
        with open(path, "a") as f:
            f.write(f"{_key(report.location[0], report.nodeid)}\t{message}\n")


def _key(path, nodeid):
    """'test_umath::TestX::test_y[param]': the file's name and the node id."""
    name = os.path.basename(path)
    return name[:-3] + "::" + nodeid.split("::", 1)[1]
