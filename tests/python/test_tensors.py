"""Tensors in, tensors out: ufuncx ufuncs on torch tensors and JAX arrays
through DLPack (ufuncx/_tensors.py), in every method, without copies."""
import ml_dtypes
import numpy as np
import pytest

import ufuncx as ux

import torch  # noqa: E402  (tools/test.sh installs torch==2.13.0 and jax)
import jax.numpy as jnp  # noqa: E402


def storage(t):
    return t.untyped_storage().data_ptr()


def test_torch_in_torch_out_every_method():
    t = torch.arange(1.0, 7.0).reshape(2, 3)
    for got, want in [
        (ux.add(t, 1), t + 1),
        (ux.multiply(t, torch.tensor(2.0)), t * 2),
        (ux.sqrt(t), torch.sqrt(t)),
        (ux.add.reduce(t, axis=1), t.sum(1)),
        (ux.add.reduce(t, axis=None), t.sum()),
        (ux.multiply.accumulate(t, axis=1), t.cumprod(1)),
        (ux.maximum.reduceat(t, [0, 2], axis=1), torch.stack([t[:, :2].amax(1), t[:, 2]], 1)),
        (ux.subtract.outer(t[0], t[1]), t[0][:, None] - t[1][None, :]),
        (ux.matmul(t, t.T), t @ t.T),
        (ux.less(t, 3), t < 3),
    ]:
        assert isinstance(got, torch.Tensor), type(got)
        assert got.dtype == want.dtype and torch.equal(got, want)
    q, r = ux.divmod(t, 4.0)
    assert isinstance(q, torch.Tensor) and torch.equal(q, t // 4) and torch.equal(r, t % 4)
    # a mix of tensor and array gives a tensor; the result's values are NumPy's
    mixed = ux.add(np.arange(3.0), torch.ones(3, dtype=torch.float32))
    assert isinstance(mixed, torch.Tensor) and mixed.dtype == torch.float64


def test_torch_inputs_and_outputs_share_memory():
    t = torch.zeros(5)
    ux.add.at(t, [0, 0, 3], 1.0)  # in place on the tensor's memory
    assert t.tolist() == [2.0, 0.0, 0.0, 1.0, 0.0]
    out = torch.empty(5)
    before = storage(out)
    got = ux.multiply(t, 3, out=out)
    assert got is out and storage(out) == before and out.tolist() == [6.0, 0, 0, 3.0, 0]
    got = ux.add(t, t, out=(out,), where=torch.tensor([True, False, True, True, False]))
    assert got is out and out.tolist() == [4.0, 0, 0, 2.0, 0]
    # a new result is a tensor over the array ufuncx made, not a copy of it:
    # the layout NumPy's order='K' gives a transposed input is kept
    r = ux.negative(torch.arange(12.0).reshape(3, 4).T)
    assert r.stride() == (1, 4) and torch.equal(r, -torch.arange(12.0).reshape(3, 4).T)
    # reduce into a tensor out=
    s = torch.zeros(())
    assert ux.add.reduce(t, out=s) is s and s.item() == 3.0


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16, torch.float8_e4m3fn,
                                   torch.int8, torch.uint8, torch.int64, torch.bool])
def test_torch_dtypes(dtype):
    t, u = torch.tensor([1, 0, 3, 2]).to(dtype), torch.tensor([2, 3, 0, 1]).to(dtype)
    got = ux.maximum(t, u)
    assert isinstance(got, torch.Tensor) and got.dtype == dtype
    assert torch.equal(got.float(), torch.maximum(t.float(), u.float()))


def test_bfloat16_tensor_arithmetic_equals_torch():
    rng = np.random.default_rng(0)
    a = torch.from_numpy(rng.standard_normal(1000).astype(np.float32)).to(torch.bfloat16)
    b = torch.from_numpy(rng.standard_normal(1000).astype(np.float32)).to(torch.bfloat16)
    for f, g in [(ux.add, torch.add), (ux.multiply, torch.mul), (ux.divide, torch.div),
                 (ux.maximum, torch.maximum)]:
        got = f(a, b)
        assert got.dtype == torch.bfloat16 and torch.equal(got, g(a, b)), f.__name__


def test_refusals_say_why():
    leaf = torch.ones(3, requires_grad=True)
    with pytest.raises(TypeError, match="autograd"):
        ux.add(leaf, 1)
    with torch.no_grad():
        assert torch.equal(ux.add(leaf, 1), torch.full((3,), 2.0))
    j = jnp.arange(3.0)
    with pytest.raises(TypeError, match="immutable"):
        ux.add(j, 1, out=j)

    class OnDevice:  # a DLPack producer on another device
        def __dlpack__(self, **kw):
            raise AssertionError("not asked for")

        def __dlpack_device__(self):
            return (2, 0)  # kDLCUDA

    with pytest.raises(TypeError, match="CPU"):
        ux.add(OnDevice(), 1)


def test_jax_in_jax_out():
    j = jnp.arange(4.0, dtype=jnp.float32)  # (float32 whether or not x64 is on)
    got = ux.sin(j)
    assert isinstance(got, type(j)) and got.dtype == jnp.float32
    np.testing.assert_array_equal(np.asarray(got), ux.sin(np.arange(4.0, dtype=np.float32)))
    assert isinstance(ux.add.reduce(j), type(j))
    bf = jnp.ones(3, jnp.bfloat16)
    got = ux.add(bf, bf)
    assert got.dtype == jnp.bfloat16 and (np.asarray(got) == 2).all()


def test_results_speak_dlpack():
    r = ux.add(np.arange(3.0), 1)
    t = torch.from_dlpack(r)
    t[0] = 9
    assert r[0] == 9  # one memory
    assert np.dtype(ml_dtypes.bfloat16) == ux.add(np.ones(2, ml_dtypes.bfloat16), 1).dtype
