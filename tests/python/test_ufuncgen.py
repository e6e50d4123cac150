"""tools/ufuncgen validates tables strictly: every error names the key path
and says how to fix it; the built-in table passes."""
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT))
from tools.ufuncgen import table  # noqa: E402


def entry(**over):
    base = {"name": "f", "nin": 2, "nout": 1, "reorderable": False, "doc": "d",
            "loop": [{"types": ["ff->f", "dd->d"], "op": "Add"}]}
    base.update(over)
    return {"ufunc": [base]}


def test_builtin_table_is_valid():
    entries = table.load(str(ROOT / "ufuncs" / "ufuncs.toml"))
    assert len(entries) == 89  # 85 elementwise + 4 generalized


@pytest.mark.parametrize("data,fragment", [
    (entry(colour="red"), "ufunc[0](f).colour: unknown key"),
    (entry(nin=1), "has 2 input(s) and 1 output(s) but the ufunc has nin=1"),
    (entry(loop=[{"types": ["dd->d", "ff->f"], "op": "Add"}]),
     "can never be chosen because its inputs cast safely to 'dd->d'"),
    (entry(loop=[{"types": ["ff->f", "ff->f"], "op": "Add"}]), "listed twice"),
    (entry(loop=[{"types": ["fz->f"], "op": "Add"}]), "unknown type char 'z'"),
    (entry(loop=[{"types": ["ff"], "op": "Add"}]), "must look like 'ff->f'"),
    (entry(identity="2"), "identity: '2' is not one of"),
    (entry(nin="2"), "nin: expected int"),
    (entry(loop=[{"types": ["ff->f"], "op": "Add", "simd": [{"op": "Add", "types": "e"}]}]),
     "has no SIMD lanes"),
    (entry(loop=[{"types": ["ff->f"], "op": "Add", "simd": [{"op": "Add", "types": "d"}]}]),
     "no signature in this group starts with 'd'"),
    (entry(int_inputs_loop="ll->l"), "int_inputs_loop: 'll->l' is not one of"),
    ({"ufunc": [entry()["ufunc"][0], entry()["ufunc"][0]]}, "name 'f' already used"),
    ({"format": 2, **entry()}, "format = 2 is not supported"),
    ({}, "no [[ufunc]] entries"),
    (entry(name="Bad-Name"), "is not a valid identifier"),
    (entry(nin=0), "need nin >= 1, nout >= 1"),
    (entry(identity="0", signature="(n),(n)->()"), "a generalized ufunc (signature) has no identity"),
    (entry(signature="(n),(n)"), "needs exactly one '->'"),
    (entry(signature="(n),n->()"), "is not a list of core dimension tuples"),
    (entry(signature="(n)->()"), "has 1 operand(s) but nin=2"),
    (entry(loop=["ff->f"]), "expected a table ([[ufunc.loop]])"),
    (entry(loop=[{"types": [], "op": "Add"}]), "types: empty"),
    (entry(loop=[{"types": [3], "op": "Add"}]), "expected a string such as 'ff->f'"),
    (entry(signature="(n),(n)->()", loop=[{"types": ["dd->d"], "op": "VecDot",
                                           "simd": [{"op": "Add", "types": "d"}]}]),
     "generalized ufunc loops have no SIMD slot"),
    (entry(loop=[{"types": ["ff->f"], "op": "Add", "simd": ["Add"]}]), "expected { op ="),
    (entry(loop=[{"types": ["ff->f"], "op": "Add", "simd": [{"op": "Add", "types": "f", "reduce": "d"}]}]),
     "reduce: 'd' is not in this entry's types"),
    (entry(nin=1, loop=[{"types": ["f->f"], "op": "Sqrt",
                         "simd": [{"op": "Sqrt", "types": "f", "strided": "fd"}]}]),
     "strided: 'd' is not in this entry's types"),
    (entry(nin=1, loop=[{"types": ["f->f"], "op": "Sqrt",
                         "simd": [{"op": "Sqrt", "types": "f", "reduce": "f"}]}]),
     "only binary ufuncs (nin=2, nout=1) reduce"),
    (entry(loop=[{"types": ["ii->i"], "op": "Add", "pairwise": "i"}]),
     "pairwise: 'i' is not a float or complex type"),
    (entry(loop=[{"types": ["ff->f"], "op": "Add", "pairwise": "d"}]),
     "pairwise: this group has no signature 'dd->d'"),
    (entry(nin=1, loop=[{"types": ["f->f"], "op": "Sqrt", "pairwise": "f"}]),
     "pairwise: only binary ufuncs (nin=2, nout=1) reduce"),
    (entry(loop=[{"types": ["ff->f"], "op": "Add", "simd": [{"op": "Add", "types": "f", "pairwise": "f"}]}]),
     "unknown key"),
    (entry(loop=[{"types": ["ff->f"], "op": "Add", "pairwise": "f",
                  "simd": [{"op": "Add", "types": "f", "reduce": "f"}]}]),
     "is in both reduce and the group's pairwise"),
    (entry(bool_inputs="never"), "bool_inputs: 'never' is not one of"),
    (entry(bool_inputs="refuse"), "bool_error: give the TypeError's text exactly when"),
    (entry(bool_error="no"), "bool_error: give the TypeError's text exactly when"),
    (entry(exact_split="floats"), "exact_split: 'floats' is not one of"),
    (entry(logical=1), "logical: expected bool"),
    (entry(nin=1, comparison=True, loop=[{"types": ["f->f"], "op": "Sqrt"}]),
     "comparison: only binary ufuncs"),
    (entry(nin=1, reduce_widen=True, loop=[{"types": ["f->f"], "op": "Sqrt"}]),
     "reduce_widen: only binary ufuncs"),
    (entry(overload=True, doc="", reorderable=False, logical=True),
     "logical: an overload adds loops only and keeps the existing ufunc's rules"),
    (entry(family="Bad Family"), "family: 'Bad Family' is not a valid family name"),
])
def test_validation_messages(data, fragment):
    with pytest.raises(table.TableError) as e:
        table.parse(data)
    assert fragment in str(e.value)


