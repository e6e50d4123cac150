"""ufuncx.torchlike against PyTorch (CPU) itself: values, dtypes and error
classes; and the examples of the torch docs (seed 003)."""
import warnings

import numpy as np
import pytest

import ufuncx as ux
from conftest import assert_same, outcome

import torch  # noqa: E402  (the oracle; tools/test.sh installs torch==2.13.0)

tl = ux.torchlike


def T(a):
    return torch.from_numpy(np.ascontiguousarray(a).copy())


def test_docs_examples():
    src = np.arange(1, 11).reshape(2, 5)
    got = tl.scatter_(np.zeros((3, 5), src.dtype), 0, np.array([[0, 1, 2, 0]]), src)
    assert_same(got, np.array([[1, 0, 0, 4, 0], [0, 2, 0, 0, 0], [0, 0, 3, 0, 0]]))
    got = tl.scatter_(np.zeros((3, 5), src.dtype), 1, np.array([[0, 1, 2], [0, 1, 4]]), src)
    assert_same(got, np.array([[1, 2, 3, 0, 0], [6, 7, 0, 0, 8], [0, 0, 0, 0, 0]]))
    got = tl.scatter_(np.full((2, 4), 2.0), 1, np.array([[2], [3]]), 1.23, reduce="multiply")
    assert_same(got, np.array([[2, 2, 2.46, 2], [2, 2, 2, 2.46]]))
    got = tl.scatter_(np.full((2, 4), 2.0), 1, np.array([[2], [3]]), 1.23, reduce="add")
    assert_same(got, np.array([[2, 2, 3.23, 2], [2, 2, 2, 3.23]]))
    a = np.ones(3)
    assert tl.scatter_(a, 0, np.zeros((0,), np.int64), np.ones(3)) is a  # empty index


def random_case(rng, dtype, dim, unique=False):
    self_ = (rng.standard_normal((4, 5, 3)) * 10).astype(dtype)
    ishape = (3, 4, 2)
    if unique:
        index = np.argsort(rng.random((self_.shape[dim],) * 1 + (1,) * 0))[:ishape[dim]]
        shape = [1, 1, 1]
        shape[dim] = ishape[dim]
        index = np.broadcast_to(index.reshape(shape), ishape).copy()
    else:
        index = rng.integers(0, self_.shape[dim], ishape)
    src = (rng.standard_normal((4, 5, 3)) * 10).astype(dtype)
    return self_, index.astype(np.int64), src


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
@pytest.mark.parametrize("dim", [0, 1, 2, -1])
def test_scatter_family_matches_torch(dtype, dim, rng):
    s, index, src = random_case(rng, dtype, dim % 3, unique=True)
    assert_same(tl.scatter(s, dim, index, src), T(s).scatter_(dim, T(index), T(src)).numpy())
    for reduce in ["add", "multiply"]:
        assert_same(tl.scatter(s, dim, index, src, reduce=reduce),
                    T(s).scatter_(dim, T(index), T(src), reduce=reduce).numpy())
    s, index, src = random_case(rng, dtype, dim % 3)
    exp = T(s).scatter_add_(dim, T(index), T(src)).numpy()
    got = tl.scatter_add(s, dim, index, src)
    if dtype.startswith("float"):
        np.testing.assert_allclose(got, exp, rtol=1e-5 if dtype == "float32" else 1e-12)
    else:
        assert_same(got, exp)
    for reduce in ["sum", "prod", "mean", "amax", "amin"]:
        for include_self in [True, False]:
            exp = T(s).scatter_reduce_(dim, T(index), T(src), reduce,
                                       include_self=include_self).numpy()
            got = tl.scatter_reduce(s, dim, index, src, reduce, include_self=include_self)
            if dtype.startswith("float") and reduce in ("sum", "prod", "mean"):
                np.testing.assert_allclose(got, exp, rtol=1e-5 if dtype == "float32" else 1e-12)
            else:
                assert_same(got, exp, what=f"{reduce} include_self={include_self}")


def test_amax_amin_propagate_nan():
    s = np.zeros(3)
    src = np.array([np.nan, 1.0, 2.0])
    idx = np.array([0, 0, 1])
    for reduce in ["amax", "amin"]:
        exp = T(s).scatter_reduce_(0, T(idx), T(src), reduce).numpy()
        assert_same(tl.scatter_reduce(s, 0, idx, src, reduce), exp)


@pytest.mark.parametrize("dtype", ["float64", "int64"])
def test_index_add_and_index_put_match_torch(dtype, rng):
    s = (rng.standard_normal((5, 4)) * 10).astype(dtype)
    idx = np.array([0, 4, 0, 2])
    source = (rng.standard_normal((4, 4)) * 10).astype(dtype)
    exp = T(s).index_add_(0, T(idx), T(source), alpha=2).numpy()
    assert_same(tl.index_add(s, 0, idx, source, alpha=2), exp)
    src1 = (rng.standard_normal((5, 3)) * 10).astype(dtype)
    exp = T(s).index_add_(1, T(np.array([3, 3, -1 + 4])), T(src1)).numpy()
    assert_same(tl.index_add(s, 1, np.array([3, 3, 3]), src1), exp)
    rows, cols = np.array([0, -1, 0]), np.array([1, 2, 1])
    vals = (rng.standard_normal(3) * 10).astype(dtype)
    exp = T(s).index_put_((T(rows), T(cols)), T(vals), accumulate=True).numpy()
    assert_same(tl.index_put(s, (rows, cols), vals, accumulate=True), exp)
    exp = T(s).index_put_((T(np.array([1, 3])),), T(np.full(4, 7).astype(dtype))).numpy()
    assert_same(tl.index_put(s, (np.array([1, 3]),), np.full(4, 7).astype(dtype)), exp)
    mask = s > 0
    exp = T(s).index_put_((T(mask),), T(np.array(0).astype(dtype))).numpy()
    assert_same(tl.index_put(s, (mask,), np.array(0).astype(dtype)), exp)


