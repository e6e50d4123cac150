"""PyTorch's scatter family on numpy arrays, with PyTorch's semantics and
error classes (RuntimeError where torch raises it). The work is done by the
C++ front ends (ufuncx/frontends.h), which lower to the scatter planner;
this module only converts arguments.

In place: scatter_, scatter_add_, scatter_reduce_, index_add_, index_put_.
Out-of-place twins without the underscore return a new array.
"""
import operator

import numpy as np

from . import _core

__all__ = ["scatter_", "scatter_add_", "scatter_reduce_", "index_add_", "index_put_",
           "scatter", "scatter_add", "scatter_reduce", "index_add", "index_put"]

_REDUCES = ("sum", "prod", "mean", "amax", "amin")


def _self(self):
    if not isinstance(self, np.ndarray):
        raise TypeError(f"expected a numpy.ndarray for self, got {type(self).__name__}")
    if not self.flags.writeable:
        raise RuntimeError("cannot write into a read-only array")
    return self


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
    """Tensor.scatter_: writes src (an array or a scalar value) into self at
    index along dim; reduce='add' or 'multiply' combines instead."""
    _self(self)
    if reduce not in (None, "add", "multiply"):
        raise RuntimeError("reduce argument must be either add or multiply.")
    index = np.asarray(index)
    if not isinstance(src, np.ndarray):
        src = np.broadcast_to(np.asarray(src, dtype=self.dtype), index.shape)
    _core._torch_scatter_reduce(self, _dim(dim), index, src, reduce or "none", True)
    return self


def scatter_add_(self, dim, index, src):
    """Tensor.scatter_add_: self[index along dim] += src."""
    _self(self)
    if not isinstance(src, np.ndarray):
        raise TypeError("scatter_add_(): src must be an array")
    _core._torch_scatter_reduce(self, _dim(dim), np.asarray(index), src, "add", True)
    return self


def scatter_reduce_(self, dim, index, src, reduce, *, include_self=True):
    """Tensor.scatter_reduce_ with reduce in sum, prod, mean, amax, amin.
    include_self=False resets only the positions that receive updates; mean
    divides by count + include_self (floor division for integers)."""
    _self(self)
    if reduce not in _REDUCES:
        raise RuntimeError("reduce argument must be either sum, prod, mean, amax or amin, "
                           f"got {reduce}")
    if not isinstance(src, np.ndarray):
        raise TypeError("scatter_reduce_(): src must be an array")
    _core._torch_scatter_reduce(self, _dim(dim), np.asarray(index), src, reduce,
                                bool(include_self))
    return self


def index_add_(self, dim, index, source, *, alpha=1):
    """Tensor.index_add_: self.select(dim, index[i]) += alpha * source.select(dim, i)."""
    _self(self)
    source = np.asarray(source)
    if alpha != 1 and source.dtype == self.dtype:  # (other dtypes: the C++ error)
        source = source * np.asarray(alpha).astype(self.dtype)
    _core._torch_index_add(self, _dim(dim), np.asarray(index), source)
    return self


def index_put_(self, indices, values, accumulate=False):
    """Tensor.index_put_: self[indices] = values (or += with accumulate=True,
    where repeated indices accumulate). Negative indices wrap; boolean masks
    select their nonzero positions."""
    _self(self)
    if not isinstance(indices, (tuple, list)):
        raise TypeError("index_put_(): indices must be a tuple of arrays")
    idx = []
    for i in indices:
        i = np.asarray(i)
        if i.dtype == np.bool_:
            at = len(idx)
            if i.shape != self.shape[at:at + i.ndim]:
                raise IndexError(f"The shape of the mask {list(i.shape)} at index {at} does not "
                                 f"match the shape of the indexed tensor "
                                 f"{list(self.shape[at:at + i.ndim])} at index {at}")
            idx.extend(i.nonzero())
        elif i.dtype.kind in "iu":
            idx.append(i)
        else:
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    _core._torch_index_put(self, idx, np.asarray(values), bool(accumulate))
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