def test_missing_key_says_how_to_fix():
    data = entry()
    del data["ufunc"][0]["doc"]
    with pytest.raises(table.TableError, match=r"ufunc\[0\]\(f\)\.doc: missing required key; add `doc = \.\.\.`"):
        table.parse(data)


def documented_keys():
    """Keys in the tables of docs/table-format.md, per section."""
    import re
    text = (ROOT / "docs" / "table-format.md").read_text()
    keys, section = {}, None
    for line in text.splitlines():
        if line.startswith("## "):
            section = line[3:].strip()
        m = re.match(r"\| `([a-z_]+)` \|", line)
        if m and section:
            keys.setdefault(section, []).append(m.group(1))
    return keys


def test_every_documented_key_is_accepted():
    keys = documented_keys()
    assert set(keys) == {"Top level", "`[[ufunc]]`", "`[[ufunc.loop]]`", "`simd` entries"}
    data = {"format": 1, "plugin": "p", "includes": ["k.h"], "ufunc": [
        {"name": "f", "aliases": ["g"], "family": "mine", "nin": 2, "nout": 1, "identity": "0", "reorderable": True,
         "doc": "d", "ulp": 2, "int_inputs_loop": "dd->d", "bool_inputs": "refuse",
         "bool_error": "no bools", "logical": False, "comparison": False, "reduce_widen": True,
         "exact_split": "integers", "fp_errors": True, "dense_at": True,
         "loop": [{"types": ["ff->f", "dd->d"], "op": "Add", "pairwise": "fd",
                   "simd": [{"types": "fd", "op": "Add", "reduce": "", "strided": "d"}]}]},
        {"name": "h", "nin": 2, "nout": 1, "doc": "d", "signature": "(n),(n)->()",
         "loop": [{"types": ["dd->d"], "op": "VecDot"}]},
        {"name": "add", "overload": True, "nin": 2, "nout": 1,
         "loop": [{"types": ["EF->F"], "expr": "a + b",
                   "simd": []}]},
        {"name": "j", "nin": 2, "nout": 1, "doc": "d",
         "loop": [{"types": ["ff->f"], "expr": "a", "simd": [{"types": "f", "expr": "a"}]}]},
    ]}
    used = {"Top level": set(data), "`[[ufunc]]`": set(), "`[[ufunc.loop]]`": set(),
            "`simd` entries": set()}
    for u in data["ufunc"]:
        used["`[[ufunc]]`"] |= set(u)
        for g in u["loop"]:
            used["`[[ufunc.loop]]`"] |= set(g)
            for s in g.get("simd", []):
                used["`simd` entries"] |= set(s)
    for section, names in keys.items():
        assert set(names) <= used[section], (section, set(names) - used[section])
    t = table.parse_table(data)
    assert t.plugin == "p" and t.includes == ("k.h",)
    assert [e.name for e in t.entries] == ["f", "h", "add", "j"]
    assert [e.dense_at for e in t.entries] == [True, False, False, False]
    assert t.entries[2].overload and t.entries[1].signature == "(n),(n)->()"