def test_error_classes_match_torch():
    s = np.zeros((3, 4))
    cases = [
        lambda m, x: m(x, 0, np.array([[5]]), np.ones((1, 1))),       # index out of range
        lambda m, x: m(x, 0, np.array([[-1]]), np.ones((1, 1))),      # negative index
        lambda m, x: m(x, 0, np.array([[0.0]]), np.ones((1, 1))),     # index dtype
        lambda m, x: m(x, 1, np.zeros((4, 1), np.int64), np.ones((4, 1))),  # index too big
        lambda m, x: m(x, 0, np.array([0]), np.ones(1)),              # rank mismatch
        lambda m, x: m(x, 0, np.array([[0]]), np.ones((1, 1), np.float32)),  # dtype mismatch
    ]
    for case in cases:
        with pytest.raises(Exception) as theirs:
            case(lambda x, *a: x.scatter_(*[T(v) if isinstance(v, np.ndarray) else v for v in a]),
                 T(s))
        before = s.copy()
        with pytest.raises(type(theirs.value)):
            case(tl.scatter_, s)
        assert_same(s, before)
    with pytest.raises(RuntimeError):
        tl.scatter_(s, 0, np.array([[0]]), np.ones((1, 1)), reduce="max")
    with pytest.raises(RuntimeError, match="index 7 is out of bounds for dimension 0 with size 3"):
        tl.index_add_(s, 0, np.array([7]), np.ones((1, 4)))
    with pytest.raises(IndexError, match="index 3 is out of bounds for dimension 0 with size 3"):
        tl.index_put_(s, (np.array([3]),), np.array(1.0))
    with pytest.raises(RuntimeError, match="index 5 is out of bounds for dimension 0 with size 3"):
        tl.scatter_(s, 0, np.array([[5]]), np.ones((1, 1)))
    assert not s.any()
    # int32 indices are accepted, as by torch 2.x
    assert_same(tl.scatter(s, 0, np.array([[2]], np.int32), np.ones((1, 1))),
                T(s).scatter_(0, T(np.array([[2]], np.int32)), T(np.ones((1, 1)))).numpy())
    with pytest.raises(RuntimeError):
        tl.index_put_(s, (np.array([0]),), np.array(1, np.int64))


def test_torch_error_classes_found_by_the_oracle():
    # Checked against torch 2.13: dtype mismatches raise even for an empty
    # index; index_add_ out of range is IndexError on a 1-D self and
    # RuntimeError otherwise; complex amax/amin and bool mean are not
    # implemented in torch's CPU kernels.
    with pytest.raises(RuntimeError, match="Expected self.dtype to be equal to src.dtype"):
        tl.scatter_add_(np.zeros((1, 2)), 0, np.zeros((3, 0), np.int64), np.zeros((3, 0), np.int32))
    with pytest.raises(IndexError, match="index out of range in self"):
        tl.index_add_(np.zeros(3), 0, np.array([3]), np.ones(1))
    with pytest.raises(RuntimeError, match="out of bounds for dimension 0 with size 4"):
        tl.index_add_(np.zeros((4, 2)), 0, np.array([-1]), np.ones((1, 2)))
    with pytest.raises(RuntimeError, match="must have the same scalar type"):
        tl.index_add_(np.zeros(4), 0, np.array([0, 1]), np.ones(2, bool), alpha=2)
    with pytest.raises(NotImplementedError, match="not implemented for 'ComplexFloat'"):
        tl.scatter_reduce_(np.zeros(3, np.complex64), 0, np.array([0]), np.ones(1, np.complex64), "amax")
    with pytest.raises(NotImplementedError, match="not implemented for 'Bool'"):
        tl.scatter_reduce_(np.zeros(3, bool), 0, np.array([0]), np.ones(1, bool), "mean")


