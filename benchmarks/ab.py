"""Before and after in one run: a benchmark script under two builds of ufuncx.

    python benchmarks/ab.py --base /tmp/base_ux [--new DIR] [--rounds 3] \\
        benchmarks/reduce.py --quick

The script runs `rounds` times under each build, alternating (base, new,
base, new, ...), so both see the same machine state. `--base` and `--new`
are directories put first on PYTHONPATH (a `pip install --target` of each
commit, or a build tree's `python/`); without `--new` the ufuncx that
`import ufuncx` finds now is the new one.

Lines that differ only in their numbers are the same row of the script's
output. For each row this prints the script's text with the new build's
numbers, then, per number, the median over the rounds of base -> new,
and the geometric mean of new/base over the row. Read the numbers as the
script defines them (time ratios against NumPy: lower is better; rivals'
time over ufuncx's: higher is better). The last line is the geometric mean
over every row, for scripts whose numbers all point the same way.
"""
from __future__ import annotations

import argparse
import math
import os
import re
import statistics
import subprocess
import sys

# A number standing alone or with a unit after it ("1.92x", "0.6 ms").
NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?:e[-+]?\d+)?(?![\d.])")


def run(script_args, path):
    env = dict(os.environ)
    if path:
        env["PYTHONPATH"] = path + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    out = subprocess.run([sys.executable, *script_args], env=env, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"{' '.join(script_args)} failed under {path or 'the current ufuncx'}:\n"
                 f"{out.stdout[-2000:]}{out.stderr[-4000:]}")
    return out.stdout.splitlines()


def rows(lines):
    """{row key: numbers} for the lines that carry numbers."""
    out = {}
    for line in lines:
        nums = [float(x) for x in NUMBER.findall(line)]
        if nums:
            out.setdefault(NUMBER.sub("#", line), (line, nums))
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--base", required=True, help="PYTHONPATH entry of the baseline ufuncx")
    p.add_argument("--new", default="", help="PYTHONPATH entry of the new ufuncx")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("script", nargs=argparse.REMAINDER, help="the benchmark and its arguments")
    a = p.parse_args()
    if not a.script:
        p.error("give a benchmark script")
    runs = {"base": [], "new": []}
    for _ in range(a.rounds):
        for side, path in (("base", a.base), ("new", a.new)):
            runs[side].append(rows(run(a.script, path)))
    keys = [k for k in runs["new"][0] if all(k in r for side in runs.values() for r in side)]
    all_logs = []
    for k in keys:
        line = runs["new"][0][k][0]
        width = len(runs["new"][0][k][1])
        med = {side: [statistics.median(r[k][1][i] for r in runs[side]) for i in range(width)]
               for side in runs}
        logs = [math.log(n / b) for b, n in zip(med["base"], med["new"]) if b > 0 and n > 0]
        all_logs += logs
        pairs = "  ".join(f"{b:g}->{n:g}" for b, n in zip(med["base"], med["new"]))
        gm = f"{math.exp(statistics.mean(logs)):.3f}" if logs else "-"
        print(f"{line}\n    base->new: {pairs}   new/base {gm}")
    if all_logs:
        print(f"geometric mean of new/base over {len(all_logs)} numbers: "
              f"{math.exp(statistics.mean(all_logs)):.3f}")


if __name__ == "__main__":
    main()
