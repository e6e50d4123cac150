"""ufuncx.at(x)[index] against JAX's x.at[index] (CPU): bit-identical
results for every update method, JAX's index forms (the ones of jax's
lax_numpy_indexing_test: ints, slices, integer and boolean arrays, None,
Ellipsis, and their mixes) and its out-of-bounds modes."""
import numpy as np
import pytest

import ufuncx as ux

import jax  # noqa: E402  (the oracle; tools/test.sh installs it)

jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp  # noqa: E402

SHAPE = (4, 5, 3)
INDEX = {
    "int": 1,
    "negative int": -1,
    "out-of-bounds int": 7,
    "slice": slice(1, 3),
    "strided slice": slice(None, None, -2),
    "two slices": (slice(None), slice(1, None, 2)),
    "int and slice": (2, slice(None), 0),
    "array": np.array([0, 2, 2, -1]),
    "array with out-of-bounds": np.array([0, 9, -9, 3]),
    "2-d array": np.array([[0, 1], [3, 3]]),
    "arrays broadcast": (np.array([[0], [3]]), np.array([1, 1, 4])),
    "arrays apart": (np.array([0, 3]), slice(None), np.array([2, 2])),
    "slice then array": (slice(None), np.array([4, 0, 4])),
    "ellipsis then array": (Ellipsis, np.array([0, 2])),
    "array then ellipsis": (np.array([1, 1]), Ellipsis),
    "none": (None, 1),
    "none between": (slice(None), None, np.array([0, 1])),
    "boolean": np.array([True, False, True, True]),
    "boolean 2-d": np.arange(20).reshape(4, 5) % 3 == 0,
    "empty array": np.array([], np.int64),
}


def data(dtype, rng):
    if np.dtype(dtype).kind == "f":
        x = rng.standard_normal(SHAPE).astype(dtype)
        x.flat[3] = np.nan
        return x
    return rng.integers(-50, 50, SHAPE).astype(dtype)


def as_jax_index(index):
    if isinstance(index, tuple):
        return tuple(as_jax_index(i) for i in index)
    return jnp.asarray(index) if isinstance(index, np.ndarray) else index


@pytest.mark.parametrize("dtype", ["float32", "int32"])
@pytest.mark.parametrize("method", ["set", "add", "multiply", "min", "max"])
@pytest.mark.parametrize("mode", [None, "drop", "clip", "promise_in_bounds"])
@pytest.mark.parametrize("form", INDEX)
def test_updates_bit_identical_to_jax(form, mode, method, dtype, rng):
    if mode == "promise_in_bounds" and "out-of-bounds" in form:
        return  # (out of bounds there is undefined in JAX)
    x = data(dtype, rng)
    index = INDEX[form]
    shape = x[index].shape if "out-of-bounds" not in form else None
    if shape is None:
        shape = np.asarray(jnp.asarray(x).at[as_jax_index(index)].get(mode="clip")).shape
    for values in (rng.standard_normal(shape).astype(dtype) * 3, np.asarray(2, dtype)):
        want = getattr(jnp.asarray(x).at[as_jax_index(index)], method)(jnp.asarray(values),
                                                                       mode=mode)
        got = getattr(ux.at(x)[index], method)(values, mode=mode)
        assert got.dtype == x.dtype and got.shape == x.shape
        np.testing.assert_array_equal(got, np.asarray(want), strict=True)
        assert (got.view(np.uint8) == np.asarray(want).view(np.uint8)).all()  # bit for bit
    assert not np.shares_memory(got, x)


@pytest.mark.parametrize("dtype", ["float64", "int64", "uint8", "bool"])
@pytest.mark.parametrize("mode", [None, "clip", "fill", "promise_in_bounds"])
@pytest.mark.parametrize("form", INDEX)
def test_get_as_jax(form, mode, dtype, rng):
    if mode == "promise_in_bounds" and "out-of-bounds" in form:
        return
    x = data("int64", rng).astype(dtype)
    index = INDEX[form]
    want = jnp.asarray(x).at[as_jax_index(index)].get(mode=mode)
    got = ux.at(x)[index].get(mode=mode)
    np.testing.assert_array_equal(got, np.asarray(want), strict=True)
    if mode == "fill":
        want = jnp.asarray(x).at[as_jax_index(index)].get(mode="fill", fill_value=3)
        np.testing.assert_array_equal(ux.at(x)[index].get(mode="fill", fill_value=3),
                                      np.asarray(want), strict=True)


