"""PyTorch's scatter family on numpy arrays (and CPU torch tensors), with
PyTorch's semantics and error classes (RuntimeError where torch raises it).
The work is done by the C++ front ends (ufuncx/frontends.h), which lower to
the scatter planner; this module only converts arguments.

In place: ``scatter_``, ``scatter_add_``, ``scatter_reduce_``,
``index_add_``, ``index_put_``, ``index_copy_``, ``index_fill_``,
``index_reduce_``, ``masked_scatter_`` and ``put_``. The last five lower to
the first ones: an index along dim becomes scatter's index expanded over the
source; masks and flat indices become index_put's. Out-of-place twins
without the underscore return a new array.

Every function also takes torch tensors (CPU, any dtype NumPy or ml_dtypes
has), with no copy: in place on a tensor self changes that tensor and
returns it; the out-of-place twins return a tensor. A tensor that requires
grad is refused (TypeError) unless grad mode is off (``torch.no_grad()``),
as torch refuses in-place writes to leaves that require grad.
"""
import functools
import operator
import warnings

import numpy as np

from . import _core
from ._jax_at import _selection

__all__ = ["scatter_", "scatter_add_", "scatter_reduce_", "index_add_", "index_put_",
           "index_copy_", "index_fill_", "index_reduce_", "masked_scatter_", "put_",
           "scatter", "scatter_add", "scatter_reduce", "index_add", "index_put",
           "index_copy", "index_fill", "index_reduce", "masked_scatter", "put"]

_REDUCES = ("sum", "prod", "mean", "amax", "amin")


def _self(self):
    if not isinstance(self, np.ndarray):
        raise TypeError(f"expected a numpy.ndarray for self, got {type(self).__name__}")
    if not self.flags.writeable:
        raise RuntimeError("cannot write into a read-only array")
    return self


def _as_1d(self, dim, *others):
    """torch's 0-d self: a one-element 1-D view (dim in [-1, 0]), with the
    0-d index and src arrays seen as one element too."""
    dim = _dim(dim)
    if self.ndim != 0:
        return (self, dim) + others
    if not -1 <= dim <= 0:
        raise IndexError(f"Dimension out of range (expected to be in range of [-1, 0], but got "
                         f"{dim})")
    return (self.reshape(1), 0) + tuple(o.reshape(1) if isinstance(o, np.ndarray) and o.ndim == 0
                                        else o for o in others)


# torch's reduced floating types (at::opmath_type is float32 for them)
_REDUCED = frozenset({"float16", "bfloat16"})


def _half_in_float(self, src, run):
    """torch's float16 and bfloat16 scatter_, scatter_add_ and
    scatter_reduce_ combine in float32 and round once into self;
    run(target, src) does the work."""
    if self.dtype.name not in _REDUCED or src.dtype != self.dtype:
        return run(self, src)
    wide = self.astype(np.float32)
    run(wide, src.astype(np.float32))
    np.copyto(self, wide, casting="unsafe")  # (only after run checked everything)


def _dim(dim):
    """torch's int64 argument: an out-of-range Python int is a ValueError
    before any range check (an ordinary bad dim is the IndexError of the
    C++ front end)."""
    dim = operator.index(dim)
    if not -2**63 <= dim < 2**63:
        raise ValueError("Overflow when unpacking long long")
    return dim


# Inputs that share memory with self: torch's RuntimeError comes from the
# C++ front ends (when both layouts are dense), else the planner reads a
# copy. So the arrays go down as they are.
def scatter_(self, dim, index, src, *, reduce=None):
    """Tensor.scatter_: writes `src` into `self` at `index` along `dim`.

    For a 3-D self, ``self[index[i][j][k]][j][k] = src[i][j][k]`` when
    dim is 0, and likewise along the other dims. With `reduce`, the values
    combine with what is there instead. float16 and bfloat16 combine in
    float32 and round once, as torch does. A 0-d self is one element.

    Parameters
    ----------
    self : ndarray or torch.Tensor
        The target, changed in place.
    dim : int
        The dim the index runs along (negative counts from the end).
    index : array_like of int64
        Positions along `dim`; no larger than `self` in the other dims.
    src : array_like or scalar
        The values, an array at least as large as `index`, or one scalar.
    reduce : {None, 'add', 'multiply'}, optional
        Combine instead of writing.

    Returns
    -------
    ndarray or torch.Tensor
        `self`.

    Raises
    ------
    RuntimeError
        For shapes or dtypes torch refuses (its messages); an unknown reduce.
    IndexError
        For a dim out of range or an index out of bounds, before any write.

    Examples
    --------
    >>> import numpy as np
    >>> from ufuncx import torchlike
    >>> torchlike.scatter_(np.zeros((2, 3)), 1, np.array([[2, 0], [1, 2]]),
    ...                    np.array([[1.0, 2.0], [3.0, 4.0]]))
    array([[2., 0., 1.],
           [0., 3., 4.]])
    """
    _self(self)
    if reduce not in (None, "add", "multiply"):
        raise RuntimeError("reduce argument must be either add or multiply.")
    index = np.asarray(index)
    if not isinstance(src, np.ndarray):
        src = np.broadcast_to(np.asarray(src, dtype=self.dtype), index.shape)
    target, dim, index, src = _as_1d(self, dim, index, src)
    run = lambda t, s: _core._torch_scatter_reduce(t, dim, index, s, reduce or "none", True)
    if reduce is None:
        run(target, src)
    else:
        _half_in_float(target, src, run)
    return self


