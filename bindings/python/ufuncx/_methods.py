"""reduce, accumulate, reduceat and outer on ufuncx.ufunc objects.

These accept NumPy 2.x's argument forms (axis as int, tuple or None; out as
an array or a 1-tuple; initial; where) and hand normalised arguments to the
core, where the semantics live (outer included: core's Ufunc::OuterInputs).
"""
import inspect
import operator

import numpy as np

from . import _core, _override, _subclass
from ._dtypes import numeric

_NoValue = np._NoValue  # NumPy's "not given" sentinel, so callers may pass it on


def _operand(array, ufunc):
    name = ufunc.__name__
    a = np.asarray(array)
    if not a.dtype.isnative:
        a = a.astype(a.dtype.newbyteorder("="))
    if not numeric(a.dtype) and ufunc._logical:
        # The logical ufuncs take whatever casts to bool (strings, void).
        return a.astype(bool)
    if not numeric(a.dtype):
        raise TypeError(f"ufunc '{name}' not supported for the input types, and the inputs could "
                        f"not be safely coerced to any supported types according to the casting "
                        f"rule ''safe'' (input types: {a.dtype!r})")
    return a


def _out(out, method):
    if isinstance(out, tuple):
        if any(o is Ellipsis for o in out):
            raise TypeError("must use `...` as `out=...` and not per-operand/in a tuple")
        if len(out) != 1:
            raise ValueError(f"The 'out' tuple must have exactly one entry for {method}")
        out = out[0]
    if out is not None and not isinstance(out, np.ndarray):
        raise TypeError("output must be an array")
    return out


def _native(out):
    """A byte-swapped out= as a native copy holding its values, and the
    array to copy the result back into (None when out is native)."""
    if out is None or out.dtype.isnative:
        return out, None
    return out.astype(out.dtype.newbyteorder("=")), out


def _copied_back(result, given):
    if given is None:
        return result
    np.copyto(given, result, casting="unsafe")
    return given


def _axis(a):
    """An axis as NumPy converts it: an index, a C long, then a C int."""
    a = operator.index(a)
    if not -2**63 <= a < 2**63:
        raise OverflowError("Python int too large to convert to C long")
    if not -2**31 <= a < 2**31:
        raise ValueError("integer won't fit into a C int")
    return a


def _axes(axis):
    if axis is None:
        return None
    if isinstance(axis, tuple):
        return tuple(_axis(a) for a in axis)
    return (_axis(axis),)


def _single_axis(axis, method, ndim):
    if isinstance(axis, tuple):
        if len(axis) != 1:
            raise ValueError(f"{method} does not allow multiple axes")
        axis = axis[0]
    if axis is None:
        # (all the axes of a 1-D operand are its one; a 0-d one is refused
        # as a scalar, by the method)
        if ndim > 1:
            raise ValueError(f"{method} does not allow multiple axes")
        axis = 0
    return _axis(axis)


def _overridden(self, name, args, kwargs):
    """The result of an argument's __array_ufunc__ (NEP 13), or NO_OVERRIDE."""
    if name in _override.METHOD_ARGS:
        return _override.method(self, name, args, kwargs)
    return _override.call(self, name, args, kwargs)


def reduce(self, array, *args, **kwargs):
    """numpy.ufunc.reduce(array, axis=0, dtype=None, out=None, keepdims=False, initial=<no
    value>, where=True): reduce array's dimension(s) by applying the ufunc along them."""
    if (type(array) is np.ndarray and not args and not kwargs and numeric(array.dtype)
            and array.dtype.isnative):
        # The common call, a plain array along axis 0, straight to the core.
        self._check_binary("reduce")
        return _core._reduce(self, array, (0,), None, None, False, False, None, None)
    if type(array) is not np.ndarray or args or kwargs:
        r = _overridden(self, "reduce", (array,) + args, kwargs)
        if r is not _override.NO_OVERRIDE:
            return r
    return _reduce(self, array, *args, _keep=_ellipsis(args, kwargs, 2), **kwargs)


