// Core kernels of the generalized ufuncs (matmul, vecdot, matvec, vecmat).
// Each op's Call<A, B, O>(args, core_dims, core_steps) handles one loop
// element: core_dims are the signature's dims in order of first appearance,
// core_steps every operand's core strides in bytes (0 for a missing optional
// dim). float/double and their complex types go through Eigen's GEMM, GEMV
// and dot kernels when the strides allow a Map; everything else, and any
// stride, has a plain loop with NumPy's per-type rules (bool: OR of ANDs;
// half: accumulate in float; ints: wrap-around).
#pragma once

#include <Eigen/Core>
#include <complex>
#include <cstdint>
#include <type_traits>

#include "ops/scalar_ops.h"
#include "ufuncx/scalar.h"

namespace ufuncx::ops {

template <class T>
inline constexpr bool kEigenKernel =
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

// Eigen maps need element strides >= 0 (a dim of extent 1 may have any).
template <class T>
inline bool Mappable(std::initializer_list<std::pair<int64_t, int64_t>> stride_extent,
                     const char* base) {
  if (reinterpret_cast<uintptr_t>(base) % alignof(typename Eigen::NumTraits<T>::Real) != 0) {
    return false;
  }
  for (auto [s, n] : stride_extent) {
    if (n > 1 && (s <= 0 || s % static_cast<int64_t>(sizeof(T)) != 0)) return false;
  }
  return true;
}

template <class T>
using StridedMat = Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>,
                              Eigen::Unaligned, Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>>;
template <class T>
using ConstStridedMat =
    Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>,
               Eigen::Unaligned, Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>>;

template <class T>
inline int64_t Elems(int64_t bytes, int64_t extent) {
  return extent > 1 ? bytes / static_cast<int64_t>(sizeof(T)) : 1;
}

// A row-major view of an (r, c) matrix with byte strides.
template <class T>
inline ConstStridedMat<T> CMat(const char* p, int64_t r, int64_t c, int64_t sr, int64_t sc) {
  return ConstStridedMat<T>(reinterpret_cast<const T*>(p), r, c,
                            Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>(Elems<T>(sr, r),
                                                                          Elems<T>(sc, c)));
}
template <class T>
inline StridedMat<T> Mat(char* p, int64_t r, int64_t c, int64_t sr, int64_t sc) {
  return StridedMat<T>(reinterpret_cast<T*>(p), r, c,
                       Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>(Elems<T>(sr, r),
                                                                     Elems<T>(sc, c)));
}

// (n?,k),(k,m?)->(n?,m?); dims n, k, m; steps a_n a_k b_k b_m o_n o_m.
struct MatMul {
  template <class A, class B, class O>
  static void Call(char* const* args, const int64_t* dims, const int64_t* st) {
    static_assert(std::is_same_v<A, B> && std::is_same_v<A, O>);
    const int64_t n = dims[0], k = dims[1], m = dims[2];
    if constexpr (kEigenKernel<A>) {
      if (Mappable<A>({{st[0], n}, {st[1], k}}, args[0]) &&
          Mappable<A>({{st[2], k}, {st[3], m}}, args[1]) &&
          Mappable<A>({{st[4], n}, {st[5], m}}, args[2])) {
        Mat<A>(args[2], n, m, st[4], st[5]).noalias() =
            CMat<A>(args[0], n, k, st[0], st[1]) * CMat<A>(args[1], k, m, st[2], st[3]);
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
    if constexpr (kEigenKernel<A>) {
      if (Mappable<A>({{st[0], n}}, args[0]) && Mappable<A>({{st[1], n}}, args[1])) {
        // Eigen's dot conjugates its first operand, as vecdot does.
        StoreElem(args[2], CMat<A>(args[0], n, 1, st[0], 0).col(0).dot(
                               CMat<A>(args[1], n, 1, st[1], 0).col(0)));
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
    if constexpr (kEigenKernel<A>) {
      if (Mappable<A>({{st[0], m}, {st[1], n}}, args[0]) && Mappable<A>({{st[2], n}}, args[1]) &&
          Mappable<A>({{st[3], m}}, args[2])) {
        Mat<A>(args[2], m, 1, st[3], 0).noalias() =
            CMat<A>(args[0], m, n, st[0], st[1]) * CMat<A>(args[1], n, 1, st[2], 0);
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
    if constexpr (kEigenKernel<A>) {
      if (Mappable<A>({{st[0], n}}, args[0]) && Mappable<A>({{st[1], n}, {st[2], m}}, args[1]) &&
          Mappable<A>({{st[3], m}}, args[2])) {
        Mat<A>(args[2], 1, m, 0, st[3]).noalias() =
            CMat<A>(args[0], 1, n, 0, st[0]).conjugate() * CMat<A>(args[1], n, m, st[1], st[2]);
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
