// Adapters between ufuncx arrays and Eigen: a strided 1-D or 2-D ArrayView
// seen as an Eigen::Map (no copy), and an Eigen matrix copied into an Array.
#pragma once

#include <Eigen/Core>

#include "ufuncx/array.h"
#include "ufuncx/error.h"
#include "ufuncx/scalar.h"

namespace ufuncx {

template <class T>
inline constexpr DType kDTypeOf = [] {
  DType result = DType::kFloat64;
  for (int i = 0; i < kNumDTypes; ++i) {
    VisitDType(static_cast<DType>(i), [&](auto tag) {
      if constexpr (std::is_same_v<typename decltype(tag)::type, T>) {
        result = static_cast<DType>(i);
      }
      return 0;
    });
  }
  return result;
}();

template <class T>
using EigenStridedMap =
    Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>, Eigen::Unaligned,
               Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>>;

// A 0-, 1- or 2-D view as a row-major Eigen map with the view's strides
// (a 1-D view is one row). Throws TypeError when T is not the view's dtype
// and ValueError for higher ranks or strides that are not whole elements.
template <class T>
EigenStridedMap<T> AsEigen(const ArrayView& v) {
  if (v.dtype != kDTypeOf<T>) {
    throw TypeError(std::string("AsEigen: view has dtype ") + Name(v.dtype));
  }
  if (v.ndim() > 2) throw ValueError("AsEigen: only 0-, 1- and 2-D views map to Eigen");
  const int64_t item = static_cast<int64_t>(sizeof(T));
  for (int64_t s : v.strides) {
    if (s % item != 0) throw ValueError("AsEigen: strides must be multiples of the item size");
  }
  const int64_t rows = v.ndim() == 2 ? v.shape[0] : 1;
  const int64_t cols = v.ndim() == 0 ? 1 : v.shape[v.ndim() - 1];
  const int64_t inner = v.ndim() == 0 ? 1 : v.strides[v.ndim() - 1] / item;
  const int64_t outer = v.ndim() == 2 ? v.strides[0] / item : cols * inner;
  return EigenStridedMap<T>(reinterpret_cast<T*>(v.data), rows, cols,
                            Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>(outer, inner));
}

// A C-ordered 2-D Array holding a copy of any Eigen expression.
template <class Derived>
Array FromEigen(const Eigen::MatrixBase<Derived>& m) {
  using T = typename Derived::Scalar;
  Array a(kDTypeOf<T>, {static_cast<int64_t>(m.rows()), static_cast<int64_t>(m.cols())});
  AsEigen<T>(a.view()) = m;
  return a;
}

}  // namespace ufuncx