def scatter_add_(self, dim, index, src):
    """Tensor.scatter_add_: ``self[index along dim] += src``, repeated
    positions adding up in index order.

    float16 and bfloat16 sum in float32 and round once, as torch does. A 0-d
    self is one element.

    Parameters
    ----------
    self : ndarray or torch.Tensor
        The target, changed in place.
    dim : int
        The dim the index runs along.
    index : array_like of int64
        Positions along `dim`.
    src : ndarray or torch.Tensor
        The values added, at least as large as `index`.

    Returns
    -------
    ndarray or torch.Tensor
        `self`.

    See Also
    --------
    scatter_reduce_ : the other reductions.
    index_add_ : whole slices along a dim.

    Examples
    --------
    >>> import numpy as np
    >>> from ufuncx import torchlike
    >>> torchlike.scatter_add_(np.zeros(4), 0, np.array([0, 1, 1, 3]),
    ...                        np.array([1.0, 2.0, 3.0, 4.0]))
    array([1., 5., 0., 4.])
    """
    _self(self)
    if not isinstance(src, np.ndarray):
        raise TypeError("scatter_add_(): src must be an array")
    target, dim, index, src = _as_1d(self, dim, np.asarray(index), src)
    _half_in_float(target, src,
                   lambda t, s: _core._torch_scatter_reduce(t, dim, index, s, "add", True))
    return self


def scatter_reduce_(self, dim, index, src, reduce, *, include_self=True):
    """Tensor.scatter_reduce_: combines `src` into `self` at `index`
    along `dim` with a reduction.

    ``include_self=False`` leaves out the old value of each position that
    receives an update (the others keep theirs). 'mean' divides by the
    number of values combined (floor division for integers). float16 and
    bfloat16 combine in float32 and round once (mean: the rounded sum over
    the count, rounded again), as torch does.

    Parameters
    ----------
    self : ndarray or torch.Tensor
        The target, changed in place.
    dim : int
        The dim the index runs along.
    index : array_like of int64
        Positions along `dim`.
    src : ndarray or torch.Tensor
        The values, at least as large as `index`.
    reduce : {'sum', 'prod', 'mean', 'amax', 'amin'}
        The reduction; 'amax' and 'amin' propagate NaN.
    include_self : bool, optional
        Whether the old values of `self` take part.

    Returns
    -------
    ndarray or torch.Tensor
        `self`.

    Examples
    --------
    >>> import numpy as np
    >>> from ufuncx import torchlike
    >>> torchlike.scatter_reduce_(np.full(4, 5.0), 0, np.array([0, 1, 1, 3]),
    ...                           np.array([1.0, 2.0, 3.0, 4.0]), "amax",
    ...                           include_self=False)
    array([1., 3., 5., 4.])
    >>> torchlike.scatter_reduce_(np.array([1, 1, 1]), 0, np.array([0, 0, 2]),
    ...                           np.array([4, 6, 8]), "mean")
    array([3, 1, 4])
    """
    _self(self)
    if reduce not in _REDUCES and reduce not in ("max", "min"):
        raise RuntimeError("reduce argument must be either sum, prod, mean, amax or amin, "
                           f"got {reduce}")
    reduce = {"max": "amax", "min": "amin"}.get(reduce, reduce)  # (torch's older names)
    if not isinstance(src, np.ndarray):
        raise TypeError("scatter_reduce_(): src must be an array")
    target, dim, index, src = _as_1d(self, dim, np.asarray(index), src)
    if reduce == "mean" and target.dtype.name in _REDUCED and src.dtype == target.dtype:
        _half_mean(target, dim, index, src, bool(include_self))
        return self
    _half_in_float(target, src, lambda t, s: _core._torch_scatter_reduce(
        t, dim, index, s, reduce, bool(include_self)))
    return self


