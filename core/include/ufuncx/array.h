// Strided array views and an owning array. Strides are in bytes and may be
// negative or zero; 0-d and zero-size arrays are ordinary cases. Knows nothing
// about ufuncs.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "ufuncx/dtype.h"

namespace ufuncx {

using Shape = std::vector<int64_t>;
using Strides = std::vector<int64_t>;

int64_t ShapeSize(const Shape& shape);  // throws ValueError on overflow
Strides ContiguousStrides(const Shape& shape, size_t itemsize);
// Strides of a dense array whose axes lie in memory in `inner_first` order
// (the innermost axis first; C order is n-1, ..., 0).
Strides DenseStrides(const Shape& shape, size_t itemsize, const std::vector<int>& inner_first);

struct ArrayView {
  char* data = nullptr;
  DType dtype = DType::kFloat64;
  Shape shape;
  Strides strides;  // bytes

  int ndim() const { return static_cast<int>(shape.size()); }
  int64_t size() const { return ShapeSize(shape); }
  size_t itemsize() const { return ItemSize(dtype); }
  bool IsCContiguous() const;
  bool IsFContiguous() const;  // (the first axis varies fastest)
  // Address of the element at a multi-index; no bounds checks.
  char* At(const int64_t* index) const;
  // [lo, hi) bytes touched by the view; lo == hi for zero-size views.
  void ByteExtent(const char** lo, const char** hi) const;
  template <class T>
  T& Ref(std::initializer_list<int64_t> index) const {
    return *reinterpret_cast<T*>(At(std::data(index)));
  }
};

// True when two views may touch a common byte.
bool MayShareMemory(const ArrayView& a, const ArrayView& b);

// Owns a 64-byte aligned buffer (huge-page advised when large) and is a view
// of it. Copies share the buffer, as numpy arrays share a base.
class Array {
 public:
  Array() = default;
  Array(DType dtype, Shape shape);  // uninitialised C-ordered storage
  // Uninitialised dense storage whose axes lie in `inner_first` order
  // (C order when empty).
  Array(DType dtype, Shape shape, const std::vector<int>& inner_first);
  static Array Zeros(DType dtype, Shape shape);
  // A C-ordered copy of any view.
  static Array CopyOf(const ArrayView& view);

  const ArrayView& view() const { return view_; }
  operator const ArrayView&() const { return view_; }
  char* data() const { return view_.data; }
  DType dtype() const { return view_.dtype; }
  const Shape& shape() const { return view_.shape; }
  const Strides& strides() const { return view_.strides; }
  int ndim() const { return view_.ndim(); }
  int64_t size() const { return view_.size(); }
  template <class T>
  T* typed() const {
    return reinterpret_cast<T*>(view_.data);
  }

 private:
  std::shared_ptr<char> buffer_;
  ArrayView view_;
};

// Copies src into dst (same shape after broadcasting src), casting unsafely.
void CopyInto(const ArrayView& dst, const ArrayView& src);

}  // namespace ufuncx
