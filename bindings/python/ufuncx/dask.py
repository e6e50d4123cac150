"""ufuncx on dask arrays: every ufunc method, lazily, on the workers.

A ufuncx ufunc called with a dask array among its arguments comes here
(NEP 13, through ufuncx/_override.py), as does `ufuncx.scatter` with a dask
operand, indices or updates. Nothing is computed when a call is made: the
result is a dask array whose tasks run ufuncx's own loops on each chunk, so
plugin ufuncs work too (a ufunc pickles by name, with its plugin's path).

- ``ufunc(*inputs)``: blockwise (dask's elemwise), with ``out=`` (a dask
  array, whose graph is replaced, or a NumPy array, written at once),
  ``where=`` and ``dtype=``; gufuncs through dask's apply_gufunc.
- ``ufunc.reduce``: ufuncx's reduce on each chunk, then a tree of the same
  reduce over the partial results (``split_every``). Integer and other
  exact ufuncs give NumPy's result bit for bit; float ``add`` sums each
  chunk pairwise as NumPy does, then the tree, so it equals NumPy's when the
  reduced axes are one chunk. Ufuncs that are not reorderable (subtract)
  reduce their axis as one chunk, in order.
- ``ufunc.accumulate``: each chunk's scan plus the carry of the chunks before
  it (``ufunc(carry, scan)``), as ``da.cumsum`` does; exact for integer and
  other exact ufuncs, and equal to NumPy's when the axis is one chunk. Ufuncs
  that are not reorderable scan chunk after chunk, starting from the carry:
  NumPy's order exactly.
- ``ufunc.reduceat``: the reduced axis as one chunk, each block of the other
  axes apart. ``ufunc.outer``: blockwise over both operands' chunks.
- ``ufunc.at`` and ``ufuncx.scatter``: a partitioned scatter. Each chunk of
  the update points is split by destination block (on a worker), and each
  destination block applies its pieces in update order, with the planner,
  so the result equals the sequential one for any combiner. ``ufunc.at``
  replaces the target's graph, as dask's ``__setitem__`` does.
"""
from __future__ import annotations

import functools
import itertools
import operator

import numpy as np

import dask.array as da
from dask.array.core import Array, elemwise, _should_delegate
from dask.base import tokenize
from dask.core import flatten
from dask.highlevelgraph import HighLevelGraph

from . import _core

__all__ = ["array_ufunc", "scatter", "is_dask_array"]


def is_dask_array(x):
    return isinstance(x, Array)


def array_ufunc(self, ufunc, method, *inputs, **kwargs):
    """What a dask array's ``__array_ufunc__`` does for a ufuncx ufunc."""
    out = kwargs.get("out", ())
    for x in inputs + tuple(out):
        if _should_delegate(self, x):
            return NotImplemented
    if method == "__call__":
        return call(ufunc, *inputs, **kwargs)
    if method == "reduce":
        return reduce(ufunc, *inputs, **kwargs)
    if method == "accumulate":
        return accumulate(ufunc, *inputs, **kwargs)
    if method == "reduceat":
        return reduceat(ufunc, *inputs, **kwargs)
    if method == "outer":
        return outer(ufunc, *inputs, **kwargs)
    if method == "at":
        return at(ufunc, *inputs)
    return NotImplemented


# --- results and out= -------------------------------------------------------

def _one(x):
    """A one-element stand-in of x for working out result dtypes: NumPy's
    own for arrays, x itself for Python scalars (weak under NEP 50)."""
    if isinstance(x, (Array, np.ndarray)):
        return np.ones((1,) * x.ndim, x.dtype)
    return x


def _store(out, result):
    """Makes `out` hold `result`: a dask out gets the result's graph (as
    dask's handle_out does); a NumPy out is written now."""
    if out is None:
        return result
    if out.shape != result.shape:
        raise ValueError(f"non-broadcastable output operand with shape {out.shape} doesn't match "
                         f"the broadcast shape {result.shape}")
    if isinstance(out, Array):
        if out.dtype != result.dtype:
            result = result.astype(out.dtype, casting="unsafe")
        out._chunks = result.chunks
        out.dask = result.dask
        out._meta = result._meta
        out._name = result.name
        return out
    if isinstance(out, np.ndarray):
        np.copyto(out, result.compute(), casting="same_kind")
        return out
    raise TypeError(f"out= must be a dask or NumPy array, not {type(out).__name__}")


def _outs(kwargs, nout):
    out = kwargs.pop("out", None)
    if out is None:
        return (None,) * nout
    return tuple(out) if isinstance(out, tuple) else (out,)


def _pick(i, t):
    return t[i]


def _split(tmp, metas):
    """The outputs of a block function that returns a tuple (tmp), as one
    dask array each."""
    results = []
    for i, meta in enumerate(metas):
        name = f"{tmp.name}-out{i}"
        dsk = {(name,) + key[1:]: (_pick, i, key) for key in flatten(tmp.__dask_keys__())}
        graph = HighLevelGraph.from_collections(name, dsk, dependencies=[tmp])
        results.append(Array(graph, name, tmp.chunks, meta=np.empty((0,) * tmp.ndim, meta.dtype)))
    return tuple(results)


