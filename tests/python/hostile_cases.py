"""Hostile calls, each a function that raises AssertionError when ufuncx
gives the wrong answer. test_hostile.py runs them in child processes, so a
crash is a failing case instead of the end of the test run.

Every case checks what its reference does (NumPy's or torch's result, or
their error class and the key words of the message), and that a call that
raises leaves its target unchanged.
"""
import os
import sys
import threading
import time

import numpy as np
from numpy.lib.stride_tricks import as_strided

import ufuncx as ux

CASES = {}
TORCH_OVERLAP = "refer to a single memory location"


def case(group):
    def register(f):
        CASES[f.__name__] = (group, f)
        return f
    return register


def raises(cls, f, *words, unchanged=()):
    """f() raises exactly cls (not a subclass of a wrong class) with every
    word in its message; the arrays in `unchanged` keep their values."""
    before = [a.copy() for a in unchanged]
    try:
        f()
    except Exception as e:  # noqa: BLE001 (the class is the point)
        assert isinstance(e, cls), f"expected {cls.__name__}, got {type(e).__name__}: {e}"
        for w in words:
            assert w in str(e), f"{w!r} not in {str(e)!r}"
    else:
        raise AssertionError(f"expected {cls.__name__}, nothing was raised")
    for a, b in zip(unchanged, before):
        np.testing.assert_array_equal(a, b, err_msg="the target changed although the call raised")


def torch():
    import torch as t
    return t


# ---------------------------------------------------------------- aliasing

def _aliasing_target():
    buf = np.zeros(3000, np.int64)
    t = buf[1000:2000]
    t[0] = 500
    return buf, t


@case("alias")
def index_put_index_is_a_view_of_the_target():
    buf, t = _aliasing_target()
    src = np.zeros(512, np.int64)
    src[0], src[500] = 1100, 77
    raises(RuntimeError, lambda: ux.torchlike.index_put_(t, (t[:512],), src), TORCH_OVERLAP,
           unchanged=[buf])
    tt = torch().from_numpy(buf.copy())[1000:2000]
    raises(RuntimeError, lambda: tt.index_put_((tt[:512],), torch().from_numpy(src)),
           TORCH_OVERLAP)


@case("alias")
def torch_family_index_aliasing_the_target_is_refused():
    t_ = torch()
    for name in ("index_add_", "scatter_", "scatter_add_", "scatter_reduce_"):
        buf, t = _aliasing_target()
        src = np.zeros(512, np.int64)
        src[0] = 1 << 40
        args = (0, t[:512], src) + (("sum",) if name == "scatter_reduce_" else ())
        raises(RuntimeError, lambda: getattr(ux.torchlike, name)(t, *args), TORCH_OVERLAP,
               unchanged=[buf])
        tt = t_.from_numpy(buf.copy())[1000:2000]
        targs = (0, tt[:512], t_.from_numpy(src)) + args[3:]
        raises(RuntimeError, lambda: getattr(tt, name)(*targs), TORCH_OVERLAP)


@case("alias")
def torch_family_source_aliasing_the_target_is_refused():
    t_ = torch()
    idx = np.array([0, 1])
    for name, args in (("scatter_", (0, idx)), ("scatter_add_", (0, idx)),
                       ("index_add_", (0, idx))):
        x = np.arange(10.0)
        raises(RuntimeError, lambda: getattr(ux.torchlike, name)(x, *args, x[2:4]),
               TORCH_OVERLAP, unchanged=[x])
        tx = t_.arange(10.0)
        raises(RuntimeError,
               lambda: getattr(tx, name)(*(a if not isinstance(a, np.ndarray) else
                                           t_.from_numpy(a) for a in args), tx[2:4]),
               TORCH_OVERLAP)
    x = np.arange(10.0)
    raises(RuntimeError, lambda: ux.torchlike.index_put_(x, (idx,), x[2:4]), TORCH_OVERLAP,
           unchanged=[x])


