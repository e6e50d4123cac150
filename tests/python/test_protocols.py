"""ufuncx ufuncs as NumPy citizens: NEP 13 overrides (duck arrays, dask,
xarray, pandas) and pickling. Each override case is checked against what
NumPy's own ufunc does with the same object."""
import concurrent.futures
import copy
import multiprocessing
import pickle

import numpy as np
import pytest

import ufuncx as ux


class Recorder:
    """A duck array whose override records what it is given."""

    def __init__(self, answer=NotImplemented):
        self.answer = answer
        self.seen = []

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        self.seen.append((ufunc, method, inputs, kwargs))
        return self.answer


class SubRecorder(Recorder):
    pass


class Refuses:
    __array_ufunc__ = None


def normalised(seen):
    """(method, input reprs, kwargs) with the ufunc left out, comparable
    between NumPy's and ufuncx's calls."""
    ufunc, method, inputs, kwargs = seen

    def show(v):
        return type(v).__name__ if isinstance(v, Recorder) else repr(v)
    return method, [show(i) for i in inputs], \
        {k: (tuple(type(o).__name__ for o in v) if k == "out" else show(v))
         for k, v in kwargs.items()}


CALLS = [
    ("add(r, 1)", lambda m, r: m.add(r, 1)),
    ("add(1, r)", lambda m, r: m.add(1, r)),
    ("positional out", lambda m, r: m.add(np.ones(2), 1, r)),
    ("out keyword", lambda m, r: m.add(np.ones(2), 1, out=r)),
    ("out=None dropped", lambda m, r: m.add(r, 1, out=None)),
    ("out=... dropped", lambda m, r: m.add(r, 1, out=...)),
    ("divmod out pair", lambda m, r: m.divmod(1, 2, out=(None, r))),
    ("where", lambda m, r: m.add(np.ones(2), 1, where=r)),
    ("sig becomes signature", lambda m, r: m.add(r, 1, sig="dd->d")),
    ("keywords pass", lambda m, r: m.add(r, 1, casting="unsafe", order="K", dtype=float)),
    ("reduce", lambda m, r: m.add.reduce(r)),
    ("reduce positional", lambda m, r: m.add.reduce(r, 0, None)),
    ("reduce keywords", lambda m, r: m.add.reduce(r, axis=0, keepdims=True, initial=0)),
    ("reduce into r", lambda m, r: m.add.reduce(np.ones(3), out=r)),
    ("reduce positional out", lambda m, r: m.add.reduce(np.ones(3), 0, None, r)),
    ("accumulate", lambda m, r: m.add.accumulate(r, 0, None)),
    ("accumulate out=(None,)", lambda m, r: m.add.accumulate(r, out=(None,))),
    ("reduceat", lambda m, r: m.add.reduceat(r, [0, 1], 0)),
    ("outer", lambda m, r: m.multiply.outer(r, 2)),
    ("outer dtype", lambda m, r: m.multiply.outer(2, r, dtype=float)),
    ("at binary", lambda m, r: m.add.at(r, [0], 1)),
    ("at unary", lambda m, r: m.negative.at(r, [0])),
    ("maximum.at", lambda m, r: m.maximum.at(r, [0], 1.0)),
    ("gufunc", lambda m, r: m.matmul(r, np.ones((2, 2)))),
]


@pytest.mark.parametrize("name,call", CALLS, ids=[c[0] for c in CALLS])
def test_override_is_called_as_numpy_calls_it(name, call):
    mine, theirs = Recorder(answer="mine"), Recorder(answer="theirs")
    assert call(ux, mine) == "mine"
    assert call(np, theirs) == "theirs"
    assert len(mine.seen) == 1 and mine.seen[0][0] is not None
    assert normalised(mine.seen[0]) == normalised(theirs.seen[0])
    # The override receives the ufuncx ufunc itself.
    assert mine.seen[0][0].__module__ != "numpy" and isinstance(mine.seen[0][0], ux.ufunc)


def test_override_order_and_not_implemented():
    calls = []

    class A:
        def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
            calls.append("A")
            return NotImplemented

    class B(A):
        def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
            calls.append("B")
            return NotImplemented

    for module in (np, ux):
        calls.clear()
        with pytest.raises(TypeError, match="operand type\\(s\\) all returned NotImplemented "
                                             "from __array_ufunc__") as e:
            module.add(A(), B())
        assert calls == ["B", "A"]  # a subclass before its superclass
        assert "'A', 'B'" in str(e.value)
    # One call per type, left to right otherwise.
    first, second = Recorder(), SubRecorder("sub")
    assert ux.add(first, second) == "sub" and first.seen == []