# --- __call__ -----------------------------------------------------------------

def _apply(ufunc, kwargs, *blocks, **more):
    """One block's call (more: dask's where= and out= blocks)."""
    return ufunc(*blocks, **kwargs, **more)


def call(ufunc, *inputs, **kwargs):
    kwargs = dict(kwargs)
    outs = _outs(kwargs, ufunc.nout)
    if ufunc.signature is not None:
        return _call_gufunc(ufunc, inputs, outs, kwargs)
    where = kwargs.pop("where", True)
    with np.errstate(all="ignore"):
        metas = ufunc(*[_one(x) for x in inputs], **kwargs)
    name = f"{ufunc.__name__}-{tokenize(ufunc.__name__, kwargs, *inputs, where, *outs)}"
    fn = functools.partial(_apply, ufunc, kwargs)
    if ufunc.nout == 1:
        out = outs[0]
        if isinstance(out, np.ndarray) and where is not True:
            out_d = da.from_array(out.copy(), chunks=-1)  # (its values stay where where is False)
        else:
            out_d = out if isinstance(out, Array) else None
        result = elemwise(fn, *inputs, out=out_d, where=where, dtype=metas.dtype, name=name)
        return _store(out, result) if isinstance(out, np.ndarray) else result
    if where is not True:
        raise NotImplementedError(f"{ufunc.__name__} on dask arrays: where= with more than one "
                                  "output is not supported")
    tmp = elemwise(fn, *inputs, dtype=object, name=name)
    results = _split(tmp, [np.asarray(m) for m in metas])
    return tuple(_store(o, r) for o, r in zip(outs, results))


def _call_gufunc(ufunc, inputs, outs, kwargs):
    inputs = [da.asarray(x) for x in inputs]
    sig = ufunc.signature
    drop = []
    if "?" in sig:
        # matmul's optional core dims: a 1-D operand gains the missing dim,
        # which the result then drops, as NumPy does.
        sig = sig.replace("?", "")
        a1, b1 = inputs[0].ndim == 1, inputs[1].ndim == 1
        if a1:
            inputs[0] = inputs[0][None, :]
        if b1:
            inputs[1] = inputs[1][:, None]
        drop = [-2] * a1 + [-1] * b1
    with np.errstate(all="ignore"):
        meta = ufunc(*[np.ones((2,) * x.ndim, x.dtype) for x in inputs],
                     **{k: v for k, v in kwargs.items() if k not in ("axes", "axis", "keepdims")})
    metas = meta if isinstance(meta, tuple) else (meta,)
    result = da.apply_gufunc(ufunc, sig, *inputs, output_dtypes=[m.dtype for m in metas],
                             allow_rechunk=True, **kwargs)
    results = result if isinstance(result, tuple) else (result,)
    if drop:
        results = tuple(r.squeeze(axis=tuple(r.ndim + d for d in drop)) for r in results)
    stored = tuple(_store(o, r) for o, r in zip(outs, results))
    return stored if ufunc.nout > 1 else stored[0]


# --- reduce ---------------------------------------------------------------------

_NO_VALUE = np._NoValue


def _axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    axes = axis if isinstance(axis, tuple) else (axis,)
    out = []
    for a in axes:
        a = operator.index(a)
        if not -ndim <= a < ndim:
            raise np.exceptions.AxisError(a, ndim)
        out.append(a % ndim)
    if len(set(out)) != len(out):
        raise ValueError("duplicate value in 'axis'")
    return tuple(out)


def _one_axis(axis, ndim, method):
    """The one axis accumulate and reduceat take, as NumPy's checks."""
    axes = _axes(axis, ndim)
    if len(axes) != 1:
        raise ValueError(f"{method} does not allow multiple axes")
    return axes[0]


def _reduce_chunk(ufunc, initial, x, weights=None, axis=None, keepdims=True, dtype=None,
                  **_dask):
    # (dask passes the where= mask's block as the weights, after the block)
    kw = {} if initial is _NO_VALUE else {"initial": initial}
    if weights is not None:
        kw["where"] = weights
    return ufunc.reduce(x, axis=axis, dtype=dtype, keepdims=True, **kw)


def _reduce_combine(ufunc, initial, x, axis=None, keepdims=True, dtype=None, **_dask):
    kw = {} if initial is _NO_VALUE else {"initial": initial}
    return ufunc.reduce(x, axis=axis, dtype=dtype, keepdims=keepdims, **kw)