@case("alias")
def strided_aliasing_views_give_the_copied_result():
    # Interleaved views torch cannot judge (it computes); ufuncx computes as
    # if the index had been copied first, and never writes outside self.
    for name in ("scatter_", "scatter_add_"):
        y = np.arange(40, dtype=np.int64) % 7
        want = y.copy()
        getattr(ux.torchlike, name)(want[::2], 0, want[1::2][:5].copy(),
                                    np.arange(5, dtype=np.int64) + 100)
        getattr(ux.torchlike, name)(y[::2], 0, y[1::2][:5], np.arange(5, dtype=np.int64) + 100)
        np.testing.assert_array_equal(y, want)


@case("alias")
def at_and_scatter_with_aliasing_indices_and_updates_copy_them():
    a = np.zeros(20, np.int64)
    a[:5] = [3, 3, 7, 1, 9]
    want = a.copy()
    np.add.at(want, want[:5], want[5:10] + 1)
    ux.add.at(a, a[:5], a[5:10] + 1)
    np.testing.assert_array_equal(a, want)
    a = np.arange(12, dtype=np.int64) % 5
    want = a.copy()
    np.add.at(want, want[::2], want[1::2])
    ux.add.at(a, a[::2], a[1::2])
    np.testing.assert_array_equal(a, want)
    # The private planner entry point: an index array inside the operand.
    buf = np.zeros(64, np.int64)
    op = buf[8:40]
    op[:4] = [31, 2, 2, 0]
    want = op.copy()
    np.add.at(want, want[:4].copy(), 5)
    ux._core._scatter([op], op[:4], [np.full(4, 5, np.int64)], [], [0], [], [], [0], 1,
                      ux.add, "raise")
    np.testing.assert_array_equal(op, want)
    assert not buf[:8].any() and not buf[40:].any()


# ------------------------------------------------------------------ races

def _race(call, index, lo_bad, seconds=0.6):
    """Runs call() in a loop while another thread flips index[0] between a
    valid value and lo_bad; only IndexError/RuntimeError may come out."""
    stop = threading.Event()

    def writer():
        good = int(index[0])
        while not stop.is_set():
            index[0] = lo_bad
            index[0] = good

    th = threading.Thread(target=writer)
    th.start()
    end = time.time() + seconds
    try:
        while time.time() < end:
            try:
                call()
            except (IndexError, RuntimeError):
                pass
    finally:
        stop.set()
        th.join()


@case("race")
def racing_writer_on_at_indices():
    for dtype in (np.int64, np.int32):
        guard = np.zeros(300_000, np.float64)
        a = guard[100_000:200_000]
        idx = np.random.default_rng(0).integers(0, a.size, 200_000).astype(dtype)
        _race(lambda: ux.add.at(a, idx, 1.0), idx, 1 << 30 if dtype == np.int64 else -(1 << 30))
        assert not guard[:100_000].any() and not guard[200_000:].any()


@case("race")
def racing_writer_on_scatter_raise_and_skip():
    op = np.zeros(50_000)
    idx = np.random.default_rng(1).integers(0, op.size, (200_000, 1))
    upd = np.ones(200_000)
    for mode in ("raise", "skip", "clip", "skip_window"):
        _race(lambda: ux.scatter(op, idx, upd, update_window_dims=(), inserted_window_dims=(0,),
                                 scatter_dims_to_operand_dims=(0,), index_vector_dim=1,
                                 combiner="add", mode=mode), idx[:, 0], 1 << 40, 0.3)
        for plan in ("sorted_parallel", "partitioned"):
            _race(lambda: ux.scatter(op, idx, upd, update_window_dims=(),
                                     inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,),
                                     index_vector_dim=1, combiner="add", mode=mode, plan=plan),
                  idx[:, 0], 1 << 40, 0.2)


