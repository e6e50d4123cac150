"""ufuncx.at(x)[index]: JAX's functional index updates on NumPy arrays.

    ux.at(x)[idx].add(v)          # x.at[idx].add(v) in JAX: a new array
    ux.at(x)[:, idx].set(v, mode="clip")
    ux.at(x)[idx].get(mode="fill", fill_value=0)

`set`, `add`, `multiply`, `min` and `max` lower to `ufuncx.scatter` (one
update per selected element, in NumPy's order of the selection, which is
the order XLA applies them in); `apply(f)` applies a unary function once per
selection of an element (set-scatters, one per multiplicity); `get` gathers. Index forms are NumPy's and
JAX's: ints, slices, integer arrays, boolean arrays, None and Ellipsis.
Out-of-bounds indices follow JAX's modes: negative indices count from the
end first; then updates ("drop", the default, and "promise_in_bounds") drop
the updates that fall outside, "clip" clamps them onto the edge; `get`
clamps by default ("clip", "promise_in_bounds") or, with "fill", gives
`fill_value` (NaN for inexact dtypes, the minimum of signed integers, the
maximum of unsigned ones, True for bool).
"""
import numpy as np

from . import _core
from ._scatter import scatter

_SCATTER_MODES = ("drop", "clip", "promise_in_bounds", "fill")
_GATHER_MODES = ("fill", "clip", "promise_in_bounds")


class at:
    """JAX's ``x.at[index]`` on NumPy arrays: ``ufuncx.at(x)[index]`` is an
    index-update reference whose methods return new arrays.

    Its methods are ``set``, ``add``, ``multiply`` (``mul``), ``min``,
    ``max``, ``apply`` and ``get``, with JAX's keywords (``mode``,
    ``indices_are_sorted``, ``unique_indices``, ``fill_value``). The updates
    lower to :func:`ufuncx.scatter`, one update per selected element in the
    order of NumPy's selection, which is the order XLA applies them in.
    Index forms are NumPy's and JAX's: ints, slices, integer and boolean
    arrays, None and Ellipsis.

    Out-of-bounds indices follow JAX's modes. Negative indices count from
    the end first. Updates drop what falls outside ('drop', the default,
    and 'promise_in_bounds') or clamp it onto the edge ('clip'). ``get``
    clamps by default or, with ``mode='fill'``, gives `fill_value` (NaN for
    inexact dtypes, the minimum of signed integers, the maximum of unsigned
    ones, True for bool).

    Parameters
    ----------
    array : array_like
        The array to index; it is never changed.

    See Also
    --------
    scatter : the general scatter these lower to.
    ufunc.at : NumPy's in-place form.

    Examples
    --------
    >>> import numpy as np, ufuncx as ux
    >>> x = np.arange(5.0)
    >>> ux.at(x)[np.array([0, 0, 4])].add(10.0)   # repeated indices add up
    array([20.,  1.,  2.,  3., 14.])
    >>> ux.at(x)[[1, 9]].set(0.0, mode="clip")    # 9 is clamped to 4
    array([0., 0., 2., 3., 0.])
    >>> ux.at(x)[[1, 9]].get(mode="fill", fill_value=-1.0)
    array([ 1., -1.])
    >>> x                                          # unchanged
    array([0., 1., 2., 3., 4.])
    """

    __slots__ = ("array",)

    def __init__(self, array):
        self.array = np.asarray(array)

    def __getitem__(self, index):
        return _IndexUpdate(self.array, index)

    def __repr__(self):
        return f"ufuncx.at({self.array!r})"


