"""numpydoc docstrings from the ufunc table: Parameters, Returns, See Also,
Notes and Examples for each built-in ufunc, written as a Python module the
package reads (ufuncx/_docs.py).

The Examples are worked out at build time by NumPy's ufunc of the same name
on small inputs the table's loops accept (the first inputs that raise no
floating-point error and give finite results), so the doctests that run them
against ufuncx check ufuncx against NumPy, not against itself."""
from __future__ import annotations

import warnings

_FLOATS = ([0.5, 1.0, 2.0], [0.25, 0.5, 0.75], [1.5, 2.0, 3.0], [-1.0, 0.0, 1.0])
_INTS = ([12, 7, 5], [3, 2, 1])
_BOOLS = ([True, True, False],)
_SECOND = {"d": "2.0", "l": "3", "i": "3", "?": "[True, False, False]"}
_KIND_CHAR = {"float": "d", "int": "l", "bool": "?"}
_PREDICATE_INPUT = "[1.0, np.nan, np.inf]"  # for isnan, isinf, isfinite
_GUFUNC_ARGS = {
    "matmul": ("np.array([[1.0, 2.0], [3.0, 4.0]])", "np.array([[5.0], [6.0]])"),
    "vecdot": ("np.array([1.0, 2.0, 3.0])", "np.array([4.0, 5.0, 6.0])"),
    "matvec": ("np.array([[1.0, 2.0], [3.0, 4.0]])", "np.array([5.0, 6.0])"),
    "vecmat": ("np.array([5.0, 6.0])", "np.array([[1.0, 2.0], [3.0, 4.0]])"),
}


def _kind(entry):
    """The kind of example input the loops take: float, int or bool."""
    firsts = {sig.split("->")[0][0] for _, sig in entry.signatures()}
    if entry.traits is not None and entry.traits.logical and "?" in firsts:
        return "bool"
    if "d" in firsts:
        return "float"
    if "l" in firsts:
        return "int"
    return "bool"


def _literal(values, kind):
    if isinstance(values, str):
        return values
    if kind == "float":
        return "[" + ", ".join(repr(float(v)) for v in values) + "]"
    return repr(list(values))


def _evaluate(np, code, names):
    """Runs `code` with NumPy in place of ufuncx; its repr, or None when it
    warns, raises or gives anything but finite numbers (an example with a
    NaN in it teaches nothing)."""
    ns = {"np": np, "ux": np}
    ns.update(names)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            with np.errstate(all="raise"):
                value = eval(code, ns)  # noqa: S307 (our own generated text)
        except Exception:
            return None
    for v in value if isinstance(value, tuple) else (value,):
        a = np.asarray(v)
        if a.dtype.kind in "fc" and not np.all(np.isfinite(a)):
            if "isnan" not in code and "isinf" not in code and "isfinite" not in code:
                return None
    return repr(value)


def _examples(np, entry):
    """The doctest lines of the Examples section, or [] when NumPy has no
    ufunc of this name or no candidate input works."""
    if not isinstance(getattr(np, entry.name, None), np.ufunc):
        return []
    head = [">>> import numpy as np", ">>> import ufuncx as ux"]
    if entry.signature is not None:
        if entry.name not in _GUFUNC_ARGS:
            return []
        a, b = _GUFUNC_ARGS[entry.name]
        code = f"ux.{entry.name}(a, b)"
        out = _evaluate(np, code, {"a": eval(a, {"np": np}), "b": eval(b, {"np": np})})
        return head + [f">>> a = {a}", f">>> b = {b}", f">>> {code}", out] if out else []
    kind = _kind(entry)
    if entry.name in ("isnan", "isinf", "isfinite"):
        candidates = (_PREDICATE_INPUT,)
    else:
        candidates = {"float": _FLOATS, "int": _INTS, "bool": _BOOLS}[kind]
    for values in candidates:
        lit = _literal(values, kind)
        x = eval(f"np.array({lit})", {"np": np})
        lines = head + [f">>> x = np.array({lit})"]
        names = {"x": x}
        if entry.nin == 1:
            calls = [f"ux.{entry.name}(x)"]
        elif entry.nin == 2:
            # the second input of the first loop that takes this kind first (ldexp: d, i)
            sig = next(t for _, t in entry.signatures() if t[0] == _KIND_CHAR[kind])
            second = _SECOND.get(sig[1], "2.0")
            calls = [f"ux.{entry.name}(x, {second})"]
            if entry.reorderable and entry.nout == 1 and entry.identity is not None:
                calls.append(f"ux.{entry.name}.reduce(x)")
                calls.append(f"ux.{entry.name}.accumulate(x)")
        else:
            return []
        outs = [_evaluate(np, c, names) for c in calls]
        if all(outs):
            for c, o in zip(calls, outs):
                lines += [f">>> {c}", o]
            return lines
    return []