@case("race")
def racing_writer_on_torch_family_indices():
    guard = np.zeros((3000, 8))
    t = guard[1000:2000]
    idx = np.random.default_rng(2).integers(0, 1000, 100_000)
    rows = np.ones((100_000, 8))
    _race(lambda: ux.torchlike.index_add_(t, 0, idx, rows), idx, 1 << 40)
    _race(lambda: ux.torchlike.index_put_(t, (idx,), rows, accumulate=True), idx, 1 << 40)
    _race(lambda: ux.torchlike.index_put_(t, (idx,), rows), idx, -(1 << 40))
    flat = guard[1000:2000, 0]
    _race(lambda: ux.torchlike.scatter_add_(flat, 0, idx, rows[:, 0]), idx, 1 << 40)
    assert not guard[:1000].any() and not guard[2000:].any()


# --------------------------------------------------------------- empty dims

@case("shapes")
def empty_inserted_dim_with_nonzero_strides():
    buf = np.zeros(64, np.complex64)
    op = as_strided(buf[16:], shape=(4, 4, 0), strides=(32, 8, 8))
    idx = np.array([[0], [1], [5]])
    upd = np.ones((3, 4, 4), np.complex64)
    for mode in ("skip", "skip_window", "clip"):
        rep = ux._core._scatter([op], idx, [upd], [1, 2], [2], [], [], [2], 1, ux.add, mode)
        assert rep["applied"] == 0, rep
    assert not buf.any()
    raises(IndexError, lambda: ux._core._scatter([op], idx, [upd], [1, 2], [2], [], [], [2], 1,
                                                 ux.add, "raise"))


@case("shapes")
def empty_operands_in_every_plan():
    for shape in [(0,), (5, 0), (0, 5), (3, 0, 2)]:
        buf = np.zeros(32)
        op = as_strided(buf[8:], shape=shape, strides=(8,) * len(shape))
        r = len(shape)
        for plan in ("auto", "element", "rows", "window_runs", "partitioned", "sorted_parallel",
                     "local_target", "generic"):
            for mode in ("skip", "skip_window", "clip"):
                # Element updates (every dim inserted), then rows (dim 0 inserted).
                rep = ux._core._scatter([op], np.zeros((3, r), np.int64), [np.ones(3)], [],
                                        list(range(r)), [], [], list(range(r)), 1, ux.add, mode,
                                        plan=plan)
                assert rep["applied"] == 0, (shape, plan, mode, rep)
                rep = ux._core._scatter([op], np.zeros((3, 1), np.int64),
                                        [np.ones((3,) + shape[1:])], list(range(1, r)), [0], [],
                                        [], [0], 1, ux.add, mode, plan=plan)
                assert rep["applied"] == 0, (shape, plan, mode, rep)
            raises(IndexError, lambda: ux._core._scatter(
                [op], np.zeros((3, r), np.int64), [np.ones(3)], [], list(range(r)), [], [],
                list(range(r)), 1, ux.add, "raise", plan=plan))
        assert not buf.any(), shape


@case("shapes")
def zero_stride_input_and_out_are_the_same_view():
    v = as_strided(np.zeros(2), (6,), (0,))
    ux.add(v, 1.0, out=v)
    w = as_strided(np.zeros(2), (6,), (0,))
    np.add(w, 1.0, out=w)
    np.testing.assert_array_equal(v, w)
    v2 = as_strided(np.zeros(1), (3, 4), (0, 0))
    ux.multiply(v2 + 2, v2, out=v2)  # the input is a fresh array: fine
    ux.add(v2, v2, out=v2)
    w2 = as_strided(np.zeros(1), (3, 4), (0, 0))
    np.multiply(w2 + 2, w2, out=w2)
    np.add(w2, w2, out=w2)
    np.testing.assert_array_equal(v2, w2)


