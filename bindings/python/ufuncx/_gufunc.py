"""The axes=, axis= and keepdims= keywords of generalized ufuncs (NumPy's
gufunc protocol): core dimensions are moved to the end as views, the ufunc
runs on them, and the outputs' core dimensions are moved back."""
import numpy as np

from ._methods import _axis


def _entry(e):
    return (_axis(e),) if not isinstance(e, (tuple, list)) else tuple(map(_axis, e))


def call_with_axes(ufunc, args, kwargs):
    kwargs = dict(kwargs)
    axes = kwargs.pop("axes", None)
    axis = kwargs.pop("axis", None)
    keepdims = bool(kwargs.pop("keepdims", False))
    nin, nout = ufunc.nin, ufunc.nout
    sig_in, sig_out = ufunc.signature.split("->")
    out_core = [part.count(",") + 1 if part.strip("() ") else 0
                for part in sig_out.replace(" ", "").split(")")[:-1]]
    in_core = [part.strip("(,").count(",") + 1 if part.strip("(,) ") else 0
               for part in sig_in.replace(" ", "").split(")")[:-1]]
    if axis is not None and axes is not None:
        raise TypeError("cannot specify both 'axis' and 'axes'")
    if keepdims and (len(set(in_core)) != 1 or any(out_core)):
        raise TypeError(f"{ufunc.__name__} does not support keepdims: its signature "
                        f"{ufunc.signature} requires output 0 to have {out_core[0]} core "
                        f"dimensions, but keepdims can only be used when all inputs have the same "
                        f"number of core dimensions and all outputs have no core dimensions.")
    if axis is not None:
        if any(c != 1 for c in in_core) or any(out_core):
            raise TypeError(f"{ufunc.__name__}: axis can only be used with a single shared core "
                            f"dimension, not with signature {ufunc.signature}")
        axes = [axis] * nin
    inputs = [np.asarray(a) for a in args[:nin]]
    outs = list(args[nin:]) or [None] * nout
    if "out" in kwargs:
        o = kwargs.pop("out")
        outs = list(o) if isinstance(o, tuple) else [o]
    if axes is None:
        axes = [tuple(range(-c, 0)) for c in in_core]
    axes = list(axes)
    if len(axes) == nin and any(out_core):
        raise ValueError(f"axes should be a list with an entry for all {nin + nout} inputs and "
                         f"outputs; entries for outputs can only be omitted if none of them has "
                         f"core axes.")
    if len(axes) not in (nin, nin + nout):
        raise ValueError(f"axes should be a list with an entry for all {nin + nout} inputs and outputs")
    in_axes = [_entry(e) for e in axes[:nin]]
    moved = [np.moveaxis(x, ax, tuple(range(-len(ax), 0))) if ax else x
             for x, ax in zip(inputs, in_axes)]
    out_axes = [_entry(e) for e in axes[nin:]] or [()] * nout
    moved_outs = [None if o is None else (np.moveaxis(o, ax, tuple(range(-len(ax), 0))) if ax else o)
                  for o, ax in zip(outs, out_axes)]
    if keepdims:
        moved_outs = [None if o is None else np.squeeze(o, axis=in_axes[0][0]) for o in moved_outs]
    call_kw = dict(kwargs)
    if any(o is not None for o in moved_outs):
        call_kw["out"] = tuple(moved_outs) if nout > 1 else moved_outs[0]
    res = ufunc(*moved, **call_kw)
    res = list(res) if nout > 1 else [res]
    final = []
    for k, (r, ax) in enumerate(zip(res, out_axes)):
        if outs[k] is not None:
            final.append(outs[k])
            continue
        r = np.asarray(r)
        if ax:
            r = np.moveaxis(r, tuple(range(-len(ax), 0)), ax)
        if keepdims:
            pos = in_axes[0][0]
            r = np.expand_dims(r, pos if pos >= 0 else r.ndim + 1 + pos)
        final.append(r[()] if r.ndim == 0 else r)
    return tuple(final) if nout > 1 else final[0]
