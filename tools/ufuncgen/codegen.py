"""ufuncx-codegen: new ufuncs and new overloads from your own table.

    ufuncx-codegen my_table.toml -o build/my_plugin --build   # sources + CMake project, compiled
    ufuncx-codegen my_table.toml --check                      # validate only
    ufuncx-codegen --emit generic-ufunc [my_table.toml]       # npcomp numpy.generic_ufunc text

The table has the format of ufuncx's own ufuncs/ufuncs.toml, documented in
table-format.md (installed next to this tool: ufuncx-codegen --format-doc
prints its path).
A plugin table adds `plugin = "name"` (or pass --name), may list `includes`
(headers with kernel structs, found next to the table), and marks entries
that add loops to an existing ufunc with `overload = true`.

The output directory receives the C++ sources and a CMakeLists.txt that
builds the plugin library against the installed ufuncx package; --build
runs CMake and prints the library's path. Load it with
ufuncx.load_plugin(path) or ufuncx::LoadPlugin(path).
"""
from __future__ import annotations

import argparse
import glob
import os
import re
import subprocess
import sys
import time

from . import table as tbl
from .ufuncgen import generate

# ---------------------------------------------------------------- generic_ufunc

MLIR_TYPE = {
    "?": "i1", "b": "si8", "B": "ui8", "h": "si16", "H": "ui16", "i": "si32", "I": "ui32",
    "l": "si64", "L": "ui64", "4": "f8E4M3FN", "5": "f8E5M2", "e": "f16", "E": "bf16", "f": "f32", "d": "f64", "g": "f80",
    "F": "complex<f32>", "D": "complex<f64>", "G": "complex<f80>",
}


def _kind(c):
    if c == "?":
        return "bool"
    if c in "bhil":
        return "sint"
    if c in "BHIL":
        return "uint"
    if c in "45eEfdg":
        return "float"
    return "complex"


# Simple kernels as one MLIR op per (op, operand kind); others become calls.
_BINARY = {
    "Add": {"sint": "arith.addi", "uint": "arith.addi", "float": "arith.addf", "complex": "complex.add"},
    "Subtract": {"sint": "arith.subi", "uint": "arith.subi", "float": "arith.subf", "complex": "complex.sub"},
    "Multiply": {"sint": "arith.muli", "uint": "arith.muli", "float": "arith.mulf", "complex": "complex.mul"},
    "Divide": {"float": "arith.divf", "complex": "complex.div"},
    "LogicalOr": {"bool": "arith.ori"},
    "LogicalAnd": {"bool": "arith.andi"},
    "LogicalXor": {"bool": "arith.xori"},
    "BitwiseAnd": {"bool": "arith.andi", "sint": "arith.andi", "uint": "arith.andi"},
    "BitwiseOr": {"bool": "arith.ori", "sint": "arith.ori", "uint": "arith.ori"},
    "BitwiseXor": {"bool": "arith.xori", "sint": "arith.xori", "uint": "arith.xori"},
    "Maximum": {"sint": "arith.maxsi", "uint": "arith.maxui", "float": "arith.maximumf"},
    "Minimum": {"sint": "arith.minsi", "uint": "arith.minui", "float": "arith.minimumf"},
    "Fmax": {"sint": "arith.maxsi", "uint": "arith.maxui", "float": "arith.maxnumf"},
    "Fmin": {"sint": "arith.minsi", "uint": "arith.minui", "float": "arith.minnumf"},
}
_UNARY = {
    "Sqrt": {"float": "math.sqrt", "complex": "complex.sqrt"},
    "Exp": {"float": "math.exp", "complex": "complex.exp"},
    "Log": {"float": "math.log", "complex": "complex.log"},
    "Negative": {"float": "arith.negf", "complex": "complex.neg"},
}
_COMPARE = {"Equal": ("eq", "oeq"), "NotEqual": ("ne", "une"), "Less": ("lt", "olt"),
            "LessEqual": ("le", "ole"), "Greater": ("gt", "ogt"), "GreaterEqual": ("ge", "oge")}


