// Run-time choice between the GEMM builds, and the split of large products
// over the cores.
#include "linalg/gemm.h"

#include "workers.h"

#include <algorithm>
#include <vector>

namespace ufuncx::internal {
namespace baseline {
template <class T>
void Gemm(int64_t, int64_t, int64_t, const T*, int64_t, int64_t, bool, const T*, int64_t, int64_t,
          T*, int64_t, int64_t, int);
}
namespace avx2 {
template <class T>
void Gemm(int64_t, int64_t, int64_t, const T*, int64_t, int64_t, bool, const T*, int64_t, int64_t,
          T*, int64_t, int64_t, int);
}

namespace {
bool UseAvx2() {
#if defined(UFX_GEMM_AVX2)
  static const bool yes = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  }();
  return yes;
#else
  return false;
#endif
}
}  // namespace

const char* GemmTarget() { return UseAvx2() ? "avx2" : "baseline"; }

template <class T>
void Gemm(int64_t n, int64_t k, int64_t m, const T* a, int64_t a_r, int64_t a_c, bool conj_a,
          const T* b, int64_t b_r, int64_t b_c, T* o, int64_t o_r, int64_t o_c) {
  // Large products split a's rows over the cores (as NumPy's BLAS uses
  // them); below ~2^21 multiply-adds a thread costs more than it saves.
  // One piece per core, on the worker pool: a fresh thread cost 2-4% of a
  // 512x512 float32 product (1.50 against 1.47 ms). Pieces claimed as
  // threads free up would ride out a busy core better, but pieces of 128
  // rows cost 3.4% more work and of 64 rows 9%. Right after NumPy's matmul,
  // whose OpenBLAS threads spin on the other core for about 0.1 s, a
  // product takes the one-thread time (2.9 ms) either way.
  const int parts =
      static_cast<int>(std::max<int64_t>(1, std::min({int64_t{internal::Cores()}, n / 64, (n * k * m) >> 21})));
#if defined(UFX_GEMM_AVX2)
  if (UseAvx2()) return avx2::Gemm<T>(n, k, m, a, a_r, a_c, conj_a, b, b_r, b_c, o, o_r, o_c, parts);
#endif
  baseline::Gemm<T>(n, k, m, a, a_r, a_c, conj_a, b, b_r, b_c, o, o_r, o_c, parts);
}

template void Gemm<float>(int64_t, int64_t, int64_t, const float*, int64_t, int64_t, bool,
                          const float*, int64_t, int64_t, float*, int64_t, int64_t);
template void Gemm<double>(int64_t, int64_t, int64_t, const double*, int64_t, int64_t, bool,
                           const double*, int64_t, int64_t, double*, int64_t, int64_t);
template void Gemm<complex64>(int64_t, int64_t, int64_t, const complex64*, int64_t, int64_t, bool,
                              const complex64*, int64_t, int64_t, complex64*, int64_t, int64_t);
template void Gemm<complex128>(int64_t, int64_t, int64_t, const complex128*, int64_t, int64_t,
                               bool, const complex128*, int64_t, int64_t, complex128*, int64_t,
                               int64_t);

}  // namespace ufuncx::internal
