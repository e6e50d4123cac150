#!/usr/bin/env bash
# Builds ufuncx and runs the examples from C++ and from Python.
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/setup.sh
ufx_install_deps

# One build of the library: the Python wheel, whose CMake package the C++
# examples and the plugin are then built against.
echo "== Building and installing the Python package (pip install .)"
ufx_pip_install
ufuncx_dir=$("$PYTHON" -m ufuncx.codegen --cmake-dir)

echo "== C++ examples (against the installed package)"
cmake -S examples -B build/demo/examples -G Ninja -Dufuncx_DIR="$ufuncx_dir" >/dev/null
cmake --build build/demo/examples -j2 >/dev/null
./build/demo/examples/example_call
./build/demo/examples/example_reduce
./build/demo/examples/example_scatter

echo "== Python examples"
(cd /tmp && "$PYTHON" "$OLDPWD/examples/call.py" && "$PYTHON" "$OLDPWD/examples/reduce.py" && "$PYTHON" "$OLDPWD/examples/scatter.py")

echo "== On a dask.distributed cluster (examples/dask_cluster.py)"
"$PYTHON" -c "import dask.array, distributed" >/dev/null 2>&1 ||
  "$PYTHON" -m pip install -q "dask[array]" distributed
(cd /tmp && "$PYTHON" "$OLDPWD/examples/dask_cluster.py" 2>&1 | grep -v "^\(INFO\|  warnings.warn\)")

echo "== A user's plugin (examples/custom_ufunc): ufuncx-codegen, then Python and C++"
plugin=$("$PYTHON" -m ufuncx.codegen examples/custom_ufunc/kernels.toml -o build/demo/kernels --build)
"$PYTHON" examples/custom_ufunc/use.py "$plugin"
cmake -S examples/custom_ufunc -B build/demo/use -G Ninja -Dufuncx_DIR="$ufuncx_dir" >/dev/null
cmake --build build/demo/use
./build/demo/use/use_plugin "$plugin"
