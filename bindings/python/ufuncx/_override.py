"""NEP 13 overrides for ufuncx ufuncs, as NumPy's ufuncs do them.

When an input, an `out=` entry or `where=` has an ``__array_ufunc__`` other
than ndarray's, its override is called with the ufuncx ufunc itself, the
method name, the inputs and the keywords normalised as NumPy normalises
them (positional outputs and method arguments become keywords, `out` a
tuple, `sig` becomes `signature`, `out=None` and `out=...` are left out).
Overrides are tried subclasses before superclasses, otherwise left to right,
one per type; the first result that is not NotImplemented is the call's.
``__array_ufunc__ = None`` refuses ufuncs altogether. Arguments that speak
DLPack without an ``__array_ufunc__`` (torch tensors, JAX arrays) are
computed on as arrays and given back as tensors (ufuncx/_tensors.py). A dask
array's override is done by ufuncx/dask.py, with ufuncx's loops on its
chunks, for every method.

The plain-ndarray paths never come here: the native call checks the exact
types of its arguments first (module.cc), and the methods check
``type(x) is np.ndarray`` before anything else.
"""
import sys

import numpy as np

from . import _tensors

_NDARRAY_UFUNC = np.ndarray.__array_ufunc__
# Types that never override (checked by exact type, before any lookup).
_PLAIN = frozenset({np.ndarray, int, float, complex, bool, type(None), list, tuple, str,
                    type(Ellipsis)})
NO_OVERRIDE = object()  # "no argument overrides": the caller goes on

# The arguments after the first input(s) of each method, in NumPy's order.
METHOD_ARGS = {
    "reduce": (1, ("axis", "dtype", "out", "keepdims", "initial", "where")),
    "accumulate": (1, ("axis", "dtype", "out")),
    "reduceat": (2, ("axis", "dtype", "out")),
}


def _is_dask_array(obj):
    """A dask array whose type keeps dask's own __array_ufunc__ (found
    without importing dask)."""
    core = sys.modules.get("dask.array.core")
    return (core is not None and isinstance(obj, core.Array)
            and type(obj).__array_ufunc__ is core.Array.__array_ufunc__)


def _override_of(obj):
    """obj's __array_ufunc__ when it is not ndarray's, else None; raises
    NumPy's TypeError for __array_ufunc__ = None."""
    t = type(obj)
    if t in _PLAIN or isinstance(obj, np.generic):
        return None
    method = getattr(t, "__array_ufunc__", _NDARRAY_UFUNC)
    if method is _NDARRAY_UFUNC:
        return None
    if method is None:
        raise TypeError(f"operand '{t.__name__}' does not support ufuncs (__array_ufunc__=None)")
    return method


def _candidates(objs):
    """The objects whose overrides are tried, in NumPy's order: one per
    type, a subclass before any superclass already listed."""
    found = []
    for obj in objs:
        if _override_of(obj) is None:
            continue
        t = type(obj)
        if any(type(f) is t for f in found):
            continue
        at = next((i for i, f in enumerate(found) if issubclass(t, type(f))), len(found))
        found.insert(at, obj)
    return found


def _normal_out(out):
    """NumPy's `out` for an override: a tuple, or nothing when every entry
    is None (or out is Ellipsis)."""
    if out is None or out is Ellipsis:
        return None
    if not isinstance(out, tuple):
        out = (out,)
    return out if any(o is not None for o in out) else None


