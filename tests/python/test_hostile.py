"""The hostile-caller suite (hostile_cases.py), one child process a case: a
crash (SIGSEGV, SIGBUS, an abort) fails its case and the run goes on."""
import os
import pathlib
import subprocess
import sys

import pytest

import hostile_cases

HERE = pathlib.Path(__file__).resolve().parent


@pytest.mark.parametrize("name", sorted(hostile_cases.CASES))
def test_hostile_call(name):
    env = dict(os.environ, PYTHONPATH=str(HERE) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    if hostile_cases.CASES[name][0] == "memory" and "ASAN_OPTIONS" in env:
        # The memory cases measure what the process holds. AddressSanitizer
        # keeps freed blocks in its quarantine (256 MB by default) to catch
        # late uses, so under it they would measure the quarantine: it is
        # off for these cases only.
        env["ASAN_OPTIONS"] += ":quarantine_size_mb=0"
    proc = subprocess.run([sys.executable, str(HERE / "hostile_cases.py"), name], env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, (
        f"{name}: exit code {proc.returncode}"
        f"{' (killed by signal %d)' % -proc.returncode if proc.returncode < 0 else ''}\n"
        f"{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}")
    assert f"OK {name}" in proc.stdout
