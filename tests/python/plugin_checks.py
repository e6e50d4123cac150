"""User plugins end to end: ufuncx-codegen generates and builds the example
table (examples/custom_ufunc) against the installed package, then the new
ufuncs, the new overload and the 4-in/2-out combiner are checked against
NumPy references; conflicts, ABI mismatches and concurrent loads too.

Loading plugins changes the process's registry, so test_plugin.py runs this
module in a child process."""
import os
import pathlib
import shutil
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import ufuncx as ux
from conftest import assert_same

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "custom_ufunc"


def codegen(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "ufuncx.codegen", *map(str, args)],
                          capture_output=True, text=True, cwd=cwd)


def build_plugin(tmp, table_text, name, header=None):
    d = tmp / name
    d.mkdir(parents=True, exist_ok=True)
    (d / "t.toml").write_text(textwrap.dedent(table_text))
    if header:
        (d / "h.h").write_text(textwrap.dedent(header))
    r = codegen(d / "t.toml", "-o", d / "out", "--name", name, "--build")
    assert r.returncode == 0, r.stderr + r.stdout
    return r.stdout.strip().splitlines()[-1]


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    d = tmp_path_factory.mktemp("custom_ufunc")
    for f in ("kernels.toml", "kernels.h"):
        shutil.copy(EXAMPLE / f, d / f)
    r = codegen(d / "kernels.toml", "-o", d / "out", "--build")
    assert r.returncode == 0, r.stderr + r.stdout
    path = r.stdout.strip().splitlines()[-1]
    assert os.path.isfile(path)
    names = ux.load_plugin(path)
    assert names == ["absmax", "clamp01", "gcd", "argmax_pair"]
    return path


def absmax_ref(a, b):
    return np.where(np.abs(a) > np.abs(b), np.abs(a), np.abs(b)).astype(np.result_type(a, b))


def test_new_binary_ufunc_every_method(kernels, rng):
    f = ux.absmax
    assert (f.nin, f.nout, f.identity, f.types) == (2, 1, 0, ["ii->i", "ll->l", "qq->q", "ff->f", "dd->d"])
    assert f.__name__ == "absmax" and "larger absolute value" in f.__doc__
    for dt in (np.int32, np.int64, np.float32, np.float64):
        a = (rng.integers(-1000, 1000, (7, 9)) / (1 if np.dtype(dt).kind == "i" else 7)).astype(dt)
        b = (rng.integers(-1000, 1000, (7, 9)) / (1 if np.dtype(dt).kind == "i" else 3)).astype(dt)
        assert_same(f(a, b), absmax_ref(a, b), 0, f"call {dt}")
        # contiguous (Highway) and strided (scalar) loops agree
        assert_same(f(a[:, ::2], b[:, ::2]), absmax_ref(a[:, ::2], b[:, ::2]), 0, "strided")
        ref = np.frompyfunc(lambda x, y: max(abs(x), abs(y)), 2, 1)
        for axis in (0, 1, None, (0, 1)):
            flat = a.ravel() if axis in (None, (0, 1)) else a
            want = ref.reduce(flat, axis=0 if axis in (None, (0, 1)) else axis, initial=dt(0))
            assert_same(f.reduce(a, axis=axis), np.asarray(want).astype(dt), 0, f"reduce {axis}")
        acc = ref.accumulate(a, axis=1).astype(dt)
        assert_same(f.accumulate(a, axis=1), acc, 0, "accumulate")
        assert_same(f.outer(a[0], b[1]), absmax_ref(a[0][:, None], b[1][None, :]), 0, "outer")
        t = np.zeros(5, dt)
        f.at(t, [0, 3, 0, 4], a[0, :4])
        want = np.zeros(5, dt)
        for i, v in zip([0, 3, 0, 4], a[0, :4]):
            want[i] = absmax_ref(want[i], v)
        assert_same(t, want, 0, "at")
    # The plugin's SIMD files report their targets beside the built-ins'.
    targets = ux.simd_targets()
    assert ux.loop_targets("absmax")["dd->d"] in {
        v for k, v in targets.items() if k.startswith("kernels.")}