def test_builtin_traits_come_from_the_table():
    """The rules core used to take from ufunc names are table keys now."""
    by = {e.name: e for e in table.load(str(ROOT / "ufuncs" / "ufuncs.toml"))}
    assert {n for n, e in by.items() if e.traits.logical} == {"logical_and", "logical_or", "logical_xor"}
    assert {n for n, e in by.items() if e.traits.comparison} == {
        "equal", "not_equal", "less", "less_equal", "greater", "greater_equal"}
    assert {n for n, e in by.items() if e.traits.reduce_widen} == {"add", "multiply"}
    assert {n for n, e in by.items() if e.traits.bool_inputs == "refuse"} == {"subtract", "negative"}
    assert {n for n, e in by.items() if e.traits.bool_inputs == "uniform"} == {
        "positive", "sign", "gcd", "lcm"}
    assert {n for n, e in by.items() if e.traits.exact_split == "all"} == {
        "maximum", "minimum", "fmax", "fmin"}
    assert {n for n, e in by.items() if e.pairwise_types()} == {"add"}
    assert by["add"].pairwise_types() == "DFGdefg"  # not bfloat16: ml_dtypes rounds every step


def test_core_names_no_ufunc():
    """core/ and the bindings decide by traits, never by comparing a ufunc's
    name or listing names (front ends may still look a combiner up)."""
    import re
    names = {e.name for e in table.load(str(ROOT / "ufuncs" / "ufuncs.toml"))}
    compare = re.compile(r'[=!]=\s*"([a-z_0-9]+)"|"([a-z_0-9]+)"\s*[=!]=|'
                         r'(?:const char\*|std::string)[^;=]*\[\]\s*=\s*\{([^}]*)\}')
    for f in sorted([*(ROOT / "core").rglob("*"), *(ROOT / "bindings").glob("*.cc")]):
        if f.suffix not in (".cc", ".h", ".inc"):
            continue
        for m in compare.finditer(f.read_text()):
            found = set(re.findall(r'"([a-z_0-9]+)"', m.group(0))) & names
            assert not found, f"{f.relative_to(ROOT)} decides by the name {sorted(found)}"


