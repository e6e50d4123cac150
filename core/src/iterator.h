// The strided iterator (internal): broadcasts N operands to one shape, drops
// size-1 dims, orders dims by stride, coalesces, and walks the outer index
// space handing one long inner loop at a time to a callback. Knows nothing
// about dtypes or loops.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ufuncx/array.h"

namespace ufuncx::internal {

// NumPy's broadcasting of shapes; throws ValueError naming the shapes.
Shape BroadcastShapes(std::span<const Shape* const> shapes);
std::string ShapeString(const Shape& s);
// A list of ints as Python prints one: [2, 3].
std::string ListString(const std::vector<int64_t>& v);
// An axis in [-ndim, ndim) as a non-negative one; NumPy's AxisError else.
int NormalizeAxis(int64_t axis, int ndim);

// Strides of `v` seen as an array of `shape` (zero on broadcast dims).
// Throws ValueError when v does not broadcast to shape.
Strides BroadcastStrides(const ArrayView& v, const Shape& shape);
// v seen as an array of `shape` (NumPy's broadcast_to); throws as above.
ArrayView BroadcastTo(const ArrayView& v, const Shape& shape);

class StridedIteration {
 public:
  // flip_negative: walk dims that no operand steps forward along backwards,
  // in memory order (elementwise work); reductions keep the logical order.
  StridedIteration(std::span<const ArrayView> operands, const Shape& shape,
                   bool flip_negative = true);

  int num_operands() const { return nop_; }
  // Coalesced layout, innermost last; exposed for tests.
  const Shape& shape() const { return shape_; }
  const std::vector<Strides>& strides() const { return strides_; }
  int64_t inner_size() const { return shape_.empty() ? 1 : shape_.back(); }
  int64_t size() const { return size_; }
  // Start of operand k in the walk (after any reversed dims).
  char* base(int k) const { return base_[static_cast<size_t>(k)]; }

  // f(char* const* ptrs, int64_t n, const int64_t* steps) once per inner run.
  template <class F>
  void ForEachInner(F&& f) const {
    if (size_ == 0) return;
    std::vector<char*> ptrs(base_);
    std::vector<int64_t> steps(nop_);
    const int nd = static_cast<int>(shape_.size());
    if (nd == 0) {
      f(ptrs.data(), int64_t{1}, steps.data());
      return;
    }
    for (int k = 0; k < nop_; ++k) steps[k] = strides_[k][nd - 1];
    const int64_t inner = shape_[nd - 1];
    std::vector<int64_t> idx(nd, 0);
    while (true) {
      f(ptrs.data(), inner, steps.data());
      int d = nd - 2;
      for (; d >= 0; --d) {
        if (++idx[d] < shape_[d]) {
          for (int k = 0; k < nop_; ++k) ptrs[k] += strides_[k][d];
          break;
        }
        idx[d] = 0;
        for (int k = 0; k < nop_; ++k) {
          ptrs[k] -= strides_[k][d] * (shape_[d] - 1);
        }
      }
      if (d < 0) return;
    }
  }

 private:
  int nop_;
  int64_t size_;
  Shape shape_;
  std::vector<Strides> strides_;  // per operand
  std::vector<char*> base_;
};

}  // namespace ufuncx::internal