def _half_mean(self, dim, index, src, include_self):
    """torch's float16 (bfloat16) mean: the sum in float32 rounded to the type, then
    divided by the count (include_self counts self) and rounded again."""
    total = self.astype(np.float32)
    _core._torch_scatter_reduce(total, dim, index, src.astype(np.float32), "sum", include_self)
    count = np.zeros(self.shape, np.float32)
    _core._torch_scatter_reduce(count, dim, index, np.ones(src.shape, np.float32), "sum", False)
    hit = count > 0
    count += include_self
    mean = (total.astype(self.dtype).astype(np.float32) / np.maximum(count, 1)).astype(self.dtype)
    np.copyto(self, mean, where=hit)


def index_add_(self, dim, index, source, *, alpha=1):
    """Tensor.index_add_: ``self.select(dim, index[i]) += alpha *
    source.select(dim, i)``, repeated positions adding up in order.

    torch's CPU kernel gives `self` of two or more dims, `dim` first or
    last, int64 `index` and ``alpha == 1`` to ``scatter_add_``: then
    float16 and bfloat16 add in float32 and round once, as ``scatter_add_``
    does; every other call adds slice by slice, rounding each add (and
    an index out of range is torch's IndexError "index out of range in
    self" rather than ``scatter_add_``'s RuntimeError).

    Parameters
    ----------
    self : ndarray or torch.Tensor
        The target, changed in place.
    dim : int
        The dim the index runs along.
    index : array_like of int64 or int32
        One position per slice of `source` along `dim`.
    source : array_like
        Shaped as `self` except along `dim`, where it has ``len(index)``.
    alpha : number, optional
        The factor `source` is scaled by.

    Returns
    -------
    ndarray or torch.Tensor
        `self`.

    Examples
    --------
    >>> import numpy as np
    >>> from ufuncx import torchlike
    >>> torchlike.index_add_(np.zeros((3, 2)), 0, np.array([0, 2, 0]), np.ones((3, 2)),
    ...                      alpha=2)
    array([[4., 4.],
           [0., 0.],
           [2., 2.]])
    """
    _self(self)
    source = np.asarray(source)
    index = np.asarray(index)
    dim = _index_func_checks("index_add_", self, dim, index, source)
    if alpha != 1:
        source = source * np.asarray(alpha).astype(self.dtype)
    target, dim, index, source = _as_1d(self, dim, index.reshape(-1) if self.ndim == 0 else index,
                                        source)
    nd = self.ndim
    scatter_kernel = nd > 1 and dim in (0, nd - 1) and _is_int64(index) and alpha == 1

    def run(t, s):
        _core._torch_index_add(t, dim, index, s, scatter_kernel)
    if scatter_kernel:
        _half_in_float(target, source, run)
    else:
        run(target, source)
    return self


def index_put_(self, indices, values, accumulate=False):
    """Tensor.index_put_: ``self[indices] = values``, or ``+=`` with
    ``accumulate=True``, where repeated positions accumulate.

    Indices are int64 or int32 positions (negative ones count from the end)
    or bool masks, with slices and Ellipsis between them as in torch's
    ``x[:, idx] = v``; uint8 masks are taken with torch's deprecation
    warning. float16 accumulates in float16, as torch does.

    Parameters
    ----------
    self : ndarray or torch.Tensor
        The target, changed in place.
    indices : tuple of array_like
        One entry per leading dim of `self`, broadcast together.
    values : array_like
        Broadcast to the selection.
    accumulate : bool, optional
        Add into `self` instead of writing.

    Returns
    -------
    ndarray or torch.Tensor
        `self`.

    Examples
    --------
    >>> import numpy as np
    >>> from ufuncx import torchlike
    >>> torchlike.index_put_(np.zeros(4), (np.array([1, 1, 3]),),
    ...                      np.array([1.0, 2.0, 3.0]), True)
    array([0., 3., 0., 3.])
    """
    _self(self)
    if not isinstance(indices, (tuple, list)):
        raise TypeError("index_put_(): indices must be a tuple of arrays")
    for k, i in enumerate(indices):
        if i is None:
            raise TypeError(f"expected Tensor as element {k} in argument 0, but got NoneType")
    if not indices:
        raise RuntimeError("index_put_(): at least one index is needed")
    values = np.asarray(values)
    if any(isinstance(i, slice) or i is Ellipsis for i in indices):
        indices = _without_slices(self.shape, indices)
    idx = []
    for i in indices:
        i = np.asarray(i)
        if i.dtype == np.uint8:
            # torch's byte masks (deprecated): as bool masks, but a lone one
            # with a single value takes masked_fill_, which refuses them.
            warnings.warn("indexing with dtype torch.uint8 is now deprecated, please use a "
                          "dtype torch.bool instead.", UserWarning, stacklevel=2)
            if len(indices) == 1 and values.size == 1 and not accumulate:
                raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with "
                                   "dtype unsigned char")
            i = i.astype(bool)
        if i.dtype == np.bool_:
            at = len(idx)
            if i.shape != self.shape[at:at + i.ndim]:
                j = next((j for j in range(min(i.ndim, self.ndim - at))
                          if i.shape[j] != self.shape[at + j]), None)
                if j is None:  # (more mask dims than self has left: torch reads its size)
                    nd = max(self.ndim, 1)
                    raise IndexError(f"Dimension out of range (expected to be in range of "
                                     f"[{-nd}, {nd - 1}], but got {self.ndim})")
                raise IndexError(f"The shape of the mask {list(i.shape)} at index {j} does not "
                                 f"match the shape of the indexed tensor {list(self.shape)} at "
                                 f"index {at + j}")
            idx.extend(i.nonzero())
        elif i.dtype in (np.int64, np.int32):
            idx.append(i)
        else:
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    _core._torch_index_put(self, idx, values, bool(accumulate))
    return self