def _selection(shape, index, mode):
    """The flat position of every element index selects in an array of
    `shape`, in NumPy's order and shape of the selection, with -1 where
    the index falls outside and `mode` drops it (clip clamps instead)."""
    if not isinstance(index, tuple):
        index = (index,)
    entries = []
    for i in index:
        if i is None or i is Ellipsis or isinstance(i, slice):
            entries.append(i)
            continue
        a = np.asarray(i)
        if a.dtype == np.bool_:
            if not a.ndim:
                raise TypeError("ufuncx.at takes boolean arrays, not a boolean scalar, as an "
                                "index")
            entries.extend(a.nonzero())
            continue
        if a.dtype.kind not in "iu":
            raise TypeError(f"Indexer must have integer or boolean type, got indexer with type "
                            f"{a.dtype}")
        entries.append(a.astype(np.int64))
    used = sum(1 for e in entries if e is not None and e is not Ellipsis)
    if used > len(shape):
        raise IndexError(f"Too many indices: {len(shape)}-dimensional array indexed with {used} "
                         f"regular indices.")
    if sum(e is Ellipsis for e in entries) > 1:
        raise IndexError("Multiple ellipses (...) are not supported")
    if not any(e is Ellipsis for e in entries):
        entries.append(Ellipsis)  # (the dims left out)
    # On a grid padded by one slot per dim (where dropped indices go),
    # every dim gets an explicit index over its real extent.
    out = []
    d = 0
    for e in entries:
        if e is None:
            out.append(None)
        elif e is Ellipsis:
            for _ in range(len(shape) - used):
                out.append(slice(0, shape[d]))
                d += 1
        elif isinstance(e, slice):
            start, stop, step = e.indices(shape[d])
            if not range(start, stop, step):
                out.append(slice(0, 0))
            else:
                out.append(slice(start, stop if stop >= 0 else None, step))
            d += 1
        else:
            n = shape[d]
            e = np.where(e < 0, e + n, e)
            if mode == "clip":
                e = np.clip(e, 0, max(n - 1, 0))
            else:
                e = np.where((e < 0) | (e >= n), n, e)
            out.append(e)
            d += 1
    # Each dim's coordinate, read through a zero-stride view of one
    # arange per dim (memory in the size of the selection, not of x).
    padded = tuple(n + 1 for n in shape)
    if not shape:
        return np.zeros((), np.int64)[tuple(out)]
    flat, dropped = None, None
    for d, n in enumerate(shape):
        view = [1] * len(shape)
        view[d] = n + 1
        coord = np.broadcast_to(np.arange(n + 1, dtype=np.int64).reshape(view), padded)[tuple(out)]
        flat = coord if flat is None else flat * n + coord
        dropped = coord == n if dropped is None else dropped | (coord == n)
    return np.where(dropped, -1, flat)


def _default_fill(dtype):
    if dtype.kind in "fc":
        return np.nan
    if dtype.kind == "i":
        return np.iinfo(dtype).min
    if dtype.kind == "u":
        return np.iinfo(dtype).max
    if dtype.kind == "b":
        return True
    raise TypeError(f"no default fill value for {dtype}")