def reduce(ufunc, array, axis=0, dtype=None, out=None, keepdims=False, initial=_NO_VALUE,
           where=True, split_every=None):
    x = da.asarray(array)
    out = out[0] if isinstance(out, tuple) else out
    # NumPy's checks and the result dtype, on a stand-in of x's rank (its
    # empty dims kept: an empty reduction without identity is an error).
    kw = {} if initial is _NO_VALUE else {"initial": initial}
    stand_in = np.ones(tuple(0 if n == 0 else 1 for n in x.shape), x.dtype)
    meta_where = True if where is True else np.ones((1,) * np.ndim(where), bool)
    with np.errstate(all="ignore"):
        meta = ufunc.reduce(stand_in, axis=axis, dtype=dtype, keepdims=keepdims, where=meta_where,
                            **kw)
    rtype = np.asarray(meta).dtype
    axes = _axes(axis, x.ndim)
    reorderable = ufunc.reorderable
    if not reorderable:
        # One axis at most (NumPy checked): reduce it as one chunk, in order.
        x = x.rechunk({a: -1 for a in axes})
    has_identity = ufunc.identity is not None
    chunk_initial = initial if (not has_identity or not reorderable) else _NO_VALUE
    agg_initial = initial if reorderable else _NO_VALUE
    weights = None if where is True else da.broadcast_to(da.asarray(where), x.shape)
    if weights is not None and not reorderable:
        weights = weights.rechunk(x.chunks)
    result = da.reduction(
        x, functools.partial(_reduce_chunk, ufunc, chunk_initial),
        functools.partial(_reduce_combine, ufunc, agg_initial),
        combine=functools.partial(_reduce_combine, ufunc, _NO_VALUE),
        axis=axes, keepdims=keepdims, dtype=rtype, split_every=split_every,
        concatenate=True, weights=weights, meta=np.empty((0,) * (x.ndim if keepdims else
                                                             x.ndim - len(axes)), rtype))
    return _store(out, result)


# --- accumulate -------------------------------------------------------------------

def _acc_block(ufunc, axis, dtype, x):
    return ufunc.accumulate(x, axis=axis, dtype=dtype)


def _acc_from(ufunc, axis, dtype, carry, x):
    joined = np.concatenate([carry.astype(dtype), x.astype(dtype)], axis=axis)
    return np.delete(ufunc.accumulate(joined, axis=axis, dtype=dtype), 0, axis=axis)


def accumulate(ufunc, array, axis=0, dtype=None, out=None):
    x = da.asarray(array)
    out = out[0] if isinstance(out, tuple) else out
    if x.ndim == 0:
        raise TypeError("cannot accumulate on a scalar")
    axis = _one_axis(axis, x.ndim, "accumulate")
    with np.errstate(all="ignore"):
        rtype = ufunc.accumulate(np.ones((1,) * x.ndim, x.dtype), axis=axis, dtype=dtype).dtype
    acc = functools.partial(_acc_block, ufunc, axis, rtype)
    if x.numblocks[axis] <= 1:
        return _store(out, x.map_blocks(acc, dtype=rtype))
    parts = [x.blocks[(slice(None),) * axis + (k,)] for k in range(x.numblocks[axis])]
    last = (slice(None),) * axis + (slice(-1, None),)
    results, carry = [], None
    if ufunc.reorderable:
        # Each chunk's scan in parallel, then the carry of the ones before.
        for p in parts:
            scan = p.map_blocks(acc, dtype=rtype)
            results.append(scan if carry is None else call(ufunc, carry, scan, dtype=rtype))
            tail = scan[last]
            carry = tail if carry is None else call(ufunc, carry, tail, dtype=rtype)
    else:
        # Chunk after chunk, each scan starting from the last result.
        for p in parts:
            if carry is None:
                r = p.map_blocks(acc, dtype=rtype)
            else:
                r = da.map_blocks(functools.partial(_acc_from, ufunc, axis, rtype),
                                  carry, p, dtype=rtype, chunks=p.chunks)
            results.append(r)
            carry = r[last]
    return _store(out, da.concatenate(results, axis=axis))


# --- reduceat and outer ------------------------------------------------------------

def _reduceat_block(ufunc, indices, axis, dtype, x):
    return ufunc.reduceat(x, indices, axis=axis, dtype=dtype)


def reduceat(ufunc, array, indices, axis=0, dtype=None, out=None):
    x = da.asarray(array)
    out = out[0] if isinstance(out, tuple) else out
    if isinstance(indices, Array):
        indices = indices.compute()
    indices = np.asarray(indices)
    if x.ndim == 0:
        raise TypeError("cannot reduceat on a scalar")
    axis = _one_axis(axis, x.ndim, "reduceat")
    n = x.shape[axis]
    # NumPy's checks and dtype on a stand-in with the real axis length (the
    # index bounds depend on it) and one element elsewhere.
    stand_len = n if n <= 1 << 16 else None
    if stand_len is None:
        flat = indices.reshape(-1)
        bad = flat[(flat < 0) | (flat >= n)] if flat.dtype.kind in "iu" else flat[:0]
        if bad.size:
            raise IndexError(f"index {int(bad[0])} out-of-bounds in {ufunc.__name__}.reduceat "
                             f"[0, {n})")
        stand_len = 1
        probe = np.zeros(min(indices.size, 1), indices.dtype).reshape(
            indices.shape if indices.size == 0 else (1,))
    else:
        probe = indices
    shape = [1] * x.ndim
    shape[axis] = stand_len
    with np.errstate(all="ignore"):
        meta = ufunc.reduceat(np.ones(shape, x.dtype), probe, axis=axis, dtype=dtype)
    x = x.rechunk({axis: -1})
    chunks = list(x.chunks)
    chunks[axis] = (indices.size,)
    result = x.map_blocks(functools.partial(_reduceat_block, ufunc, indices, axis, dtype),
                          dtype=meta.dtype, chunks=tuple(chunks))
    return _store(out, result)