# torch's names of dtypes, for its messages
_TORCH_NAMES = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char",
                "uint8": "Byte", "bool": "Bool", "float16": "Half", "bfloat16": "BFloat16",
                "float8_e4m3fn": "Float8_e4m3fn", "float8_e5m2": "Float8_e5m2", "float32": "Float",
                "float64": "Double", "complex64": "ComplexFloat", "complex128": "ComplexDouble"}


def _torch_name(dtype):
    return _TORCH_NAMES.get(np.dtype(dtype).name, np.dtype(dtype).name)


def _is_int64(a):
    """torch's long index (any byte order: NumPy arrays may be swapped)."""
    return a.dtype.kind == "i" and a.dtype.itemsize == 8


def _along(self, dim, index, source_shape):
    """An index along dim as scatter's index: expanded over source_shape."""
    shape = [1] * len(source_shape)
    if shape:
        shape[dim] = -1
    return np.broadcast_to(index.reshape(shape), source_shape)


def _wrap_dim(dim, ndim):
    """torch's maybe_wrap_dim (a 0-d tensor takes dims -1 and 0)."""
    dim = _dim(dim)
    nd = max(ndim, 1)
    if not -nd <= dim < nd:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], "
                         f"but got {dim})")
    return dim % nd


def _other_dim_empty(target, dim):
    """Whether a dim of target other than dim is empty: then torch's
    index_fill_ and index_copy_ write nothing and read no index."""
    return any(n == 0 for k, n in enumerate(target.shape) if k != dim)


def _dim_index(name, self, dim, index, wrap):
    """dim normalised and index as int64 positions along it, checked against
    self's extent there before anything is written."""
    dim = _wrap_dim(dim, self.ndim)
    size = self.shape[dim] if self.ndim else 1
    index = np.asarray(index).reshape(-1).astype(np.int64)
    bad = (index < -size) | (index >= size) if wrap else (index < 0) | (index >= size)
    if bad.any():
        i = int(index[bad][0])
        if name == "index_reduce_":
            raise IndexError("index out of range in self")
        prefix = "" if name == "index_fill_" else f"{name}(): "
        raise IndexError(f"{prefix}index {i} is out of bounds for dimension {dim} with size {size}")
    return dim, np.where(index < 0, index + size, index)


