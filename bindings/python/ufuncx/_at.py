"""ufunc.at: NumPy's unbuffered in-place operation, lowered to the scatter
planner. This module only translates NumPy indexing into StableHLO scatter
dimension numbers; it never loops over elements."""
import math
import re

import numpy as np

from . import _core, _errstate, _override

_VIEW_AXIS = re.compile(r"out of bounds for axis (\d+)")
_BAD_INDEX = ("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) "
              "and integer or boolean arrays are valid indices")


def _items(a, index):
    """Expands Ellipsis and boolean masks; returns a list of entries that are
    slice, None, int or an integer ndarray."""
    if not isinstance(index, tuple):
        index = (index,)
    items = []
    for it in index:
        if it is None or it is Ellipsis or isinstance(it, slice):
            items.append(it)
        elif isinstance(it, (bool, np.bool_)):
            raise IndexError(_BAD_INDEX)
        elif isinstance(it, (int, np.integer)):
            items.append(int(it))
        else:
            arr = np.asarray(it)
            if arr.dtype == np.bool_:
                items.append(arr if arr.ndim else np.zeros(0, np.intp))  # masks: expanded below
            elif arr.dtype.kind in "iu":
                items.append(arr if arr.dtype.isnative else arr.astype(arr.dtype.newbyteorder("=")))
            elif arr.size == 0 and arr.dtype.kind == "f" and not isinstance(it, np.ndarray):
                items.append(arr.astype(np.intp))  # an empty list is an index
            elif isinstance(it, np.ndarray):
                raise IndexError("arrays used as indices must be of integer (or boolean) type")
            else:
                raise IndexError(_BAD_INDEX)
    consumed = sum(it.ndim if _is_mask(it) else 1 for it in items
                   if it is not None and it is not Ellipsis)
    if sum(1 for it in items if it is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if consumed > a.ndim:
        raise IndexError(f"too many indices for array: array is {a.ndim}-dimensional, "
                         f"but {consumed} were indexed")
    out, dim = [], 0
    for it in items:
        if it is Ellipsis:
            out.extend([slice(None)] * (a.ndim - consumed))
            dim += a.ndim - consumed
        elif _is_mask(it):
            for k, n in enumerate(it.shape):
                if n != a.shape[dim + k]:
                    raise IndexError(f"boolean index did not match indexed array along axis "
                                     f"{dim + k}; size of axis is {a.shape[dim + k]} but size "
                                     f"of corresponding boolean axis is {n}")
            out.extend(it.nonzero())
            dim += it.ndim
        else:
            out.append(it)
            dim += it is not None
    if not any(it is Ellipsis for it in items):
        out.extend([slice(None)] * (a.ndim - consumed))
    return out


def _broadcast_shape(arrays):
    """The index arrays' broadcast shape (its size may exceed what NumPy
    can make; the caller checks); IndexError when they do not broadcast."""
    nd = max(x.ndim for x in arrays)
    out = [1] * nd
    for x in arrays:
        for k, n in enumerate(x.shape, nd - x.ndim):
            if n != out[k] and n != 1 and out[k] != 1:
                raise IndexError("shape mismatch: indexing arrays could not be broadcast together "
                                 "with shapes " + " ".join(str(y.shape) for y in arrays))
            out[k] = n if n != 1 else out[k]
    return tuple(out)


def _is_mask(it):
    return isinstance(it, np.ndarray) and it.dtype == np.bool_


def lower_index(a, index):
    """(view, indices, index_vector_dim, advanced positions, indexed shape,
    update_window_dims) for scattering into a[index]."""
    items = _items(a, index)
    has_arrays = any(isinstance(it, np.ndarray) for it in items)
    if not has_arrays:
        view = a[tuple(items) + (Ellipsis,)]  # a 0-d view, never a scalar
        return (view, np.zeros((0,), np.intp), 0, [], view.shape, list(range(view.ndim)))
    basic, positions, arrays, pos, axis = [], [], [], 0, 0
    for it in items:
        if isinstance(it, int) and not -a.shape[axis] <= it < a.shape[axis]:
            # (checked here too: broadcast with an empty array it would index nothing)
            raise IndexError(f"index {it} is out of bounds for axis {axis} with size "
                             f"{a.shape[axis]}")
        if isinstance(it, (int, np.ndarray)):
            basic.append(slice(None))
            positions.append(pos)
            arrays.append(np.asarray(it))
        else:
            basic.append(it)
        pos += 1
        axis += it is not None
    view = a[tuple(basic)]
    if len(arrays) > 1:
        if math.prod(_broadcast_shape(arrays)) >= 2**63:
            raise ValueError("iterator is too large")
        arrays = np.broadcast_arrays(*arrays)
    bshape = arrays[0].shape
    rest = [d for d in range(view.ndim) if d not in positions]
    adjacent = positions == list(range(positions[0], positions[0] + len(positions)))
    if adjacent:
        p0 = positions[0]
        shape = view.shape[:p0] + bshape + view.shape[positions[-1] + 1:]
        window_dims = list(range(p0)) + list(range(p0 + len(bshape), len(shape)))
    else:
        shape = bshape + tuple(view.shape[d] for d in rest)
        window_dims = list(range(len(bshape), len(shape)))
    if len(arrays) == 1:
        indices, ivd = arrays[0], len(bshape)
    else:
        indices, ivd = np.stack(arrays, axis=-1), len(bshape)
    return view, indices, ivd, positions, shape, window_dims


_PLAIN_UPDATES = frozenset({np.ndarray, float, int, bool, complex, type(None)})


# NumPy's indexed maximum.at and minimum.at loops for these types compare
# with signalling compares: a NaN met by an update reports invalid (its
# calls, reductions and other at paths report nothing, as ufuncx's). It
# takes them for a native 1-D target, an index that is no slice, and
# updates of the target's own dtype.
_SIGNALLING_AT = {"maximum", "minimum"}
_SIGNALLING_CHARS = "fdg"  # (float32, float64, longdouble)


def _signalling_compares(self, a, indices, b):
    """After a successful maximum/minimum.at: NumPy's invalid when an update
    or an element it met was NaN (NaN stays where it lands, so the touched
    elements show both; maximum and minimum propagate it)."""
    items = indices if type(indices) is tuple else (indices,)
    if (a.dtype.char not in _SIGNALLING_CHARS or not a.dtype.isnative or b is None or a.ndim != 1
            or any(isinstance(it, slice) for it in items) or np.asarray(b).dtype != a.dtype):
        return
    # (the cheaper of two reads: the whole target, where no NaN means none
    # was met, or the touched elements)
    updates = max(np.size(b), indices.size if isinstance(indices, np.ndarray) else 1)
    if a.size <= updates and not np.isnan(a).any():
        return
    try:
        met = a[indices]
    except IndexError:  # (indices another thread rewrote during the call)
        return
    if met.size and np.isnan(met).any():
        _errstate.report(8, self.__name__)


def ufunc_at(self, a, indices, b=None, /):
    """Performs unbuffered in place operation on operand `a` for elements
    specified by `indices`, like numpy.ufunc.at."""
    if self.__name__ not in _SIGNALLING_AT or not isinstance(a, np.ndarray):
        return _scatter_at(self, a, indices, b)
    # (the check reads the indices again after the call: as they were, when
    # they share the target's memory)
    items = indices if type(indices) is tuple else (indices,)
    kept = tuple(it.copy() if isinstance(it, np.ndarray) and np.may_share_memory(it, a) else it
                 for it in items)
    r = _scatter_at(self, a, indices, b)  # (an override's result, else None)
    if r is None:
        _signalling_compares(self, a, kept if type(indices) is tuple else kept[0], b)
    return r


def _scatter_at(self, a, indices, b=None, /):
    # (exact ndarrays and Python numbers have no override and are no tensor:
    # the common small call skips the search, about 1 us; a list of integers
    # is then an integer index array - an override sees the list itself)
    plain = type(a) is np.ndarray and type(b) in _PLAIN_UPDATES
    if plain and type(indices) is list:
        as_array = np.asarray(indices)
        if as_array.dtype.kind in "iu":
            indices = as_array
    if not (plain and type(indices) is np.ndarray):
        r = _override.at(self, (a, indices) if b is None else (a, indices, b))
        if r is not _override.NO_OVERRIDE:  # an argument's __array_ufunc__ (NEP 13)
            return r
    _core._check_at(self, b is not None)  # core's checks, in NumPy's order
    if not isinstance(a, np.ndarray):
        raise TypeError("first operand must be a numpy.ndarray")
    if not a.dtype.isnative:
        # A byte-swapped target: the loops run on a native copy, written back
        # only when the call succeeded (an error leaves the target as it was).
        native = a.astype(a.dtype.newbyteorder("="))
        _scatter_at(self, native, indices, b)
        a[...] = native
        return
    if b is not None:
        b = np.asarray(b)
        if not b.dtype.isnative:  # byte-swapped updates: read as NumPy does, in native order
            b = b.astype(b.dtype.newbyteorder("="))
    if (b is not None and type(indices) is np.ndarray and indices.dtype.kind in "iu"
            and indices.dtype.isnative and indices.ndim >= 1 and a.ndim >= 1):
        # The common form, a[int_array] (op)= b, goes to the C++ front end,
        # which lowers it the same way without the Python steps below.
        _core._at(self, a, indices, b)  # (the planner copies what aliases a)
        return
    try:
        view, idx, ivd, positions, shape, window_dims = lower_index(a, indices)
    except IndexError:
        # NumPy resolves the loop before it reads the index: with no loop for
        # these types that TypeError comes first (an empty scatter finds out)
        probe = a.reshape(-1)[:1] if a.size else np.zeros(1, a.dtype)
        _core._at(self, probe, np.zeros(0, np.intp), None if b is None else b.reshape(-1)[:0])
        raise
    if b is None:
        upd = np.broadcast_to(np.zeros((), view.dtype), shape)
    else:
        try:
            upd = b if b.shape == shape else np.broadcast_to(b, shape)
        except ValueError:
            raise ValueError("array is not broadcastable to correct shape") from None
    try:
        _core._scatter([view], idx, [upd], window_dims, positions, [], [], positions, ivd,
                       self, "wrap_raise")
    except IndexError as e:
        # The planner names the view's axis; None entries add view axes
        # that the operand does not have, so the message names a's axis.
        m = _VIEW_AXIS.search(str(e))
        nones = [it is None for it in _items(a, indices)]
        if not m or not any(nones):
            raise
        k = int(m.group(1))
        axis = k - sum(nones[:k + 1]) if k < len(nones) else k - sum(nones)
        raise IndexError(str(e)[:m.start(1)] + str(axis) + str(e)[m.end(1):]) from None


ufunc_at.__name__, ufunc_at.__qualname__ = "at", "ufunc.at"  # (in messages, as NumPy's)
