"""The corners of numpy.ufunc's API that NumPy's own test files exercise:
signature= and dtype= forms and their errors, resolve_dtypes, the
inspect signature, the where-without-out warning, byte-swapped operands and
outputs, and a gufunc output that fixes the loop dims. Each case runs on
NumPy's ufunc and on ufuncx's, which must give the same value or raise the
same class of error."""
import inspect
import warnings

import numpy as np
import pytest

import ufuncx as ux


def outcome(f):
    """(value, None) or (None, exception class) of f(), warnings raised as errors."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            return f(), None
        except Exception as e:  # noqa: BLE001 (the class is the result)
            return None, type(e)


def same(case):
    want, want_err = outcome(lambda: case(np))
    got, got_err = outcome(lambda: case(ux))
    if want_err is not None:
        # NumPy's private UFuncTypeError family counts as its builtin base.
        base = next(c for c in want_err.__mro__
                    if c.__module__ in ("builtins", "numpy.exceptions"))
        assert got_err is not None and issubclass(got_err, base), (got, got_err, want_err)
        return
    assert got_err is None, got_err
    if isinstance(want, tuple):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            if isinstance(w, np.ndarray):
                np.testing.assert_array_equal(g, w, strict=True)
            else:
                assert g == w and type(g) is type(w)
    else:
        np.testing.assert_array_equal(got, want, strict=True)


SIGNATURES = {
    "tuple of dtypes": lambda m: m.add(1., 2., signature=("f8", "f8", "f8")),
    "dtype classes": lambda m: m.add(1., 2., signature=(np.dtypes.Float64DType,
                                                        np.dtypes.Float64DType, None)),
    "Python types": lambda m: m.add(1, 2, signature=(float, None, None)),
    "type string": lambda m: m.add(1, 2, signature="ii->i"),
    "bytes string": lambda m: m.add(1, 2, signature=b"ii->i"),
    "malformed bytes": lambda m: m.add(1, 2, signature=b"ii-i"),
    "bad codes": lambda m: m.add(1, 2, signature="%^->#"),
    "no arrow": lambda m: m.add(1, 2, signature="iii"),
    "spaces": lambda m: m.add(1, 2, signature="i i->i"),
    "one code": lambda m: m.add(1, 2, signature="i"),
    "one code, unary": lambda m: m.sqrt(1., signature="d"),
    "1-tuple": lambda m: m.add(1, 2, signature=("i4",)),
    "1-tuple of None": lambda m: m.add(1, 2, signature=(None,)),
    "short tuple": lambda m: m.add(1, 2, signature=("i", "i")),
    "list": lambda m: m.add(1, 2, signature=["i", "i", "i"]),
    "a bare type": lambda m: m.add(1, 2, signature=np.float64),
    "sig and signature": lambda m: m.add(1, 2, sig="ii->i", signature="ii->i"),
    "a dtype without loops, cast by the signature": lambda m: m.add(np.array(1, "i,i"), 3,
                                                                    signature="dd->d"),
    "byte order in signature": lambda m: m.add(1, 2, signature=(np.dtype(">i8"), None, None)),
    "byte order in dtype": lambda m: m.add(1, 2, dtype=np.dtype(">i8")),
    "byte order in dtype string": lambda m: m.add(1, 2, dtype=">i8"),
    "dtype class": lambda m: m.add(1, 2, dtype=np.dtypes.Float64DType),
    "dtype=int": lambda m: m.add(1, 2, dtype=int),
    # dtype= (or a signature fixing only outputs): the operands' exact loop,
    # else the loop of that type throughout, else no loop.
    "ldexp dtype d": lambda m: m.ldexp(1., 3, dtype="d"),
    "ldexp uint64 dtype d": lambda m: m.ldexp(1., np.uint64(3), dtype="d"),
    "ldexp dtype f": lambda m: m.ldexp(1., np.int64(3), dtype="f"),
    "ldexp float32, dtype d": lambda m: m.ldexp(np.float32(1.), np.int_(2), dtype="d"),
    "homogeneous, input cast refused": lambda m: m.add(np.int8(1), 2., dtype="i"),
    "homogeneous, unsafe": lambda m: m.add(1., 2., dtype="i", casting="unsafe"),
    "output-only signature": lambda m: m.add(1, 2., signature=(None, None, "i")),
    "sqrt dtype f": lambda m: m.sqrt(np.ones(2), dtype="f"),
    "divmod dtype f": lambda m: m.divmod(np.ones(2, "i1"), 2, dtype="f"),
    "frexp dtype d": lambda m: m.frexp(np.ones(2, "f4"), dtype="d"),
    "equal dtype d": lambda m: m.equal(1, 2, dtype="d"),
    "less dtype bool": lambda m: m.less(np.ones(2, "i"), 2., dtype="?"),
    "isnan dtype bool": lambda m: m.isnan(np.ones(2, "f4"), dtype="?"),
}


@pytest.mark.parametrize("name", SIGNATURES)
def test_signature_and_dtype_forms(name):
    same(SIGNATURES[name])


RESOLVE = {
    "mixed": ((np.dtype("i1"), np.dtype("f4"), None), {}),
    "weak int": ((np.dtype("i1"), int, None), {}),
    "weak float": ((np.dtype("f2"), float, None), {}),
    "weak complex": ((np.dtype("f4"), complex, None), {}),
    "all weak": ((int, int, None), {}),
    "unary weak": ((int, None), {}),
    "given output ignored": ((np.dtype("i1"), np.dtype("i1"), np.dtype("f8")), {}),
    "given output, safe": ((np.dtype("f8"), np.dtype("f8"), np.dtype("f4")), {"casting": "safe"}),
    "signature": ((np.dtype("i1"), np.dtype("i1"), None), {"signature": (None, None, "f8")}),
    "signature string": ((np.dtype("i1"), np.dtype("i1"), None), {"signature": "ii->i"}),
    "byte-swapped": ((np.dtype(">f8"), np.dtype("f8"), None), {}),
    "wrong length": ((np.dtype("f8"),), {}),
    "not dtypes": ((1, 2, 3), {}),
    "missing input": ((None, None, None), {}),
    "reduction widens": ((None, np.dtype("i1"), None), {"reduction": True}),
    "reduction, first given": ((np.dtype("i8"), np.dtype("i1"), None), {"reduction": True}),
    "reduction promotes": ((np.dtype("f4"), np.dtype("f8"), None), {"reduction": True}),
    "reduction output given": ((None, np.dtype("i1"), np.dtype("i1")), {"reduction": True}),
}


@pytest.mark.parametrize("name", RESOLVE)
def test_resolve_dtypes(name):
    dtypes, kw = RESOLVE[name]
    same(lambda m: m.add.resolve_dtypes(dtypes, **kw))


@pytest.mark.parametrize("name", ["sqrt", "divmod", "vecdot", "matmul", "modf", "frexp", "less"])
def test_resolve_dtypes_other_ufuncs_and_inspect_signature(name):
    u, nu = getattr(ux, name), getattr(np, name)
    dtypes = (np.dtype("i1"),) * nu.nin + (None,) * nu.nout
    same(lambda m: getattr(m, name).resolve_dtypes(dtypes))
    same(lambda m: getattr(m, name).resolve_dtypes((None,) + dtypes[1:], reduction=True))
    assert str(inspect.signature(u)) == str(inspect.signature(nu))


@pytest.mark.parametrize("where", [False, None, np.True_, np.array(True), [True, False]])
def test_where_without_out_warns_as_numpy(where):
    x = np.ones(2)
    for m in (np, ux):
        with pytest.warns(UserWarning, match="'where' used without 'out'"):
            m.add(x, 1, where=where)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            m.add(x, 1, where=True)
            m.add(x, 1, where=where, out=None)
        with pytest.warns(UserWarning, match="'where' used without 'out'"):
            m.add(x, 1, None, where=where)  # a positional None is not out=None


def test_byte_swapped_outputs_in_every_method():
    a = np.arange(6.)
    for m in (np, ux):
        out = np.full(6, -1., ">f8")
        assert m.add(a, 1, out=out) is out
        np.testing.assert_array_equal(out, a + 1)
        out = np.full(6, -1., ">f8")
        m.add(a, 1, out=out, where=a > 2)  # untouched elements keep their values
        np.testing.assert_array_equal(out, np.where(a > 2, a + 1, -1))
        out = np.zeros((), ">f8")
        assert m.add.reduce(a, out=out) is out and out == 15
        out = np.zeros(6, ">i8")
        m.add.accumulate(a.astype(int), out=out)
        np.testing.assert_array_equal(out, np.cumsum(a.astype(int)))
        out = np.zeros(2, ">f4")
        m.add.reduceat(a.astype("f4"), [0, 3], out=out)
        np.testing.assert_array_equal(out, [3, 12])
        x = np.array([1, 2, 3, 4], ">f4")
        m.add.at(x, np.array([1, 2, 1], ">i4"), 3)
        np.testing.assert_array_equal(x, [1, 8, 6, 4])


def test_byte_swapped_operands_under_casting_no():
    s = np.arange(3, dtype=">f8")
    for case in (lambda m: m.add(s, np.arange(3.), casting="no"),
                 lambda m: m.add(np.arange(3.), 1., out=np.zeros(3, ">f8"), casting="no"),
                 lambda m: m.add(s, np.arange(3.), casting="equiv")):
        same(case)
    # A failed call leaves the output as it was.
    out = np.full(3, 7., ">f8")
    with pytest.raises(TypeError):
        ux.add(np.arange(3.), 1., out=out, casting="no")
    np.testing.assert_array_equal(out, [7, 7, 7])


def test_gufunc_output_fixes_the_loop_dims():
    arr = np.arange(3.).reshape(1, 3)
    for m in (np, ux):
        out = np.empty((5, 4))
        assert m.vecdot(arr, arr, out=out) is out
        np.testing.assert_array_equal(out, np.full((5, 4), 5.))
        out = np.empty((3, 2, 2))
        m.matmul(np.ones((2, 3)), np.ones((3, 2)), out=out)
        np.testing.assert_array_equal(out, np.full((3, 2, 2), 3.))
    same(lambda m: m.vecdot(np.ones((2, 3)), np.ones((2, 3)), out=np.empty(5)))
    same(lambda m: m.vecdot(np.ones((2, 3)), np.ones((2, 3)), out=np.empty((4, 1))))


def test_types_are_numpy_type_characters():
    for name in ux.registry():
        u = getattr(ux, name)
        for t in u.types:
            ins, outs = t.split("->")
            assert [np.dtype(c) for c in ins + outs]
    assert ux.add.ntypes == len(ux.add.types) and "qq->q" in ux.add.types
    assert "EE->E" in ux.add.extra_types and "EE->E" not in ux.add.types


@pytest.mark.parametrize("value", [2**300, -2**300, 2**64, -2**63 - 1])
@pytest.mark.parametrize("name", ["equal", "not_equal", "less", "less_equal", "greater",
                                  "greater_equal"])
def test_comparison_with_an_int_beyond_every_integer_type(name, value):
    # NEP 50: NumPy compares Python ints by value, whatever their size.
    for x in (np.array([3, -5, 2**62]), np.array([0, 2**64 - 1], np.uint64)):
        same(lambda m: getattr(m, name)(x, value))
        same(lambda m: getattr(m, name)(value, x))


@pytest.mark.parametrize("name", ["logical_and", "logical_or", "logical_xor"])
@pytest.mark.parametrize("values", [np.array(["1", "hi", ""]), np.array([b"1", b"", b"x"]),
                                    np.array([b"1", b"\0\0\0", b"x"], dtype="V3")])
def test_logical_ufuncs_take_whatever_casts_to_bool(name, values):
    same(lambda m: getattr(m, name)(values, values))
    same(lambda m: getattr(m, name)(values, np.array([1., 0., 2.])))
    same(lambda m: getattr(m, name).reduce(values))
    same(lambda m: getattr(m, name)(values.astype(object), values, dtype=bool))