def torch_outcome(f):
    """(numpy result, None) or (None, exception class) of a call on torch tensors."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        try:
            r = f()
            return (r.numpy() if isinstance(r, torch.Tensor) else r), None
        except Exception as e:  # noqa: BLE001 (the class is the result)
            return None, type(e)


SEMANTICS = {
    # 0-d self: a one-element 1-D tensor with dim in [-1, 0]
    "0-d scatter_add_": lambda m, A: m.scatter_add_(A(1.5), 0, A(0), A(7.)),
    "0-d scatter_add_ dim -1": lambda m, A: m.scatter_add_(A(1.5), -1, A(0), A(7.)),
    "0-d scatter_add_ dim 1": lambda m, A: m.scatter_add_(A(1.5), 1, A(0), A(7.)),
    "0-d scatter_add_ 1-D index": lambda m, A: m.scatter_add_(A(1.5), 0, A([0]), A([7.])),
    "0-d scatter_add_ out of bounds": lambda m, A: m.scatter_add_(A(1.5), 0, A(1), A(7.)),
    "0-d scatter_": lambda m, A: m.scatter_(A(1.5), 0, A(0), A(7.)),
    "0-d scatter_reduce_": lambda m, A: m.scatter_reduce_(A(1.5), 0, A(0), A(7.), "amax"),
    "0-d index_add_": lambda m, A: m.index_add_(A(1.5), 0, A([0]), A(7.)),
    "0-d index_add_, 0-d index": lambda m, A: m.index_add_(A(1.5), 0, A(0), A(7.)),
    "0-d index_add_, two sources": lambda m, A: m.index_add_(A(1.5), 0, A([0, 0]), A([7., 1.])),
    # float16 sums of the scatter family in float32 (index_add_, index_put_ not)
    "float16 scatter_add_": lambda m, A: m.scatter_add_(
        A(np.zeros(1, np.float16)), 0, A(np.zeros(2000, np.int64)), A(np.full(2000, .1, np.float16))),
    "float16 scatter_ add": lambda m, A: m.scatter_(
        A(np.zeros(1, np.float16)), 0, A(np.zeros(2000, np.int64)), A(np.full(2000, .1, np.float16)),
        reduce="add"),
    "float16 scatter_reduce_ sum": lambda m, A: m.scatter_reduce_(
        A(np.zeros(1, np.float16)), 0, A(np.zeros(2000, np.int64)), A(np.full(2000, .1, np.float16)),
        "sum"),
    "float16 scatter_reduce_ mean": lambda m, A: m.scatter_reduce_(
        A(np.zeros(1, np.float16)), 0, A(np.zeros(2000, np.int64)), A(np.full(2000, .1, np.float16)),
        "mean"),
    "float16 scatter_reduce_ prod": lambda m, A: m.scatter_reduce_(
        A(np.ones(1, np.float16)), 0, A(np.zeros(30, np.int64)), A(np.full(30, 1.1, np.float16)),
        "prod"),
    "float16 index_add_": lambda m, A: m.index_add_(
        A(np.zeros(1, np.float16)), 0, A(np.zeros(2000, np.int64)), A(np.full(2000, .1, np.float16))),
    "float16 index_put_ accumulate": lambda m, A: m.index_put_(
        A(np.zeros(1, np.float16)), (A(np.zeros(2000, np.int64)),), A(np.full(2000, .1, np.float16)),
        accumulate=True),
    # index_put_'s index forms
    "uint8 mask, values": lambda m, A: m.index_put_(
        A(np.zeros(3)), (A(np.array([1, 0, 1], np.uint8)),), A([5., 6.])),
    "uint8 mask, one value": lambda m, A: m.index_put_(
        A(np.zeros(3)), (A(np.array([1, 0, 1], np.uint8)),), A([5.])),
    "uint8 mask, accumulate": lambda m, A: m.index_put_(
        A(np.zeros(3)), (A(np.array([1, 0, 1], np.uint8)),), A(5.), accumulate=True),
    "uint8 mask and positions": lambda m, A: m.index_put_(
        A(np.zeros((3, 3))), (A(np.array([1, 0, 1], np.uint8)), A([0, 1])), A(5.)),
    "int8 positions": lambda m, A: m.index_put_(A(np.zeros(3)), (A(np.array([1, 2], np.int8)),),
                                                A(5.)),
    "int32 positions": lambda m, A: m.index_put_(A(np.zeros(3)), (A(np.array([1, 2], np.int32)),),
                                                 A(5.)),
    "no index, 0-d": lambda m, A: m.index_put_(A(1.), (), A(5.)),
    "no index, 1-d": lambda m, A: m.index_put_(A(np.zeros(3)), (), A(5.)),
    "None index": lambda m, A: m.index_put_(A(np.zeros(3)), (None,), A(5.)),
}


class _TorchMethods:
    """Tensor methods called as torchlike's functions are: f(self, ...)."""
    def __getattr__(self, name):
        return lambda self, *args, **kwargs: getattr(self, name)(*args, **kwargs)


def same_as_torch(case):
    """case(module, make_array) run on torch tensors and on numpy arrays
    through torchlike: the same values or the same error class."""
    want, want_err = torch_outcome(
        lambda: case(_TorchMethods(), lambda x: torch.from_numpy(np.array(x))))
    got, got_err = torch_outcome(lambda: case(tl, lambda x: np.array(x)))
    assert got_err is want_err, (got, got_err, want, want_err)
    if want_err is None:
        assert_same(np.asarray(got), np.asarray(want))


@pytest.mark.parametrize("case", SEMANTICS)
def test_torch_semantics_of_every_corner(case):
    same_as_torch(SEMANTICS[case])


@pytest.mark.parametrize("dtype", ["float16", "float32", "int64"])
@pytest.mark.parametrize("index_dtype", ["int64", "int32"])
@pytest.mark.parametrize("alpha", [1, 2])
def test_index_add_takes_torchs_kernel_for_each_shape(dtype, index_dtype, alpha, rng):
    # torch hands self of 2+ dims with dim first or last, int64 indices and
    # alpha 1 to scatter_add_ (float16 sums in float32, rounded once; an
    # index out of range is its RuntimeError), and adds slice by slice
    # otherwise (float16 rounded at every add; IndexError): every dim of
    # 1-, 2- and 3-D selves, repeated indices, then one index out of range.
    for shape in [(5,), (4, 3), (3, 4, 2)]:
        for dim in range(-len(shape), len(shape)):
            idx = rng.integers(0, shape[dim], 9).astype(index_dtype)
            src_shape = list(shape)
            src_shape[dim] = idx.size
            s = (rng.normal(size=shape) * 5).astype(dtype)
            src = (rng.normal(size=src_shape) * 5).astype(dtype)
            want = T(s.copy()).index_add_(dim, T(idx), T(src), alpha=alpha).numpy()
            got = tl.index_add_(s.copy(), dim, idx, src, alpha=alpha)
            assert_same(got, want)
            bad = idx.copy()
            bad[4] = shape[dim]
            with pytest.raises(Exception) as torch_error:
                T(s.copy()).index_add_(dim, T(bad), T(src), alpha=alpha)
            before = s.copy()
            with pytest.raises(torch_error.type, match="out of"):
                tl.index_add_(s, dim, bad, src, alpha=alpha)
            assert_same(s, before)