def outer(ufunc, a, b, **kwargs):
    kwargs = dict(kwargs)
    outs = _outs(kwargs, ufunc.nout)
    a, b = da.asarray(a), da.asarray(b)
    with np.errstate(all="ignore"):
        metas = ufunc.outer(np.ones((1,) * a.ndim, a.dtype), np.ones((1,) * b.ndim, b.dtype),
                            **kwargs)
    ia = tuple(range(a.ndim))
    ib = tuple(range(a.ndim, a.ndim + b.ndim))
    if ufunc.nout == 1:
        result = da.blockwise(functools.partial(_outer_block, ufunc, kwargs), ia + ib, a, ia, b,
                              ib, dtype=metas.dtype)
        return _store(outs[0], result)
    tmp = da.blockwise(functools.partial(_outer_block, ufunc, kwargs), ia + ib, a, ia, b, ib,
                       dtype=object)
    return tuple(_store(o, r) for o, r in zip(outs, _split(tmp, [np.asarray(m) for m in metas])))


def _outer_block(ufunc, kwargs, a, b):
    return ufunc.outer(a, b, **kwargs)


# --- the partitioned scatter ------------------------------------------------------
#
# Both ufunc.at and ufuncx.scatter come here in one canonical form: a point
# list `coords` (n, k) whose column j is a start index into operand dim
# cols[j], and per operand an update window per point (n, *window). The
# operand is chunked along the partition dims (the dims each point selects
# one position of: at's indexed axes, scatter's inserted and batching dims)
# and whole along the others, so a window never straddles two blocks.

# Points per chunk when the indices come as one NumPy array.
_POINTS_PER_CHUNK = 1 << 23
# How many point chunks' partitions may be alive at once in a partitioned
# scatter when the points outweigh the target: partition j waits until every
# block took partition j - _PARTITIONS_AHEAD's piece. One: 1e8 float64
# updates into 1e8 on two workers, five runs each, peak worker memory 0.26-
# 0.37 GB beyond the worker's half of the result against 0.31-0.48 with two
# ahead, in 2.9-4.4 s against 2.2-4.4 s (the spread is this VM's).
_PARTITIONS_AHEAD = 1


class _Spec:
    """What the per-chunk partition step needs (pickled to the workers)."""

    def __init__(self, cols, pdims, shape, bounds, window, mode, wrap):
        self.cols = cols          # operand dim of each coords column
        self.pdims = pdims        # partition dims, with their column (or -1)
        self.shape = shape        # the operand's shape
        self.bounds = bounds      # per partition dim: block boundaries
        self.window = window      # per column: the window's extent along its dim
        self.mode = mode          # "skip", "skip_window", "clip", "raise"
        self.wrap = wrap          # NumPy's negative indices (ufunc.at)
        # block-local coordinates fit int32 (less to send between workers)
        self.local32 = max(shape, default=0) < 2**31


def _prepare(coords, spec):
    """coords after the bounds mode: wrapped, clipped or checked (IndexError
    with NumPy's text)."""
    # (a copy: the chunk may be a view of the user's persisted indices)
    coords = np.array(coords, dtype=np.int64, copy=True)
    for j, d in enumerate(spec.cols):
        n, w = spec.shape[d], spec.window[j]
        c = coords[:, j]
        if spec.wrap:
            neg = c < 0
            if neg.any():
                c = np.where(neg, c + n, c)
                coords[:, j] = c
        if spec.mode == "clip":
            coords[:, j] = np.clip(c, 0, max(n - w, 0))
        elif spec.mode == "raise":
            bad = (c < 0) | (c > n - w)
            if bad.any():
                v = int(coords[np.argmax(bad), j])
                if spec.wrap and v < 0:
                    v -= n
                raise IndexError(f"index {v} is out of bounds for axis {d} with size {n}")
    return coords


def _checks_in_partition(spec):
    """Whether the partition step can apply the bounds mode itself: each
    column cuts its own axis (column j is axis j, as in ufunc.at) with a
    window of one, and the mode drops or raises."""
    cut = {j for _, j in spec.pdims if j >= 0}
    return (spec.mode in ("skip", "raise") and spec.cols == tuple(range(len(spec.cols))) and
            cut == set(range(len(spec.cols))) and all(w == 1 for w in spec.window) and
            all(d == j for d, j in spec.pdims if j >= 0))