def _index_func_checks(name, self, dim, index, source):
    """torch's checks of index_add_ and index_reduce_ (its
    index_func_meta_impl), in its order, before anything is read or
    written; returns dim wrapped against self."""
    dim = _wrap_dim(dim, self.ndim)
    if index.ndim > 1:
        raise IndexError(f"{name}(): Index is supposed to be a vector, but got dim: {index.ndim} "
                         f"with type: {_torch_name(index.dtype)} and size: {list(index.shape)}")
    if index.dtype.kind != "i" or index.dtype.itemsize not in (4, 8):
        raise RuntimeError(f"{name}(): Expected dtype int32/int64 for index but got: "
                           f"{_torch_name(index.dtype)}")
    if source.dtype != self.dtype:
        raise RuntimeError(f"{name}(): self ({_torch_name(self.dtype)}) and source "
                           f"({_torch_name(source.dtype)}) must have the same scalar type")
    if dim != 0 and dim >= source.ndim:
        raise RuntimeError(f"{name}(): Indexing dim {dim} is out of bounds of the source tensor "
                           f"with dim {source.ndim}")
    if source.ndim == 0 and index.size != 1:
        # (torch's message reads source.size(0) of a 0-d source, which raises this)
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    if source.ndim and index.size != source.shape[dim]:
        raise RuntimeError(f"{name}(): Number of indices ({index.size}) should be equal to "
                           f"source.size(dim): ({source.shape[dim]}), for dim: {dim}")
    rest = [list(self.shape), list(source.shape)]
    if self.ndim and source.ndim:
        for r in rest:
            del r[dim]
    if rest[0] != rest[1]:
        raise RuntimeError("source tensor shape must match self tensor shape, excluding the "
                           f"specified dimension. Got self.shape = {list(self.shape)} "
                           f"source.shape = {list(source.shape)}")
    return dim


def index_copy_(self, dim, index, source):
    """Tensor.index_copy_: ``self.select(dim, index[i]) =
    source.select(dim, i)``.

    Parameters
    ----------
    self : ndarray or torch.Tensor
        The target, changed in place.
    dim : int
        The dim the index runs along.
    index : array_like of int64
        One position per slice of `source` (not wrapped: negative is out of
        bounds).
    source : array_like
        Of self's dtype, shaped as `self` except along `dim`.

    Returns
    -------
    ndarray or torch.Tensor
        `self`.

    Examples
    --------
    >>> import numpy as np
    >>> from ufuncx import torchlike
    >>> torchlike.index_copy_(np.zeros((3, 2)), 0, np.array([2, 0]),
    ...                       np.array([[1.0, 2.0], [3.0, 4.0]]))
    array([[3., 4.],
           [0., 0.],
           [1., 2.]])
    """
    _self(self)
    source = np.asarray(source)
    index = np.asarray(index)
    # torch's checks, in its order
    dim = _wrap_dim(dim, self.ndim)
    if index.ndim > 1:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {index.ndim})")
    if source.ndim == 0 and index.size != 1:
        raise IndexError(f"index_copy_(): When source is scalar, index should have one element "
                         f"(got {index.size})")
    if source.ndim != self.ndim and source.ndim and self.ndim:
        raise IndexError("index_copy_(): When source and destination are not scalars, their "
                         f"dimensionality must match. Source dimensionality ({source.ndim}), "
                         f"destination dimensionality ({self.ndim})")
    if not _is_int64(index):
        raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got "
                           f"{_torch_name(index.dtype)}")
    if source.dtype != self.dtype:
        raise RuntimeError(f"index_copy_(): self and source expected to have the same dtype, but "
                           f"got (self) {_torch_name(self.dtype)} and (source) "
                           f"{_torch_name(source.dtype)}")
    rest = [list(self.shape), list(source.shape)]
    for r in rest:
        if r:
            del r[dim]
    if rest[0] != rest[1]:
        raise RuntimeError("index_copy_(): Source/destination tensor must have same slice shapes. "
                           f"Destination slice shape: {' '.join(map(str, rest[0]))} at dimension "
                           f"{dim} and source slice shape: {' '.join(map(str, rest[1]))} at "
                           "dimension 0.")
    if source.ndim and index.size != source.shape[dim]:
        raise IndexError(f"index_copy_(): Number of indices ({index.size}) should be equal to "
                         f"source.size(dim) ({source.shape[dim]})")
    target = self.reshape(1) if self.ndim == 0 else self
    if _other_dim_empty(target, dim):
        return self
    if source.ndim == 0:
        source = source.reshape((1,) * target.ndim)
    dim, positions = _dim_index("index_copy_", target, dim, index, wrap=False)
    _core._torch_scatter_reduce(target, dim, _along(target, dim, positions, source.shape), source,
                                "none", True)
    return self