def test_torch_message_wording():
    with pytest.raises(RuntimeError, match=r"^scatter\(\): Expected self.dtype"):
        tl.scatter_add(np.zeros(3, np.float32), 0, np.array([0]), np.ones(1))
    with pytest.raises(RuntimeError, match=r"^scatter\(\): Expected dtype int32/int64 for index"):
        tl.scatter_reduce(np.zeros(3), 0, np.array([0.]), np.ones(1), "sum")
    with pytest.raises(RuntimeError, match=r"source tensor shape must match self tensor shape, "
                                           r"excluding the specified dimension. Got self.shape = "
                                           r"\[3, 2\] source.shape = \[1, 3\]"):
        tl.index_add(np.zeros((3, 2)), 0, np.array([0]), np.ones((1, 3)))


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_float16_scatter_family_bit_identical_to_torch(reduce, include_self, rng):
    # torch combines float16 in float32 and rounds once (mean: the rounded
    # sum over the count, rounded again)
    for _ in range(10):
        s = rng.standard_normal((6, 4)).astype(np.float16)
        index = rng.integers(0, 6, (9, 4))
        src = (rng.standard_normal((9, 4)) * 3).astype(np.float16)
        got = tl.scatter_reduce(s, 0, index, src, reduce, include_self=include_self)
        want = T(s).scatter_reduce_(0, T(index), T(src), reduce, include_self=include_self)
        assert_same(got, want.numpy())
        assert_same(tl.scatter_add(s, 0, index, src), T(s).scatter_add_(0, T(index), T(src)).numpy())


def _f(shape, dtype=np.float32):
    return np.arange(np.prod(shape), dtype=dtype).reshape(shape) % 7 - 2