def test_plugin_ufunc_on_a_dask_cluster(kernels, rng):
    # The workers are other processes: absmax pickles with its plugin's path
    # and each worker loads the plugin when it unpickles it.
    da = pytest.importorskip("dask.array", reason="installed by the test command")
    distributed = pytest.importorskip("distributed")
    a, b = rng.random((30, 8)) - 0.5, rng.random((30, 8)) - 0.5
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None, silence_logs=40) as cluster, \
            distributed.Client(cluster) as client:
        x, y = da.from_array(a, chunks=(7, 4)), da.from_array(b, chunks=(7, 4))
        assert_same(ux.absmax(x, y).compute(), absmax_ref(a, b), 0, "dask call")
        assert_same(ux.absmax.reduce(x, axis=0).compute(), ux.absmax.reduce(a, axis=0), 0,
                    "dask reduce")
        t0 = np.zeros(30)
        idx = rng.integers(0, 30, 200)
        v = rng.random(200) - 0.5
        want = t0.copy()
        ux.absmax.at(want, idx, v)
        t = da.from_array(t0, chunks=8)
        ux.absmax.at(t, idx, v)
        assert_same(t.compute(), want, 0, "dask at")
        workers = client.run(ux.registry)
        assert len(workers) == 2 and all("absmax" in names for names in workers.values())


def test_new_unary_and_scatter_combiner(kernels):
    x = np.array([-1.0, 0.25, 0.5, 3.0, np.inf, -np.inf])
    assert_same(ux.clamp01(x), np.clip(x, 0, 1))
    assert_same(ux.clamp01(x.astype(np.float32)), np.clip(x, 0, 1).astype(np.float32))
    op = ux.scatter(np.zeros(4), np.array([[1], [1], [3]]), np.array([-5.0, 2.0, -1.0]),
                    combiner=ux.absmax, update_window_dims=(), inserted_window_dims=(0,),
                    scatter_dims_to_operand_dims=(0,), index_vector_dim=1)
    assert_same(op, np.array([0.0, 5.0, 0.0, 1.0]))


def test_variadic_combiner_in_scatter(kernels):
    vals, idx = np.full(3, -np.inf), np.full(3, -1, np.int64)
    upd_v = np.array([1.0, 7.0, 3.0, 7.0, 2.0])
    upd_i = np.array([10, 11, 12, 13, 14], np.int64)
    rows = np.array([[0], [0], [2], [0], [2]])
    vals, idx = ux.scatter((vals, idx), rows, (upd_v, upd_i), combiner=ux.argmax_pair,
                           update_window_dims=(), inserted_window_dims=(0,),
                           scatter_dims_to_operand_dims=(0,), index_vector_dim=1)
    assert_same(vals, np.array([7.0, -np.inf, 3.0]))
    assert_same(idx, np.array([11, -1, 12]))


def test_overload_takes_part_in_resolution(kernels):
    assert "dd->d" in ux.gcd.types and ux.gcd.types.index("dd->d") == len(ux.gcd.types) - 1
    assert_same(ux.gcd(np.array([12.0, -18.0, 0.0]), np.array([8.0, 27.0, 5.0])),
                np.array([4.0, 9.0, 5.0]))
    # integers still take the built-in loops, chosen first in table order
    assert ux.gcd(np.array([12, 18]), np.array([8, 27])).dtype == np.int64
    # float32 casts safely to the new float64 loop
    assert ux.gcd(np.float32(6.0), np.float32(4.0)).dtype == np.float64


def test_loading_twice_is_a_noop(kernels):
    before = ux.registry()
    assert ux.load_plugin(kernels) == ["absmax", "clamp01", "gcd", "argmax_pair"]
    assert ux.registry() == before
    assert ux.gcd.types.count("dd->d") == 1