@case("shapes")
def negative_unaligned_and_byteswapped_arrays():
    a = np.arange(20.0)
    idx = np.array([3, 1, 3, 0])
    for target in (a[::-1], a[::-3]):
        want = target.copy()
        np.add.at(want, idx, 1.0)
        ux.add.at(target, idx, 1.0)
        np.testing.assert_array_equal(target, want)
    raw = np.zeros(8 * 10 + 1, np.uint8)
    un = raw[1:].view(np.float64)
    assert not un.flags.aligned or un.ctypes.data % 8
    want = un.copy()
    np.add.at(want, idx, 2.0)
    ux.add.at(un, idx, 2.0)
    np.testing.assert_array_equal(un, want)
    raw_idx = np.zeros(8 * 4 + 1, np.uint8)
    uidx = raw_idx[1:].view(np.int64)
    uidx[:] = idx
    want = np.zeros(10)
    np.add.at(want, idx, 1.0)
    got = np.zeros(10)
    ux.add.at(got, uidx, 1.0)
    np.testing.assert_array_equal(got, want)
    swapped = np.arange(5.0).astype(">f8")
    swapped_want = swapped.copy()
    np.add.at(swapped_want, [0], 1.0)
    ux.add.at(swapped, [0], 1.0)  # as NumPy: in place, byte order kept
    np.testing.assert_array_equal(swapped, swapped_want)
    assert swapped.dtype == np.dtype(">f8")
    sidx = idx.astype(">i8")
    got = np.zeros(10)
    ux.add.at(got, sidx, 1.0)
    np.testing.assert_array_equal(got, want)


@case("shapes")
def shapes_whose_size_overflows():
    a = np.zeros(3)
    big = as_strided(np.zeros(1, np.int8), (1 << 31, 1 << 31), (0, 0))  # 4 EiB of results
    raises((ValueError, MemoryError), lambda: np.add(big, big))
    raises((ValueError, MemoryError), lambda: ux.add(big, big))
    raises((ValueError, MemoryError), lambda: ux.add.outer(big, big))
    raises((ValueError, MemoryError), lambda: ux.add.accumulate(big, axis=0))


# ---------------------------------------------------------- bad arguments

@case("args")
def index_add_dim_beyond_the_source():
    t_ = torch()
    self_ = np.zeros((2, 3, 4))
    raises(RuntimeError, lambda: ux.torchlike.index_add_(self_, 2, np.array([0]), np.ones(1)),
           "index_add_()", unchanged=[self_])
    raises(RuntimeError, lambda: t_.zeros(2, 3, 4).index_add_(2, t_.tensor([0]), t_.ones(1)))
    raises(RuntimeError, lambda: ux.torchlike.index_add_(self_, 1, np.array([0]), np.ones(1)),
           "index_add_()", unchanged=[self_])
    raises(RuntimeError, lambda: ux.torchlike.index_add_(self_, 0, np.array([0]), np.ones(1)),
           unchanged=[self_])


@case("args")
def asctile_uint64_index_never_wraps():
    dst = np.zeros((6, 5), np.float32)
    src = np.ones((1, 5), np.float32)
    ux.asctile.scatter(src, 0, np.array([2**64 - 5], np.uint64), dst, [5], check_bounds=True)
    assert not dst.any()
    raises(IndexError, lambda: ux.asctile.scatter(src, 0, np.array([2**64 - 5], np.uint64), dst,
                                                  [5], check_bounds=False), unchanged=[dst])
    raises(IndexError, lambda: ux.asctile.scatter(src, 0, np.array([2**63 - 1], np.int64), dst,
                                                  [5], check_bounds=False), unchanged=[dst])
    ux.asctile.scatter(src, 0, np.array([-(2**63)], np.int64), dst, [5], check_bounds=True)
    assert not dst.any()
    ux.asctile.scatter(src, 0, np.array([2**63 - 1], np.int64), dst, [5], check_bounds=True)
    assert not dst.any()