FAMILY = {
    "index_copy_": lambda m, A: m.index_copy_(A(np.zeros((3, 4), np.float32)), 1, A([0, 2]),
                                              A(_f((3, 2)))),
    "index_copy_ dim 0": lambda m, A: m.index_copy_(A(np.zeros((3, 4), np.float32)), 0, A([2, 0]),
                                                    A(_f((2, 4)))),
    "index_copy_ int32 index": lambda m, A: m.index_copy_(
        A(np.zeros((3, 4), np.float32)), 1, A(np.array([0, 2], np.int32)), A(_f((3, 2)))),
    "index_copy_ count": lambda m, A: m.index_copy_(A(np.zeros((3, 4), np.float32)), 1,
                                                    A([0, 2, 3]), A(_f((3, 2)))),
    "index_copy_ shapes": lambda m, A: m.index_copy_(A(np.zeros((3, 4), np.float32)), 1,
                                                     A([0, 2]), A(_f((2, 2)))),
    "index_copy_ out of bounds": lambda m, A: m.index_copy_(A(np.zeros((3, 4), np.float32)), 1,
                                                            A([0, 5]), A(_f((3, 2)))),
    "index_copy_ negative": lambda m, A: m.index_copy_(A(np.zeros((3, 4), np.float32)), 1,
                                                       A([0, -1]), A(_f((3, 2)))),
    "index_copy_ dtype": lambda m, A: m.index_copy_(A(np.zeros((3, 4), np.float32)), 1,
                                                    A([0, 2]), A(_f((3, 2), np.float64))),
    "index_fill_": lambda m, A: m.index_fill_(A(np.zeros((3, 4), np.float32)), 1, A([0, 2]), 5.),
    "index_fill_ negative": lambda m, A: m.index_fill_(A(np.zeros((3, 4), np.int64)), 0, A([-1]),
                                                       7),
    "index_fill_ 0-d value": lambda m, A: m.index_fill_(A(np.zeros((3, 4), np.float32)), 1,
                                                        A([1]), A(np.float32(5.))),
    "index_fill_ 1-d value": lambda m, A: m.index_fill_(A(np.zeros((3, 4), np.float32)), 1,
                                                        A([1]), A(np.array([5.], np.float32))),
    "index_fill_ out of bounds": lambda m, A: m.index_fill_(A(np.zeros((3, 4), np.float32)), 1,
                                                            A([4]), 5.),
    "index_fill_ int32 index": lambda m, A: m.index_fill_(
        A(np.zeros((3, 4), np.float32)), 1, A(np.array([0], np.int32)), 5.),
    "index_reduce_ sum": lambda m, A: m.index_reduce_(A(np.full((3, 4), 2., np.float32)), 1,
                                                      A([0]), A(np.ones((3, 1), np.float32)), "sum"),
    "index_reduce_ negative": lambda m, A: m.index_reduce_(
        A(np.full((3, 4), 2., np.float32)), 1, A([-1]), A(np.ones((3, 1), np.float32)), "prod"),
    **{f"index_reduce_ {r} {inc}": (lambda r, inc: lambda m, A: m.index_reduce_(
        A(np.full((3, 4), 2, dt)), 1, A([0, 0, 2]), A(_f((3, 3), dt)), r, include_self=inc))(r, inc)
       for r in ("prod", "mean", "amax", "amin") for inc in (True, False)
       for dt in (np.float32,)},
    "index_reduce_ mean int64": lambda m, A: m.index_reduce_(
        A(np.full((3, 4), 2, np.int64)), 1, A([0, 0, 2]), A(_f((3, 3), np.int64)), "mean"),
    "masked_scatter_": lambda m, A: m.masked_scatter_(
        A(np.zeros((2, 3), np.float32)), A(np.array([[1, 0, 1], [0, 1, 0]], bool)),
        A(np.arange(1., 7., dtype=np.float32))),
    "masked_scatter_ broadcast mask": lambda m, A: m.masked_scatter_(
        A(np.zeros((2, 3), np.float32)), A(np.array([1, 0, 1], bool)),
        A(np.arange(1., 7., dtype=np.float32))),
    "masked_scatter_ short source": lambda m, A: m.masked_scatter_(
        A(np.zeros((2, 3), np.float32)), A(np.array([1, 0, 1], bool)),
        A(np.arange(1., 3., dtype=np.float32))),
    "masked_scatter_ uint8 mask": lambda m, A: m.masked_scatter_(
        A(np.zeros((2, 3), np.float32)), A(np.array([1, 0, 1], np.uint8)),
        A(np.arange(1., 7., dtype=np.float32))),
    "masked_scatter_ dtype": lambda m, A: m.masked_scatter_(
        A(np.zeros((2, 3), np.float32)), A(np.array([1, 0, 1], bool)), A(np.arange(1, 7))),
    "put_": lambda m, A: m.put_(A(np.zeros((2, 3), np.float32)), A([1, -1, 1]),
                                A(np.array([9., 8., 7.], np.float32))),
    "put_ accumulate": lambda m, A: m.put_(A(np.zeros((2, 3), np.float32)), A([1, -1, 1]),
                                           A(np.array([9., 8., 7.], np.float32)), accumulate=True),
    "put_ out of bounds": lambda m, A: m.put_(A(np.zeros((2, 3), np.float32)), A([6]),
                                              A(np.array([9.], np.float32))),
    "put_ count": lambda m, A: m.put_(A(np.zeros((2, 3), np.float32)), A([1, 2]),
                                      A(np.array([9.], np.float32))),
    "put_ 2-d index": lambda m, A: m.put_(A(np.zeros((2, 3), np.float32)), A([[1, 2]]),
                                          A(np.array([[9., 8.]], np.float32))),
    "put_ int32 index": lambda m, A: m.put_(A(np.zeros((2, 3), np.float32)),
                                            A(np.array([1], np.int32)), A(np.array([9.], np.float32))),
}


@pytest.mark.parametrize("case", FAMILY)
def test_rest_of_torch_scatter_family(case):
    same_as_torch(FAMILY[case])


def test_rest_of_family_in_place_out_of_place_and_untouched_on_error():
    x = np.zeros((3, 4), np.float32).T  # not C-contiguous: put_ works through a copy
    assert tl.put_(x, np.array([1, 5]), np.array([9., 8.], np.float32)) is x
    want = torch.zeros((3, 4)).t().contiguous().put_(torch.tensor([1, 5]), torch.tensor([9., 8.]))
    assert_same(x, want.numpy())
    y = np.zeros((3, 4), np.float32)
    z = tl.index_fill(y, 1, np.array([0]), 3.)
    assert (y == 0).all() and (z[:, 0] == 3).all()
    before = y.copy()
    for bad in (lambda: tl.index_copy_(y, 1, np.array([0, 9]), np.ones((3, 2), np.float32)),
                lambda: tl.put_(y, np.array([0, 99]), np.ones(2, np.float32)),
                lambda: tl.masked_scatter_(y, np.ones((3, 4), bool), np.ones(3, np.float32))):
        with pytest.raises((IndexError, RuntimeError)):
            bad()
        assert_same(y, before)


SLICED = [(slice(None), [0, 2, 2]), (Ellipsis, [0, 2, 2]), ([0, 2, 2], Ellipsis),
          (slice(1, 3), [0, 2, 2], slice(None, None, 2)), ([[1], [3]], slice(None), [0, 2, 2]),
          (slice(None), [[1], [3]], [0, 2, 2]), (slice(None),), (Ellipsis,),
          ([True, False, True, True], slice(None), [0, 2, 2]), (slice(None), slice(None), [-1])]


@pytest.mark.parametrize("where", range(len(SLICED)))
def test_index_put_with_slices_and_ellipsis_as_torch_setitem(where, rng):
    x = rng.standard_normal((4, 5, 6)).astype(np.float32)
    index = tuple(np.array(i) if isinstance(i, list) else i for i in SLICED[where])
    t_index = tuple(torch.from_numpy(i) if isinstance(i, np.ndarray) else i for i in index)
    shape = x[index].shape
    for values in (np.float32(7.5), rng.standard_normal(shape).astype(np.float32)):
        want = T(x)
        want[t_index] = torch.tensor(values)
        assert_same(tl.index_put(x, index, np.asarray(values)), want.numpy())
    values = rng.standard_normal(shape).astype(np.float32)
    want = x.copy()
    np.add.at(want, index, values)  # accumulate: repeated positions add up
    np.testing.assert_allclose(tl.index_put(x, index, values, accumulate=True), want, rtol=1e-6)