def test_conflicts_leave_the_registry_unchanged(kernels, tmp_path):
    snapshot = (ux.registry(), ux.add.types, ux.gcd.types)
    cases = {
        "dup_signature": ("""
            [[ufunc]]
            name = "fresh_one"
            nin = 2
            nout = 1
            doc = "would be new"
            [[ufunc.loop]]
            types = ["ff->f"]
            expr = "a + b"
            [[ufunc]]
            name = "add"
            overload = true
            nin = 2
            nout = 1
            [[ufunc.loop]]
            types = ["ff->f"]
            expr = "a - b"
            """, "already defined"),
        "nin_mismatch": ("""
            [[ufunc]]
            name = "sqrt"
            overload = true
            nin = 2
            nout = 1
            [[ufunc.loop]]
            types = ["ll->l"]
            expr = "a"
            """, "nin=1"),
        "name_taken": ("""
            [[ufunc]]
            name = "absmax"
            nin = 2
            nout = 1
            doc = "again"
            [[ufunc.loop]]
            types = ["hh->h"]
            expr = "a"
            """, "already exists"),
        "missing_base": ("""
            [[ufunc]]
            name = "no_such_ufunc"
            overload = true
            nin = 1
            nout = 1
            [[ufunc.loop]]
            types = ["d->d"]
            expr = "a"
            """, "does not exist"),
    }
    for name, (table, msg) in cases.items():
        path = build_plugin(tmp_path, table, name)
        with pytest.raises(ValueError, match=msg):
            ux.load_plugin(path)
        assert (ux.registry(), ux.add.types, ux.gcd.types) == snapshot, name
        assert not hasattr(ux, "fresh_one")


def test_plugin_ufuncs_declare_numpys_rules(tmp_path):
    """Every trait a built-in has, a plugin's ufunc can declare: refusing
    bool inputs, the uniform resolver, the logical promoter, comparisons of
    weak scalars, reduce widening and exact threaded splits."""
    path = build_plugin(tmp_path, """
        [[ufunc]]
        name = "t_minus"
        nin = 2
        nout = 1
        doc = "subtract, as a plugin"
        bool_inputs = "refuse"
        bool_error = "t_minus of booleans is not supported"
        [[ufunc.loop]]
        types = ["bb->b", "ll->l", "dd->d"]
        expr = "a - b"
        [[ufunc]]
        name = "t_same"
        nin = 1
        nout = 1
        doc = "positive, as a plugin"
        bool_inputs = "uniform"
        [[ufunc.loop]]
        types = ["b->b", "l->l", "d->d"]
        expr = "a"
        [[ufunc]]
        name = "t_and"
        nin = 2
        nout = 1
        doc = "logical_and, as a plugin"
        logical = true
        exact_split = "integers"
        [[ufunc.loop]]
        types = ["??->?"]
        expr = "a && b"
        [[ufunc]]
        name = "t_less"
        nin = 2
        nout = 1
        doc = "less, as a plugin"
        comparison = true
        [[ufunc.loop]]
        types = ["BB->?", "ll->?", "dd->?"]
        expr = "a < b"
        [[ufunc]]
        name = "t_sum"
        nin = 2
        nout = 1
        identity = "0"
        reorderable = true
        doc = "add, as a plugin"
        reduce_widen = true
        exact_split = "integers"
        [[ufunc.loop]]
        types = ["bb->b", "BB->B", "ll->l", "LL->L", "dd->d"]
        expr = "T(a + b)"
        """, "traits")
    assert ux.load_plugin(path) == ["t_minus", "t_same", "t_and", "t_less", "t_sum"]
    t = np.array([True, False])
    with pytest.raises(TypeError, match="t_minus of booleans is not supported"):
        ux.t_minus(t, t)
    assert_same(ux.t_minus(np.int64(5), np.array([1, 2])), np.array([4, 3]), 0, "t_minus ints")
    with pytest.raises(TypeError, match="did not contain a loop with signature matching types"):
        ux.t_same(t)
    assert_same(ux.t_and(np.array([0.0, 2.0]), np.array([3, 0])), np.array([False, False]), 0,
                "t_and mixed")
    assert ux.t_and.reduce(np.array([1.5, 2.0])).dtype == np.bool_
    assert_same(ux.t_less(np.array([1, 200], np.uint8), 300), np.array([True, True]), 0,
                "t_less weak 300")
    r = ux.t_sum.reduce(np.full(300, 200, np.uint8))
    assert r.dtype == np.uint64 and int(r) == 60000
    big = np.arange(1 << 21, dtype=np.int64)
    assert int(ux.t_sum.reduce(big)) == int(big.sum())


