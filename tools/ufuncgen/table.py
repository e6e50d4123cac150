"""Strict parsing of ufunc tables (ufuncs/ufuncs.toml and users' tables).

Every key is popped from its table and leftovers are rejected; invariants are
checked with messages that give the key path and say how to fix the entry.
"""
from __future__ import annotations

import dataclasses
import difflib
import os
import re
import tomllib

TYPE_CHARS = "?bBhHiIlL45eEfdgFDG"
# (kind, itemsize) per type char; kinds b < u < i < f < c.
_INFO = {
    "?": ("b", 1), "b": ("i", 1), "B": ("u", 1), "h": ("i", 2), "H": ("u", 2),
    "i": ("i", 4), "I": ("u", 4), "l": ("i", 8), "L": ("u", 8), "4": ("f", 1),
    "5": ("f", 1), "e": ("f", 2),
    "E": ("f", 2), "f": ("f", 4), "d": ("f", 8), "g": ("f", 16), "F": ("c", 8),
    "D": ("c", 16), "G": ("c", 32),
}
IDENTITIES = {"0", "1", "-1", "true", "false", "-inf"}
DEFAULT_FAMILY = "loops"
ML_CHARS = "E45"  # bfloat16, float8_e4m3fn, float8_e5m2
PAIRWISE_CHARS = "efdgFDG"  # float and complex types, which may reduce pairwise
SIMD_CHARS = "?bBhHiIlLfdFD"  # F, D: complex as (re, im) lane pairs
# Argument names of expr kernels, in input order.
ARG_NAMES = ("a", "b", "c", "e", "f", "g", "h")  # no "d": the Highway tag


class TableError(ValueError):
    """A table entry is invalid; the message names the key path and the fix."""


def safe_cast(a: str, b: str) -> bool:
    """NumPy's safe-cast relation (mirrors core/src/dtype.cc)."""
    if a == b:
        return True
    (ka, sa), (kb, sb) = _INFO[a], _INFO[b]
    if ka == "b":
        return True
    if kb == "b":
        return False
    if b in ML_CHARS:  # ml_dtypes' types: bfloat16 and the float8s
        return a in "bB" or (b == "E" and a in ML_CHARS)
    if a in ML_CHARS:
        return kb == "c" or (kb == "f" and b not in "e" + ML_CHARS)
    if ka == "u":
        return (kb == "u" and sb >= sa) or (kb == "i" and sb > sa) or _int_to_inexact(sa, kb, sb)
    if ka == "i":
        return (kb == "i" and sb >= sa) or _int_to_inexact(sa, kb, sb)
    if ka == "f":
        return (kb == "f" and sb >= sa) or (kb == "c" and sb >= 2 * sa)
    return kb == "c" and sb >= sa


def _int_to_inexact(sa: int, kb: str, sb: int) -> bool:
    need = {1: 2, 2: 4}.get(sa, 8)
    if kb == "f":
        return sb >= need
    return kb == "c" and sb >= 2 * need


@dataclasses.dataclass(frozen=True)
class Simd:
    op: str             # struct name, or "" when expr gives the body
    types: str
    reduce: str = ""    # types whose reduce slot applies the op lane-wise
    expr: str = ""      # Highway expression in d, a, b, ... (hn:: functions)
    strided: str = ""   # types whose strided calls run the body on copied blocks


@dataclasses.dataclass(frozen=True)
class LoopGroup:
    types: tuple[str, ...]  # "ff->f"
    op: str                 # struct name, or "" when expr gives the kernel
    simd: tuple[Simd, ...]
    expr: str = ""          # scalar C++ expression in a, b, c, ... (one output)
    pairwise: str = ""      # types whose reduction is NumPy's pairwise sum


BOOL_INPUTS = ("cast", "uniform", "refuse")
EXACT_SPLITS = ("never", "integers", "all")
TRAIT_KEYS = ("bool_inputs", "bool_error", "logical", "comparison", "reduce_widen", "exact_split",
              "fp_errors")


@dataclasses.dataclass(frozen=True)
class Traits:
    """The per-ufunc rules of NumPy's type resolvers and reductions
    (UfuncTraits in core/include/ufuncx/ufunc.h)."""
    bool_inputs: str = "cast"   # all-bool inputs: cast to a loop, uniform, or refuse
    bool_error: str = ""        # refuse: the TypeError's text
    logical: bool = False       # operands meet in the bool loop
    comparison: bool = False    # weak Python scalars compare by value
    reduce_widen: bool = False  # bool/narrow-int reductions accumulate in 64 bits
    exact_split: str = "never"  # loop types whose split reductions are exact
    fp_errors: bool = True      # floating-point flags are reported (np.errstate)