def test_invalid_toml_and_plugin_name(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[[ufunc]\nname = 1\n")
    with pytest.raises(table.TableError, match="not valid TOML"):
        table.load_table(str(bad))
    noname = tmp_path / "noname.toml"
    noname.write_text("[[ufunc]]\nname='x'\nnin=1\nnout=1\ndoc='d'\n[[ufunc.loop]]\n"
                      "types=['d->d']\nexpr='a'\n")
    from tools.ufuncgen import codegen
    assert codegen.main([str(noname), "-o", str(tmp_path / "out")]) == 1


def test_generator_cast_table_agrees_with_core():
    # The generator's safe-cast relation (table.py, used to refuse loops that
    # can never be chosen) and core's (dtype.cc, used to choose loops) are
    # two copies of NumPy's table: every pair must agree, and agree with
    # NumPy, with ml_dtypes' types ('E', '4', '5') as ml_dtypes casts them.
    import ml_dtypes
    import numpy as np
    import ufuncx as ux
    ml = {"E": ml_dtypes.bfloat16, "4": ml_dtypes.float8_e4m3fn, "5": ml_dtypes.float8_e5m2}
    for a in table.TYPE_CHARS:
        for b in table.TYPE_CHARS:
            want = bool(np.can_cast(ml.get(a, a), ml.get(b, b), "safe"))
            assert table.safe_cast(a, b) == want, (a, b)
            assert ux.can_cast(np.dtype(ml.get(a, a)), np.dtype(ml.get(b, b)), "safe") == want, (a, b)


def test_loop_files_are_named_after_their_families():
    # One scalar file per family, one SIMD file per family with Highway
    # bodies, in the table's order; a family named nowhere gets no file.
    t = table.parse_table({"ufunc": [
        dict(entry()["ufunc"][0], name="f", family="one"),
        dict(entry()["ufunc"][0], name="g", family="two", loop=[
            {"types": ["ff->f"], "op": "Add", "simd": [{"op": "Add", "types": "f"}]}]),
        dict(entry()["ufunc"][0], name="h", family="one")]})
    from tools.ufuncgen import ufuncgen
    assert ufuncgen.output_names(t) == ["generated_ops.h", "loops_one.cc", "loops_two.cc",
                                        "simd_two.cc", "registry_gen.cc"]
    builtin = ufuncgen.output_names(table.load_table(str(ROOT / "ufuncs" / "ufuncs.toml")))
    assert "loops_arithmetic.cc" in builtin and "simd_arithmetic.cc" in builtin
    assert not any(n.startswith("loops_loops") for n in builtin)  # every built-in has a family


def test_misspelled_keys_are_named_where_they_are():
    from tools.ufuncgen import table as tbl
    bad_loop = {"ufunc": [{"name": "f", "nin": 1, "nout": 1, "doc": "x",
                           "loop": [{"types": ["d->d"], "expresion": "x + 1"}]}]}
    with pytest.raises(tbl.TableError, match=r"ufunc\[0\]\(f\)\.loop\[0\]\.expresion: unknown key "
                                             r"\(did you mean 'expr'\?\)"):
        tbl.parse_table(bad_loop)
    bad_simd = {"ufunc": [{"name": "f", "nin": 1, "nout": 1, "doc": "x",
                           "loop": [{"types": ["d->d"], "op": "Neg",
                                     "simd": [{"op": "Neg", "typse": "d"}]}]}]}
    with pytest.raises(tbl.TableError, match=r"simd\[0\]\.typse: unknown key \(did you mean 'types'\?\)"):
        tbl.parse_table(bad_simd)
    with pytest.raises(tbl.TableError, match=r"ufunc\[0\]\(f\)\.nim: unknown key \(did you mean 'nin'\?\)"):
        tbl.parse_table({"ufunc": [{"name": "f", "nim": 1, "nout": 1, "doc": "x", "loop": []}]})


def test_codegen_version_jobs_and_progress(tmp_path):
    import subprocess
    import sys
    import ufuncx
    r = subprocess.run([sys.executable, "-m", "ufuncx.codegen", "--version"], capture_output=True,
                       text=True, check=True)
    assert r.stdout.strip() == f"ufuncx-codegen {ufuncx.__version__}"
    r = subprocess.run([sys.executable, "-m", "ufuncx.codegen", "--help"], capture_output=True,
                       text=True, check=True)
    assert "-j JOBS, --jobs JOBS" in r.stdout and "-v, --verbose" in r.stdout
    r = subprocess.run([sys.executable, "-m", "ufuncx.codegen", "--format-doc"],
                       capture_output=True, text=True, check=True)
    with open(r.stdout.strip()) as f:  # the reference ships with the tool
        assert f.read().startswith("# The ufunc table format")


def test_line_directives_point_at_the_table(tmp_path):
    from tools.ufuncgen import table as tbl
    from tools.ufuncgen.ufuncgen import generate
    toml = tmp_path / "k.toml"
    toml.write_text('plugin = "k"\n\n[[ufunc]]\nname = "f"\nnin = 1\nnout = 1\ndoc = "x"\n\n'
                    '[[ufunc.loop]]\ntypes = ["d->d"]\nexpr = "a + T(1)"\n'
                    'simd = [{ types = "d", expr = \'hn::Add(a, hn::Set(d, 1))\' }]\n')
    t = tbl.load_table(str(toml))
    generate(t, str(tmp_path / "out"), "k.toml", "k", table_dir=str(tmp_path))
    for name, expr, line in (("generated_ops.h", "return a + T(1);", 11),
                             ("simd_loops.cc", "return hn::Add(a, hn::Set(d, 1));", 12)):
        text = (tmp_path / "out" / name).read_text().split("\n")
        i = next(k for k, s in enumerate(text) if s.strip() == expr)
        assert text[i - 1] == f'#line {line} "{toml}"'
        # and back to the generated file, numbered as it really is
        assert text[i + 1] == f'#line {i + 3} "{name}"'


def test_a_kernel_that_does_not_compile_is_reported_at_its_table_line(tmp_path):
    import subprocess
    import sys
    toml = tmp_path / "k.toml"
    toml.write_text('plugin = "k"\n\n[[ufunc]]\nname = "f"\nnin = 1\nnout = 1\ndoc = "x"\n\n'
                    '[[ufunc.loop]]\ntypes = ["d->d"]\nexpr = "a + not_a_function(a)"\n')
    r = subprocess.run([sys.executable, "-m", "ufuncx.codegen", str(toml), "-o",
                        str(tmp_path / "out"), "--build", "-j", "1"],
                       capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 1
    assert f"{toml}:11:" in r.stderr and "not_a_function" in r.stderr
    assert "ufuncx-codegen: configure (cmake): done in" in r.stderr
    assert "ufuncx-codegen: error: the plugin build failed" in r.stderr
    r = subprocess.run([sys.executable, "-m", "ufuncx.codegen", str(toml), "-o",
                        str(tmp_path / "out"), "--build", "-v"],
                       capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 1 and r.stdout == ""  # -v output goes to stderr, stdout is the path
    assert f"{toml}:11:" in r.stderr
