"""The Ascend asctile.scatter row scatter on numpy arrays (seed 001's
contract): row src[i] is written into dst at
[offsets[0], ..., offsets[dim-1], offsets[dim] + index[i]], spanning dst's
dims dim+1 .. rank-1. The C++ front end (ufuncx/frontends.h) lowers it to
one scatter request."""
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
    if not isinstance(dim, (int, np.integer)):
        raise TypeError("dim must be an int")
    if not dst.flags.writeable:
        raise ValueError("dst is read-only")
    _core._asctile_scatter(src, int(dim), index, dst, [int(o) for o in offsets],
                           bool(check_bounds), None if num_indices is None else int(num_indices))
    return None