def accumulate(self, array, *args, **kwargs):
    """numpy.ufunc.accumulate(array, axis=0, dtype=None, out=None): the running result of
    the ufunc along one axis."""
    r = _overridden(self, "accumulate", (array,) + args, kwargs)
    if r is not _override.NO_OVERRIDE:
        return r
    _ellipsis(args, kwargs, 2)  # (accumulate's results are never 0-d)
    return _accumulate(self, array, *args, **kwargs)


def reduceat(self, array, indices, *args, **kwargs):
    """numpy.ufunc.reduceat(array, indices, axis=0, dtype=None, out=None): reductions over
    the slices array[indices[i]:indices[i+1]]."""
    r = _overridden(self, "reduceat", (array, indices) + args, kwargs)
    if r is not _override.NO_OVERRIDE:
        return r
    _ellipsis(args, kwargs, 2)
    return _reduceat(self, array, indices, *args, **kwargs)


def outer(self, A, B, /, **kwargs):
    """numpy.ufunc.outer: the ufunc on every pair (a, b); result shape A.shape + B.shape."""
    r = _overridden(self, "outer", (A, B), kwargs)
    if r is not _override.NO_OVERRIDE:
        return r
    self._check_binary("outer")
    # Both operands are arrays (NumPy's outer makes no weak scalars).
    a, b = np.asanyarray(A), np.asanyarray(B)
    for which, x in (("first", a), ("second", b)):
        if isinstance(x, np.matrix):
            raise TypeError(f"{self.__name__}.outer() was passed a numpy matrix as {which} "
                            f"argument. Special handling of matrix is removed. Convert to a "
                            f"ndarray via 'matrix.A' ")
    if type(a) is not np.ndarray:
        # A subclass reshapes itself (a masked array's mask with its data);
        # the call then wraps the result as NumPy's outer does.
        shape = a.shape + (1,) * b.ndim
        reshaped = a.reshape(shape)
        if reshaped.shape != shape:
            raise TypeError("ufunc.outer: the first operand's subclass reshaped it to "
                            f"{reshaped.shape} instead of {shape}")
        return self(reshaped, b, **kwargs)
    return self._outer(a, b, **kwargs)


def _wrapped(array, out, result, keep_arrays=False):
    """A new reduce-family result through the operand's __array_wrap__, as
    NumPy wraps it (no context; 0-d results become scalars unless out=...)."""
    if out is not None:
        return result
    if type(array) is np.ndarray or np.isscalar(array):
        return np.asarray(result) if keep_arrays else result
    array_wrap = getattr(array, "__array_wrap__", None)
    if array_wrap is None:
        return np.asarray(result) if keep_arrays else result
    return _subclass.wrap(array_wrap, np.asarray(result), None, not keep_arrays)


def _ellipsis(args, kwargs, position):
    """out=... (keyword only): whether it was given; it is then removed."""
    if len(args) > position and args[position] is Ellipsis:
        raise TypeError("out=... is only allowed as a keyword argument.")
    if kwargs.get("out", None) is Ellipsis:
        del kwargs["out"]
        return True
    return False


def _reduce(self, array, axis=0, dtype=None, out=None, keepdims=False, initial=_NoValue,
            where=True, *, _keep=False):
    self._check_binary("reduce")
    if (type(array) is np.ndarray and type(axis) is int and -2**31 <= axis < 2**31
            and dtype is None and out is None
            and where is True and initial is _NoValue and not _keep and numeric(array.dtype)
            and array.dtype.isnative):
        # The common call, without the normalisations below.
        return _core._reduce(self, array, (axis,), None, None, bool(keepdims), False, None, None)
    a = _operand(array, self)
    out, given = _native(_out(out, "reduce"))
    if where is True:
        where = None
    else:
        where = np.asarray(where, dtype=bool)
    return _wrapped(array, out, _copied_back(_core._reduce(
        self, a, _axes(axis), dtype, out, bool(keepdims), initial is not _NoValue,
        None if initial is _NoValue else initial, where), given), _keep)


def _accumulate(self, array, axis=0, dtype=None, out=None):
    self._check_binary("accumulate")
    a = _operand(array, self)
    out, given = _native(_out(out, "accumulate"))
    return _wrapped(array, out, _copied_back(
        _core._accumulate(self, a, _single_axis(axis, "accumulate", a.ndim), dtype, out), given))