def _parse_traits(raw: dict, path: str, nin: int, nout: int, overload: bool) -> Traits:
    given = [k for k in TRAIT_KEYS if k in raw]
    if overload and given:
        raise TableError(f"{path}.{given[0]}: an overload adds loops only and keeps the existing "
                         f"ufunc's rules; remove it")
    t = Traits(
        bool_inputs=_pop(raw, "bool_inputs", str, path, "cast"),
        bool_error=_pop(raw, "bool_error", str, path, ""),
        logical=_pop(raw, "logical", bool, path, False),
        comparison=_pop(raw, "comparison", bool, path, False),
        reduce_widen=_pop(raw, "reduce_widen", bool, path, False),
        exact_split=_pop(raw, "exact_split", str, path, "never"),
        fp_errors=_pop(raw, "fp_errors", bool, path, True))
    if t.bool_inputs not in BOOL_INPUTS:
        raise TableError(f"{path}.bool_inputs: {t.bool_inputs!r} is not one of {list(BOOL_INPUTS)}")
    if (t.bool_inputs == "refuse") != bool(t.bool_error):
        raise TableError(f"{path}.bool_error: give the TypeError's text exactly when "
                         f"bool_inputs = \"refuse\"")
    if t.exact_split not in EXACT_SPLITS:
        raise TableError(f"{path}.exact_split: {t.exact_split!r} is not one of {list(EXACT_SPLITS)}")
    binary = nin == 2 and nout == 1
    for key, on in (("logical", t.logical), ("comparison", t.comparison),
                    ("reduce_widen", t.reduce_widen), ("exact_split", t.exact_split != "never")):
        if on and not binary:
            raise TableError(f"{path}.{key}: only binary ufuncs (nin=2, nout=1) have this rule; remove it")
    return t


@dataclasses.dataclass(frozen=True)
class UfuncEntry:
    name: str
    aliases: tuple[str, ...]
    nin: int
    nout: int
    identity: str | None
    reorderable: bool
    doc: str
    ulp: int
    loops: tuple[LoopGroup, ...]
    int_inputs_loop: str | None = None
    signature: str | None = None  # core dims of a generalized ufunc
    overload: bool = False        # loops for an existing ufunc (plugins)
    traits: Traits | None = None  # type-resolution and reduction rules
    family: str = DEFAULT_FAMILY  # the loop family: its generated files and SIMD target
    dense_at: bool = False        # ufunc.at gets the specialised dense bodies

    def pairwise_types(self) -> str:
        """Float type chars whose reduction is NumPy's pairwise sum."""
        return "".join(sorted({c for g in self.loops for c in g.pairwise}))

    def signatures(self):
        for g in self.loops:
            for t in g.types:
                yield g, t


def _pop(d: dict, key: str, typ, path: str, default=dataclasses.MISSING):
    if key not in d:
        if default is dataclasses.MISSING:
            raise TableError(f"{path}.{key}: missing required key; add `{key} = ...`")
        return default
    v = d.pop(key)
    if typ is int and isinstance(v, bool) or not isinstance(v, typ):
        raise TableError(
            f"{path}.{key}: expected {getattr(typ, '__name__', typ)}, got {type(v).__name__} ({v!r})")
    return v


