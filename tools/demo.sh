#!/usr/bin/env bash
# Builds ufuncx and runs the examples from C++ and from Python.
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/setup.sh
ufx_install_deps

echo "== C++ examples"
ufx_build build/demo -DUFX_BUILD_TESTS=OFF
./build/demo/example_call
./build/demo/example_reduce
./build/demo/example_scatter

echo "== Python examples"
ufx_pip_install
(cd /tmp && "$PYTHON" "$OLDPWD/examples/call.py" && "$PYTHON" "$OLDPWD/examples/reduce.py" && "$PYTHON" "$OLDPWD/examples/scatter.py")
