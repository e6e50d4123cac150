"""ufuncx.scatter: StableHLO / XLA scatter with JAX-style bounds modes."""
import sys

import numpy as np

from . import _core

_MODES = {"skip": "skip", "skip_window": "skip_window", "drop": "skip_window",
          "fill": "skip_window", "clip": "clip", "raise": "raise"}


def _any_dask(*args):
    core = sys.modules.get("dask.array.core")
    if core is None:
        return False
    flat = [y for a in args for y in (a if isinstance(a, (tuple, list)) else (a,))]
    return any(isinstance(y, core.Array) for y in flat)


def scatter(operands, scatter_indices, updates, *, update_window_dims, inserted_window_dims,
            scatter_dims_to_operand_dims, index_vector_dim, input_batching_dims=(),
            scatter_indices_batching_dims=(), combiner=None, indices_are_sorted=False,
            unique_indices=False, mode="skip", plan="auto", threads=2, return_plan=False,
            update_shape=None):
    """StableHLO / XLA ``scatter``: new arrays with `updates` combined into
    copies of `operands` at the places `scatter_indices` names.

    Every update element goes to one operand element, found as the StableHLO
    specification finds it: the start index of its window (read from
    `scatter_indices` along `index_vector_dim` and placed at the operand
    dims `scatter_dims_to_operand_dims`), plus its offset in the window.
    Updates are applied in update order, so repeated destinations combine
    as a sequential loop would, whatever plan the planner picks.

    Parameters
    ----------
    operands : array_like or tuple of array_like
        The arrays scattered into; they are copied, not changed. A tuple
        scatters into several operands with one combiner of matching arity.
    scatter_indices : array_like of int
        The start indices, with the index vector along `index_vector_dim`.
    updates : array_like or tuple of array_like, or None
        One array per operand. None with a unary `combiner` and
        `update_shape` (``lax.scatter_apply``).
    update_window_dims : sequence of int
        The dims of `updates` that are window dims (the rest are scatter
        dims, one per index).
    inserted_window_dims : sequence of int
        Operand dims of size one in each window, not present in `updates`.
    scatter_dims_to_operand_dims : sequence of int
        The operand dim each component of an index vector addresses.
    index_vector_dim : int
        The dim of `scatter_indices` that holds the index vectors; equal to
        its rank for scalar indices.
    input_batching_dims, scatter_indices_batching_dims : sequence of int, optional
        Paired batch dims of the operand and of the indices (StableHLO's
        batching dims): each batch scatters into its own operand slice.
    combiner : ufunc or str or None, optional
        The ufunc (or its name) with ``nin = 2N`` and ``nout = N`` called as
        ``combiner(current..., update...)``; None replaces. A unary ufunc
        (``nin = nout = N``) is applied to each selected element, once per
        time it is selected.
    indices_are_sorted, unique_indices : bool, optional
        Accepted as ``jax.lax.scatter`` takes them and ignored: every plan
        gives the sequential result without the promise.
    mode : {'skip', 'skip_window', 'clip', 'raise'}, optional
        Out-of-bounds handling: 'skip' (the specification) drops update
        elements that fall outside, 'skip_window' (XLA and JAX's 'drop';
        'drop' and 'fill' are taken as aliases) drops a whole window with
        any element outside, 'clip' clamps start indices so that windows
        fit, 'raise' raises IndexError before anything is written.
    plan : str, optional
        Forces a planner algorithm ('element', 'rows', 'window_runs',
        'partitioned', 'sorted_parallel', ...), for tests and benchmarks;
        every plan gives the same result. The default lets the planner pick.
    threads : int, optional
        The most worker threads a plan may use.
    return_plan : bool, optional
        Also return the name of the plan that ran.
    update_shape : sequence of int, optional
        The shape of the updates when `updates` is None.

    Returns
    -------
    ndarray or tuple of ndarray
        The scattered copies (a tuple when `operands` is a tuple); with
        ``return_plan=True``, a pair of that and the plan's name. With dask
        arrays among the arguments, dask arrays (see :doc:`dask`).

    Raises
    ------
    IndexError
        With ``mode='raise'``, for an index outside the operand.
    ValueError
        For dimension numbers that break the specification's constraints,
        or a mode that does not exist.
    TypeError
        For a combiner of the wrong arity or dtypes it has no loop for.

    See Also
    --------
    ufunc.at : NumPy's unbuffered in-place form, lowered to the same planner.
    at : JAX's ``x.at[idx]`` index updates.

    Examples
    --------
    Rows of `updates` added into rows 0, 2 and 0 again of a matrix:

    >>> import numpy as np, ufuncx as ux
    >>> ux.scatter(np.zeros((3, 4)), np.array([[0], [2], [0]]),
    ...            np.arange(12.0).reshape(3, 4), update_window_dims=(1,),
    ...            inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,),
    ...            index_vector_dim=1, combiner=ux.add)
    array([[ 8., 10., 12., 14.],
           [ 0.,  0.,  0.,  0.],
           [ 4.,  5.,  6.,  7.]])

    Element updates with a maximum; index 7 is outside and skipped:

    >>> ux.scatter(np.zeros(5), np.array([[1], [7], [1]]), np.array([1.0, 2.0, 3.0]),
    ...            update_window_dims=(), inserted_window_dims=(0,),
    ...            scatter_dims_to_operand_dims=(0,), index_vector_dim=1,
    ...            combiner="maximum")
    array([0., 3., 0., 0., 0.])
    """
    kw = dict(update_window_dims=update_window_dims, inserted_window_dims=inserted_window_dims,
              scatter_dims_to_operand_dims=scatter_dims_to_operand_dims,
              index_vector_dim=index_vector_dim, input_batching_dims=input_batching_dims,
              scatter_indices_batching_dims=scatter_indices_batching_dims, combiner=combiner,
              mode=mode, plan=plan, threads=threads, update_shape=update_shape)
    if _any_dask(operands, scatter_indices, updates):  # partitioned on dask (ufuncx/dask.py)
        if return_plan:
            raise ValueError("return_plan=True is not available for dask arrays: each block "
                             "chooses its own plan")
        from . import dask as _dask
        return _dask.scatter(operands, scatter_indices, updates, **kw)
    single = not isinstance(operands, (tuple, list))
    ops = [operands] if single else list(operands)
    if mode not in _MODES:
        raise ValueError(f"mode must be one of 'skip', 'skip_window', 'clip', 'raise' (got {mode!r})")
    results = [_core._copy(o) for o in ops]
    report = _scatter_into(results, scatter_indices, updates, **kw)
    out = results[0] if single else tuple(results)
    return (out, report["plan"]) if return_plan else out