class _IndexUpdate:
    __slots__ = ("array", "index")

    def __init__(self, array, index):
        self.array, self.index = array, index

    def __repr__(self):
        return f"ufuncx.at({self.array!r})[{self.index!r}]"

    def get(self, *, mode=None, fill_value=None, indices_are_sorted=False,
            unique_indices=False):
        """x[index], out-of-bounds indices clamped, or filled with mode='fill'."""
        mode = "clip" if mode is None else mode
        if mode not in _GATHER_MODES:
            raise ValueError(f'Unknown gather mode "{mode}"')
        x = self.array
        pos = _selection(x.shape, self.index, "clip" if mode != "fill" else "drop")
        flat = x.reshape(-1)
        result = flat[np.where(pos < 0, 0, pos)] if flat.size else np.empty(pos.shape, x.dtype)
        if mode == "fill" and (pos < 0).any():
            fill = _default_fill(x.dtype) if fill_value is None else fill_value
            result = np.where(pos < 0, np.asarray(fill).astype(x.dtype), result)
        return result

    def _scatter(self, values, combiner, mode):
        mode = "drop" if mode is None else mode
        if mode not in _SCATTER_MODES:
            raise ValueError(f'Unknown scatter mode "{mode}"')
        x = self.array
        rows = self._rows(x, mode)
        if rows is not None:
            # One integer array on the leading axis (x.at[i] with i an
            # array): whole rows, the planner's row plans; same order.
            shape = rows.shape + x.shape[1:]
            updates = np.broadcast_to(np.asarray(values), shape).astype(x.dtype, casting="unsafe")
            return scatter(x, rows.reshape(-1, 1), updates.reshape((rows.size,) + x.shape[1:]),
                           update_window_dims=tuple(range(1, x.ndim)),
                           inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,),
                           index_vector_dim=1, combiner=combiner, mode="skip")
        pos = _selection(x.shape, self.index, "clip" if mode == "clip" else "drop")
        updates = np.broadcast_to(np.asarray(values), pos.shape)
        keep = pos >= 0
        flat = scatter(x.reshape(-1), pos[keep][:, None],
                       updates[keep].astype(x.dtype, casting="unsafe"),
                       update_window_dims=(), inserted_window_dims=(0,),
                       scatter_dims_to_operand_dims=(0,), index_vector_dim=1,
                       combiner=combiner, mode="skip")
        return flat.reshape(x.shape)

    def _rows(self, x, mode):
        """The row numbers when the index is one integer array (negative
        ones counted from the end; out of bounds ones left out of bounds,
        which the scatter drops, or clipped), else None."""
        i = self.index
        if type(i) is not np.ndarray or x.ndim == 0 or i.dtype.kind not in "iu" or (
                i.dtype.kind == "u" and i.dtype.itemsize == 8):
            return None
        n = x.shape[0]
        rows = i.astype(np.int64)
        rows = np.where(rows < 0, rows + n, rows)
        return np.clip(rows, 0, max(n - 1, 0)) if mode == "clip" else rows

    def set(self, values, *, mode=None, indices_are_sorted=False, unique_indices=False):
        """x with x[index] = values (a new array)."""
        return self._scatter(values, None, mode)

    def add(self, values, *, mode=None, indices_are_sorted=False, unique_indices=False):
        """x with x[index] += values, repeated indices adding up (a new array)."""
        return self._scatter(values, "add", mode)

    def multiply(self, values, *, mode=None, indices_are_sorted=False, unique_indices=False):
        """x with x[index] *= values, repeated indices multiplying (a new array)."""
        return self._scatter(values, "multiply", mode)

    mul = multiply

    def apply(self, func, *, mode=None, indices_are_sorted=False, unique_indices=False):
        """x with func (a unary ufunc) applied at index, once per time an
        element is selected (jax's x.at[idx].apply, lax.scatter_apply)."""
        mode = "drop" if mode is None else mode
        if mode not in _SCATTER_MODES:
            raise ValueError(f'Unknown scatter mode "{mode}"')
        if getattr(func, "nin", 1) != 1 or getattr(func, "nout", 1) != 1:
            raise TypeError("apply takes a unary function")
        x = self.array
        pos = _selection(x.shape, self.index, "clip" if mode == "clip" else "drop")
        pos = pos[pos >= 0]
        if isinstance(func, _core.ufunc):
            # A ufuncx ufunc goes to the planner as a unary combiner
            # (scatter_apply): once per selection, in order.
            return scatter(x.reshape(-1), pos.reshape(-1, 1), None, update_window_dims=(),
                           inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,),
                           index_vector_dim=1, combiner=func, mode="skip",
                           update_shape=(pos.size,)).reshape(x.shape)
        # Any other unary callable runs on NumPy arrays:
        flat = x.reshape(-1).copy()
        # An element selected k times gets func k times: one pass per
        # multiplicity level, each a set-scatter of distinct positions.
        unique, counts = np.unique(pos, return_counts=True)
        for level in range(1, int(counts.max(initial=0)) + 1):
            at = unique[counts >= level]
            flat = scatter(flat, at[:, None], np.asarray(func(flat[at])).astype(x.dtype),
                           update_window_dims=(), inserted_window_dims=(0,),
                           scatter_dims_to_operand_dims=(0,), index_vector_dim=1, mode="skip")
        return flat.reshape(x.shape)

    def min(self, values, *, mode=None, indices_are_sorted=False, unique_indices=False):
        """x with x[index] = minimum(x[index], values), NaN propagating (a new array)."""
        return self._scatter(values, "minimum", mode)

    def max(self, values, *, mode=None, indices_are_sorted=False, unique_indices=False):
        """x with x[index] = maximum(x[index], values), NaN propagating (a new array)."""
        return self._scatter(values, "maximum", mode)
