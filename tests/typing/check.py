"""Type-checks tests/typing against the installed ufuncx package and its
stubs, with mypy --strict and pyright: good.py must pass (and run), and in
bad.py every line marked `# E:` must be reported, and no other line. Then
mypy.stubtest compares the stubs with the runtime objects (signatures,
names, __all__), with the meant differences in stubtest-allowlist.txt."""
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
CHECKERS = {
    "mypy": ([sys.executable, "-m", "mypy", "--strict", "--no-incremental",
              "--cache-dir=/dev/null", "--no-error-summary"], r"bad\.py:(\d+): error"),
    "pyright": ([sys.executable, "-m", "pyright", "--pythonpath", sys.executable],
                r"bad\.py:(\d+):\d+ - error"),
}


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True, cwd="/tmp")
    return r.returncode, r.stdout + r.stderr


def main():
    failed = []
    rc, out = run([sys.executable, str(HERE / "good.py")])  # the stubs describe what runs
    if rc != 0:
        failed.append(f"good.py does not run:\n{out}")
    lines = (HERE / "bad.py").read_text().splitlines()
    want = {i + 1 for i, line in enumerate(lines) if "# E:" in line}
    for name, (cmd, pattern) in CHECKERS.items():
        before = len(failed)
        rc, out = run(cmd + [str(HERE / "good.py")])
        if rc != 0:
            failed.append(f"{name} rejected good.py:\n{out}")
        rc, out = run(cmd + [str(HERE / "bad.py")])
        got = {int(m.group(1)) for m in re.finditer(pattern, out)}
        if rc == 0 or got != want:
            failed.append(f"{name} on bad.py: expected errors on lines {sorted(want)}, "
                          f"got {sorted(got)}\n{out}")
        print(f"typing: {name}: {'FAILED' if len(failed) > before else 'good.py passes, every marked line of bad.py fails'}")
    rc, out = run([sys.executable, "-m", "mypy.stubtest", "ufuncx", "--allowlist",
                   str(HERE / "stubtest-allowlist.txt")])
    if rc != 0:
        failed.append(f"stubtest: the stubs and the runtime differ:\n{out}")
    print(f"typing: stubtest: {'FAILED' if rc else 'the stubs match the runtime'}")
    for f in failed:
        print(f)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
