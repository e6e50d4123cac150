"""Runs the plugin checks (plugin_checks.py) in a child pytest process: the
plugins they load must not leak into the other tests' registry."""
import pathlib
import subprocess
import sys


def test_plugin_checks_in_a_child_process():
    here = pathlib.Path(__file__).resolve().parent
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        "plugin_checks.py"], cwd=here, capture_output=True, text=True)
    print(r.stdout[-20000:], r.stderr[-5000:])
    assert r.returncode == 0, "plugin checks failed (output above)"
    assert " passed" in r.stdout and "failed" not in r.stdout