def _reduceat(self, array, indices, axis=0, dtype=None, out=None):
    self._check_binary("reduceat")
    a = _operand(array, self)
    # NumPy's conversion: an array casts safely to intp (uint64 and float
    # arrays are TypeErrors); other sequences convert element by element
    # (NaN is a ValueError, an int beyond int64 an OverflowError).
    if isinstance(indices, np.ndarray):
        idx = indices.astype(np.intp, casting="safe", copy=False)
    else:
        idx = np.array(indices, dtype=np.intp)
    if idx.ndim > 1:
        raise ValueError("setting an array element with a sequence. The requested array would "
                         "exceed the maximum number of dimension of 1.")
    idx = np.ascontiguousarray(idx.reshape(-1))
    out, given = _native(_out(out, "reduceat"))
    return _wrapped(array, out, _copied_back(
        _core._reduceat(self, a, idx, _single_axis(axis, "reduceat", a.ndim), dtype, out), given))


_WEAK = {int: "int", float: "float", complex: "complex"}


def resolve_dtypes(self, dtypes, *, signature=None, casting=None, reduction=False):
    """numpy.ufunc.resolve_dtypes(dtypes, *, signature=None, casting=None, reduction=False):
    the dtypes of the loop a call (or with reduction=True, a reduce) on operands of these
    dtypes would use. Python's int, float and complex stand for weak scalars (NEP 50)."""
    if not isinstance(dtypes, tuple) or len(dtypes) != self.nargs:
        raise TypeError("resolve_dtypes: The dtypes must be a tuple of `ufunc.nargs` length.")
    given = []
    for d in dtypes:
        if d is None or d in _WEAK:
            given.append(_WEAK.get(d))
        elif isinstance(d, np.dtype):
            given.append(d.newbyteorder("=") if not d.isnative else d)
        else:
            raise TypeError("Provided dtype must be a valid NumPy dtype, int, float, complex, "
                            "or None.")
    nin = self.nin
    if reduction:
        if nin != 2 or self.nout != 1:
            raise ValueError("ufunc is not compatible with reduction operations.")
        if given[2] is not None:
            raise TypeError("Output dtype must not be passed for reductions, pass the first "
                            "input instead.")
        if not isinstance(given[1], np.dtype) or isinstance(given[0], str):
            raise TypeError("All input dtypes must be provided (except the first one in "
                            "reductions)")
        if given[0] is not None or self.signature is not None:
            # (NumPy resolves a gufunc's as a call on two such operands)
            first = given[1] if given[0] is None else given[0]
            loop = self._resolve_dtypes([first, given[1]], [None], signature,
                                        casting or "same_kind")
        else:
            try:
                r = self.reduce(np.zeros(1, given[1])).dtype
            except TypeError:
                r = None
            loop = (r, r, r)
        if loop[0] is None or loop[0] != loop[2]:
            raise TypeError("No loop matching the specified signature and casting was found "
                            f"for ufunc {self.__name__}")
        return loop
    if any(d is None for d in given[:nin]):
        raise TypeError("All input dtypes must be provided (except the first one in "
                        "reductions)")
    return self._resolve_dtypes(given[:nin], given[nin:], signature, casting or "same_kind")


def signature_of(self):
    """inspect.signature(ufunc), as NumPy's ufuncs give it."""
    P = inspect.Parameter
    names = ["x"] if self.nin == 1 else [f"x{i}" for i in range(1, self.nin + 1)]
    params = [P(n, P.POSITIONAL_ONLY) for n in names]
    params.append(P("out", P.POSITIONAL_OR_KEYWORD,
                    default=None if self.nout == 1 else (None,) * self.nout))
    keywords = {"where": True} if self.signature is None else \
        {"axes": _NoValue, "axis": _NoValue, "keepdims": False}
    keywords.update(casting="same_kind", order="K", dtype=None, subok=True, signature=None)
    params += [P(k, P.KEYWORD_ONLY, default=v) for k, v in keywords.items()]
    return inspect.Signature(params)