def _scatter_into(results, scatter_indices, updates, *, update_window_dims, inserted_window_dims,
                  scatter_dims_to_operand_dims, index_vector_dim, input_batching_dims=(),
                  scatter_indices_batching_dims=(), combiner=None, mode="skip", plan="auto",
                  threads=2, update_shape=None):
    """scatter in place on `results` (a list of writeable NumPy arrays that
    nothing else reads, as scatter's copies and ufuncx.dask's block buffers
    are); returns the planner's report."""
    if isinstance(combiner, str):
        combiner = _core.get(combiner)
    if updates is None:
        if combiner is None or combiner.nin != len(results) or update_shape is None:
            raise TypeError("updates=None needs a unary combiner (scatter_apply) and update_shape")
        # The shape alone matters: one zero, broadcast (no memory per element).
        updates = [np.broadcast_to(np.zeros((), r.dtype), tuple(update_shape)) for r in results]
    upds = [updates] if not isinstance(updates, (tuple, list)) else list(updates)
    idx = np.asarray(scatter_indices)
    upds = [np.asarray(u) for u in upds]
    return _core._scatter(results, idx, upds, update_window_dims,
                          inserted_window_dims, input_batching_dims,
                          scatter_indices_batching_dims, scatter_dims_to_operand_dims,
                          index_vector_dim, combiner, _MODES[mode],
                          casting="unsafe" if combiner is not None else "same_kind",
                          plan=plan, threads=int(threads))
