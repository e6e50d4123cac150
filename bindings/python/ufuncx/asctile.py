"""The Ascend asctile.scatter row scatter on numpy arrays (seed 001's
contract): row src[i] is written into dst at
[offsets[0], ..., offsets[dim-1], offsets[dim] + index[i]], spanning dst's
dims dim+1 .. rank-1. Lowered to one scatter request."""
import numpy as np

from . import _core

__all__ = ["scatter"]


def scatter(src, dim, index, dst, offsets, check_bounds=True, num_indices=None):
    """Writes rows of `src` into `dst` in place; returns None.

    check_bounds=True skips rows whose position is out of bounds. With
    check_bounds=False the caller promises every index is valid; ufuncx still
    refuses to write out of bounds and raises IndexError instead.
    """
    for name, t in (("src", src), ("index", index), ("dst", dst)):
        if not isinstance(t, np.ndarray):
            raise TypeError(f"{name} must be a numpy.ndarray, got {type(t).__name__}")
    if index.dtype.kind not in "iu":
        raise RuntimeError(f"index must have an integer dtype, got {index.dtype}")
    rank = dst.ndim
    if not isinstance(dim, (int, np.integer)) or not 0 <= dim < rank:
        raise ValueError(f"dim {dim} is out of range for dst of rank {rank}")
    if dim == rank - 1:
        raise NotImplementedError("scatter along the last dimension of dst is not supported")
    offsets = [int(o) for o in offsets]
    if len(offsets) != dim + 1:
        raise ValueError(f"offsets must contain dim + 1 = {dim + 1} values, got {len(offsets)}")
    if index.ndim != 1:
        raise ValueError(f"index must be rank 1, got rank {index.ndim}")
    if src.ndim != rank - dim:
        raise ValueError(f"src must have rank {rank - dim} (one row per index), got {src.ndim}")
    if src.dtype != dst.dtype:
        raise ValueError(f"src and dst must have the same dtype, got {src.dtype} and {dst.dtype}")
    n = index.shape[0] if num_indices is None else int(num_indices)
    if not 0 <= n <= index.shape[0] or n > src.shape[0]:
        raise ValueError(f"num_indices {n} exceeds the index ({index.shape[0]}) or src "
                         f"({src.shape[0]}) length")
    if any(s > d for s, d in zip(src.shape[1:], dst.shape[dim + 1:])):
        raise ValueError(f"src rows of shape {src.shape[1:]} do not fit dst dims "
                         f"{dst.shape[dim + 1:]}")
    if not dst.flags.writeable:
        raise ValueError("dst is read-only")
    lead = offsets[:dim]
    if any(not 0 <= o < s for o, s in zip(lead, dst.shape)):
        if check_bounds:
            return None
        raise IndexError(f"offsets {lead} are out of bounds for dst of shape {dst.shape}")
    view = dst[tuple(lead)]
    rows = index[:n].astype(np.int64) + offsets[dim]
    upd = src[:n]
    if np.may_share_memory(upd, dst):
        upd = upd.copy()
    window = list(range(1, src.ndim))
    _core._scatter([view], rows, [upd], window, [0], [], [], [0], 1, None,
                   "skip_window" if check_bounds else "raise", casting="no")
    return None
