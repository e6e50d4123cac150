"""matmul, vecdot, matvec and vecmat against NumPy 2.x: every loop type,
NumPy's shape rules (1-D promotion, stacks broadcasting, core-dimension
mismatches), out=, dtype=, strided and reversed operands."""
import numpy as np
import pytest

import ufuncx as ux
from conftest import assert_same, numpy_types, random_values

GUFUNCS = ["matmul", "vecdot", "matvec", "vecmat"]


def operand(dt, shape, rng):
    dt = np.dtype(dt)
    n = int(np.prod(shape))
    if dt.kind in "iu":
        return rng.integers(-5 if dt.kind == "i" else 0, 6, n).astype(dt).reshape(shape)
    if dt.kind == "b":
        return (rng.integers(0, 3, n) == 0).reshape(shape)
    return random_values(dt, n, rng).reshape(shape) if dt.kind == "c" else \
        rng.uniform(-2, 2, n).astype(dt).reshape(shape)


def close(got, want, what):
    assert got.dtype == want.dtype and got.shape == want.shape, (what, got.dtype, got.shape, want.shape)
    if want.dtype.kind in "biu":
        np.testing.assert_array_equal(got, want, err_msg=what)
        return
    # Float kernels (GEMM/GEMV) sum in their own order: a relative tolerance.
    tol = {2: 2e-2, 4: 2e-5, 8: 1e-12, 16: 1e-15}[np.dtype(want.dtype).itemsize // (2 if want.dtype.kind == "c" else 1)]
    np.testing.assert_allclose(got.astype(np.complex256 if want.dtype.itemsize >= 16 else np.complex128),
                               want.astype(np.complex256 if want.dtype.itemsize >= 16 else np.complex128),
                               rtol=tol, atol=tol * 10, err_msg=what)


SHAPES = {
    "matmul": [((3, 4), (4, 5)), ((4,), (4, 5)), ((3, 4), (4,)), ((4,), (4,)), ((2, 1, 3, 4), (3, 4, 2)),
               ((0, 4), (4, 2)), ((3, 0), (0, 2)), ((5, 3, 4), (4,))],
    "vecdot": [((4,), (4,)), ((3, 4), (4,)), ((2, 1, 4), (3, 4)), ((0,), (0,))],
    "matvec": [((3, 4), (4,)), ((2, 3, 4), (4,)), ((3, 4), (2, 4)), ((3, 0), (0,))],
    "vecmat": [((4,), (4, 3)), ((2, 4), (4, 3)), ((4,), (2, 4, 3)), ((0,), (0, 3))],
}


@pytest.mark.parametrize("name", GUFUNCS)
def test_every_loop_and_shape(name, rng):
    nu, xu = getattr(np, name), getattr(ux, name)
    assert xu.signature == nu.signature
    assert set(xu.types) >= set(numpy_types(nu))
    for t in numpy_types(nu):
        for sa, sb in SHAPES[name]:
            a, b = operand(t[0], sa, rng), operand(t[1], sb, rng)
            close(xu(a, b), nu(a, b), f"{name}[{t}] {sa} {sb}")
        if len(SHAPES[name][0][0]) == 2 or name == "matmul":
            a, b = operand(t[0], (6, 8), rng), operand(t[1], (8, 6), rng)
            if name == "matmul":
                for va, vb in ((a[::2, ::-2], b[::-2, ::2]), (a.T[::2], b.T[:, ::2])):
                    close(xu(va, vb), nu(va, vb), f"{name}[{t}] strided")


def test_mixed_types_dtype_and_out(rng):
    a = np.arange(12, dtype=np.int8).reshape(3, 4)
    b = np.arange(8, dtype=np.float32).reshape(4, 2)
    close(ux.matmul(a, b), np.matmul(a, b), "int8 @ float32")
    close(ux.matmul(a, b, dtype=np.float64), np.matmul(a, b, dtype=np.float64), "dtype=")
    out = np.zeros((3, 2), np.complex128)
    assert ux.matmul(a, b, out=out) is out
    close(out, np.matmul(a, b).astype(np.complex128), "out=")
    # out overlapping an input: NumPy computes as if from copies
    m = rng.standard_normal((4, 4))
    want = np.matmul(m, m)
    ux.matmul(m, m, out=m)
    close(m, want, "out aliasing")
    assert ux.matmul([1, 2], [3, 4]) == 11


def test_complex_conjugation():
    v = np.array([1j, 2 - 1j])
    mat = np.array([[1, 2j], [3, 4]])
    close(ux.vecdot(v, v), np.vecdot(v, v), "vecdot conjugates x1")
    close(ux.vecmat(v, mat), np.vecmat(v, mat), "vecmat conjugates the vector")
    close(ux.matvec(mat, v), np.matvec(mat, v), "matvec does not conjugate")


def test_shape_errors():
    with pytest.raises(ValueError, match="mismatch in its core dimension 0"):
        ux.matmul(np.ones((2, 3)), np.ones((4, 2)))
    with pytest.raises(ValueError, match="does not have enough dimensions"):
        ux.matmul(np.float64(2), np.ones(3))
    with pytest.raises(ValueError, match="Output operand 0 has a mismatch"):
        ux.matmul(np.ones((2, 3)), np.ones((3, 2)), out=np.ones((3, 2)))
    with pytest.raises(ValueError, match="could not be broadcast"):
        ux.matmul(np.ones((2, 2, 3)), np.ones((3, 3, 2)))
    with pytest.raises(ValueError, match="mismatch in its core dimension"):
        ux.vecdot(np.ones(3), np.ones(4))
    with pytest.raises(TypeError, match="unexpected keyword argument 'where'"):
        ux.matmul(np.ones((2, 2)), np.ones((2, 2)), where=True)
    with pytest.raises(RuntimeError, match="Reduction not defined"):
        ux.matmul.reduce(np.ones((2, 2)))
    with pytest.raises(TypeError, match="outer is not allowed"):
        ux.matmul.outer(np.ones(2), np.ones(2))
    with pytest.raises(TypeError, match="non-trivial signature"):
        ux.matmul.at(np.ones((2, 2)), [0], np.ones((2, 2)))
    out = np.full((2, 2), 5.0)
    with pytest.raises(ValueError):
        ux.matmul(np.ones((2, 3)), np.ones((2, 2)), out=out)
    assert (out == 5).all()


def test_large_matmul_matches(rng):
    for dt in (np.float32, np.float64, np.complex128):
        a = operand(dt, (129, 257), rng)
        b = operand(dt, (257, 65), rng)
        close(ux.matmul(a, b), np.matmul(a, b), str(dt))


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.complex64, np.complex128])
def test_large_products_in_every_layout(dt, rng):
    # Large products run on rows of unit stride and copy operands (or the
    # result) that lack them: transposed, strided, reversed, broadcast rows.
    a, b = operand(dt, (96, 130), rng), operand(dt, (130, 70), rng)
    big_a, big_b = operand(dt, (192, 260), rng), operand(dt, (260, 140), rng)
    layouts = [(a, b), (np.asfortranarray(a), b), (a, np.asfortranarray(b)),
               (big_a[::2, ::2], big_b[::2, ::2]), (big_a[::-2, 1::2], big_b[::-2, ::-2]),
               (np.broadcast_to(a[:1], a.shape), b)]
    eps = np.finfo(dt).eps

    def near(got, x, y, what):
        # Error bound of a dot product of length k: k * eps * (|x| @ |y|).
        want = np.matmul(x.astype(np.complex256), y.astype(np.complex256))
        bound = x.shape[-1] * eps * np.matmul(np.abs(x).astype(np.float64), np.abs(y).astype(np.float64))
        assert got.dtype == np.dtype(dt) and got.shape == want.shape, what
        assert (np.abs(got - want) <= bound).all(), what

    for i, (x, y) in enumerate(layouts):
        near(ux.matmul(x, y), x, y, f"{dt} layout {i}")
        out = np.zeros((70, 96), dt).T
        got = ux.matmul(x, y, out=out)
        assert got is out
        near(out, x, y, f"{dt} layout {i} into a transposed out")
        wide = np.full((96, 140), 7, dt)
        ux.matmul(x, y, out=wide[:, ::2])
        near(wide[:, ::2], x, y, f"{dt} layout {i} into a strided out")
        assert (wide[:, 1::2] == 7).all()
    v, w = operand(dt, (40, 1000), rng), operand(dt, (40, 1000), rng)
    near(ux.vecdot(v, w)[:, None, None], np.conj(v)[:, None, :], w[:, :, None], f"{dt} vecdot")
    m, u = big_a[:, ::2], big_b[::2, 0]
    near(ux.matvec(m, u)[:, None], m, u[:, None], f"{dt} matvec")