def test_repeated_updates_apply_in_order_and_errors():
    x = np.zeros(3, np.float32)
    big = np.float32(1e8)
    idx = np.array([1, 1, 1])
    vals = np.array([big, 1, -big], np.float32)  # order matters in float32
    np.testing.assert_array_equal(ux.at(x)[idx].add(vals),
                                  np.asarray(jnp.asarray(x).at[jnp.asarray(idx)].add(vals)))
    with pytest.raises(ValueError, match="Unknown scatter mode"):
        ux.at(x)[0].add(1, mode="raise")
    with pytest.raises(ValueError, match="Unknown gather mode"):
        ux.at(x)[0].get(mode="drop")
    with pytest.raises(IndexError):
        ux.at(x)[0, 0].set(1)
    with pytest.raises(TypeError):
        ux.at(x)[np.array([0.5])].set(1)
    assert (x == 0).all()


@pytest.mark.parametrize("name", ["negative", "square", "sqrt"])
@pytest.mark.parametrize("form", ["array", "arrays broadcast", "slice then array", "boolean",
                                  "array with out-of-bounds", "int"])
def test_apply_as_jax(form, name, rng):
    x = np.abs(data("float64", rng)) + 0.5
    index = INDEX[form]
    want = jnp.asarray(x).at[as_jax_index(index)].apply(getattr(jnp, name))
    got = ux.at(x)[index].apply(getattr(ux, name))
    np.testing.assert_array_equal(got, np.asarray(want), strict=True)
    with pytest.raises(TypeError, match="unary"):
        ux.at(x)[index].apply(ux.add)


def test_apply_repeats_per_selection_and_takes_any_callable():
    x = np.array([1.5, 2.0, 3.0, 4.0])
    index = np.array([1, 1, 3, 1])
    want = np.asarray(jnp.asarray(x).at[index].apply(jnp.square))
    np.testing.assert_array_equal(ux.at(x)[index].apply(ux.square), want, strict=True)
    np.testing.assert_array_equal(ux.at(x)[index].apply(lambda v: v * v), want, strict=True)


@pytest.mark.parametrize("name", ["negative", "square", "sqrt", "absolute"])  # (XLA's exp differs from NumPy's by an ulp)
def test_scatter_unary_combiner_is_lax_scatter_apply(name, rng):
    from jax import lax
    x = np.abs(rng.standard_normal((6, 4))) + 0.5
    idx = np.array([[0], [4], [0], [5], [9]])  # a repeat, and one out of bounds
    dn = lax.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,),
                                     scatter_dims_to_operand_dims=(0,))
    want = lax.scatter_apply(jnp.asarray(x), jnp.asarray(idx), getattr(jnp, name), dn,
                             update_shape=(5, 4), mode="drop")
    got = ux.scatter(x, idx, None, update_window_dims=(1,), inserted_window_dims=(0,),
                     scatter_dims_to_operand_dims=(0,), index_vector_dim=1,
                     combiner=getattr(ux, name), mode="drop", update_shape=(5, 4))
    np.testing.assert_array_equal(got, np.asarray(want), strict=True)
    with pytest.raises(TypeError, match="update_shape"):
        ux.scatter(x, idx, None, update_window_dims=(1,), inserted_window_dims=(0,),
                   scatter_dims_to_operand_dims=(0,), index_vector_dim=1, combiner=ux.add)


def test_selection_memory_follows_the_selection_not_the_array():
    huge = np.broadcast_to(np.float32(1), (100_000, 100_000))  # 4e10 elements, no memory
    assert ux.at(huge)[5, 7].get() == 1
    assert ux.at(huge)[np.array([1, -1, 10**6])].get(mode="fill").shape == (3, 100_000)
    assert ux.at(np.zeros(3))[np.array([2**62, -2**62])].add(1.).tolist() == [0, 0, 0]
