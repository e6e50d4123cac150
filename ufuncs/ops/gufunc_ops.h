// Core kernels of the generalized ufuncs (matmul, vecdot, matvec, vecmat).
// Each op's Call<A, B, O>(args, core_dims, core_steps) handles one loop
// element: core_dims are the signature's dims in order of first appearance,
// core_steps every operand's core strides in bytes (0 for a missing optional
// dim). float/double and their complex types go through internal::Gemm
// (Eigen) when the strides allow; everything else, and any
// stride, has a plain loop with NumPy's per-type rules (bool: OR of ANDs;
// half: accumulate in float; ints: wrap-around).
#pragma once

#include <complex>
#include <cstdint>
#include <type_traits>

#include "linalg/gemm.h"
#include "ops/scalar_ops.h"
#include "ufuncx/scalar.h"

namespace ufuncx::ops {

template <class T>
inline constexpr bool kGemmKernel =
    std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, complex64> ||
    std::is_same_v<T, complex128>;

// sum(conj?(a[i]) * b[i]) over n elements.
template <class T, bool kConjA>
inline T Dot(const char* a, int64_t sa, const char* b, int64_t sb, int64_t n) {
  if constexpr (std::is_same_v<T, bool>) {
    for (int64_t i = 0; i < n; ++i) {
      if (LoadElem<bool>(a + i * sa) && LoadElem<bool>(b + i * sb)) return true;
    }
    return false;
  } else if constexpr (kIsHalf<T>) {
    float s = 0;
    for (int64_t i = 0; i < n; ++i) {
      s += static_cast<float>(LoadElem<T>(a + i * sa)) * static_cast<float>(LoadElem<T>(b + i * sb));
    }
    return static_cast<T>(s);
  } else if constexpr (kIsInt<T>) {
    T s = 0;
    for (int64_t i = 0; i < n; ++i) {
      s = WrapAdd(s, WrapMul(LoadElem<T>(a + i * sa), LoadElem<T>(b + i * sb)));
    }
    return s;
  } else if constexpr (kIsComplex<T>) {
    using R = typename T::value_type;
    R sr = 0, si = 0;
    for (int64_t i = 0; i < n; ++i) {
      const T x = LoadElem<T>(a + i * sa), y = LoadElem<T>(b + i * sb);
      const R xr = x.real(), xi = kConjA ? -x.imag() : x.imag();
      sr += xr * y.real() - xi * y.imag();
      si += xr * y.imag() + xi * y.real();
    }
    return T(sr, si);
  } else {
    T s = 0;
    for (int64_t i = 0; i < n; ++i) s += LoadElem<T>(a + i * sa) * LoadElem<T>(b + i * sb);
    return s;
  }
}

// The GEMM kernels need element strides >= 0 (a dim of extent 1 may have
// any) and elements aligned to their real type.
template <class T>
struct RealType { using type = T; };
template <class R>
struct RealType<std::complex<R>> { using type = R; };

template <class T>
inline bool Mappable(std::initializer_list<std::pair<int64_t, int64_t>> stride_extent,
                     const char* base) {
  using R = typename RealType<T>::type;
  if (reinterpret_cast<uintptr_t>(base) % alignof(R) != 0) return false;
  for (auto [s, n] : stride_extent) {
    if (n > 1 && (s < 0 || s % static_cast<int64_t>(sizeof(T)) != 0)) return false;
  }
  return true;
}

// Element stride of a dim (any value for extent <= 1).
template <class T>
inline int64_t Elems(int64_t bytes, int64_t extent) {
  return extent > 1 ? bytes / static_cast<int64_t>(sizeof(T)) : 0;
}

// o = op(a) * b with byte strides, through internal::Gemm.
template <class T>
inline void GemmBytes(int64_t n, int64_t k, int64_t m, const char* a, int64_t a_r, int64_t a_c,
                      bool conj_a, const char* b, int64_t b_r, int64_t b_c, char* o, int64_t o_r,
                      int64_t o_c) {
  internal::Gemm<T>(n, k, m, reinterpret_cast<const T*>(a), Elems<T>(a_r, n), Elems<T>(a_c, k),
                    conj_a, reinterpret_cast<const T*>(b), Elems<T>(b_r, k), Elems<T>(b_c, m),
                    reinterpret_cast<T*>(o), Elems<T>(o_r, n), Elems<T>(o_c, m));
}

// (n?,k),(k,m?)->(n?,m?); dims n, k, m; steps a_n a_k b_k b_m o_n o_m.
struct MatMul {
  template <class A, class B, class O>
  static void Call(char* const* args, const int64_t* dims, const int64_t* st) {
    static_assert(std::is_same_v<A, B> && std::is_same_v<A, O>);
    const int64_t n = dims[0], k = dims[1], m = dims[2];
    if constexpr (kGemmKernel<A>) {
      if (Mappable<A>({{st[0], n}, {st[1], k}}, args[0]) &&
          Mappable<A>({{st[2], k}, {st[3], m}}, args[1]) &&
          Mappable<A>({{st[4], n}, {st[5], m}}, args[2])) {
        GemmBytes<A>(n, k, m, args[0], st[0], st[1], false, args[1], st[2], st[3], args[2], st[4],
                     st[5]);
        return;
      }
    }
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < m; ++j) {
        StoreElem(args[2] + i * st[4] + j * st[5],
                  Dot<A, false>(args[0] + i * st[0], st[1], args[1] + j * st[3], st[2], k));
      }
    }
  }
};