def index_fill_(self, dim, index, value):
    """Tensor.index_fill_: ``self.select(dim, index[i]) = value``.

    Parameters
    ----------
    self : ndarray or torch.Tensor
        The target, changed in place.
    dim : int
        The dim the index runs along.
    index : array_like of int64
        Positions along `dim`; negative ones count from the end.
    value : scalar or 0-d array_like
        The value written.

    Returns
    -------
    ndarray or torch.Tensor
        `self`.

    Examples
    --------
    >>> import numpy as np
    >>> from ufuncx import torchlike
    >>> torchlike.index_fill_(np.zeros((2, 3)), 1, np.array([0, -1]), 7.0)
    array([[7., 0., 7.],
           [7., 0., 7.]])
    """
    _self(self)
    index = np.asarray(index)
    value = np.asarray(value)
    if value.ndim:
        raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got "
                           f"tensor with {value.ndim} dimension(s).")
    if not _is_int64(index):
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    target = self.reshape(1) if self.ndim == 0 else self
    wrapped = _wrap_dim(dim, self.ndim)
    if index.ndim > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    if _other_dim_empty(target, wrapped):
        return self
    dim, positions = _dim_index("index_fill_", target, dim, index, wrap=True)
    if target.size == 0 or positions.size == 0:
        return self
    shape = list(target.shape)
    shape[dim] = positions.size
    source = np.broadcast_to(value.astype(self.dtype), shape)
    _core._torch_scatter_reduce(target, dim, _along(target, dim, positions, shape), source,
                                "none", True)
    return self


def index_reduce_(self, dim, index, source, reduce, *, include_self=True):
    """Tensor.index_reduce_: combines ``source.select(dim, i)`` into
    ``self.select(dim, index[i])`` with a reduction.

    `include_self` and 'mean' work as in :func:`scatter_reduce_`, but
    slice by slice as torch's kernel does: float16 and bfloat16 'prod' and
    'mean' round every step in the type (the mean's sum too, before its
    division), and bool takes only 'prod', 'amax' and 'amin' with
    `include_self` on a `self` of two or more dims (torch's
    NotImplementedError otherwise).

    Parameters
    ----------
    self : ndarray or torch.Tensor
        The target, changed in place.
    dim : int
        The dim the index runs along.
    index : array_like of int64 or int32
        One position per slice of `source`.
    source : array_like
        Shaped as `self` except along `dim`.
    reduce : {'prod', 'mean', 'amax', 'amin'}
        The reduction.
    include_self : bool, optional
        Whether the old values of `self` take part.

    Returns
    -------
    ndarray or torch.Tensor
        `self`.

    Examples
    --------
    >>> import numpy as np
    >>> from ufuncx import torchlike
    >>> torchlike.index_reduce_(np.full(3, 2.0), 0, np.array([0, 0, 2]),
    ...                         np.array([3.0, 4.0, 5.0]), "prod")
    array([24.,  2., 10.])
    """
    _self(self)
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or "
                           f"amin but got {reduce}.")
    source = np.asarray(source)
    index = np.asarray(index)
    dim = _index_func_checks("index_reduce_", self, dim, index, source)
    target, source = (self.reshape(1), source.reshape(1)) if self.ndim == 0 else (self, source)
    if self.dtype == np.bool_ and (not include_self or self.ndim <= 1):
        # (torch's dtype dispatch: before the indices are read)
        kernel = "index_reduce_func_exclude_input_init" if not include_self else "index_func_"
        raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')
    dim, positions = _dim_index("index_reduce_", target, dim, index, wrap=False)
    if self.dtype == np.bool_ and reduce == "mean" and positions.size:
        raise NotImplementedError('"div_floor_cpu" not implemented for \'Bool\'')
    along = _along(target, dim, positions, source.shape)
    if target.dtype.name in _REDUCED and reduce in ("prod", "mean") and source.dtype == self.dtype:
        # (slice by slice in the type; scatter_reduce_ would sum in float32)
        _core._torch_scatter_reduce(target, dim, along, source, reduce, bool(include_self))
    else:
        scatter_reduce_(target, dim, along, source, reduce, include_self=include_self)
    return self


def _check_expand(a, shape):
    """torch's expand(a, shape) errors: a may not have more dims than
    shape, and each of its dims (from the last) equals shape's or is 1."""
    shape, have = list(shape), list(a.shape)
    if len(have) > len(shape):
        raise RuntimeError(f"expand(CPU{_torch_name(a.dtype)}Type{{{have}}}, size={shape}): the "
                           f"number of sizes provided ({len(shape)}) must be greater or equal to "
                           f"the number of dimensions in the tensor ({len(have)})")
    for i in range(len(shape) - 1, -1, -1):
        j = i - (len(shape) - len(have))
        if j >= 0 and have[j] not in (1, shape[i]):
            raise RuntimeError(f"The expanded size of the tensor ({shape[i]}) must match the "
                               f"existing size ({have[j]}) at non-singleton dimension {i}.  "
                               f"Target sizes: {shape}.  Tensor sizes: {have}")


