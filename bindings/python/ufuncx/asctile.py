"""The Ascend asctile.scatter row scatter on numpy arrays (seed 001's
contract): row src[i] is written into dst at
[offsets[0], ..., offsets[dim-1], offsets[dim] + index[i]], spanning dst's
dims dim+1 .. rank-1. The C++ front end (ufuncx/frontends.h) lowers it to
one scatter request."""
import numpy as np

from . import _core

__all__ = ["scatter"]


def scatter(src, dim, index, dst, offsets, check_bounds=True, num_indices=None):
    """Writes rows of `src` into `dst` in place: row ``src[i]`` goes to
    ``dst[offsets[0], ..., offsets[dim-1], offsets[dim] + index[i], ...]``,
    spanning the dims of `dst` after `dim`.

    Parameters
    ----------
    src : ndarray
        The rows, of rank ``dst.ndim - dim``, of dst's dtype; each row no
        larger than dst's trailing dims.
    dim : int
        The dim of `dst` the rows are placed along (not the last one).
    index : ndarray of int
        The row positions (1-D), relative to ``offsets[dim]``.
    dst : ndarray
        The target, written in place.
    offsets : sequence of int
        ``dim + 1`` values: the fixed positions of the leading dims, then the
        base added to every index.
    check_bounds : bool, optional
        True skips the rows that fall outside `dst`. False is the caller's
        promise that none do; ufuncx still checks, and raises IndexError
        before writing anything instead of writing out of bounds.
    num_indices : int, optional
        Use only the first `num_indices` entries of `index` and rows of
        `src`.

    Returns
    -------
    None

    Raises
    ------
    IndexError
        With ``check_bounds=False``, for a row outside `dst`.
    ValueError
        For ranks, shapes, dtypes or offsets that do not fit the contract.

    See Also
    --------
    ufuncx.scatter : the general scatter this lowers to.

    Examples
    --------
    >>> import numpy as np
    >>> from ufuncx import asctile
    >>> dst = np.zeros((4, 3))
    >>> asctile.scatter(np.arange(6.0).reshape(2, 3), 0, np.array([3, 1]), dst, [0])
    >>> dst
    array([[0., 0., 0.],
           [3., 4., 5.],
           [0., 0., 0.],
           [0., 1., 2.]])
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
