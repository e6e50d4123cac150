// Run-time choice between the GEMM builds.
#include "linalg/gemm.h"

namespace ufuncx::internal {
namespace baseline {
template <class T>
void Gemm(int64_t, int64_t, int64_t, const T*, int64_t, int64_t, bool, const T*, int64_t, int64_t,
          T*, int64_t, int64_t);
}
namespace avx2 {
template <class T>
void Gemm(int64_t, int64_t, int64_t, const T*, int64_t, int64_t, bool, const T*, int64_t, int64_t,
          T*, int64_t, int64_t);
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
void GemmOne(int64_t n, int64_t k, int64_t m, const T* a, int64_t a_r, int64_t a_c, bool conj_a,
             const T* b, int64_t b_r, int64_t b_c, T* o, int64_t o_r, int64_t o_c) {
#if defined(UFX_GEMM_AVX2)
  if (UseAvx2()) return avx2::Gemm<T>(n, k, m, a, a_r, a_c, conj_a, b, b_r, b_c, o, o_r, o_c);
#endif
  baseline::Gemm<T>(n, k, m, a, a_r, a_c, conj_a, b, b_r, b_c, o, o_r, o_c);
}

template <class T>
void Gemm(int64_t n, int64_t k, int64_t m, const T* a, int64_t a_r, int64_t a_c, bool conj_a,
          const T* b, int64_t b_r, int64_t b_c, T* o, int64_t o_r, int64_t o_c) {
  // One thread: splitting rows over this machine's two cores measured slower
  // (benchmarks/reduce.py), so the product runs where it is called.
  GemmOne<T>(n, k, m, a, a_r, a_c, conj_a, b, b_r, b_c, o, o_r, o_c);
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