def _partition(coords, updates, spec, *after):
    """One chunk of points split by destination block with the planner's
    partition step: (block-local coords, [updates of each operand], starts),
    block b's points at [starts[b], starts[b + 1]), in update order. Points
    outside a partition dim are dropped here (the skip modes). `after`: the
    markers this partition waits for (see _partitioned), unused."""
    cuts = [(j, bounds) for (_, j), bounds in zip(spec.pdims, spec.bounds)]
    fused = _checks_in_partition(spec)
    if fused:  # the partition step wraps, checks and raises itself, in its first pass
        cuts = [(j, b, spec.wrap, spec.mode == "raise") for j, b in cuts]
    if not fused and (spec.wrap or spec.mode in ("clip", "raise")):
        coords = _prepare(coords, spec)
    else:
        coords = np.ascontiguousarray(coords, dtype=np.int64)
    plain = [np.ascontiguousarray(u) for u in updates]
    if all(u.dtype != object for u in plain):  # the updates move with their points
        _, starts, local, ups = _core._partition_points(coords, cuts, spec.local32, plain)
    else:
        order, starts, local, _ = _core._partition_points(coords, cuts, spec.local32)
        ups = [np.take(u, order, axis=0) for u in updates]
    return local, ups, starts


def _piece(part, b):
    """Block b's points of one partitioned chunk, or None."""
    local, ups, starts = part
    lo, hi = int(starts[b]), int(starts[b + 1])
    if lo == hi:
        return None
    return local[lo:hi], [u[lo:hi] for u in ups]


def _own_copy(b):
    """A writable copy of a block. A broadcast of one element (da.zeros,
    da.full chunks) is filled, not copied. (Not np.zeros, whose pages the
    kernel would zero as the scatter first touches them, in random order:
    a 100 MB block's first scatter took 0.24 s so against 0.09 s for the
    fill and the scatter on a VM whose page faults are dear.)"""
    if b.size > 1 and not any(b.strides):
        return np.full(b.shape, b.reshape(-1)[0], b.dtype)
    return np.array(b, copy=True)


def _applied(state):
    """A marker that one chain step ran (no data: the step's block stays on
    its worker)."""
    return None


def _apply_step(local, state, piece):
    """A destination block after one more chunk's piece, applied in update
    order. `state` is the block's operands as the graph gave them (a list:
    not ours, so copied before the first write) or as an earlier step left
    them (a tuple: buffers only this chain holds, written in place)."""
    if piece is None:
        return state
    owned = isinstance(state, tuple)
    blocks = [b if owned and b.flags.writeable else _own_copy(b) for b in state]
    local(blocks, piece[0], piece[1])
    return tuple(blocks)


def _partitioned(operands, coords, updates, spec_args, local):
    """The scatter of (coords, updates) into dask `operands`, partitioned;
    returns new dask arrays chunked as the operands were along the
    partition dims and whole along the others."""
    cols, pdims, window, mode, wrap = spec_args
    pset = {d for d, _ in pdims}
    shape = operands[0].shape
    ops = [o.rechunk({d: -1 for d in range(o.ndim) if d not in pset}) for o in operands]
    chunks = ops[0].chunks
    ops = [o.rechunk(chunks) for o in ops]
    bounds = [np.cumsum((0,) + chunks[d]) for d, _ in pdims]
    spec = _Spec(tuple(cols), tuple(pdims), tuple(shape), bounds, tuple(window), mode, wrap)
    coords = coords.rechunk({1: -1})
    pchunks = coords.chunks[0]
    updates = [u.rechunk((pchunks,) + tuple((n,) for n in u.shape[1:])) for u in updates]
    token = tokenize(coords, *updates, *ops, spec.cols, spec.pdims, spec.bounds, spec.window,
                     mode, wrap, local)
    part, piece, apply_, done = (f"ufuncx-partition-{token}", f"ufuncx-piece-{token}",
                                 f"ufuncx-scatter-{token}", f"ufuncx-applied-{token}")
    dsk = {}
    grid = [len(b) - 1 for b in bounds]
    nblocks = int(np.prod(grid))
    zeros = (0,) * (coords.ndim - 1)
    # Each destination block is a chain over the point chunks, in their
    # order: its buffer takes chunk 0's piece, then chunk 1's, ... So the
    # update order holds. A chunk's partition (a copy of its points) is
    # freed once every block took its piece. Left alone, dask's ordering
    # runs one block's chain to its end before the next block starts: every
    # partition is alive at once, but only one block is (the blocks after
    # it are not made yet, the ones before may be consumed downstream). When
    # the points are the larger side, chunk j's partition also waits until
    # every block took chunk j - _PARTITIONS_AHEAD's piece (data-free
    # markers): then at most that many partitions are alive, and every
    # block is. Either way the larger of the two is never all in memory.
    def nbytes(arrays):
        return sum(float(a.nbytes) for a in arrays)
    points_first = nbytes([coords, *updates]) > nbytes(ops)  # (nan with unknown chunks: no)
    pdim_pos = [d for d, _ in pdims]
    last = {}
    steps = {j: [] for j in range(len(pchunks))}
    for index in itertools.product(*[range(len(c)) for c in chunks]):
        b = 0
        for d, g in zip(pdim_pos, grid):
            b = b * g + index[d]
        state = [(o.name,) + index for o in ops]
        for j in range(len(pchunks)):
            key = (apply_,) + index + (j,)
            dsk[key] = (_apply_step, local, state, (piece, j, b))
            steps[j].append(key)
            state = key
        last[index] = state
    for j in range(len(pchunks)):
        after = []
        if points_first and j >= _PARTITIONS_AHEAD:
            for key in steps[j - _PARTITIONS_AHEAD]:
                marker = (done,) + key[1:]
                dsk[marker] = (_applied, key)
                after.append(marker)
        dsk[(part, j)] = (_partition, (coords.name, j) + zeros,
                          [(u.name, j) + (0,) * (u.ndim - 1) for u in updates], spec, *after)
        for b in range(nblocks):
            dsk[(piece, j, b)] = (_piece, (part, j), b)
    _place_chains()
    results = []
    for k, o in enumerate(ops):
        name = f"{apply_}-{k}"
        for index in itertools.product(*[range(len(c)) for c in chunks]):
            dsk[(name,) + index] = (_pick, k, last[index])
        graph = HighLevelGraph.from_collections(name, dict(dsk), dependencies=[coords, *updates,
                                                                               *ops])
        results.append(Array(graph, name, chunks, meta=o._meta))
    return results


