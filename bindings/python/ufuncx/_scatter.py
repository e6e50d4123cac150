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
    """StableHLO `scatter`, functional: returns new arrays (a tuple when
    `operands` is a tuple). `combiner` is a ufuncx ufunc (or its name) with
    nin = 2N and nout = N, called as (current..., update...); None replaces.

    A unary combiner (nin = nout = N, such as ufuncx.negative) is
    lax.scatter_apply: it is applied to each selected element, once per
    time it is selected, in update order. The updates then only give the
    shape of the scatter; pass updates=None and update_shape= (JAX's
    argument) instead.

    mode: "skip" drops out-of-bounds update elements (the StableHLO spec),
    "skip_window" drops a whole window with any element out (XLA/JAX "drop"),
    "clip" clamps start indices so windows fit (JAX "clip"), "raise" raises
    IndexError before any write.

    indices_are_sorted and unique_indices are accepted, as jax.lax.scatter
    takes them, and ignored: every plan gives the sequential result without
    the promise, and the planner learns runs from the indices themselves.

    plan forces a planner algorithm (tests and benchmarks: "element",
    "rows", "window_runs", "partitioned", "sorted_parallel", ...); threads
    caps the worker threads of the sorted and rows plans. Every plan gives
    the same result. return_plan=True also returns the name of the plan
    that ran.
    """
    if _any_dask(operands, scatter_indices, updates):  # partitioned on dask (ufuncx/dask.py)
        if return_plan:
            raise ValueError("return_plan=True is not available for dask arrays: each block "
                             "chooses its own plan")
        from . import dask as _dask
        return _dask.scatter(operands, scatter_indices, updates,
                             update_window_dims=update_window_dims,
                             inserted_window_dims=inserted_window_dims,
                             scatter_dims_to_operand_dims=scatter_dims_to_operand_dims,
                             index_vector_dim=index_vector_dim,
                             input_batching_dims=input_batching_dims,
                             scatter_indices_batching_dims=scatter_indices_batching_dims,
                             combiner=combiner, mode=mode, plan=plan, threads=threads,
                             update_shape=update_shape)
    single = not isinstance(operands, (tuple, list))
    ops = [operands] if single else list(operands)
    if isinstance(combiner, str):
        combiner = _core.get(combiner)
    if updates is None:
        if combiner is None or combiner.nin != len(ops) or update_shape is None:
            raise TypeError("updates=None needs a unary combiner (scatter_apply) and update_shape")
        # The shape alone matters: one zero, broadcast (no memory per element).
        updates = [np.broadcast_to(np.zeros((), np.asarray(o).dtype), tuple(update_shape))
                   for o in ops]
    upds = [updates] if not isinstance(updates, (tuple, list)) else list(updates)
    if mode not in _MODES:
        raise ValueError(f"mode must be one of 'skip', 'skip_window', 'clip', 'raise' (got {mode!r})")
    results = [_core._copy(o) for o in ops]
    idx = np.asarray(scatter_indices)
    upds = [np.asarray(u) for u in upds]
    report = _core._scatter(results, idx, upds, update_window_dims,
                            inserted_window_dims, input_batching_dims,
                            scatter_indices_batching_dims, scatter_dims_to_operand_dims,
                            index_vector_dim, combiner, _MODES[mode], casting="unsafe" if combiner is not None else "same_kind",
                            plan=plan, threads=int(threads))
    out = results[0] if single else tuple(results)
    return (out, report["plan"]) if return_plan else out