@pytest.mark.parametrize("case", list(SEMANTICS) + list(FAMILY))
def test_torch_tensors_in_place_give_torch_results(case):
    f = {**SEMANTICS, **FAMILY}[case]
    want, want_err = torch_outcome(
        lambda: f(_TorchMethods(), lambda x: torch.from_numpy(np.array(x))))
    made = []

    def tensor(x):
        made.append(torch.from_numpy(np.array(x)))
        return made[-1]
    got, got_err = torch_outcome(lambda: f(tl, tensor))
    assert got_err is want_err, (got, got_err, want, want_err)
    if want_err is None:
        assert_same(np.asarray(got), np.asarray(want))
        assert_same(made[0].numpy(), np.asarray(want))  # self itself changed, in place


def test_torch_tensor_storage_kinds_and_autograd():
    t = torch.zeros(3, 4)
    storage = t.data_ptr()
    assert tl.index_add_(t, 0, torch.tensor([0, 2]), torch.ones(2, 4)) is t
    assert t.data_ptr() == storage and t[0].sum() == 4
    out = tl.scatter_add(torch.zeros(3), 0, torch.tensor([0, 0]), torch.ones(2))
    assert isinstance(out, torch.Tensor) and out.tolist() == [2, 0, 0]
    leaf = torch.zeros(3, requires_grad=True)
    with pytest.raises(TypeError, match="torch.no_grad"):
        tl.index_put_(leaf, (torch.tensor([0]),), torch.tensor(1.))
    assert leaf.tolist() == [0, 0, 0]
    with torch.no_grad():
        assert tl.index_put_(leaf, (torch.tensor([0]),), torch.tensor(1.)) is leaf
    assert leaf.tolist() == [1, 0, 0]
    # bfloat16 through ml_dtypes' type, in place (test_ml_dtypes.py has torch's
    # arithmetic); a dtype neither NumPy nor ml_dtypes has is a TypeError
    b = torch.zeros(3, dtype=torch.bfloat16)
    assert tl.scatter_add_(b, 0, torch.tensor([0]), torch.ones(1, dtype=torch.bfloat16)) is b
    assert b.tolist() == [1, 0, 0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch: "ComplexHalf support is experimental"
        half_complex = torch.zeros(3, dtype=torch.complex32)
    with pytest.raises(TypeError, match="complex32 tensor has no NumPy view"):
        tl.scatter_add_(half_complex, 0, torch.tensor([0]), half_complex[:1])


def test_rest_of_family_hostile_inputs():
    # byte-swapped int64 indices are torch's long; a zero-size self is a no-op
    assert_same(tl.put_(np.zeros(4), np.array([1, 2], ">i8"), np.ones(2)), np.array([0., 1, 1, 0]))
    assert tl.index_fill_(np.zeros((0, 3)), 1, np.array([0]), 1.).shape == (0, 3)
    # an index that is a view of self: torch's overlap error, self untouched
    s = np.arange(6, dtype=np.int64)
    with pytest.raises(RuntimeError, match="unsupported operation"):
        tl.put_(s, s[:2], np.array([7, 8]))
    assert_same(s, np.arange(6, dtype=np.int64))
    with pytest.raises(RuntimeError, match="read-only"):
        tl.index_reduce_(np.broadcast_to(np.zeros(3), (2, 3)), 0, np.array([0]), np.ones((1, 3)),
                         "amax")


# Bad arguments to index_add_, index_reduce_ and index_copy_: torch's checks
# in torch's order give its class and its words (a 0-d self takes a source
# of one slice per index; a 2-D index, a float or int16 index, a source of
# the wrong dims, sizes or dtype; a 0-d source with several indices; a dim
# out of range; an index out of range).
INDEX_FUNC_ARGS = {
    "2-D index": ((3, 4), 0, np.array([[0, 1], [1, 0]]), (4, 4)),
    "float index": ((3, 4), 0, np.array([0.0]), (1, 4)),
    "int16 index": ((3, 4), 0, np.array([0], np.int16), (1, 4)),
    "dim beyond source": ((3, 4), 1, np.array([0]), (4,)),
    "indices against source.size(dim)": ((3, 4), 0, np.array([0, 1]), (3, 4)),
    "slice shapes": ((3, 4), 0, np.array([0]), (1, 5)),
    "source of more dims": ((3, 4), 1, np.array([0]), (3, 1, 2)),
    "0-d source, two indices": ((3, 4), 0, np.array([0, 1]), ()),
    "0-d source, one index": ((3,), 0, np.array([0]), ()),
    "0-d self, two sources": ((), 0, np.array([0, 0]), (2,)),
    "0-d self, no source": ((), 0, np.array([], np.int64), (0,)),
    "0-d self, 2-D source": ((), 0, np.array([0]), (1, 1)),
    "dim out of range": ((3, 4), 2, np.array([0]), (1, 4)),
    "index out of range": ((3, 4), 0, np.array([5]), (1, 4)),
    "negative index": ((3, 4), 1, np.array([-1]), (3, 1)),
    "source dtype": ((3, 4), 0, np.array([0]), "float32"),
    "empty self, index past its dim": ((3, 0), 0, np.array([7]), (1, 0)),
}


@pytest.mark.parametrize("name", ["index_add_", "index_reduce_", "index_copy_"])
@pytest.mark.parametrize("case", INDEX_FUNC_ARGS)
def test_index_functions_check_arguments_as_torch(name, case):
    shape, dim, index, source_shape = INDEX_FUNC_ARGS[case]
    source = (np.ones((1, 4), np.float32) if source_shape == "float32" else
              np.arange(1.0, 1.0 + np.prod(source_shape)).reshape(source_shape))
    extra = ("prod",) if name == "index_reduce_" else ()

    def outcome_and_self(self, call):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            try:
                call()
                return "ok", self.copy()
            except Exception as e:  # noqa: BLE001 (class and words are the result)
                return f"{type(e).__name__}: {e}", None
    t = np.zeros(shape)
    as_tensor = lambda a: torch.from_numpy(np.array(a))  # noqa: E731 (keeps 0-d arrays 0-d)
    want = outcome_and_self(t, lambda: getattr(torch.from_numpy(t), name)(
        dim, as_tensor(index), as_tensor(source), *extra))
    u = np.zeros(shape)
    got = outcome_and_self(u, lambda: getattr(tl, name)(u, dim, index, source, *extra))
    assert got[0] == want[0]
    if want[1] is not None:
        assert_same(got[1], want[1])
    else:
        assert_same(u, np.zeros(shape))  # (a refused call writes nothing)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_index_reduce_rounds_every_step_of_half_types(dtype, reduce, include_self):
    # torch's index_reduce_ works slice by slice in the type (prod and the
    # mean's sum round at every step), unlike scatter_reduce_'s float32
    torch.manual_seed(0)
    tdt = getattr(torch, dtype)
    for shape, dim in [((5,), 0), ((4, 3), 0), ((4, 3), 1), ((3, 4, 2), 1)]:
        src_shape = list(shape)
        src_shape[dim] = 9
        s = (torch.randn(shape) * 3).to(tdt)
        src = (torch.randn(src_shape) * 3).to(tdt)
        idx = torch.randint(0, shape[dim], (9,))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            want = s.clone().index_reduce_(dim, idx, src, reduce, include_self=include_self)
        got = tl.index_reduce_(s.clone(), dim, idx, src, reduce, include_self=include_self)
        assert torch.equal(got.view(torch.int16), want.view(torch.int16)), (shape, dim)


@pytest.mark.parametrize("shape", [(3,), (3, 2)])
@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_index_reduce_of_bools_as_torch(shape, reduce, include_self):
    s = np.array([True, False, True]) if len(shape) == 1 else np.ones(shape, bool)
    src = np.ones((2,) + shape[1:], bool)
    same_as_torch(lambda m, A: m.index_reduce_(A(s.copy()), 0, A(np.array([0, 2])), A(src),
                                               reduce, include_self=include_self))


# The rest of the family's argument errors, against torch: class and words.
_A = np.array
FAMILY_ERRORS = {
    "scatter_reduce_ 'max' is amax": ("scatter_reduce_", (0, _A([[0, 1]]), np.ones((1, 2)), "max")),
    "scatter_reduce_ 'min' is amin": ("scatter_reduce_", (0, _A([[0, 1]]), np.ones((1, 2)), "min")),
    "scatter_reduce_ 'add'": ("scatter_reduce_", (0, _A([[0, 1]]), np.ones((1, 2)), "add")),
    "put_ source dtype": ("put_", (_A([0, 1]), np.ones(2, np.float32))),
    "masked_scatter_ mask rows": ("masked_scatter_", (np.ones((2, 4), bool), np.ones(12))),
    "masked_scatter_ mask columns": ("masked_scatter_", (np.ones((3, 5), bool), np.ones(12))),
    "masked_scatter_ mask of more dims": ("masked_scatter_", (np.ones((1, 3, 4), bool),
                                                            np.ones(12))),
    "masked_scatter_ mask broadcast": ("masked_scatter_", (np.ones((3, 1), bool), np.ones(12))),
    "index_fill_ 2-D index": ("index_fill_", (0, _A([[0, 1]]), 1.0)),
    "index_fill_ value of one dim": ("index_fill_", (0, _A([[0, 1]], np.int32), np.ones(2))),
    "index_put_ too many indices": ("index_put_", ((_A([0, 1]), _A([0, 1]), _A([0, 1])),
                                                   np.ones(1))),
    "index_put_ values dtype": ("index_put_", ((_A([0, 1]),), np.ones(4, np.float32))),
    "index_put_ mask shape": ("index_put_", ((_A([True, False]),), np.ones(4))),
    "index_put_ mask of more dims": ("index_put_", ((np.ones((3, 4, 2), bool),), _A(1.0))),
    "index_put_ mask after an index": ("index_put_", ((_A([0]), np.ones((4, 2), bool)), _A(1.0))),
}


@pytest.mark.parametrize("case", FAMILY_ERRORS)
def test_scatter_family_errors_as_torch(case):
    name, args = FAMILY_ERRORS[case]

    def tensor(x):
        if isinstance(x, tuple):
            return tuple(tensor(y) for y in x)
        return torch.from_numpy(np.array(x)) if isinstance(x, np.ndarray) else x

    t, u = np.zeros((3, 4)), np.zeros((3, 4))
    want = outcome(lambda: getattr(torch.from_numpy(t), name)(*map(tensor, args)))
    got = outcome(lambda: getattr(tl, name)(u, *args))
    assert got == want
    assert_same(u, t)


def _along_a_dim_case(rng):
    """A random target shape of 1-3 dims, a dim, an index shape along it
    (longer or shorter than the target there, no larger elsewhere), a dtype."""
    nd = int(rng.integers(1, 4))
    shape = tuple(int(x) for x in rng.integers(1, 7, nd))
    dim = int(rng.integers(0, nd))
    ishape = tuple(int(rng.integers(1, 9)) if d == dim else int(rng.integers(1, s + 1))
                   for d, s in enumerate(shape))
    return shape, dim, ishape, rng.choice([np.float64, np.float32, np.int64, np.int32])


@pytest.mark.parametrize("seed", range(4))
def test_scatter_along_a_dim_is_the_sequential_result_in_every_layout(seed):
    # scatter_add_ / scatter_reduce_ / scatter_ along any dim of 1-3 dims,
    # int32 and int64 indices, strided targets and sources: bit for bit the
    # updates applied one at a time in row-major order of the index (NumPy's
    # ufunc.at on the flattened destinations), and an out-of-bounds index
    # (past the end, or negative) raises torch's RuntimeError with the
    # target as it was.
    rng = np.random.default_rng(seed)
    ops = {"sum": np.add, "prod": np.multiply, "amax": np.maximum, "amin": np.minimum}
    for _ in range(60):
        shape, dim, ishape, dt = _along_a_dim_case(rng)
        t0 = (rng.random(shape) * 10).astype(dt)
        t = np.zeros(tuple(2 * s for s in shape), dt)[tuple(slice(None, None, 2) for _ in shape)]
        if rng.random() < 0.5:
            t = np.zeros(shape, dt)
        t[...] = t0
        src = (rng.random(tuple(2 * s for s in ishape)) * 10).astype(dt)[
            tuple(slice(None, None, 2) for _ in ishape)]
        idx = rng.integers(0, shape[dim], ishape).astype(rng.choice([np.int64, np.int32]))
        red = str(rng.choice(["sum", "prod", "amax", "amin", "add_"]))
        coords = list(np.indices(ishape))
        coords[dim] = idx
        dest = np.ravel_multi_index(tuple(coords), shape).ravel()
        want = t0.copy().ravel()
        ops["sum" if red == "add_" else red].at(want, dest, src.ravel())
        if red == "add_":
            ux.torchlike.scatter_add_(t, dim, idx, src)
        else:
            ux.torchlike.scatter_reduce_(t, dim, idx, src, red)
        assert np.array_equal(t, want.reshape(shape)), (shape, dim, ishape, dt, red)
        bad = idx.copy()
        bad.flat[-1] = shape[dim] if rng.random() < 0.5 else -1
        before = t.copy()
        with pytest.raises(RuntimeError, match="out of bounds for dimension"):
            ux.torchlike.scatter_add_(t, dim, bad, src)
        assert np.array_equal(t, before)


def test_scatter_reduce_every_reduction_and_include_self_match_torch():
    # The init and mean passes along a dim (include_self=False, "mean") in
    # every layout of 1-3 dims, against torch itself.
    rng = np.random.default_rng(9)
    for _ in range(200):
        shape, dim, ishape, dt = _along_a_dim_case(rng)
        t = (rng.random(shape) * 10).astype(dt)
        src = (rng.random(ishape) * 10).astype(dt)
        idx = rng.integers(0, shape[dim], ishape)
        red = str(rng.choice(["sum", "prod", "amax", "amin", "mean"]))
        inc = bool(rng.random() < 0.5)
        want = T(t).scatter_reduce_(dim, T(idx), T(src), red, include_self=inc).numpy()
        tl.scatter_reduce_(t, dim, idx, src, red, include_self=inc)
        if t.dtype.kind == "f" and red in ("sum", "prod", "mean"):
            np.testing.assert_allclose(t, want, rtol=1e-5)
        else:
            assert np.array_equal(t, want), (shape, dim, ishape, dt, red, inc)


@pytest.mark.parametrize("idx_dtype", [np.int64, np.int32])
def test_scatter_along_a_dim_into_a_small_target_undoes_a_bad_index(idx_dtype):
    # An index far larger than the target: its one pass checks as it writes
    # on a saved target; a bad index anywhere (first, middle, last) leaves the
    # target as it was, with torch's error, and a good call is the
    # sequential result.
    rng = np.random.default_rng(11)
    src = rng.random((400, 4))
    idx = rng.integers(0, 3, (400, 4)).astype(idx_dtype)
    for contiguous in (True, False):
        for where in (0, 1000, 1599):
            for value in (3, -1):
                full = rng.random((6, 8))
                t = full[:3, :4].copy() if contiguous else full[::2, ::2]  # (3, 4)
                before, full_before = t.copy(), full.copy()
                bad = idx.copy()
                bad.flat[where] = value
                with pytest.raises(RuntimeError,
                                   match=f"index {value} is out of bounds for dimension 0"):
                    tl.scatter_add_(t, 0, bad, src)
                assert np.array_equal(t, before) and np.array_equal(full, full_before)
    t = np.zeros((6, 8))[::2, ::2]
    tl.scatter_reduce_(t, 0, idx, src, "amax")
    want = np.zeros(12)
    np.maximum.at(want, (idx * 4 + np.arange(4)).ravel(), src.ravel())
    assert np.array_equal(t, want.reshape(3, 4))