def _dispatch(ufunc, method, inputs, kwargs):
    out = kwargs.get("out", ())
    objs = list(inputs) + list(out)
    if "where" in kwargs:
        objs.append(kwargs["where"])
    candidates = _candidates(objs)
    if not candidates:
        if any(_tensors.is_tensor(o) for o in objs):  # DLPack tensors: ufuncx/_tensors.py
            return _tensors.call(ufunc, method, inputs, kwargs)
        return NO_OVERRIDE
    for obj in candidates:
        if _is_dask_array(obj):  # dask's own override, done with ufuncx (ufuncx/dask.py)
            from . import dask as _dask
            result = _dask.array_ufunc(obj, ufunc, method, *inputs, **kwargs)
        else:
            result = obj.__array_ufunc__(ufunc, method, *inputs, **kwargs)
        if result is not NotImplemented:
            return result
    shown = [repr(x) for x in inputs] + [f"{k}={v!r}" for k, v in kwargs.items()]
    types = ", ".join(f"'{type(x).__name__}'" for x in list(inputs) + list(out))
    raise TypeError(f"operand type(s) all returned NotImplemented from __array_ufunc__"
                    f"({ufunc!r}, {method!r}, {', '.join(shown)}): {types}")


# The keywords a call takes (a gufunc's also axes, axis and keepdims): any
# other is a TypeError before an override is consulted, as in NumPy.
_CALL_KEYWORDS = frozenset({"out", "where", "casting", "order", "dtype", "subok", "signature",
                            "sig", "axes", "axis", "keepdims"})


def call(ufunc, method, args, kwargs):
    """__call__ and outer: positional outputs and `sig` normalised."""
    nin = 2 if method == "outer" else ufunc.nin
    if not nin <= len(args) <= nin + (0 if method == "outer" else ufunc.nout):
        raise TypeError(f"{ufunc.__name__}() takes from {nin} to {nin + ufunc.nout} positional "
                        f"arguments but {len(args)} were given")
    for key in kwargs:
        if key not in _CALL_KEYWORDS:
            raise TypeError(f"{ufunc.__name__}() got an unexpected keyword argument '{key}'")
    kwargs = dict(kwargs)
    out = kwargs.get("out")
    if ufunc.nout > 1 and "out" in kwargs and out is not Ellipsis and not isinstance(out, tuple):
        raise TypeError("'out' must be a tuple of arrays for a ufunc with more than one output")
    if isinstance(out, tuple) and len(out) != ufunc.nout:
        raise ValueError(f"The 'out' tuple must have exactly {ufunc.nout} entries: one per "
                         f"ufunc output")
    if len(args) > nin:
        if "out" in kwargs:
            raise TypeError("cannot specify 'out' as both a positional and keyword argument")
        kwargs["out"] = tuple(args[nin:])
        args = args[:nin]
    if "out" in kwargs:
        out = _normal_out(kwargs.pop("out"))
        if out is not None:
            kwargs["out"] = out
    if "sig" in kwargs:
        if "signature" in kwargs:
            raise TypeError("cannot specify both 'sig' and 'signature'")
        kwargs["signature"] = kwargs.pop("sig")
    return _dispatch(ufunc, method, tuple(args), kwargs)


def method(ufunc, name, args, kwargs):
    """reduce, accumulate and reduceat: arguments after the inputs become
    keywords, as NumPy passes them to an override."""
    ninputs, names = METHOD_ARGS[name]
    inputs, rest = tuple(args[:ninputs]), args[ninputs:]
    if len(rest) > len(names):
        raise TypeError(f"{name}() takes from {ninputs} to {ninputs + len(names)} positional "
                        f"arguments but {len(args)} were given")
    normal = {}
    for key, value in zip(names, rest):
        if key in kwargs:
            raise TypeError(f"argument for {name}() given by name ('{key}') and position "
                            f"(position {names.index(key) + ninputs})")
        normal[key] = value
    normal.update(kwargs)
    normal = {k: v for k, v in normal.items() if v is not np._NoValue}  # (initial unset)
    if isinstance(normal.get("out"), tuple) and len(normal["out"]) != 1:
        raise ValueError(f"The 'out' tuple must have exactly one entry for {name}")
    if "out" in normal:
        out = _normal_out(normal.pop("out"))
        if out is not None:
            normal = {"out": out, **normal}
    return _dispatch(ufunc, name, inputs, normal)


def at(ufunc, args):
    return _dispatch(ufunc, "at", tuple(args), {})