# --- where the chains run ----------------------------------------------------------
#
# A destination block's chain writes its buffer in place, step after step,
# so each step should run where the step before left the buffer. dask's
# scheduler instead weighs each step alone: when the block's worker is
# busier than another by the time the buffer takes to send, the step moves
# there with the whole block (measured: about five block moves per 1e8-point
# add.at on two workers, and the blocks often crowded onto one worker). Layer
# annotations cannot say otherwise (dask.array's low-level fusion drops
# them), so, as dask's own P2P shuffle does, a scheduler plugin places the
# chains: the blocks of one scatter are dealt out in turn over the running
# workers (in turn, not in runs: dask's own order, kept when the target
# outweighs the points, runs block after block, and runs would leave one
# worker idle for half of it), and every step of a block's chain, and the
# block's
# result, is restricted loosely to its worker (loose: should that worker
# leave, the step runs anywhere). The partitions are left to the scheduler,
# which runs each where its points are.

_PLACEMENT_NAME = "ufuncx-chain-placement"


def _chain_block(key):
    """(token, block index) of a chain step or a chain's result key, or None.
    Steps are ('ufuncx-scatter-<token>', *index, j); results are
    ('ufuncx-scatter-<token>-<operand>', *index)."""
    if not isinstance(key, tuple) or not isinstance(key[0], str) or \
            not key[0].startswith("ufuncx-scatter-"):
        return None
    rest = key[0][len("ufuncx-scatter-"):]
    if "-" in rest:
        return rest.split("-", 1)[0], key[1:]
    return rest, key[1:-1]


try:
    from distributed.diagnostics.plugin import SchedulerPlugin as _SchedulerPlugin
except ImportError:  # dask without distributed: no placement to do
    class _SchedulerPlugin:  # type: ignore[no-redef]
        pass


class ChainPlacement(_SchedulerPlugin):
    """A scheduler plugin that keeps each destination block's chain of a
    partitioned scatter on one worker, the blocks spread evenly."""

    name = _PLACEMENT_NAME

    def update_graph(self, scheduler, *, tasks=(), **kwargs):
        chains = {}
        for key in tasks:
            found = _chain_block(key)
            if found is not None:
                chains.setdefault(found[0], {}).setdefault(found[1], []).append(key)
        if not chains:
            return
        running = getattr(scheduler, "running", None)
        workers = sorted(ws.address for ws in running) if running is not None else \
            sorted(scheduler.workers)
        if not workers:
            return
        for blocks in chains.values():
            for i, block in enumerate(sorted(blocks)):
                address = workers[i % len(workers)]
                for key in blocks[block]:
                    ts = scheduler.tasks.get(key)
                    if ts is not None and ts.state in ("released", "waiting"):
                        ts.worker_restrictions = {address}
                        ts.loose_restrictions = True


_placement_registered: set[object] = set()


def _place_chains():
    """Registers ChainPlacement with the current distributed client's
    scheduler, once per scheduler. Without a client (dask's local
    schedulers) there is nothing to place; a scheduler that cannot take the
    plugin (ufuncx not importable there, an asynchronous client) keeps
    dask's own placement, which gives the same result, only slower."""
    try:
        from distributed import default_client, get_worker
        client = default_client()
    except (ImportError, ValueError):
        return
    try:
        get_worker()
        return  # (a graph built inside a task: its scheduler is not ours to change)
    except ValueError:
        pass
    # (per scheduler address and client: a new cluster may reuse an address)
    key = (getattr(client.scheduler, "address", None), getattr(client, "id", None))
    if key in _placement_registered or client.asynchronous:
        return
    _placement_registered.add(key)
    try:
        client.register_plugin(ChainPlacement(), name=_PLACEMENT_NAME)
    except Exception:  # noqa: BLE001 - placement is an optimisation only
        pass


def _as_int64(i):
    """Indices as int64; uint64 ones past int64's range stay out of bounds
    (clipped to its top) instead of wrapping to negatives, as ufuncx's own
    ufunc.at and scatter treat them."""
    if i.dtype.kind == "u" and i.dtype.itemsize == 8:
        top = np.uint64(np.iinfo(np.int64).max)
        i = da.minimum(i, top) if isinstance(i, Array) else np.minimum(i, top)
    return i.astype(np.int64, copy=False) if isinstance(i, np.ndarray) else i.astype(np.int64)


