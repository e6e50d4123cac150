#!/usr/bin/env bash
# Builds and runs every test: C++ (g++, dynamic dispatch; then clang with
# ASan+UBSan, the libFuzzer smoke run and the hostile-call suite), the
# installed-package consumer, and the Python suite against NumPy, PyTorch and
# JAX.
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/setup.sh
ufx_install_deps "${UFX_TEST_APT_PACKAGES[@]}"
ufx_install_oracles
# One compiler name for the CMake builds and the wheel's (scikit-build-core
# configures with g++): ccache keys on it, and the wheel then reuses the
# objects of build/test-release.
export CXX=${CXX:-g++}
# Each step is printed with the seconds since the start, to see where a CI run
# spends its time.
step() { echo "== [$SECONDS s] $*"; }

step "C++ build (Highway dynamic dispatch) and tests"
ufx_build build/test-release -DUFX_BUILD_TESTS=ON -DUFX_BUILD_BENCHMARKS=ON -DUFX_WERROR=OFF
step "  ctest (release)"
ctest --test-dir build/test-release --output-on-failure -j2

step "C++ tests under AddressSanitizer + UBSan with clang (static Highway target),"
echo "   the fuzz corpus replayed and a libFuzzer smoke run"
ufx_build build/test-asan -DCMAKE_CXX_COMPILER=clang++ -DUFX_BUILD_TESTS=ON -DUFX_SANITIZE=ON \
  -DUFX_FUZZ=ON -DUFX_HWY_STATIC_ONLY=ON -DUFX_BUILD_PYTHON=ON -DCMAKE_BUILD_TYPE=None \
  -DCMAKE_CXX_FLAGS=-O1
step "  ctest (ASan + UBSan)"
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build/test-asan --output-on-failure -j2

step "find_package(ufuncx) from an installed tree"
rm -rf build/test-prefix
cmake --install build/test-release --prefix build/test-prefix >/dev/null
cmake -S tests/consumer -B build/test-consumer -G Ninja \
  -DCMAKE_PREFIX_PATH="$PWD/build/test-prefix" >/dev/null
cmake --build build/test-consumer -j2
LD_LIBRARY_PATH="$PWD/build/test-prefix/lib" ./build/test-consumer/consumer

step "Python package: the wheel (pip wheel .), repaired by auditwheel, installed; its tests"
ufx_wheel_install build/wheel
step "  the Python suite"
# Two pytest workers (pytest-xdist): the suite is single-threaded Python
# glue for the most part, so the two cores halve it.
(cd /tmp && "$PYTHON" -m pytest -q -p no:cacheprovider -n 2 "$OLDPWD/tests/python")

step "The repaired wheel in a fresh venv, with the system's Highway hidden"
rm -rf build/wheel/venv
"$PYTHON" -m venv --system-site-packages build/wheel/venv
build/wheel/venv/bin/python -m pip install -q --no-deps --ignore-installed build/wheel/repaired/ufuncx-*.whl
sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"
$sudo unshare -m bash -c '
  set -e
  for f in /usr/lib/x86_64-linux-gnu/libhwy*.so* /lib/x86_64-linux-gnu/libhwy*.so*; do
    if [ -e "$f" ]; then mount --bind /dev/null "$f"; fi
  done
  cd /tmp
  if python3 -c "import ctypes; ctypes.CDLL(\"libhwy.so.1\")" 2>/dev/null; then
    echo "the system libhwy is still loadable"; exit 1
  fi
  venv='"$PWD"'/build/wheel/venv/bin/python
  $venv -c "import ufuncx; assert \"/build/wheel/venv/\" in ufuncx.__file__, ufuncx.__file__"
  for e in call reduce scatter; do $venv '"$PWD"'/examples/$e.py >/dev/null; done
  echo "examples ran from the repaired wheel with libhwy hidden"'

step "The type stubs: mypy --strict and pyright on tests/typing"
"$PYTHON" tests/typing/check.py

step "The documentation site (docs/): Sphinx, warnings as errors, and its doctests"
rm -rf build/docs
(cd /tmp && "$PYTHON" -m sphinx -W --keep-going -q -b html "$OLDPWD/docs" "$OLDPWD/build/docs/html")
(cd /tmp && "$PYTHON" -m sphinx -W --keep-going -q -b doctest "$OLDPWD/docs" "$OLDPWD/build/docs/doctest")
tail -n 4 build/docs/doctest/output.txt

step "NumPy's own test_ufunc.py, test_umath.py, test_umath_accuracy.py, test_umath_complex.py, test_half.py, test_nep50_promotions.py, test_mem_overlap.py, test_errstate.py and test_casting_floatingpoint_errors.py with ufuncx's ufuncs in NumPy's place"
echo "   (tests/numpy_suite: the known failures, object/datetime/string loops, are strict xfail)"
(cd /tmp && PYTHONPATH="$OLDPWD/tests/numpy_suite" "$PYTHON" -m pytest -q -p no:cacheprovider \
  -n 2 -p ufuncx_numpy_shim --pyargs numpy._core.tests.test_ufunc numpy._core.tests.test_umath \
  numpy._core.tests.test_umath_accuracy numpy._core.tests.test_umath_complex \
  numpy._core.tests.test_half numpy._core.tests.test_nep50_promotions \
  numpy._core.tests.test_mem_overlap numpy._core.tests.test_errstate \
  numpy._core.tests.test_casting_floatingpoint_errors)
# The SIMD bodies differ by target (AVX-512's compares, for one, are quiet
# where AVX2's and SSE's are not): on a CPU with AVX-512 the suite runs
# once more held to AVX2, which the machines without it run natively.
if grep -qw avx512f /proc/cpuinfo; then
  echo "   again, held to AVX2 (UFUNCX_SIMD_TARGET=AVX2)"
  (cd /tmp && UFUNCX_SIMD_TARGET=AVX2 PYTHONPATH="$OLDPWD/tests/numpy_suite" "$PYTHON" -m pytest -q \
    -p no:cacheprovider -n 2 -p ufuncx_numpy_shim --pyargs numpy._core.tests.test_ufunc \
    numpy._core.tests.test_umath numpy._core.tests.test_umath_accuracy \
    numpy._core.tests.test_umath_complex numpy._core.tests.test_half \
    numpy._core.tests.test_nep50_promotions numpy._core.tests.test_mem_overlap \
    numpy._core.tests.test_errstate numpy._core.tests.test_casting_floatingpoint_errors)
fi

step "The hostile-call suite against the ASan+UBSan build of the Python module"
asan_runtime=$(clang++ -print-file-name=libclang_rt.asan-x86_64.so)
(cd /tmp && LD_PRELOAD="$asan_runtime" \
  ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  PYTHONPATH="$OLDPWD/build/test-asan/python" \
  "$PYTHON" -m pytest -q -p no:cacheprovider "$OLDPWD/tests/python/test_hostile.py")
step "all tests passed"