def test_axes_axis_and_keepdims(rng):
    a, b, x = rng.random((3, 4, 5)), rng.random((5, 4)), rng.random((3, 4))
    cases = [
        lambda m: m.matmul(a.transpose(0, 2, 1), b.T, axes=[(-2, -1), (-2, -1), (-2, -1)]),
        lambda m: m.matmul(a, a, axes=[(1, 2), (2, 1), (0, 1)]),
        lambda m: m.vecdot(x, x, axis=0),
        lambda m: m.vecdot(x, x, axis=0, keepdims=True),
        lambda m: m.vecdot(x, x, keepdims=True),
        lambda m: m.matmul(np.ones(3), np.ones((3, 2)), axes=[0, (0, 1), 0]),
        lambda m: m.vecdot(x, x, axes=[0, 0]),
        lambda m: m.matvec(a, np.ones(4), axes=[(0, 1), 0, 0]),
    ]
    for i, f in enumerate(cases):
        close(np.asarray(f(ux)), np.asarray(f(np)), f"case {i}")
    out = np.zeros((4, 4, 3))
    assert ux.matmul(a, a, axes=[(1, 2), (2, 1), (0, 1)], out=out) is out
    close(out, np.matmul(a, a, axes=[(1, 2), (2, 1), (0, 1)]), "out with axes")
    with pytest.raises(ValueError, match="axes should be a list"):
        ux.matmul(x, x.T, axes=[(0, 1), (0, 1)])
    with pytest.raises(TypeError, match="cannot specify both 'axis' and 'axes'"):
        ux.vecdot(x, x, axis=0, axes=[0, 0])
    with pytest.raises(TypeError, match="does not support keepdims"):
        ux.matmul(x, x.T, keepdims=True)


@pytest.mark.parametrize("kw", [
    dict(axes=[0, 0, 0], keepdims=True), dict(axes=[0, 2], keepdims=True), dict(axes=[0, 2, 2]),
    dict(axes=[0, 2, 1], keepdims=True), dict(axis=1, keepdims=True), dict(keepdims=True),
    dict(axes=[0, 2, (1,)], keepdims=True), dict(axis=0, keepdims=True),
    dict(axes=[0, 2, (1, 2)], keepdims=True)], ids=str)
def test_keepdims_places_the_kept_axis_as_numpy(kw):
    # The kept dim goes where axis= says, else where the output's axes=
    # entry says, else last.
    a, b = np.arange(27.0).reshape(3, 3, 3), np.arange(10.0, 19.0).reshape(3, 1, 3)
    try:
        want = np.vecdot(a, b, **kw)
    except Exception as e:  # noqa: BLE001 - the same class is expected
        with pytest.raises(type(e)):
            ux.vecdot(a, b, **kw)
        return
    got = ux.vecdot(a, b, **kw)
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)
