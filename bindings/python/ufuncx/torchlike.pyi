# Type stubs for ufuncx.torchlike. `self` is a numpy array or a CPU torch
# tensor; each function returns the same kind of object it was given
# (in place: self itself).
from typing import Any, Literal, SupportsIndex, TypeAlias, TypeVar

from numpy.typing import ArrayLike

_A = TypeVar("_A")
_ScatterReduce: TypeAlias = Literal["sum", "prod", "mean", "amax", "amin"]
_IndexReduce: TypeAlias = Literal["prod", "mean", "amax", "amin"]
_Indices: TypeAlias = tuple[Any, ...] | list[Any]

__all__ = ["scatter_", "scatter_add_", "scatter_reduce_", "index_add_", "index_put_",
           "index_copy_", "index_fill_", "index_reduce_", "masked_scatter_", "put_",
           "scatter", "scatter_add", "scatter_reduce", "index_add", "index_put",
           "index_copy", "index_fill", "index_reduce", "masked_scatter", "put"]

def scatter_(self: _A, dim: SupportsIndex, index: ArrayLike, src: ArrayLike, *,
             reduce: Literal["add", "multiply"] | None = ...) -> _A: ...
def scatter_add_(self: _A, dim: SupportsIndex, index: ArrayLike, src: Any) -> _A: ...
def scatter_reduce_(self: _A, dim: SupportsIndex, index: ArrayLike, src: Any,
                    reduce: _ScatterReduce, *, include_self: bool = ...) -> _A: ...
def index_add_(self: _A, dim: SupportsIndex, index: ArrayLike, source: ArrayLike, *,
               alpha: complex = ...) -> _A: ...
def index_put_(self: _A, indices: _Indices, values: ArrayLike, accumulate: bool = ...) -> _A: ...
def index_copy_(self: _A, dim: SupportsIndex, index: ArrayLike, source: ArrayLike) -> _A: ...
def index_fill_(self: _A, dim: SupportsIndex, index: ArrayLike, value: ArrayLike) -> _A: ...
def index_reduce_(self: _A, dim: SupportsIndex, index: ArrayLike, source: ArrayLike,
                  reduce: _IndexReduce, *, include_self: bool = ...) -> _A: ...
def masked_scatter_(self: _A, mask: ArrayLike, source: ArrayLike) -> _A: ...
def put_(self: _A, index: ArrayLike, source: ArrayLike, accumulate: bool = ...) -> _A: ...

# The out-of-place twins take the same arguments and return a new array or tensor.
scatter = scatter_
scatter_add = scatter_add_
scatter_reduce = scatter_reduce_
index_add = index_add_
index_put = index_put_
index_copy = index_copy_
index_fill = index_fill_
index_reduce = index_reduce_
masked_scatter = masked_scatter_
put = put_
