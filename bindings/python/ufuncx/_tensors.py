"""Tensors in, tensors out: ufuncx ufuncs on objects that speak DLPack.

An input, `out=` entry or `where=` that has ``__dlpack__`` (a torch tensor,
a JAX array, a CuPy array on the host, ...) and no ``__array_ufunc__`` of
its own is taken without a copy: NumPy's ``from_dlpack`` views its memory.
The call then runs on arrays, and new results come back as the kind of the
first tensor input (a torch tensor through ``torch.from_dlpack``, a JAX
array through ``jax.numpy.from_dlpack``), again without a copy; an `out=`
tensor is written in place and returned itself, as NumPy returns `out`.

Refused with a TypeError that says why: tensors on a device other than the
CPU, torch tensors that require grad while autograd records (ufuncx does
not record it; under ``torch.no_grad()`` they are taken), and JAX arrays as
`out=` (they are immutable). torch's bfloat16 and float8 tensors, which
NumPy's DLPack import does not take, are viewed through ml_dtypes' types.
"""
import numpy as np

_KDL_CPU = 1  # DLPack's device type of host memory
_TENSOR_TYPES: dict[type, bool] = {}  # type -> bool (checked once per type)


def is_tensor(obj):
    """Whether obj is a DLPack tensor ufuncx takes (not an ndarray, no
    __array_ufunc__ of its own)."""
    t = type(obj)
    known = _TENSOR_TYPES.get(t)
    if known is None:
        known = (not issubclass(t, np.ndarray) and hasattr(t, "__dlpack__")
                 and hasattr(t, "__dlpack_device__") and not hasattr(t, "__array_ufunc__"))
        _TENSOR_TYPES[t] = known
    return known


def _library(obj):
    return type(obj).__module__.split(".")[0]


def to_array(obj, *, writable=False):
    """The ndarray that shares obj's memory."""
    device = obj.__dlpack_device__()
    if int(device[0]) != _KDL_CPU:
        raise TypeError(f"ufuncx computes on the CPU; this {type(obj).__name__} is on device "
                        f"{getattr(obj, 'device', device)} (move it to the CPU first)")
    lib = _library(obj)
    if lib == "torch":
        from . import torchlike
        return torchlike._as_array(obj)  # (requires_grad and ml_dtypes views handled there)
    if writable and lib in ("jax", "jaxlib"):
        raise TypeError("a JAX array cannot be an output: JAX arrays are immutable "
                        "(use ufuncx.at(x)[...] or the result the call returns)")
    try:
        return np.from_dlpack(obj)
    except (TypeError, BufferError, RuntimeError):
        if writable:
            raise
        return np.asarray(obj)  # (dtypes NumPy's DLPack import lacks, such as bfloat16)


def from_array(array, like):
    """array as the kind of tensor `like` is, sharing its memory."""
    lib = _library(like)
    if lib == "torch":
        from . import torchlike
        return torchlike._as_tensor(array)  # (any layout ufuncx makes: positive strides)
    if lib in ("jax", "jaxlib"):
        import jax.numpy as jnp
        return jnp.asarray(array)
    return array


def call(ufunc, method, inputs, kwargs):
    """ufunc.method on the arrays that view the tensors; results back as
    tensors of the first tensor input's kind."""
    like = next((x for x in inputs if is_tensor(x)), None)
    arrays = tuple(to_array(x) if is_tensor(x) else x for x in inputs)
    kwargs = dict(kwargs)
    out = kwargs.get("out")
    out_tensors = ()
    if out is not None:
        out_tensors = out if isinstance(out, tuple) else (out,)
        kwargs["out"] = tuple(to_array(o, writable=True) if is_tensor(o) else o
                              for o in out_tensors)
    if "where" in kwargs and is_tensor(kwargs["where"]):
        kwargs["where"] = to_array(kwargs["where"])
    fn = ufunc if method == "__call__" else getattr(ufunc, method)
    result = fn(*arrays, **kwargs)
    if result is None:  # at: in place
        return None
    results = result if isinstance(result, tuple) else (result,)
    back = []
    for i, r in enumerate(results):
        if i < len(out_tensors) and out_tensors[i] is not None:
            back.append(out_tensors[i])  # the out= object itself
        elif like is not None and isinstance(r, np.ndarray):
            back.append(from_array(r, like))
        elif like is not None and isinstance(r, np.generic):
            back.append(from_array(np.asarray(r), like))
        else:
            back.append(r)
    return tuple(back) if isinstance(result, tuple) else back[0]
