"""Results of ndarray subclasses and array-likes, as NumPy 2.x wraps them.

The native call (module.cc) picks the input whose ``__array_wrap__`` new
results go through, as NumPy does (highest ``__array_priority__``), and
calls `wrap` with NumPy's context ``(ufunc, inputs, output index)``.

Masked arrays read the context: ``numpy.ma`` keeps, per ufunc, the domain
outside which results are masked and the values written there
(``ufunc_domain``, ``ufunc_fills``). Each ufuncx ufunc gets its NumPy
namesake's entries, so a masked array's mask and the values under it follow
the same rules as with NumPy's ufunc.
"""
import sys
import warnings

import numpy as np

_masked_rules_added = False


def _add_masked_rules():
    global _masked_rules_added
    core = sys.modules.get("numpy.ma.core")
    if core is None or _masked_rules_added:
        return
    import ufuncx
    for name in ufuncx.registry():
        theirs = getattr(np, name, None)
        if not isinstance(theirs, np.ufunc):
            continue
        mine = getattr(ufuncx, name)
        for table in (core.ufunc_domain, core.ufunc_fills):
            if theirs in table:
                table[mine] = table[theirs]
    _masked_rules_added = True


def wrap(array_wrap, result, context, return_scalar):
    """array_wrap(result, context, return_scalar), or the older signatures
    NumPy still accepts: (result, context), then (result)."""
    _add_masked_rules()
    try:
        return array_wrap(result, context, return_scalar)
    except TypeError:
        pass
    warnings.warn("__array_wrap__ must accept context and return_scalar arguments "
                  "(positionally) in the future. (Deprecated NumPy 2.0)", DeprecationWarning,
                  stacklevel=2)
    try:
        return array_wrap(result, context)
    except TypeError:
        return array_wrap(result)