@case("args")
def boolean_masks_of_the_wrong_length():
    a = np.zeros(3)
    raises(IndexError, lambda: np.add.at(a.copy(), np.array([True, False]), 1.0),
           "boolean index did not match")
    raises(IndexError, lambda: ux.add.at(a, np.array([True, False]), 1.0),
           "boolean index did not match", unchanged=[a])
    b = np.zeros((3, 4))
    raises(IndexError, lambda: ux.add.at(b, (slice(None), np.array([True] * 5)), 1.0),
           "boolean index did not match", unchanged=[b])
    raises(IndexError, lambda: ux.add.at(b, np.ones((3, 3), bool), 1.0),
           "boolean index did not match", unchanged=[b])
    raises(IndexError, lambda: ux.torchlike.index_put_(a, (np.array([True, False]),),
                                                       np.array(1.0)),
           "The shape of the mask", unchanged=[a])
    t_ = torch()
    raises(IndexError, lambda: t_.zeros(3).index_put_((t_.tensor([True, False]),),
                                                     t_.tensor(1.0)), "The shape of the mask")
    # The right length still works.
    ux.add.at(b, (slice(None), np.array([True, False, True, False])), 1.0)
    want = np.zeros((3, 4))
    np.add.at(want, (slice(None), np.array([True, False, True, False])), 1.0)
    np.testing.assert_array_equal(b, want)


@case("args")
def reduceat_index_types():
    a = np.arange(6.0)
    raises(TypeError, lambda: np.add.reduceat(a, np.array([0, 2], np.uint64)))
    raises(TypeError, lambda: ux.add.reduceat(a, np.array([0, 2], np.uint64)), "Cannot cast")
    raises(ValueError, lambda: np.add.reduceat(a, [0, float("nan")]))
    raises(ValueError, lambda: ux.add.reduceat(a, [0, float("nan")]))
    np.testing.assert_array_equal(ux.add.reduceat(a, np.array([0, 2], np.uint32)),
                                  np.add.reduceat(a, np.array([0, 2], np.uint32)))


@case("args")
def wrong_error_classes():
    a = np.zeros(4, np.float32)
    raises(ValueError, lambda: np.add(a, a, signature="ff->Z"))
    raises(ValueError, lambda: ux.add(a, a, signature="ff->Z"))
    m = np.zeros((2, 2))
    for f in (np.add.reduce, ux.add.reduce, np.add.accumulate, ux.add.accumulate):
        raises(OverflowError, lambda: f(m, axis=2**63))
    raises(ValueError, lambda: np.matmul(m, m, axes=[(0, 2**40), (0, 1), (0, 1)]))
    raises(ValueError, lambda: ux.matmul(m, m, axes=[(0, 2**40), (0, 1), (0, 1)]))
    idx = np.zeros((1, 1), np.int64)
    kw = dict(update_window_dims=(), inserted_window_dims=(0,),
              scatter_dims_to_operand_dims=(0,), index_vector_dim=1)
    for bad in (dict(inserted_window_dims=(0.0,)), dict(index_vector_dim=2**70),
                dict(scatter_dims_to_operand_dims=(2**70,)), dict(combiner=np.add),
                dict(combiner=3), dict(update_window_dims=None)):
        raises(TypeError, lambda: ux.scatter(np.zeros(3), idx, np.ones(1), **{**kw, **bad}))
    raises(IndexError, lambda: ux.torchlike.scatter_(np.zeros(3), 5, np.array([0]), np.ones(1)),
           "Dimension out of range")
    raises(IndexError, lambda: torch().zeros(3).scatter_(2**63 - 1, torch().tensor([0]),
                                                       torch().ones(1)))
    raises(ValueError, lambda: torch().zeros(3).scatter_(2**63, torch().tensor([0]),
                                                       torch().ones(1)), "Overflow")
    for name in ("scatter_", "scatter_add_", "index_add_"):
        raises(ValueError, lambda: getattr(ux.torchlike, name)(np.zeros(3), 2**63, np.array([0]),
                                                              np.ones(1)), "Overflow")
    raises(IndexError, lambda: ux.torchlike.scatter_(np.zeros(3), 2**63 - 1, np.array([0]),
                                                     np.ones(1)), "Dimension out of range")
    t = np.zeros((3, 3))
    raises(IndexError, lambda: ux.torchlike.index_put_(t, (np.array([0, 1]), np.array([0, 1, 2])),
                                                       np.array(1.0)),
           "shape mismatch: indexing tensors could not be broadcast together", unchanged=[t])
    raises(TypeError, lambda: ux.add.at(a, [0], 1.0, 2.0))