def _operands(entry):
    if entry.nin == 1:
        return "x", "x : array_like\n    Input array."
    names = ", ".join(f"x{i}" for i in range(1, entry.nin + 1))
    if entry.signature is not None:
        return names, (f"{names} : array_like\n    Input arrays, with core dimensions "
                       f"``{entry.signature}`` in their last axes; the other axes broadcast.")
    return names, (f"{names} : array_like\n    Input arrays. If their shapes differ they must "
                   f"broadcast to a common shape, the shape of the result.")


def docstring(np, entry) -> str:
    """Everything after the first line and summary of the ufunc's __doc__."""
    _, params = _operands(entry)
    nout = entry.nout
    outs = "y" if nout == 1 else ", ".join(f"y{i}" for i in range(1, nout + 1))
    gufunc = entry.signature is not None
    parts = ["Parameters", "----------", params,
             "out : ndarray, None, or tuple of ndarray and None, optional",
             "    Where the results go: arrays of the broadcast shape (a tuple with one entry",
             f"    per output{'' if nout == 1 else f', {nout} here'}). New arrays when None.",
             ]
    if not gufunc:
        parts += ["where : array_like, optional",
                  "    Broadcast over the inputs: where True the result is computed, elsewhere",
                  "    `out` keeps its value (uninitialized in a new result)."]
    else:
        parts += ["axes, axis, keepdims : optional",
                  "    Which axes hold the core dimensions, as for NumPy's generalized ufuncs."]
    parts += ["casting, order, dtype, subok, signature : optional",
              "    NumPy's ufunc keywords, with NumPy's rules.",
              "",
              "Returns",
              "-------",
              f"{outs} : ndarray or scalar",
              f"    {entry.doc.strip().splitlines()[0] if entry.doc else 'The result.'}"
              f"{' A scalar when every input is a scalar.' if not gufunc else ''}",
              "",
              "See Also",
              "--------",
              f"numpy.{entry.name} : NumPy's ufunc, whose loops, type rules and results these follow.",
              ]
    methods = ["ufuncx.ufunc.at : Unbuffered in-place operation at the given indices."]
    if entry.nin == 2 and entry.nout == 1 and not gufunc:
        methods = ["ufuncx.ufunc.reduce : Reduce along an axis.",
                   "ufuncx.ufunc.accumulate : Running results along an axis.",
                   "ufuncx.ufunc.outer : Every pair of elements."] + methods
    if gufunc:
        methods = []
    parts += methods
    notes = []
    if entry.aliases:
        notes.append("Also available as " + ", ".join(f"``ux.{a}``" for a in entry.aliases) + ".")
    if entry.identity is not None:
        notes.append(f"The identity is ``{entry.identity}``"
                     f"{' and the operation is reorderable' if entry.reorderable else ''}.")
    if entry.ulp:
        notes.append(f"Floating-point results are within {entry.ulp} ULP of the correctly "
                     f"rounded value (the table's bound, tested against NumPy).")
    if notes:
        parts += ["", "Notes", "-----", " ".join(notes)]
    examples = _examples(np, entry)
    if examples:
        parts += ["", "Examples", "--------"] + examples
    return "\n".join(parts)


def module(entries) -> str:
    """ufuncx/_docs.py: SECTIONS[name] = the docstring sections."""
    import numpy as np
    lines = ['"""Generated by tools/ufuncgen (--docs) from ufuncs.toml: the numpydoc sections',
             "of each built-in ufunc's docstring, after its first line and summary.\"\"\"",
             "", "SECTIONS = {"]
    with np.printoptions(legacy=False):
        for e in entries:
            if e.overload:
                continue
            lines.append(f"    {e.name!r}: {docstring(np, e)!r},")
    lines += ["}", ""]
    return "\n".join(lines)
