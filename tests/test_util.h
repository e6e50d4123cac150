// Small helpers shared by the C++ tests.
#pragma once

#include <algorithm>
#include <vector>

#include "ufuncx/ufuncx.h"

namespace ufuncx::testing {

// A 1-D array holding v.
template <class T>
Array Vec(DType t, std::vector<T> v) {
  Array a(t, {static_cast<int64_t>(v.size())});
  std::copy(v.begin(), v.end(), a.typed<T>());
  return a;
}

}  // namespace ufuncx::testing
