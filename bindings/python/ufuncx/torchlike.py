"""PyTorch's scatter family on numpy arrays, with PyTorch's semantics and
error classes (RuntimeError where torch raises it). Each function builds one
scatter request for the planner; none loops over elements.

In place: scatter_, scatter_add_, scatter_reduce_, index_add_, index_put_.
Out of place twins without the underscore return a new array.
"""
import numpy as np

from . import _core
from ._at import lower_index

__all__ = ["scatter_", "scatter_add_", "scatter_reduce_", "index_add_", "index_put_",
           "scatter", "scatter_add", "scatter_reduce", "index_add", "index_put"]

_REDUCE = {"sum": "add", "prod": "multiply", "mean": "add", "amax": "maximum", "amin": "minimum"}


def _check_self(self):
    if not isinstance(self, np.ndarray):
        raise TypeError(f"expected a numpy.ndarray for self, got {type(self).__name__}")
    if not self.flags.writeable:
        raise RuntimeError("cannot write into a read-only array")


def _wrap_dim(dim, ndim):
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {dim})")
    return dim % n


def _torch_message(err, dim, shape):
    """The planner says 'axis'; torch says 'dimension'."""
    bad = str(err).split(" is out of bounds")[0].replace("index ", "")
    return f"index {bad} is out of bounds for dimension {dim} with size {shape[dim]}"


def _lower_gather_like(self, dim, index, src, reduce, init=None, finalize="none", name="scatter"):
    """self[..., index[i,j,k], ...] (.)= src[i,j,k] along `dim`: batching
    dims are every dim but `dim`, so no index or update data is copied."""
    _check_self(self)
    index = np.asarray(index)
    if index.dtype not in (np.int64, np.int32):
        raise RuntimeError(f"{name}(): Expected dtype int32/int64 for index")
    dim = _wrap_dim(dim, self.ndim)
    if index.size == 0:
        return self
    if index.ndim != self.ndim:
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    if src.ndim != index.ndim:
        raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
    too_big = any(index.shape[d] > src.shape[d] for d in range(index.ndim)) or any(
        index.shape[d] > self.shape[d] for d in range(index.ndim) if d != dim)
    if too_big:
        raise RuntimeError(f"Expected index {list(index.shape)} to be no larger than self "
                           f"{list(self.shape)} apart from dimension {dim} and to be no larger "
                           f"size than src {list(src.shape)}")
    if src.dtype != self.dtype:
        raise RuntimeError(f"{name}(): Expected self.dtype to be equal to src.dtype")
    view = self[tuple(slice(None) if d == dim else slice(0, index.shape[d])
                      for d in range(self.ndim))]
    upd = src[tuple(slice(0, s) for s in index.shape)]
    if np.may_share_memory(upd, self):
        upd = upd.copy()
    batch = [d for d in range(self.ndim) if d != dim]
    init_values = [] if init is None else [np.asarray(init, dtype=self.dtype)]
    try:
        _core._scatter([view], index, [upd], [], [dim], batch, batch, [dim], index.ndim,
                       reduce, "raise", init_values=init_values, finalize=finalize)
    except IndexError as e:
        raise RuntimeError(_torch_message(e, dim, self.shape)) from None
    return self


def scatter_(self, dim, index, src, *, reduce=None):
    """Tensor.scatter_: writes src (an array or a scalar value) into self at
    index along dim; reduce='add' or 'multiply' combines instead."""
    if reduce not in (None, "add", "multiply"):
        raise RuntimeError("reduce argument must be either add or multiply.")
    if not isinstance(src, np.ndarray):
        index_shape = np.shape(index)
        src = np.broadcast_to(np.asarray(src, dtype=self.dtype), index_shape)
    combiner = {"add": "add", "multiply": "multiply", None: None}[reduce]
    return _lower_gather_like(self, dim, index, src, combiner, name="scatter")


def scatter_add_(self, dim, index, src):
    """Tensor.scatter_add_: self[index along dim] += src."""
    if not isinstance(src, np.ndarray):
        raise TypeError("scatter_add_(): src must be an array")
    return _lower_gather_like(self, dim, index, src, "add", name="scatter_add")


def _reduce_init(reduce, dtype):
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    if dtype.kind == "f":
        return -np.inf if reduce == "amax" else np.inf
    if dtype.kind == "b":
        return reduce == "amin"
    info = np.iinfo(dtype)
    return info.min if reduce == "amax" else info.max