def test_abi_mismatch_and_non_plugins(tmp_path):
    src = tmp_path / "old.cc"
    src.write_text('extern "C" int ufuncx_plugin_abi_version(void) { return 999; }\n'
                   'extern "C" void ufuncx_plugin_describe(void*) {}\n')
    lib = tmp_path / "old.so"
    subprocess.run(["c++", "-shared", "-fPIC", "-o", str(lib), str(src)], check=True)
    with pytest.raises(ValueError, match="ABI 999"):
        ux.load_plugin(lib)
    (tmp_path / "other.cc").write_text("int nothing_here() { return 0; }\n")
    subprocess.run(["c++", "-shared", "-fPIC", "-o", str(tmp_path / "other.so"),
                    str(tmp_path / "other.cc")], check=True)
    with pytest.raises(ValueError, match="not a ufuncx plugin"):
        ux.load_plugin(tmp_path / "other.so")
    with pytest.raises(FileNotFoundError):  # (Python's class, as ctypes.CDLL's OSError)
        ux.load_plugin(tmp_path / "missing.so")


def test_truncated_plugins_are_refused_before_loading(kernels, tmp_path):
    # A copy cut short used to kill the process with SIGBUS inside dlopen.
    data = pathlib.Path(kernels).read_bytes()
    for cut in (4096, len(data) // 2, len(data) - 1):
        p = tmp_path / f"cut{cut}.so"
        p.write_bytes(data[:cut])
        with pytest.raises(ValueError, match="truncated"):
            ux.load_plugin(p)
    with pytest.raises(ValueError, match="null byte"):
        ux.load_plugin(str(tmp_path / "x\0.so"))


def test_concurrent_loads_while_calling(kernels, tmp_path):
    path = build_plugin(tmp_path, """
        [[ufunc]]
        name = "threaded_plus"
        nin = 2
        nout = 1
        doc = "a + b"
        [[ufunc.loop]]
        types = ["dd->d"]
        expr = "a + b"
        [[ufunc]]
        name = "heaviside"
        overload = true
        nin = 2
        nout = 1
        [[ufunc.loop]]
        types = ["ll->l"]
        expr = "a < 0 ? 0 : (a == 0 ? b : 1)"
        """, "threaded")
    a = np.linspace(-3, 3, 100_001)
    want = np.add(a, a)
    errors, stop = [], threading.Event()

    def caller():
        try:
            while not stop.is_set():
                assert_same(ux.add(a, a), want)
                ux.heaviside(a, 0.5)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    def loader(out):
        try:
            out.append(ux.load_plugin(path))
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    callers = [threading.Thread(target=caller) for _ in range(3)]
    results = [[], []]
    loaders = [threading.Thread(target=loader, args=(r,)) for r in results]
    for t in callers + loaders:
        t.start()
    for t in loaders:
        t.join()
    stop.set()
    for t in callers:
        t.join()
    assert not errors, errors
    assert results[0] == results[1] == [["threaded_plus", "heaviside"]]
    assert ux.heaviside.types.count("ll->l") == 1
    assert_same(ux.threaded_plus(a, a), want)


def test_malformed_tables_name_the_key_and_the_fix(tmp_path):
    cases = [
        ("plugin = 'k'\n[[ufunc]]\nname='x'\nnin=1\nnout=1\ndoc='d'\n[[ufunc.loop]]\ntypes=['d->d']\n",
         "give exactly one of op"),
        ("plugin = 'k'\n[[ufunc]]\nname='x'\nnin=1\nnout=1\ndoc='d'\n[[ufunc.loop]]\ntypes=['d->d']\n"
         "op='A'\nexpr='a'\n", "give exactly one of op"),
        ("plugin = 'k'\n[[ufunc]]\nname='x'\nnin=1\nnout=2\ndoc='d'\n[[ufunc.loop]]\ntypes=['d->dd']\n"
         "expr='a'\n", "an expression has one result"),
        ("plugin = 'k'\n[[ufunc]]\nname='x'\noverload=true\nidentity='0'\nnin=2\nnout=1\n"
         "[[ufunc.loop]]\ntypes=['dd->d']\nexpr='a'\n", "an overload adds loops only"),
        ("plugin = 'k'\nincludes = [3]\n[[ufunc]]\nname='x'\nnin=1\nnout=1\ndoc='d'\n[[ufunc.loop]]\n"
         "types=['d->d']\nexpr='a'\n", "includes[0]"),
        ("plugin = 'Bad Name'\n[[ufunc]]\nname='x'\nnin=1\nnout=1\ndoc='d'\n[[ufunc.loop]]\n"
         "types=['d->d']\nexpr='a'\n", "plugin"),
        ("plugin = 'k'\n[[ufunc]]\nname='x'\nnin=1\nnout=1\ndoc='d'\nmystery=1\n[[ufunc.loop]]\n"
         "types=['d->d']\nexpr='a'\n", "unknown key"),
        ("plugin = 'k'\n[[ufunc]]\nname='x'\nnin=1\nnout=1\ndoc='d'\n[[ufunc.loop]]\ntypes=['d->d']\n"
         "expr='a'\nsimd=[{types='d'}]\n", "exactly one of op (a Highway op struct) or expr"),
    ]
    for i, (text, msg) in enumerate(cases):
        p = tmp_path / f"bad{i}.toml"
        p.write_text(text)
        r = codegen(p, "--check")
        assert r.returncode == 1 and msg in r.stderr, (i, r.stderr)
    r = codegen(tmp_path / "bad0.toml")
    assert "ufuncx-codegen: error:" in r.stderr


def test_emit_generic_ufunc_is_stable(tmp_path):
    r1, r2 = codegen("--emit", "generic-ufunc"), codegen("--emit", "generic-ufunc")
    assert r1.returncode == 0 and r1.stdout == r2.stdout
    text = r1.stdout
    golden = (ROOT / "tests" / "python" / "golden_generic_ufunc.txt").read_text()
    # the golden file holds a few ufuncs verbatim
    for block in golden.split("\n\n"):
        assert block.strip() in text, block[:80]
    names = [line.split("@numpy.")[1].split("(")[0] for line in text.splitlines()
             if "numpy.generic_ufunc @numpy." in line]
    assert names == sorted(names) and "add" in names and "matmul" not in names
    r = codegen("--emit", "generic-ufunc", EXAMPLE / "kernels.toml")
    assert "@numpy.absmax(overload(%arg0: si32, %arg1: si32) -> si32" in r.stdout
    assert "func.call @ufuncx.absmax.ii_i" in r.stdout


def test_plugin_aliases_int_inputs_loop_and_targets(tmp_path):
    # A plugin is described and registered by the same path as the built-ins:
    # aliases, NumPy's int-inputs rule and its SIMD targets come with it.
    path = build_plugin(tmp_path, """
        [[ufunc]]
        name = "halve"
        aliases = ["half_of"]
        nin = 1
        nout = 1
        doc = "x / 2"
        int_inputs_loop = "d->d"
        [[ufunc.loop]]
        types = ["l->l", "d->d"]
        expr = "a / 2"
        """, "aliased")
    assert ux.load_plugin(path) == ["halve"]
    assert ux.half_of is ux.halve
    assert ("half_of", "halve") in ux._core.aliases()
    # int64 inputs take the d->d loop, as true_divide's do.
    assert_same(ux.halve(np.array([3, 5])), np.array([1.5, 2.5]))
    assert_same(ux.halve(np.array([3.0])), np.array([1.5]))
    # (no Highway body: no SIMD target to report)
    assert not any(k.startswith("aliased.") for k in ux.simd_targets())
    # A second plugin may not take an existing name as an alias.
    clash = build_plugin(tmp_path, """
        [[ufunc]]
        name = "third"
        aliases = ["add"]
        nin = 1
        nout = 1
        doc = "x / 3"
        [[ufunc.loop]]
        types = ["d->d"]
        expr = "a / 3"
        """, "clash")
    with pytest.raises(ValueError, match="alias 'add' is taken"):
        ux.load_plugin(clash)
    assert ux.add(np.array([1]), 1)[0] == 2


def test_plugin_ufunc_pickles_with_its_plugin(kernels):
    import concurrent.futures
    import multiprocessing
    import pickle
    data = pickle.dumps(ux.absmax)
    assert pickle.loads(data) is ux.absmax
    # A fresh interpreter loads the plugin while unpickling.
    code = ("import pickle, sys, numpy as np\n"
            "f = pickle.loads(sys.stdin.buffer.read())\n"
            "print(f(np.array([-3.0]), np.array([2.0]))[0], f.__name__)")
    r = subprocess.run([sys.executable, "-c", code], input=data, capture_output=True)
    assert r.returncode == 0, r.stderr.decode()
    assert r.stdout.decode().split() == ["3.0", "absmax"]
    ctx = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=ctx) as pool:
        got = list(pool.map(ux.absmax, [np.array([-5, 1])], [np.array([2, -4])]))
    assert got[0].tolist() == [5, 4]
