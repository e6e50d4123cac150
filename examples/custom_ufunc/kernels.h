// Kernel structs for kernels.toml. The generated code calls
// ufuncx::ops::NAME::Call(inputs...) -> output, or, for several outputs,
// Call(inputs..., outputs&...).
#pragma once

#include <cmath>

namespace ufuncx::ops {

struct FloatGcd {
  template <class T>
  static T Call(T a, T b) {
    a = std::fabs(a);
    b = std::fabs(b);
    while (b != 0) {
      const T r = std::fmod(a, b);
      a = b;
      b = r;
    }
    return a;
  }
};

struct ArgmaxPair {
  template <class V, class I>
  static void Call(V value, I index, V other, I other_index, V& out_value, I& out_index) {
    const bool take = other > value || (other == value && other_index < index);
    out_value = take ? other : value;
    out_index = take ? other_index : index;
  }
};

}  // namespace ufuncx::ops