@case("args")
def at_index_broadcast_overflow():
    i0 = as_strided(np.zeros(1, np.int64), (1 << 40, 1), (0, 0))
    i1 = as_strided(np.zeros(1, np.int64), (1, 1 << 40), (0, 0))
    b = np.zeros((3, 3))
    raises(ValueError, lambda: ux.add.at(b, (i0, i1), 1.0), unchanged=[b])


# ---------------------------------------------------------------- plugins

@case("plugin")
def truncated_and_odd_library_files():
    import tempfile
    # (A real plugin cut short: plugin_checks.py, which builds one.)
    with tempfile.TemporaryDirectory() as d:
        data = open(ux._core.__file__, "rb").read()
        for cut in (4096, len(data) // 2, 64, 10):
            p = os.path.join(d, f"cut{cut}.so")
            with open(p, "wb") as f:
                f.write(data[:cut])
            raises(ValueError, lambda: ux.load_plugin(p))
        p = os.path.join(d, "text.so")
        with open(p, "w") as f:
            f.write("not an ELF file\n" * 100)
        raises(ValueError, lambda: ux.load_plugin(p))
        p = os.path.join(d, "empty.so")
        open(p, "wb").close()
        raises(ValueError, lambda: ux.load_plugin(p))
        raises(ValueError, lambda: ux.load_plugin(d + "/x\0.so"), "null")
        raises(FileNotFoundError, lambda: ux.load_plugin(d + "/missing.so"))
        raises(ValueError, lambda: ux.load_plugin(d))


# ------------------------------------------------------------------ memory

def _rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


@case("memory")
def scratch_memory_is_capped_and_released():
    rng = np.random.default_rng(3)
    idx = np.sort(rng.integers(0, 10**7, (10**7, 1)))
    upd = np.ones(10**7)
    op = np.zeros(10**7)
    base = _rss_mb()
    for plan in ("sorted_parallel", "partitioned"):
        out = ux.scatter(op, idx, upd, update_window_dims=(), inserted_window_dims=(0,),
                         scatter_dims_to_operand_dims=(0,), index_vector_dim=1, combiner="add",
                         mode="raise", plan=plan)
        del out
    ux.release_memory()
    assert _rss_mb() - base < 40, (base, _rss_mb())
    # Idle: released by itself within a few seconds, without a call.
    out = ux.scatter(op, idx, upd, update_window_dims=(), inserted_window_dims=(0,),
                     scatter_dims_to_operand_dims=(0,), index_vector_dim=1, combiner="add",
                     mode="raise", plan="sorted_parallel")
    del out
    time.sleep(3.5)
    assert _rss_mb() - base < 40, (base, _rss_mb())


# ------------------------------------------- random calls of the private entry points

class Guarded:
    """An array of `shape` seen through `strides` (in items; any sign) at an
    odd offset inside a canary-filled buffer; intact() says whether every
    byte outside its elements still holds the canary."""

    def __init__(self, rng, dtype, shape):
        dt = np.dtype(dtype)
        strides = [int(rng.integers(-3, 4)) * dt.itemsize for _ in shape]
        lo = sum(min(0, (max(n, 1) - 1) * st) for n, st in zip(shape, strides))
        hi = sum(max(0, (max(n, 1) - 1) * st) for n, st in zip(shape, strides)) + dt.itemsize
        pad = 64 + int(rng.integers(0, 8))
        self.buf = np.full(hi - lo + 2 * pad, 0xA5, np.uint8)
        self.a = np.ndarray(shape, dt, buffer=self.buf, offset=pad - lo, strides=strides)
        self.mask = np.ones(self.buf.size, bool)
        if self.a.size:
            offs = pad - lo + sum(np.indices(shape)[k] * strides[k] for k in range(len(shape)))
            for b in range(dt.itemsize):
                self.mask[offs.ravel() + b] = False
            self.a[...] = 0

    def intact(self):
        return bool((self.buf[self.mask] == 0xA5).all())


@case("fuzz")
def random_calls_of_the_private_entry_points():
    rng = np.random.default_rng(2024)
    dtypes = [np.float64, np.float32, np.int64, np.int32, np.int8, np.complex64, np.bool_]
    itypes = [np.int64, np.int32, np.uint64, np.int8, np.uint8]
    ok = (ValueError, TypeError, IndexError, RuntimeError, NotImplementedError, OverflowError)
    ran = 0

    def dims(k):
        return [int(x) for x in rng.integers(-1, 4, int(rng.integers(0, k + 1)))]

    for it in range(3000):
        rank = int(rng.integers(1, 4))
        shape = tuple(int(x) for x in rng.integers(0, 5, rank))
        g = Guarded(rng, dtypes[int(rng.integers(0, len(dtypes)))], shape)
        ish = tuple(int(x) for x in rng.integers(0, 4, int(rng.integers(0, 3)))) + (
            int(rng.integers(0, 3)),)
        idx = rng.integers(-2, 6, ish).astype(itypes[int(rng.integers(0, len(itypes)))])
        if rng.random() < 0.05 and idx.size:
            idx.flat[0] = np.iinfo(idx.dtype).max
        if rng.random() < 0.1 and g.a.dtype == idx.dtype and g.a.size >= idx.size and idx.size:
            idx = g.a.reshape(-1)[:idx.size].reshape(idx.shape)  # indices inside the target
        ush = tuple(int(x) for x in rng.integers(0, 4, int(rng.integers(0, 4))))
        upd = rng.random(ush).astype(g.a.dtype if rng.random() < 0.8 else np.float64)
        which = int(rng.integers(0, 6))
        combiner = [None, ux.add, ux.multiply, ux.maximum, "negative", ux.power][
            int(rng.integers(0, 6))]
        try:
            if which == 0:
                if rng.random() < 0.5:  # well-formed: element updates, every dim inserted
                    idx = rng.integers(-2, 6, (int(rng.integers(0, 9)), rank)).astype(idx.dtype)
                    upd = rng.random(idx.shape[0]).astype(upd.dtype)
                    wd, ins, sd, ivd = [], list(range(rank)), list(range(rank)), 1
                else:
                    wd, ins, sd, ivd = dims(2), dims(2), dims(2), int(rng.integers(-1, 4))
                ux._core._scatter([g.a], idx, [upd], wd, ins, [], [], sd, ivd, combiner,
                                  ["skip", "skip_window", "clip", "raise", "wrap_raise"][
                                      int(rng.integers(0, 5))],
                                  plan=["auto", "element", "rows", "window_runs", "partitioned",
                                        "sorted_parallel", "local_target", "generic"][
                                      int(rng.integers(0, 8))])
            elif which == 1:
                ux._core._at(combiner if combiner is not None else ux.add, g.a, idx, upd)
            elif which == 2:
                ux._core._torch_scatter_reduce(g.a, int(rng.integers(-2, 4)), idx, upd,
                                               ["none", "add", "multiply", "sum", "prod", "mean",
                                                "amax", "amin"][int(rng.integers(0, 8))],
                                               bool(rng.integers(0, 2)))
            elif which == 3:
                ux._core._torch_index_add(g.a, int(rng.integers(-2, 4)), idx.reshape(-1), upd)
            elif which == 4:
                ux._core._torch_index_put(g.a, [idx], upd, bool(rng.integers(0, 2)))
            else:
                dim = int(rng.integers(-1, 3))
                ux._core._asctile_scatter(upd, dim, idx.reshape(-1), g.a,
                                          [int(x) for x in rng.integers(-1, 4, max(dim + 1, 0))],
                                          bool(rng.integers(0, 2)), None)
        except ok:
            pass
        else:
            ran += 1
        assert g.intact(), (it, which, shape, g.a.strides, idx.dtype, idx.shape, ush)
    assert ran > 300, ran  # (most calls are invalid on purpose; enough of them run)


def run(names):
    for name in names:
        print("START", name, flush=True)
        CASES[name][1]()
        print("OK", name, flush=True)


if __name__ == "__main__":
    run(sys.argv[1:])
