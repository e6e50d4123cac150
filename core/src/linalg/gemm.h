// Dense matrix products for the generalized ufuncs (internal). The kernels
// are Eigen's GEMM, built once for the baseline ISA and once for AVX2+FMA,
// and chosen at run time from the CPU's features.
#pragma once

#include <cstdint>

#include "ufuncx/scalar.h"

namespace ufuncx::internal {

// o (n x m) = op(a) (n x k) * b (k x m), every matrix given by its data and
// its row and column strides in elements (>= 0); op conjugates a when
// conj_a. T is float, double, complex64 or complex128.
template <class T>
void Gemm(int64_t n, int64_t k, int64_t m, const T* a, int64_t a_r, int64_t a_c, bool conj_a,
          const T* b, int64_t b_r, int64_t b_c, T* o, int64_t o_r, int64_t o_c);

// The instruction set the kernels use on this CPU: "avx2" or "baseline".
const char* GemmTarget();

}  // namespace ufuncx::internal