def _points_array(a):
    """A dask array of points (n, ...) from NumPy or dask, chunked along n."""
    if isinstance(a, Array):
        return a
    a = np.asarray(a)
    return da.from_array(a, chunks=(max(1, min(_POINTS_PER_CHUNK, a.shape[0])),) +
                         tuple(-1 for _ in a.shape[1:]))


# --- ufunc.at ---------------------------------------------------------------------

def _at_local(ufunc, blocks, coords, ups):
    target = blocks[0]
    if coords.shape[1] == 0:  # at(a, ()): each point updates the whole block
        for p in range(coords.shape[0]):
            ufunc.at(target, (), *[u[p] for u in ups])
    else:
        ufunc.at(target, tuple(coords.T), *ups)


def at(ufunc, a, indices, b=None):
    """ufunc.at(a, indices, b) with a dask target (its graph is replaced),
    or NumPy's ufunc.at after computing dask indices or values."""
    if not isinstance(a, Array):
        indices = tuple(i.compute() if isinstance(i, Array) else i for i in indices) \
            if isinstance(indices, tuple) else (indices.compute() if isinstance(indices, Array)
                                                else indices)
        args = (a, indices) if b is None else (a, indices, b.compute() if isinstance(b, Array)
                                               else b)
        return ufunc.at(*args)
    idx = list(indices) if isinstance(indices, tuple) else [indices]
    while idx and isinstance(idx[-1], slice) and idx[-1] == slice(None):
        idx.pop()  # (trailing ':' select whole axes: the window)
    arrays = []
    for i in idx:
        if isinstance(i, Array):
            if i.dtype.kind not in "iu":
                raise IndexError("ufuncx.dask: index arrays of ufunc.at on a dask array must "
                                 f"be integer dask arrays (got {i.dtype})")
            arrays.append(i)
            continue
        if isinstance(i, (slice, type(Ellipsis))) or i is None:
            raise NotImplementedError(
                "ufuncx.dask: ufunc.at on a dask array takes integer or boolean index arrays "
                "for its leading axes, followed by ':' for whole axes")
        i = np.asarray(i)
        if i.dtype == bool:
            arrays.extend(np.nonzero(i))
        elif i.dtype.kind in "iu":
            arrays.append(i)
        else:
            raise IndexError("arrays used as indices must be of integer (or boolean) type")
    k = len(arrays)
    if k > a.ndim:
        raise IndexError(f"too many indices for array: array is {a.ndim}-dimensional, but {k} "
                         "were indexed")
    lazy = any(isinstance(i, Array) for i in arrays) or isinstance(b, Array)
    points = np.broadcast_shapes(*[i.shape for i in arrays]) if arrays else ()
    window = a.shape[k:]
    full = points + window
    if b is not None:
        try:
            if np.broadcast_shapes(np.shape(b), full) != full:
                raise ValueError
        except ValueError:
            raise ValueError("array is not broadcastable to correct shape") from None
        # NumPy's loop and casting checks, on one element.
        bdtype = b.dtype if isinstance(b, Array) else None
        probe_b = np.ones((), bdtype) if bdtype is not None else np.asarray(b).reshape(-1)[:1] \
            if np.ndim(b) else b
        ufunc.at(np.zeros(1, a.dtype), np.zeros(1, np.intp), probe_b)
    else:
        ufunc.at(np.zeros(1, a.dtype), np.zeros(1, np.intp))
    n = int(np.prod(points))
    spec_args = (tuple(range(k)), tuple((d, d) for d in range(k)), (1,) * k, "raise", True)
    if lazy:
        cols = [_as_int64(da.broadcast_to(da.asarray(i), points).reshape(-1)) for i in arrays]
        # (one column: a view of each index chunk, no copy)
        coords = (cols[0][:, None] if len(cols) == 1 else da.stack(cols, axis=1)) if cols \
            else da.zeros((1, 0), np.int64)
        ups = [] if b is None else [da.broadcast_to(da.asarray(b), full).reshape((n,) + window)]
    else:
        coords_np = (np.stack([_as_int64(np.broadcast_to(i, points).reshape(-1)) for i in arrays],
                              axis=1) if arrays else np.zeros((1, 0), np.int64))
        spec = _Spec(*spec_args[:1], spec_args[1], a.shape, [], spec_args[2], "raise", True)
        coords_np = _prepare(coords_np, spec)  # IndexError now, before anything is built
        spec_args = spec_args[:3] + ("skip", False)
        coords = _points_array(coords_np)
        ups = [] if b is None else [_points_array(np.broadcast_to(b, full).reshape((n,) + window))]
    (result,) = _partitioned([a], coords, ups, spec_args, functools.partial(_at_local, ufunc))
    if result.chunks != a.chunks:
        result = result.rechunk(a.chunks)
    a._chunks, a.dask, a._meta, a._name = result.chunks, result.dask, result._meta, result.name


# --- ufuncx.scatter ----------------------------------------------------------------