def masked_scatter_(self, mask, source):
    """Tensor.masked_scatter_: the positions where `mask` (broadcast to
    `self`) is true take `source`'s elements, in order.

    Parameters
    ----------
    self : ndarray or torch.Tensor
        The target, changed in place.
    mask : array_like of bool
        Broadcast to the shape of `self`.
    source : array_like
        Of self's dtype, with at least as many elements as `mask` has true
        values.

    Returns
    -------
    ndarray or torch.Tensor
        `self`.

    Examples
    --------
    >>> import numpy as np
    >>> from ufuncx import torchlike
    >>> torchlike.masked_scatter_(np.zeros(5), np.array([True, False, True, False, True]),
    ...                           np.array([1.0, 2.0, 3.0, 4.0]))
    array([1., 0., 2., 0., 3.])
    """
    _self(self)
    mask, source = np.asarray(mask), np.asarray(source)
    if mask.dtype != np.bool_:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with "
                           f"dtype {_torch_name(mask.dtype)}")
    if source.dtype != self.dtype:
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but "
                           f"got{_torch_name(self.dtype)} and {_torch_name(source.dtype)}")
    _check_expand(mask, self.shape)
    mask = np.broadcast_to(mask, self.shape)
    target = self.reshape(1) if self.ndim == 0 else self
    where = mask.reshape(target.shape).nonzero()
    count = where[0].size
    if source.size < count:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    if count:
        _core._torch_index_put(target, list(where), source.reshape(-1)[:count], False)
    return self


def put_(self, index, source, accumulate=False):
    """Tensor.put_: `self` seen as 1-D in C order, ``[index] = source``
    (``+=`` with ``accumulate=True``).

    Parameters
    ----------
    self : ndarray or torch.Tensor
        The target, changed in place.
    index : array_like of int64
        Flat positions; negative ones count from the end.
    source : array_like
        Of self's dtype, as many elements as `index`.
    accumulate : bool, optional
        Add into `self` instead of writing.

    Returns
    -------
    ndarray or torch.Tensor
        `self`.

    Examples
    --------
    >>> import numpy as np
    >>> from ufuncx import torchlike
    >>> torchlike.put_(np.zeros((2, 2)), np.array([0, 3, -1]), np.array([1.0, 2.0, 3.0]),
    ...                accumulate=True)
    array([[1., 0.],
           [0., 5.]])
    """
    _self(self)
    index, source = np.asarray(index), np.asarray(source)
    if not _is_int64(index):
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got "
                           f"{_torch_name(index.dtype)}")
    if source.dtype != self.dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got "
                           f"self.dtype = {_torch_name(self.dtype)} and source.dtype = "
                           f"{_torch_name(source.dtype)}")
    if source.size != index.size:
        raise IndexError(f"put_(): Expected source and index to have the same number of "
                         f"elements, but got source.numel() = {source.size}, index.numel() = "
                         f"{index.size}")
    index = index.reshape(-1).astype(np.int64, copy=False)  # (native order)
    if self.size == 0 and index.size:
        raise IndexError("put_(): Tried to put elements into an empty tensor")
    bad = (index < -self.size) | (index >= self.size)
    if bad.any():
        raise IndexError(f"out of range: tried to access index {int(index[bad][0])} on a tensor "
                         f"of {self.size} elements.")
    flat = self.reshape(-1)  # a view when self is C-contiguous, else a copy
    _core._torch_index_put(flat, [index], source.reshape(-1), bool(accumulate))
    if not np.shares_memory(flat, self):
        np.copyto(self, flat.reshape(self.shape))
    return self


def _without_slices(shape, indices):
    """Indices with slices and Ellipsis (torch's x[:, idx] = v) as one
    int64 position array per dim over the whole selection, placed as
    NumPy's and torch's advanced indexing place them (ufuncx.at's
    selection, which JAX's rules share here); uint8 entries are masks."""
    entries = []
    for i in indices:
        if isinstance(i, slice) or i is Ellipsis:
            entries.append(i)
            continue
        a = np.asarray(i)
        if a.dtype not in (np.int64, np.int32, np.bool_, np.uint8):
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        entries.append(a.astype(bool) if a.dtype == np.uint8 else a)
    flat = _selection(shape, tuple(entries), "drop")
    if (flat < 0).any():
        raise IndexError(f"index out of bounds for the indexed tensor of shape {list(shape)}")
    return list(np.unravel_index(flat, shape)) if len(shape) else [flat]