def scatter_reduce_(self, dim, index, src, reduce, *, include_self=True):
    """Tensor.scatter_reduce_ with reduce in sum, prod, mean, amax, amin.
    include_self=False resets only the positions that receive updates; mean
    divides by count + include_self (floor division for integers)."""
    if reduce not in _REDUCE:
        raise RuntimeError("reduce argument must be either sum, prod, mean, amax or amin, "
                           f"got {reduce}")
    if not isinstance(src, np.ndarray):
        raise TypeError("scatter_reduce_(): src must be an array")
    init = None if include_self else _reduce_init(reduce, self.dtype)
    return _lower_gather_like(self, dim, index, src, _REDUCE[reduce], init=init,
                              finalize="mean" if reduce == "mean" else "none",
                              name="scatter_reduce")


def index_add_(self, dim, index, source, *, alpha=1):
    """Tensor.index_add_: self.select(dim, index[i]) += alpha * source.select(dim, i)."""
    _check_self(self)
    index = np.asarray(index)
    source = np.asarray(source)
    if index.dtype not in (np.int64, np.int32):
        raise RuntimeError("index_add_(): Expected dtype int32/int64 for index")
    if index.ndim > 1:
        raise IndexError("index_add_(): Index is supposed to be a vector")
    index = index.reshape(-1)
    dim = _wrap_dim(dim, self.ndim)
    src_dim_size = source.shape[dim] if source.ndim else 1
    if index.size != src_dim_size:
        raise IndexError(f"index_add_(): Number of indices ({index.size}) should be equal to "
                         f"source.size(dim) ({src_dim_size})")
    if source.ndim != self.ndim or any(source.shape[d] != self.shape[d]
                                       for d in range(self.ndim) if d != dim):
        raise RuntimeError("index_add_(): Source/destination tensor must have same slice "
                           f"shapes. Destination slice shape: {list(self.shape)} at dimension "
                           f"{dim} and source slice shape: {list(source.shape)} at dimension {dim}.")
    if source.dtype != self.dtype:
        raise RuntimeError("index_add_(): self and source expected to have the same dtype, "
                           f"but got (self) {self.dtype} and (source) {source.dtype}")
    if alpha != 1:
        source = source * np.asarray(alpha).astype(self.dtype)
    elif np.may_share_memory(source, self):
        source = source.copy()
    window = [d for d in range(self.ndim) if d != dim]
    try:
        _core._scatter([self], index, [source], window, [dim], [], [], [dim], 1, "add", "raise")
    except IndexError as e:
        raise RuntimeError(_torch_message(e, dim, self.shape)) from None
    return self


def index_put_(self, indices, values, accumulate=False):
    """Tensor.index_put_: self[indices] = values (or += with accumulate=True,
    where repeated indices accumulate). Negative indices wrap."""
    _check_self(self)
    if not isinstance(indices, (tuple, list)):
        raise TypeError("index_put_(): indices must be a tuple of arrays")
    values = np.asarray(values)
    if values.dtype != self.dtype:
        raise RuntimeError("Index put requires the source and destination dtypes match, got "
                           f"{self.dtype} for the destination and {values.dtype} for the source.")
    idx = tuple(np.asarray(i) for i in indices)
    for i in idx:
        if i.dtype.kind not in "iub":
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    view, ind, ivd, positions, shape, window_dims = lower_index(self, idx)
    try:
        upd = np.broadcast_to(values, shape)
    except ValueError:
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(values.shape)} cannot be "
                           f"broadcast to indexing result of shape {list(shape)}") from None
    if np.may_share_memory(upd, self):
        upd = upd.copy()
    try:
        _core._scatter([view], ind, [upd], window_dims, positions, [], [], positions, ivd,
                       "add" if accumulate else None, "wrap_raise")
    except IndexError as e:
        raise IndexError(str(e).replace(" for axis ", " for dimension ")) from None
    return self


def _copying(inplace):
    def out_of_place(self, *args, **kwargs):
        return inplace(np.array(self, copy=True), *args, **kwargs)
    out_of_place.__name__ = inplace.__name__.rstrip("_")
    out_of_place.__doc__ = f"Out-of-place {inplace.__name__}: returns a new array."
    return out_of_place


scatter = _copying(scatter_)
scatter_add = _copying(scatter_add_)
scatter_reduce = _copying(scatter_reduce_)
index_add = _copying(index_add_)
index_put = _copying(index_put_)