def _no_leftovers(d: dict, path: str, allowed: str):
    """Names the first key of `d` that `allowed` (comma-separated) does not
    list, with the closest allowed key when it looks misspelled."""
    names = [a.strip() for a in allowed.split(",")]
    unknown = sorted(k for k in d if k not in names)
    if unknown:
        k = unknown[0]
        close = difflib.get_close_matches(str(k), names, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise TableError(f"{path}.{k}: unknown key{hint}; allowed keys are {allowed}")


def split_sig(sig: str, path: str) -> tuple[str, str]:
    m = re.fullmatch(r"([^-]*)->(.*)", sig)
    if not m:
        raise TableError(f"{path}: signature {sig!r} must look like 'ff->f'")
    ins, outs = m.group(1), m.group(2)
    for c in ins + outs:
        if c not in TYPE_CHARS:
            raise TableError(f"{path}: unknown type char {c!r} in {sig!r}; use one of {TYPE_CHARS}")
    return ins, outs


_UFUNC_KEYS = ("name, aliases, family, nin, nout, identity, reorderable, overload, doc, "
               "ulp, int_inputs_loop, signature, dense_at, loop, " + ", ".join(TRAIT_KEYS))


def parse_entry(raw: dict, path: str) -> UfuncEntry:
    raw = dict(raw)
    # A misspelled key first, before a rule reports what it hides ("missing nin").
    named = f"{path}({raw['name']})" if isinstance(raw.get("name"), str) else path
    _no_leftovers(raw, named, _UFUNC_KEYS)
    name = _pop(raw, "name", str, path)
    if not re.fullmatch(r"[a-z_][a-z0-9_]*", name):
        raise TableError(f"{path}.name: {name!r} is not a valid identifier; use lower_snake_case")
    path = f"{path}({name})"
    aliases = tuple(_pop(raw, "aliases", list, path, []))
    family = _pop(raw, "family", str, path, DEFAULT_FAMILY)
    if not re.fullmatch(r"[a-z][a-z0-9_]*", family):
        raise TableError(f"{path}.family: {family!r} is not a valid family name; use "
                         f"lower_snake_case (it names generated files)")
    nin = _pop(raw, "nin", int, path)
    nout = _pop(raw, "nout", int, path)
    if nin < 1 or nout < 1 or nin + nout > 8:
        raise TableError(f"{path}.nin/nout: need nin >= 1, nout >= 1 and nin + nout <= 8")
    identity = _pop(raw, "identity", str, path, None)
    if identity is not None and identity not in IDENTITIES:
        raise TableError(f"{path}.identity: {identity!r} is not one of {sorted(IDENTITIES)}; omit it for None")
    reorderable = _pop(raw, "reorderable", bool, path, False)
    overload = _pop(raw, "overload", bool, path, False)
    doc = _pop(raw, "doc", str, path, "" if overload else dataclasses.MISSING)
    ulp = _pop(raw, "ulp", int, path, 0)
    int_inputs_loop = _pop(raw, "int_inputs_loop", str, path, None)
    signature = _pop(raw, "signature", str, path, None)
    dense_at = _pop(raw, "dense_at", bool, path, False)
    traits = _parse_traits(raw, path, nin, nout, overload)
    if signature is not None:
        check_core_signature(signature, nin, nout, f"{path}.signature")
        if identity is not None or reorderable:
            raise TableError(f"{path}: a generalized ufunc (signature) has no identity and is not "
                             f"reorderable; remove identity/reorderable")
    loops_raw = _pop(raw, "loop", list, path)
    _no_leftovers(raw, path, _UFUNC_KEYS)
    if overload and (identity is not None or reorderable or aliases or signature):
        raise TableError(f"{path}: an overload adds loops only; remove identity, reorderable, "
                         f"aliases and signature (the existing ufunc keeps its own)")
    groups = []
    for gi, g in enumerate(loops_raw):
        gp = f"{path}.loop[{gi}]"
        if not isinstance(g, dict):
            raise TableError(f"{gp}: expected a table ([[ufunc.loop]])")
        g = dict(g)
        _no_leftovers(g, gp, "types, op, expr, simd, pairwise")  # before the rules name keys
        types = _pop(g, "types", list, gp)
        if not types:
            raise TableError(f"{gp}.types: empty; list at least one signature such as 'ff->f'")
        op = _pop(g, "op", str, gp, "")
        expr = _pop(g, "expr", str, gp, "")
        if bool(op) == bool(expr):
            raise TableError(f"{gp}: give exactly one of op (a kernel struct) or expr (a C++ "
                             f"expression in {', '.join(ARG_NAMES[:nin])})")
        if expr and nout != 1:
            raise TableError(f"{gp}.expr: an expression has one result but nout={nout}; "
                             f"write a kernel struct and name it with op")
        simd_raw = _pop(g, "simd", list, gp, [])
        pairwise = _pop(g, "pairwise", str, gp, "")
        _no_leftovers(g, gp, "types, op, expr, simd, pairwise")
        for ti, t in enumerate(types):
            tp = f"{gp}.types[{ti}]"
            if not isinstance(t, str):
                raise TableError(f"{tp}: expected a string such as 'ff->f'")
            ins, outs = split_sig(t, tp)
            if len(ins) != nin or len(outs) != nout:
                raise TableError(
                    f"{tp}: {t!r} has {len(ins)} input(s) and {len(outs)} output(s) "
                    f"but the ufunc has nin={nin}, nout={nout}; fix the signature or nin/nout")
        if simd_raw and signature is not None:
            raise TableError(f"{gp}.simd: generalized ufunc loops have no SIMD slot; remove it "
                             f"(vectorise inside the core kernel)")
        simds = []
        for si, s in enumerate(simd_raw):
            sp = f"{gp}.simd[{si}]"
            if not isinstance(s, dict):
                raise TableError(f"{sp}: expected {{ op = \"...\", types = \"...\" }}")
            s = dict(s)
            _no_leftovers(s, sp, "op, expr, types, reduce, strided")
            sop = _pop(s, "op", str, sp, "")
            sexpr = _pop(s, "expr", str, sp, "")
            if bool(sop) == bool(sexpr):
                raise TableError(f"{sp}: give exactly one of op (a Highway op struct) or expr "
                                 f"(a Highway expression in d, {', '.join(ARG_NAMES[:nin])})")
            stypes = _pop(s, "types", str, sp)
            sreduce = _pop(s, "reduce", str, sp, "")
            sstrided = _pop(s, "strided", str, sp, "")
            _no_leftovers(s, sp, "op, expr, types, reduce, strided")
            for c in sstrided:
                if c not in stypes:
                    raise TableError(f"{sp}.strided: {c!r} is not in this entry's types "
                                     f"{stypes!r}; add it there or remove it")
            for c in stypes:
                if c not in SIMD_CHARS:
                    raise TableError(f"{sp}.types: {c!r} has no SIMD lanes; use only {SIMD_CHARS}")
                if not any(t[0] == c for t in types):
                    raise TableError(f"{sp}.types: no signature in this group starts with {c!r}; remove it")
            for c in sreduce:
                if c in "FD":
                    raise TableError(f"{sp}.reduce: complex {c!r} has no SIMD reduce; remove it")
                if c not in stypes:
                    raise TableError(f"{sp}.reduce: {c!r} is not in this entry's types {stypes!r}; "
                                     f"add it there or remove it")
                if c in pairwise:
                    raise TableError(f"{sp}: {c!r} is in both reduce and the group's pairwise; "
                                     f"keep one")
            if sreduce and (nin != 2 or nout != 1):
                raise TableError(f"{sp}.reduce: only binary ufuncs (nin=2, nout=1) reduce; remove it")
            simds.append(Simd(sop, stypes, sreduce, sexpr, sstrided))
        if pairwise and (nin != 2 or nout != 1):
            raise TableError(f"{gp}.pairwise: only binary ufuncs (nin=2, nout=1) reduce; remove it")
        for c in pairwise:
            if c not in PAIRWISE_CHARS:
                raise TableError(f"{gp}.pairwise: {c!r} is not a float or complex type; use only "
                                 f"{PAIRWISE_CHARS}")
            if not any(t[0] == c and t == f"{c}{c}->{c}" for t in types):
                raise TableError(f"{gp}.pairwise: this group has no signature '{c}{c}->{c}'; "
                                 f"add it or remove {c!r}")
        groups.append(LoopGroup(tuple(types), op, tuple(simds), expr, pairwise))
    if int_inputs_loop is not None and not any(int_inputs_loop in g.types for g in groups):
        raise TableError(f"{path}.int_inputs_loop: {int_inputs_loop!r} is not one of this ufunc's "
                         f"signatures; list it under [[ufunc.loop]] or remove the key")
    entry = UfuncEntry(name, aliases, nin, nout, identity, reorderable, doc, ulp, tuple(groups),
                       int_inputs_loop, signature, overload, traits, family, dense_at)
    check_order(entry, path)
    return entry


_CORE_OPERAND = re.compile(r"\(\s*(?:[a-z]\w*\??\s*(?:,\s*[a-z]\w*\??\s*)*)?\)")


def check_core_signature(sig: str, nin: int, nout: int, path: str):
    """NumPy's gufunc signature grammar: "(n?,k),(k,m?)->(n?,m?)"."""
    if sig.count("->") != 1:
        raise TableError(f"{path}: {sig!r} needs exactly one '->', as in '(m,n),(n)->(m)'")
    ins, outs = (part.replace(" ", "") for part in sig.split("->"))
    for side, want, what in ((ins, nin, "nin"), (outs, nout, "nout")):
        ops = _CORE_OPERAND.findall(side)
        if ",".join(ops) != side:
            raise TableError(f"{path}: {side!r} is not a list of core dimension tuples such as "
                             f"'(m,n),(n)'; use lower-case names, optionally with '?'")
        if len(ops) != want:
            raise TableError(f"{path}: {side!r} has {len(ops)} operand(s) but {what}={want}; "
                             f"fix the signature or {what}")


def check_order(entry: UfuncEntry, path: str):
    seen: list[tuple[str, str]] = []
    for gi, g in enumerate(entry.loops):
        for ti, t in enumerate(g.types):
            ins = t.split("->")[0]
            tp = f"{path}.loop[{gi}].types[{ti}]"
            for prev_path, prev in seen:
                if prev == t:
                    raise TableError(f"{tp}: {t!r} is listed twice (first at {prev_path}); remove one")
                pins = prev.split("->")[0]
                if all(safe_cast(a, b) for a, b in zip(ins, pins)):
                    raise TableError(
                        f"{tp}: {t!r} can never be chosen because its inputs cast safely to "
                        f"{prev!r} at {prev_path}, which comes first; move {t!r} before it")
            seen.append((tp, t))


def load(path: str) -> list[UfuncEntry]:
    return load_table(path).entries


@dataclasses.dataclass(frozen=True)
class Table:
    entries: list
    plugin: str | None = None      # plugin name (user tables)
    includes: tuple[str, ...] = ()  # headers with the table's kernel structs
    path: str | None = None         # the TOML file, when read from one
    expr_lines: dict = dataclasses.field(default_factory=dict)  # expr text -> its line

    def locate(self, expr: str):
        """(file, line) of an `expr` in the table's TOML, or None: the
        generator's #line directives, so the compiler points at the table."""
        line = self.expr_lines.get(expr)
        return (os.path.abspath(self.path), line) if self.path and line else None


def parse_table(data: dict, source: str = "<table>") -> Table:
    data = dict(data)
    fmt = data.pop("format", 1)
    if fmt != 1:
        raise TableError(f"{source}: format = {fmt!r} is not supported; use format = 1")
    plugin = _pop(data, "plugin", str, source, None)
    if plugin is not None and not re.fullmatch(r"[a-z_][a-z0-9_]*", plugin):
        raise TableError(f"{source}.plugin: {plugin!r} is not a valid identifier; use lower_snake_case")
    includes = _pop(data, "includes", list, source, [])
    for i, inc in enumerate(includes):
        if not isinstance(inc, str) or not inc:
            raise TableError(f"{source}.includes[{i}]: expected a header name such as \"my_kernels.h\"")
    ufuncs = data.pop("ufunc", None)
    if not isinstance(ufuncs, list) or not ufuncs:
        raise TableError(f"{source}: no [[ufunc]] entries; add at least one")
    _no_leftovers(data, source, "format, plugin, includes, ufunc")
    entries = [parse_entry(u, f"ufunc[{i}]") for i, u in enumerate(ufuncs)]
    names: dict[str, int] = {}
    for i, e in enumerate(entries):
        for n in (e.name,) + e.aliases:
            if n in names:
                raise TableError(f"ufunc[{i}]({e.name}): name {n!r} already used by ufunc[{names[n]}]; rename one")
            names[n] = i
    return Table(entries, plugin, tuple(includes))


def parse(data: dict, source: str = "<table>") -> list[UfuncEntry]:
    return parse_table(data, source).entries


_EXPR_VALUE = re.compile(r"""\bexpr\s*=\s*("(?:[^"\\]|\\.)*"|'[^']*')""")


def _expr_lines(text: str) -> dict[str, int]:
    """The line of each `expr = "..."` string in a TOML text (the first, when
    the same text appears twice)."""
    found: dict[str, int] = {}
    for n, line in enumerate(text.splitlines(), 1):
        for m in _EXPR_VALUE.finditer(line):
            try:
                value = tomllib.loads(f"v = {m.group(1)}")["v"]
            except tomllib.TOMLDecodeError:
                continue
            found.setdefault(value, n)
    return found


def load_table(path: str) -> Table:
    with open(path, "rb") as f:
        raw = f.read()
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise TableError(f"{path}: not valid TOML: {e}") from None
    table = parse_table(data, path)
    return dataclasses.replace(table, path=path, expr_lines=_expr_lines(raw.decode("utf-8")))