def _body(entry, op, ins, outs):
    args = [f"%arg{i}" for i in range(len(ins))]
    same = len(set(ins)) == 1
    k = _kind(ins[0])
    t_in = MLIR_TYPE[ins[0]]
    if same and len(outs) == 1:
        if len(ins) == 2 and outs == ins[0] and k in _BINARY.get(op, {}):
            return [f"%0 = {_BINARY[op][k]} {args[0]}, {args[1]} : {t_in}"], ["%0"]
        if len(ins) == 1 and outs == ins[0] and k in _UNARY.get(op, {}):
            return [f"%0 = {_UNARY[op][k]} {args[0]} : {t_in}"], ["%0"]
        if len(ins) == 2 and outs == "?" and op in _COMPARE and k in ("sint", "uint", "float"):
            i_pred, f_pred = _COMPARE[op]
            if k == "float":
                return [f"%0 = arith.cmpf {f_pred}, {args[0]}, {args[1]} : {t_in}"], ["%0"]
            pred = i_pred if i_pred in ("eq", "ne") else ("s" if k == "sint" else "u") + i_pred
            return [f"%0 = arith.cmpi {pred}, {args[0]}, {args[1]} : {t_in}"], ["%0"]
    sym = f"@ufuncx.{entry.name}.{ins}_{outs}"
    in_t = ", ".join(MLIR_TYPE[c] for c in ins)
    call_args = ", ".join(args)
    if len(outs) == 1:
        return [f"%0 = func.call {sym}({call_args}) : ({in_t}) -> {MLIR_TYPE[outs]}"], ["%0"]
    out_t = ", ".join(MLIR_TYPE[c] for c in outs)
    return ([f"%r:{len(outs)} = func.call {sym}({call_args}) : ({in_t}) -> ({out_t})"],
            [f"%r#{i}" for i in range(len(outs))])


def emit_generic_ufunc(entries, module="ufuncx"):
    """The npcomp `numpy.generic_ufunc` module text: one op per ufunc (sorted
    by name), one overload per loop in resolution order."""
    lines = [f"module @{module}_generic_ufuncs {{"]
    for e in sorted(entries, key=lambda e: e.name):
        if e.signature:
            continue  # generalized ufuncs are not elementwise overload sets
        overloads = []
        for g in e.loops:
            op = g.op or f"Expr_{e.name}"
            for sig in g.types:
                ins, outs = sig.split("->")
                params = ", ".join(f"%arg{i}: {MLIR_TYPE[c]}" for i, c in enumerate(ins))
                results = ", ".join(MLIR_TYPE[c] for c in outs)
                results = f"({results})" if len(outs) > 1 else results
                body, vals = _body(e, op, ins, outs)
                ret_t = ", ".join(MLIR_TYPE[c] for c in outs)
                text = [f"overload({params}) -> {results} {{"]
                text += [f"      {line}" for line in body]
                text += [f"      numpy.ufunc_return {', '.join(vals)} : {ret_t}", "    }"]
                overloads.append("\n".join(text))
        lines.append(f"  numpy.generic_ufunc @numpy.{e.name}(" + ", ".join(overloads) + ")")
    lines.append("}")
    return "\n".join(lines) + "\n"


# -------------------------------------------------------------------------- CLI

def _installed_cmake_dir():
    """The CMake package that ships inside the installed Python package (or,
    for an in-tree build, the build directory holding the module)."""
    pkg = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for d in (os.path.join(pkg, "lib", "cmake", "ufuncx"), os.path.join(pkg, "..", "..")):
        if os.path.isfile(os.path.join(d, "ufuncxConfig.cmake")):
            return os.path.abspath(d)
    return None


def _builtin_table():
    here = os.path.dirname(os.path.abspath(__file__))
    for cand in (os.path.join(here, "ufuncs.toml"),
                 os.path.join(here, "..", "..", "ufuncs", "ufuncs.toml")):
        if os.path.isfile(cand):
            return cand
    raise FileNotFoundError("the built-in table ufuncs.toml is not installed")


def _version():
    """ufuncx's version: the installed package's, else the source tree's."""
    try:
        from .. import __version__  # the codegen tool inside the ufuncx package
        return __version__
    except (ImportError, ValueError):
        here = os.path.dirname(os.path.abspath(__file__))
        with open(os.path.join(here, "..", "..", "CMakeLists.txt")) as f:
            return re.search(r"project\(ufuncx VERSION ([0-9.]+)", f.read()).group(1)