def _scatter_local(kw, window, blocks, coords, ups):
    from ._scatter import _scatter_into
    if not ups:  # scatter_apply: the updates are only a shape
        _scatter_into(blocks, coords, None, update_shape=(coords.shape[0],) + window, **kw)
    else:
        _scatter_into(blocks, coords, tuple(ups), **kw)


def scatter(operands, scatter_indices, updates, *, update_window_dims, inserted_window_dims,
            scatter_dims_to_operand_dims, index_vector_dim, input_batching_dims=(),
            scatter_indices_batching_dims=(), combiner=None, mode="skip", plan="auto",
            threads=1, update_shape=None, **_ignored):
    """ufuncx.scatter with any of operands, indices and updates a dask array:
    a dask array (a tuple for a tuple of operands), partitioned by
    destination block."""
    from ._scatter import _MODES
    if mode not in _MODES:
        raise ValueError(f"mode must be one of 'skip', 'skip_window', 'clip', 'raise' (got {mode!r})")
    mode = _MODES[mode]
    single = not isinstance(operands, (tuple, list))
    ops = [da.asarray(o) for o in ([operands] if single else operands)]
    if isinstance(combiner, str):
        combiner = _core.get(combiner)
    indices = scatter_indices if isinstance(scatter_indices, Array) else np.asarray(scatter_indices)
    eager = not isinstance(indices, Array)
    ivd = index_vector_dim
    if ivd == indices.ndim:
        indices = indices[..., None]
    if not 0 <= ivd < indices.ndim:
        raise ValueError(f"index_vector_dim {index_vector_dim} is out of range")
    ind = (np.moveaxis if eager else da.moveaxis)(indices, ivd, -1)
    bshape, k = tuple(ind.shape[:-1]), ind.shape[-1]
    if updates is None:
        if combiner is None or combiner.nin != len(ops) or update_shape is None:
            raise TypeError("updates=None needs a unary combiner (scatter_apply) and update_shape")
        ushape = tuple(update_shape)
        upds = None
    else:
        upds = [updates] if not isinstance(updates, (tuple, list)) else list(updates)
        upds = [u if isinstance(u, Array) else np.asarray(u) for u in upds]
        ushape = upds[0].shape
    uwd = sorted(update_window_dims)
    usd = [d for d in range(len(ushape)) if d not in uwd]
    inserted = tuple(sorted(set(inserted_window_dims) | set(input_batching_dims)))
    wod = [d for d in range(ops[0].ndim) if d not in inserted]
    window = tuple(ushape[d] for d in uwd)
    scatter_shape = tuple(ushape[d] for d in usd)
    if scatter_shape != bshape or len(window) != len(wod):
        raise ValueError(f"scatter: updates of shape {ushape} do not match indices of shape "
                         f"{indices.shape} and operand rank {ops[0].ndim}")
    for d, w in zip(wod, window):
        if w > ops[0].shape[d]:
            raise ValueError(f"scatter: update window extent {w} exceeds operand dim {d} "
                             f"({ops[0].shape[d]})")
    n = int(np.prod(bshape))
    xp = np if eager else da
    coords = _as_int64(ind.reshape((n, k)))
    extra = []
    for od, idim in zip(input_batching_dims, scatter_indices_batching_dims):
        pos = idim if idim < ivd else idim - 1
        shape = [1] * len(bshape)
        shape[pos] = bshape[pos]
        extra.append(xp.broadcast_to(xp.arange(bshape[pos]).reshape(shape), bshape).reshape(n))
    if extra:
        coords = xp.concatenate([coords] + [e[:, None].astype(np.int64) for e in extra], axis=1)
    cols = tuple(scatter_dims_to_operand_dims) + tuple(input_batching_dims)
    wext = dict(zip(wod, window))
    col_window = tuple(wext.get(d, 1) for d in cols)
    pdims = tuple((d, cols.index(d) if d in cols else -1) for d in inserted)
    if upds is not None:
        ups = []
        for u in upds:
            m = (np.moveaxis if not isinstance(u, Array) else da.moveaxis)(u, usd, range(len(usd)))
            ups.append(m.reshape((n,) + window))
    else:
        ups = []
    spec_args = (cols, pdims, col_window, mode, False)
    if eager:
        spec = _Spec(cols, pdims, ops[0].shape, [], col_window, mode, False)
        coords = _prepare(coords, spec)  # mode "raise": IndexError before anything is built
        if mode == "raise":
            spec_args = spec_args[:3] + ("skip", False)
        coords = _points_array(coords)
    ups = [_points_array(u) if not isinstance(u, Array) else u for u in ups]
    if ups and not eager:
        ups = [u.rechunk({0: coords.chunks[0]}) for u in ups]
    kw = dict(update_window_dims=tuple(range(1, 1 + len(window))), inserted_window_dims=inserted,
              scatter_dims_to_operand_dims=cols, index_vector_dim=1, combiner=combiner,
              mode={"skip": "skip", "skip_window": "skip_window", "clip": "clip",
                    "raise": "raise"}[spec_args[3]], plan=plan, threads=threads)
    results = _partitioned(ops, coords, ups, spec_args,
                           functools.partial(_scatter_local, kw, window))
    return results[0] if single else tuple(results)
