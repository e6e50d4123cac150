"""The registry against NumPy's own ufunc objects: names, aliases, arity,
identity, loop lists in resolution order, and the numpy.ufunc attributes."""
import numpy as np
import pytest

import ufuncx as ux
from conftest import GUFUNCS, NOT_ELEMENTWISE, numpy_types, numpy_ufunc_names


@pytest.mark.parametrize("name", numpy_ufunc_names())
def test_every_numpy_ufunc_is_registered(name):
    u, nu = getattr(ux, name), getattr(np, name)
    assert u.__name__ == name
    assert (u.nin, u.nout, u.nargs) == (nu.nin, nu.nout, nu.nargs)
    if nu.identity is None:
        assert u.identity is None
    else:
        assert u.identity == nu.identity and type(u.identity) is type(nu.identity)
    assert u.signature is None
    # NumPy's list exactly (bar object, datetime and string loops), so that
    # np.dtype() takes every character; ml_dtypes' loops (bfloat16 'E',
    # float8_e4m3fn '4', float8_e5m2 '5') listed apart.
    # (NumPy lists a few loops twice, as sqrt's 'f->f': once here.)
    assert u.types == list(dict.fromkeys(t for t in nu.types if not any(c in t for c in "OmMUST")))
    assert u.ntypes == len(u.types)
    assert all(np.dtype(c) for t in u.types for c in t.replace("->", ""))
    assert all(set(t) & set("E45") for t in u.extra_types)
    assert u.__doc__.splitlines()[0] == nu.__doc__.splitlines()[0]
    assert repr(u) == f"<ufunc '{name}'>"


def test_aliases_are_the_same_objects():
    for alias, name in [("abs", "absolute"), ("conj", "conjugate"), ("mod", "remainder"),
                        ("pow", "power"), ("bitwise_not", "invert"), ("true_divide", "divide"),
                        ("acos", "arccos"), ("bitwise_left_shift", "left_shift")]:
        assert getattr(ux, alias) is getattr(ux, name)
    for n in dir(np):
        if isinstance(getattr(np, n), np.ufunc) and getattr(np, n).__name__ != "isnat":
            assert hasattr(ux, n), n


def test_registry_and_simd_targets():
    names = ux.registry()
    assert len(names) == len(numpy_ufunc_names()) + len(GUFUNCS) == len(set(names))
    assert GUFUNCS <= set(names)
    targets = ux.simd_targets()
    assert targets and all(isinstance(v, str) and v for v in targets.values())
    # One target per loop family with Highway bodies, named as the table does.
    assert {"arithmetic", "comparison", "logic_and_bits", "unary", "exp_log"} <= set(targets)
    # Every family the table gives Highway bodies reports a target.
    for name in ["add", "multiply", "maximum", "sqrt", "exp", "less", "logical_and", "negative"]:
        lt = ux.loop_targets(name)
        assert any(v in targets.values() for v in lt.values()), name
    assert ux.loop_targets("add")["gg->g"] is None


@pytest.mark.parametrize("target", ["SSE4", "avx2", "no-such-target"])
def test_simd_target_environment_variable(target):
    # UFUNCX_SIMD_TARGET holds every family to that Highway target or a lesser
    # one (read once, before the loops are chosen); correctly rounded results
    # do not change (exp may differ in its last bit: FMA or not). A target
    # the CPU lacks or Highway does not know leaves the choice alone.
    import json
    import os
    import subprocess
    import sys
    code = ("import json, numpy as np, ufuncx as ux\n"
            "x = np.random.default_rng(0).normal(size=1001)\n"
            "print(json.dumps([sorted(set(ux.simd_targets().values())),\n"
            "                  ux.sqrt(ux.multiply(x, x)).tobytes().hex(),\n"
            "                  ux.floor(x).tobytes().hex(), ux.add.reduce(x).hex()]))\n")
    def run(env_value):
        env = dict(os.environ)
        env.pop("UFUNCX_SIMD_TARGET", None)
        if env_value is not None:
            env["UFUNCX_SIMD_TARGET"] = env_value
        out = subprocess.run([sys.executable, "-c", code], env=env, check=True,
                             capture_output=True, text=True).stdout
        return json.loads(out)
    default, held = run(None), run(target)
    assert held[1:] == default[1:]
    order = ["AVX3_SPR", "AVX3_ZEN4", "AVX3_DL", "AVX3", "AVX2", "SSE4", "SSSE3", "SSE2", "EMU128",
             "SCALAR"]
    best = min(order.index(t) for t in default[0])
    if target.upper() in order and order.index(target.upper()) >= best:
        assert held[0] == [target.upper()]
    else:
        assert held[0] == default[0]
