// Owning arrays, view helpers and the strided copy used by call and scatter.
#include "ufuncx/array.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "cast.h"
#include "iterator.h"
#include "ufuncx/error.h"
#include "ufuncx/memory.h"

namespace ufuncx {

int64_t ShapeSize(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) throw ValueError("negative dimensions are not allowed");
    if (d != 0 && n > INT64_MAX / d) {
      throw ValueError("array is too big; `arr.size * arr.dtype.itemsize` "
                       "is larger than the maximum possible size.");
    }
    n *= d;
  }
  return n;
}

Strides ContiguousStrides(const Shape& shape, size_t itemsize) {
  Strides s(shape.size());
  int64_t step = static_cast<int64_t>(itemsize);
  for (size_t i = shape.size(); i-- > 0;) {
    s[i] = step;
    step *= std::max<int64_t>(shape[i], 1);
  }
  return s;
}

Strides DenseStrides(const Shape& shape, size_t itemsize, const std::vector<int>& inner_first) {
  Strides s(shape.size());
  int64_t step = static_cast<int64_t>(itemsize);
  for (const int axis : inner_first) {
    s[static_cast<size_t>(axis)] = step;
    step *= std::max<int64_t>(shape[static_cast<size_t>(axis)], 1);
  }
  return s;
}

bool ArrayView::IsCContiguous() const {
  int64_t step = static_cast<int64_t>(itemsize());
  for (size_t i = shape.size(); i-- > 0;) {
    if (shape[i] == 0) return true;
    if (shape[i] != 1 && strides[i] != step) return false;
    step *= shape[i];
  }
  return true;
}

bool ArrayView::IsFContiguous() const {
  int64_t step = static_cast<int64_t>(itemsize());
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0) return true;
    if (shape[i] != 1 && strides[i] != step) return false;
    step *= shape[i];
  }
  return true;
}

char* ArrayView::At(const int64_t* index) const {
  char* p = data;
  for (size_t i = 0; i < shape.size(); ++i) p += index[i] * strides[i];
  return p;
}

void ArrayView::ByteExtent(const char** lo, const char** hi) const {
  const char* l = data;
  const char* h = data;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0) {
      *lo = *hi = data;
      return;
    }
    const int64_t span = (shape[i] - 1) * strides[i];
    if (span < 0) l += span; else h += span;
  }
  *lo = l;
  *hi = h + itemsize();
}

bool MayShareMemory(const ArrayView& a, const ArrayView& b) {
  const char *alo, *ahi, *blo, *bhi;
  a.ByteExtent(&alo, &ahi);
  b.ByteExtent(&blo, &bhi);
  if (alo == ahi || blo == bhi) return false;
  return alo < bhi && blo < ahi;
}

Array::Array(DType dtype, Shape shape) {
  const int64_t n = ShapeSize(shape);
  const size_t item = ItemSize(dtype);
  if (n > 0 && static_cast<uint64_t>(n) > (uint64_t{1} << 62) / item) {
    throw ValueError("array is too big");
  }
  const size_t bytes = static_cast<size_t>(n) * item;
  void* p = AllocateBlock(bytes);
  if (p == nullptr) throw ValueError("unable to allocate array");
  buffer_ = std::shared_ptr<char>(static_cast<char*>(p), [bytes](char* q) { FreeBlock(q, bytes); });
  view_.data = buffer_.get();
  view_.dtype = dtype;
  view_.strides = ContiguousStrides(shape, item);
  view_.shape = std::move(shape);
}

Array::Array(DType dtype, Shape shape, const std::vector<int>& inner_first)
    : Array(dtype, shape) {
  if (!inner_first.empty()) view_.strides = DenseStrides(view_.shape, ItemSize(dtype), inner_first);
}

Array Array::Zeros(DType dtype, Shape shape) {
  Array a(dtype, std::move(shape));
  std::memset(a.data(), 0, static_cast<size_t>(a.size()) * ItemSize(dtype));
  return a;
}

Array Array::CopyOf(const ArrayView& view) {
  Array a(view.dtype, view.shape);
  CopyInto(a.view(), view);
  return a;
}

void CopyInto(const ArrayView& dst, const ArrayView& src) {
  internal::CastFn cast = internal::GetCast(src.dtype, dst.dtype);
  const ArrayView ops[2] = {src, dst};
  internal::StridedIteration it(ops, dst.shape);
  it.ForEachInner([&](char* const* ptrs, int64_t n, const int64_t* steps) {
    cast(ptrs[0], steps[0], ptrs[1], steps[1], n);
  });
}

}  // namespace ufuncx