def _step(what, cmd, verbose):
    """Runs one build step, printing `what` and its elapsed time on stderr;
    the step's own output is shown with -v, or when it fails."""
    print(f"ufuncx-codegen: {what} ...", file=sys.stderr, flush=True)
    t0 = time.monotonic()
    # stdout carries only the library's path (scripts read it): a step's own
    # output goes to stderr with -v.
    r = subprocess.run(cmd, stdout=sys.stderr if verbose else subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        if not verbose:
            sys.stderr.write(r.stdout)
        raise subprocess.CalledProcessError(r.returncode, cmd)
    print(f"ufuncx-codegen: {what}: done in {time.monotonic() - t0:.1f} s", file=sys.stderr,
          flush=True)


def build(out_dir, name, ufuncx_dir=None, jobs=None, verbose=False):
    """Configures and builds the generated project; returns the library path."""
    bdir = os.path.join(out_dir, "build")
    cmd = ["cmake", "-S", out_dir, "-B", bdir, "-DCMAKE_BUILD_TYPE=Release"]
    ufuncx_dir = ufuncx_dir or _installed_cmake_dir()
    if ufuncx_dir:
        cmd.append(f"-Dufuncx_DIR={ufuncx_dir}")
    jobs = jobs or os.cpu_count() or 1
    sources = len(glob.glob(os.path.join(out_dir, "*.cc")))
    _step("configure (cmake)", cmd, verbose)
    build_cmd = ["cmake", "--build", bdir, "-j", str(jobs)] + (["--verbose"] if verbose else [])
    _step(f"compile {sources} files and link {name}.so ({jobs} jobs)", build_cmd, verbose)
    libs = glob.glob(os.path.join(bdir, f"{name}.so")) + glob.glob(os.path.join(bdir, "*", f"{name}.so"))
    if not libs:
        raise FileNotFoundError(f"the build did not produce {name}.so under {bdir}")
    return os.path.abspath(libs[0])


def main(argv=None):
    p = argparse.ArgumentParser(prog="ufuncx-codegen", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("table", nargs="?", help="a ufunc table (TOML)")
    p.add_argument("-o", "--out-dir", help="where to write the plugin project")
    p.add_argument("--name", help="plugin name (default: the table's `plugin` key)")
    p.add_argument("--build", action="store_true", help="compile the plugin and print its path")
    p.add_argument("-j", "--jobs", type=int, help="parallel compile jobs (default: every core)")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="show CMake's and the compiler's commands and output")
    p.add_argument("--version", action="version", version=f"ufuncx-codegen {_version()}")
    p.add_argument("--ufuncx-dir", help="directory of ufuncxConfig.cmake (default: the installed one)")
    p.add_argument("--check", action="store_true", help="validate the table only")
    p.add_argument("--cmake-dir", action="store_true",
                   help="print the installed ufuncx CMake package directory (for ufuncx_DIR)")
    p.add_argument("--format-doc", action="store_true",
                   help="print the path of the table format's reference (table-format.md)")
    p.add_argument("--emit", choices=["generic-ufunc"],
                   help="print the table (default: ufuncx's registry) as npcomp numpy.generic_ufunc")
    a = p.parse_args(argv)
    try:
        if a.cmake_dir:
            d = _installed_cmake_dir()
            if not d:
                raise FileNotFoundError("no ufuncx CMake package next to this tool")
            print(d)
            return 0
        if a.format_doc:
            here = os.path.dirname(os.path.abspath(__file__))
            for cand in (os.path.join(here, "table-format.md"),
                         os.path.join(here, "..", "..", "docs", "table-format.md")):
                if os.path.isfile(cand):
                    print(os.path.abspath(cand))
                    return 0
            raise FileNotFoundError("table-format.md is not installed next to ufuncx-codegen")
        if a.emit:
            table = tbl.load_table(a.table or _builtin_table())
            sys.stdout.write(emit_generic_ufunc(table.entries, table.plugin or "ufuncx"))
            return 0
        if not a.table:
            p.error("a table is required (or --emit generic-ufunc)")
        table = tbl.load_table(a.table)
        if a.check:
            print(f"ufuncx-codegen: {a.table}: {len(table.entries)} entries OK")
            return 0
        name = a.name or table.plugin
        if not name:
            raise tbl.TableError(f"{a.table}: no plugin name; add `plugin = \"my_kernels\"` at the "
                                 f"top of the table or pass --name")
        out_dir = a.out_dir or os.path.join(os.getcwd(), f"{name}_plugin")
        generate(table, out_dir, os.path.basename(a.table), name,
                 table_dir=os.path.dirname(os.path.abspath(a.table)))
        if a.build:
            print(build(out_dir, name, a.ufuncx_dir, a.jobs, a.verbose))
        else:
            print(f"ufuncx-codegen: wrote {out_dir} (cmake -S {out_dir} -B {out_dir}/build && "
                  f"cmake --build {out_dir}/build)")
        return 0
    except (tbl.TableError, OSError) as e:
        print(f"ufuncx-codegen: error: {e}", file=sys.stderr)
        return 1
    except subprocess.CalledProcessError as e:
        print(f"ufuncx-codegen: error: the plugin build failed ({' '.join(e.cmd[:2])} ... exited "
              f"with {e.returncode}; the output is above, -v shows every command)", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