def _copying(inplace):
    """The out-of-place twin of an in-place function, with its signature."""
    @functools.wraps(inplace)
    def out_of_place(self, *args, **kwargs):
        return inplace(np.array(self, copy=True), *args, **kwargs)
    name = inplace.__name__.rstrip("_")
    out_of_place.__name__ = out_of_place.__qualname__ = name
    # The in-place docstring, told of the copy (its examples give the same result).
    doc = inplace.__doc__.split("\n", 1)[1]
    doc = doc.replace("The target, changed in place.", "The input; it is copied, not changed.")
    doc = doc.replace("        `self`.\n", "        A new array (or tensor).\n")
    doc = doc.replace(f"torchlike.{inplace.__name__}(", f"torchlike.{name}(")
    out_of_place.__doc__ = (f"Out-of-place Tensor.{name}: as :func:`{inplace.__name__}`, on a "
                            f"copy of `self`.\n{doc}")
    return out_of_place


scatter = _copying(scatter_)
scatter_add = _copying(scatter_add_)
scatter_reduce = _copying(scatter_reduce_)
index_add = _copying(index_add_)
index_put = _copying(index_put_)
index_copy = _copying(index_copy_)
index_fill = _copying(index_fill_)
index_reduce = _copying(index_reduce_)
masked_scatter = _copying(masked_scatter_)
put = _copying(put_)


_TENSOR_TYPES: set[type] = set()  # the torch tensor types seen (a set lookup per argument after the first)
_PLAIN_TYPES = {np.ndarray, int, float, bool, str, type(None), slice, type(Ellipsis)}


def _is_tensor(x):
    t = type(x)
    if t in _PLAIN_TYPES:
        return False
    if t in _TENSOR_TYPES:
        return True
    if t.__module__.startswith("torch") and hasattr(x, "numpy") and hasattr(x, "is_cpu"):
        _TENSOR_TYPES.add(t)
        return True
    return False


def _as_array(x):
    """A torch tensor as the numpy array sharing its memory (checked)."""
    if not _is_tensor(x):
        if type(x) in (tuple, list):
            return type(x)(_as_array(i) for i in x)
        return x
    if not x.is_cpu:
        raise TypeError(f"ufuncx.torchlike works on CPU tensors; this one is on {x.device} "
                        f"(move it with .cpu())")
    if x.requires_grad:
        import torch
        if torch.is_grad_enabled():
            raise TypeError("ufuncx does not record autograd: a tensor that requires "
                            "grad is taken only under torch.no_grad()")
        x = x.detach()
    ml = _ML_TENSOR_DTYPES.get(str(x.dtype))
    if ml is not None:  # a view of the bits, typed as ml_dtypes' type
        try:
            import ml_dtypes
        except ImportError:
            raise TypeError(f"ufuncx.torchlike: a {x.dtype} tensor needs the ml_dtypes package "
                            f"(pip install ml_dtypes)") from None
        import torch
        bits = torch.int16 if ml == "bfloat16" else torch.uint8
        return x.view(bits).numpy().view(getattr(ml_dtypes, ml))
    try:
        return x.numpy()
    except TypeError as e:  # (dtypes neither NumPy nor ml_dtypes has)
        raise TypeError(f"ufuncx.torchlike: a {x.dtype} tensor has no NumPy view ({e})") from None


# torch dtypes that are ml_dtypes types, and back
_ML_TENSOR_DTYPES = {"torch.bfloat16": "bfloat16", "torch.float8_e4m3fn": "float8_e4m3fn",
                     "torch.float8_e5m2": "float8_e5m2"}


def _as_tensor(array):
    """A numpy array as the torch tensor sharing its memory."""
    import torch
    if array.dtype.name in ("bfloat16", "float8_e4m3fn", "float8_e5m2"):
        bits = np.int16 if array.dtype.itemsize == 2 else np.uint8
        return torch.from_numpy(array.view(bits)).view(getattr(torch, array.dtype.name))
    return torch.from_numpy(array)


def _tensors_too(fn):
    @functools.wraps(fn)
    def call(self, *args, **kwargs):
        if not (_is_tensor(self) or any(_is_tensor(a) or type(a) in (tuple, list)
                                        for a in args + tuple(kwargs.values()))):
            return fn(self, *args, **kwargs)
        array = _as_array(self)
        result = fn(array, *map(_as_array, args), **{k: _as_array(v) for k, v in kwargs.items()})
        if not _is_tensor(self):
            return result
        if result is array:  # in place: the tensor itself
            return self
        return _as_tensor(result)
    return call


for _name in __all__:
    globals()[_name] = _tensors_too(globals()[_name])
del _name