// (n),(n)->(); the first argument is conjugated.
struct VecDot {
  template <class A, class B, class O>
  static void Call(char* const* args, const int64_t* dims, const int64_t* st) {
    static_assert(std::is_same_v<A, B> && std::is_same_v<A, O>);
    const int64_t n = dims[0];
    if constexpr (kGemmKernel<A>) {
      if (Mappable<A>({{st[0], n}}, args[0]) && Mappable<A>({{st[1], n}}, args[1])) {
        GemmBytes<A>(1, n, 1, args[0], 0, st[0], true, args[1], st[1], 0, args[2], 0, 0);
        return;
      }
    }
    StoreElem(args[2], Dot<A, true>(args[0], st[0], args[1], st[1], n));
  }
};

// (m,n),(n)->(m); dims m, n; steps A_m A_n x_n o_m.
struct MatVec {
  template <class A, class B, class O>
  static void Call(char* const* args, const int64_t* dims, const int64_t* st) {
    static_assert(std::is_same_v<A, B> && std::is_same_v<A, O>);
    const int64_t m = dims[0], n = dims[1];
    if constexpr (kGemmKernel<A>) {
      if (Mappable<A>({{st[0], m}, {st[1], n}}, args[0]) && Mappable<A>({{st[2], n}}, args[1]) &&
          Mappable<A>({{st[3], m}}, args[2])) {
        GemmBytes<A>(m, n, 1, args[0], st[0], st[1], false, args[1], st[2], 0, args[2], st[3], 0);
        return;
      }
    }
    for (int64_t i = 0; i < m; ++i) {
      StoreElem(args[2] + i * st[3], Dot<A, false>(args[0] + i * st[0], st[1], args[1], st[2], n));
    }
  }
};

// (n),(n,m)->(m); dims n, m; steps v_n A_n A_m o_m; the vector is conjugated.
struct VecMat {
  template <class A, class B, class O>
  static void Call(char* const* args, const int64_t* dims, const int64_t* st) {
    static_assert(std::is_same_v<A, B> && std::is_same_v<A, O>);
    const int64_t n = dims[0], m = dims[1];
    if constexpr (kGemmKernel<A>) {
      if (Mappable<A>({{st[0], n}}, args[0]) && Mappable<A>({{st[1], n}, {st[2], m}}, args[1]) &&
          Mappable<A>({{st[3], m}}, args[2])) {
        GemmBytes<A>(1, n, m, args[0], 0, st[0], true, args[1], st[1], st[2], args[2], 0, st[3]);
        return;
      }
    }
    for (int64_t j = 0; j < m; ++j) {
      StoreElem(args[2] + j * st[3], Dot<A, true>(args[0], st[0], args[1] + j * st[2], st[1], n));
    }
  }
};

}  // namespace ufuncx::ops

namespace ufuncx::drivers {

// The gufunc slot: dims[0] loop elements, then the core dims; steps: one
// loop step per operand, then the core strides.
template <class Op, class... T>
int Gufunc(const LoopContext&, char* const* args, const int64_t* dims, const int64_t* steps,
           void*) noexcept {
  constexpr int kN = sizeof...(T);
  char* p[kN];
  for (int k = 0; k < kN; ++k) p[k] = args[k];
  for (int64_t i = 0; i < dims[0]; ++i) {
    Op::template Call<T...>(p, dims + 1, steps + kN);
    for (int k = 0; k < kN; ++k) p[k] += steps[k];
  }
  return 0;
}

}  // namespace ufuncx::drivers