def test_array_ufunc_none_refuses_every_method():
    for f in (lambda m: m.add(Refuses(), 1), lambda m: m.add.reduce(Refuses()),
              lambda m: m.add.at(Refuses(), [0], 1), lambda m: m.add.outer(Refuses(), 1)):
        for module in (np, ux):
            with pytest.raises(TypeError, match="operand 'Refuses' does not support ufuncs "
                                                "\\(__array_ufunc__=None\\)"):
                f(module)


def test_plain_arrays_never_look_for_overrides():
    # ndarray subclasses without their own __array_ufunc__ (matrix, masked
    # arrays) and NumPy scalars compute directly.
    assert ux.add(np.float32(1), np.ones(2, np.float32)).dtype == np.float32
    assert np.array_equal(ux.add(np.arange(3), [1, 2, 3]), [1, 3, 5])


def test_dask_array_stays_lazy():
    import dask.array as da  # installed by the test command (tools/setup.sh)
    x = da.from_array(np.arange(12.0).reshape(3, 4), chunks=(2, 2))
    y = ux.add(x, 1)
    assert isinstance(y, da.Array)  # lazy: nothing computed yet
    assert np.array_equal(y.compute(), np.arange(12.0).reshape(3, 4) + 1)
    z = ux.sqrt(x)
    assert isinstance(z, da.Array)
    assert np.array_equal(z.compute(), np.sqrt(np.arange(12.0).reshape(3, 4)))
    q, r = ux.divmod(x, 5)
    assert np.array_equal(q.compute(), np.arange(12.0).reshape(3, 4) // 5)
    # dask answers NotImplemented for NumPy's reduce; ufuncx's reduce is lazy
    # (ufuncx/dask.py, tested in test_dask.py).
    with pytest.raises(TypeError, match="all returned NotImplemented"):
        np.add.reduce(x)
    s = ux.add.reduce(x)
    assert isinstance(s, da.Array)
    assert np.array_equal(s.compute(), np.add.reduce(np.arange(12.0).reshape(3, 4)))


def test_xarray_keeps_dims_and_coords():
    import xarray as xr
    a = xr.DataArray(np.arange(6.0).reshape(2, 3), dims=("t", "x"),
                     coords={"x": [10, 20, 30]}, attrs={"units": "m"})
    got, want = ux.multiply(a, 2), np.multiply(a, 2)
    assert isinstance(got, xr.DataArray)
    xr.testing.assert_identical(got, want)
    xr.testing.assert_identical(ux.sqrt(a), np.sqrt(a))


def test_pandas_keeps_the_index():
    import pandas as pd
    s = pd.Series([1.0, 4.0, 9.0], index=["a", "b", "c"], name="v")
    pd.testing.assert_series_equal(ux.sqrt(s), np.sqrt(s))
    pd.testing.assert_series_equal(ux.add(s, 1), np.add(s, 1))
    # pandas maps reductions by the ufunc's name, as it does NumPy's.
    assert ux.add.reduce(s) == np.add.reduce(s) == 14.0
    assert ux.maximum.reduce(s) == 9.0
    pd.testing.assert_series_equal(ux.add.accumulate(s), np.add.accumulate(s))
    df = pd.DataFrame({"p": [1.0, 2.0], "q": [3.0, 4.0]}, index=[5, 6])
    pd.testing.assert_frame_equal(ux.multiply(df, 3), np.multiply(df, 3))
    # pandas' nullable integers keep NA as NA.
    n = pd.array([1, None, 3], dtype="Int64")
    got, want = ux.add(n, 1), np.add(n, 1)
    assert str(got.dtype) == str(want.dtype) == "Int64"
    assert got.isna().tolist() == want.isna().tolist()


# ------------------------------------------------------------------ pickling

def test_every_ufunc_pickles_to_itself():
    for name in ux.registry():
        f = getattr(ux, name)
        for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
            assert pickle.loads(pickle.dumps(f, protocol)) is f, name
        assert copy.copy(f) is f and copy.deepcopy(f) is f
    assert pickle.loads(pickle.dumps(ux.true_divide)) is ux.divide
    assert pickle.loads(pickle.dumps([ux.add, {"f": ux.sqrt}])) == [ux.add, {"f": ux.sqrt}]


def _apply(f, x):
    return f(x)


def test_spawn_process_pool():
    ctx = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(2, mp_context=ctx) as pool:
        got = list(pool.map(ux.sqrt, [np.array([4.0]), np.array([9.0, 16.0])]))
        assert [g.tolist() for g in got] == [[2.0], [3.0, 4.0]]
        assert pool.submit(_apply, ux.negative, np.arange(3)).result().tolist() == [0, -1, -2]


# --------------------------------------------------------- subclasses, subok

def assert_same_masked(got, want):
    assert type(got) is type(want)
    assert np.array_equal(np.ma.getmaskarray(got), np.ma.getmaskarray(want))
    np.testing.assert_array_equal(np.ma.getdata(got), np.ma.getdata(want))


@pytest.mark.parametrize("name,args", [
    ("add", lambda: (np.ma.array([1.0, 2.0, 3.0], mask=[0, 1, 0]), 1.0)),
    ("multiply", lambda: (np.ma.array([1, 2, 3], mask=[1, 0, 0]), np.ma.array([4, 5, 6], mask=[0, 0, 1]))),
    ("sqrt", lambda: (np.ma.array([-1.0, 0.0, 4.0], mask=[0, 0, 1]),)),   # domain: -1 masked
    ("log", lambda: (np.ma.array([-1.0, 0.0, 4.0, 8.0], mask=[0, 0, 1, 0]),)),
    ("divide", lambda: (np.ma.array([1.0, 0.0, 2.0]), np.ma.array([0.0, 1.0, 2.0]))),
    ("divmod", lambda: (np.ma.array([7, 8, 9], mask=[0, 1, 0]), 4)),
    ("add", lambda: (np.ma.array(1.0, mask=True), 1)),                      # 0-d masked
])
def test_masked_arrays_keep_masks_as_with_numpy(name, args):
    with np.errstate(all="ignore"):
        got, want = getattr(ux, name)(*args()), getattr(np, name)(*args())
    if isinstance(want, tuple):
        for g, w in zip(got, want):
            assert_same_masked(g, w)
    elif want is np.ma.masked:
        assert got is np.ma.masked
    else:
        assert_same_masked(got, want)


@pytest.mark.filterwarnings("ignore:the matrix subclass:PendingDeprecationWarning")
def test_subclasses_subok_and_out_ellipsis():
    m = np.matrix([[1, 2], [3, 4]])
    assert type(ux.add(m, 1)) is np.matrix and type(ux.add(m, 1, subok=False)) is np.ndarray

    class Sub(np.ndarray):
        def __array_finalize__(self, obj):
            self.tag = getattr(obj, "tag", "new")

    s = np.arange(3.0).view(Sub)
    s.tag = "mine"
    for r in (ux.sqrt(s), ux.divmod(s, 2)[1], ux.matmul(s, s), ux.add(1, s)):
        assert type(r) is Sub and r.tag == "mine"
    # Given outputs come back as given; out=... keeps 0-d results arrays.
    out = np.empty(3)
    assert ux.add(s, 1, out=out) is out
    assert type(ux.add(1.0, 2.0, out=...)) is np.ndarray
    assert type(ux.add(1.0, 2.0)) is np.float64

    class Wraps:  # an array-like whose __array_wrap__ takes the old signature
        def __array__(self, dtype=None, copy=None):
            return np.arange(3.0)

        def __array_wrap__(self, arr, context=None):
            return ("wrapped", context[0].__name__, context[2], arr.tolist())

    with pytest.warns(DeprecationWarning, match="must accept context and return_scalar"):
        assert ux.negative(Wraps()) == ("wrapped", "negative", 0, [-0.0, -1.0, -2.0])


@pytest.mark.filterwarnings("ignore:the matrix subclass:PendingDeprecationWarning")
def test_reduce_family_and_outer_wrap_as_numpy():
    m = np.ma.array([[1.0, 2.0], [3.0, 4.0]], mask=[[0, 1], [0, 0]])
    cases = [lambda f: f.reduce(m), lambda f: f.reduce(m, axis=None), lambda f: f.accumulate(m),
             lambda f: f.reduceat(m, [0, 1]), lambda f: f.outer(m[0], [1, 2])]
    for case in cases:
        got, want = case(ux.add), case(np.add)
        assert repr(got) == repr(want)
    mt = np.matrix([[1, 2], [3, 4]])
    assert type(ux.add.reduce(mt)) is type(np.add.reduce(mt)) is np.matrix
    assert type(ux.add.accumulate(mt)) is np.matrix
    for module in (np, ux):
        with pytest.raises(TypeError, match="was passed a numpy matrix as first argument"):
            module.add.outer(mt, 1)
    out = np.zeros(2)
    assert ux.add.reduce(m, out=out) is out  # a given out comes back as given
