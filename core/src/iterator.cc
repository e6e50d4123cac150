#include "iterator.h"

#include <algorithm>
#include <cstdlib>
#include <numeric>

#include "ufuncx/error.h"

namespace ufuncx::internal {

int NormalizeAxis(int64_t axis, int ndim) {
  if (axis < -ndim || axis >= ndim) {
    throw AxisError("axis " + std::to_string(axis) + " is out of bounds for array of dimension " +
                    std::to_string(ndim));
  }
  return static_cast<int>(axis < 0 ? axis + ndim : axis);
}

std::string ListString(const std::vector<int64_t>& v) {
  std::string r = "[";
  for (size_t i = 0; i < v.size(); ++i) r += (i ? ", " : "") + std::to_string(v[i]);
  return r + "]";
}

std::string ShapeString(const Shape& s) {
  std::string r = "(";
  for (size_t i = 0; i < s.size(); ++i) {
    if (i) r += ",";
    r += std::to_string(s[i]);
  }
  if (s.size() == 1) r += ",";
  return r + ")";
}

Shape BroadcastShapes(std::span<const Shape* const> shapes) {
  size_t nd = 0;
  for (const Shape* s : shapes) nd = std::max(nd, s->size());
  Shape out(nd, 1);
  for (const Shape* s : shapes) {
    const size_t off = nd - s->size();
    for (size_t i = 0; i < s->size(); ++i) {
      const int64_t d = (*s)[i];
      int64_t& o = out[off + i];
      if (d == o || d == 1) continue;
      if (o == 1) {
        o = d;
        continue;
      }
      std::string msg = "operands could not be broadcast together with shapes";
      for (const Shape* t : shapes) {
        msg += ' ';
        msg += ShapeString(*t);
      }
      msg += ' ';
      throw ValueError(msg);
    }
  }
  return out;
}

ArrayView BroadcastTo(const ArrayView& v, const Shape& shape) {
  ArrayView out = v;
  out.strides = BroadcastStrides(v, shape);
  out.shape = shape;
  return out;
}

Strides BroadcastStrides(const ArrayView& v, const Shape& shape) {
  const size_t nd = shape.size();
  if (v.shape.size() > nd) {
    throw ValueError("cannot broadcast shape " + ShapeString(v.shape) +
                     " to " + ShapeString(shape));
  }
  Strides s(nd, 0);
  const size_t off = nd - v.shape.size();
  for (size_t i = 0; i < v.shape.size(); ++i) {
    if (v.shape[i] == shape[off + i]) {
      s[off + i] = shape[off + i] == 1 ? 0 : v.strides[i];
    } else if (v.shape[i] != 1) {
      throw ValueError("cannot broadcast shape " + ShapeString(v.shape) +
                       " to " + ShapeString(shape));
    }
  }
  return s;
}

StridedIteration::StridedIteration(std::span<const ArrayView> operands,
                                   const Shape& shape, bool flip_negative)
    : nop_(static_cast<int>(operands.size())), size_(ShapeSize(shape)) {
  std::vector<Strides> full(nop_);
  for (int k = 0; k < nop_; ++k) {
    full[k] = BroadcastStrides(operands[k], shape);
    base_.push_back(operands[k].data);
  }
  // Walk a dim backwards when no operand steps forward along it (NumPy's
  // iterator does the same), so reversed views run in memory order and
  // reductions over them add in the same order as over the original.
  for (size_t d = 0; d < shape.size() && flip_negative; ++d) {
    if (shape[d] <= 1) continue;
    bool any_negative = false, any_positive = false;
    for (int k = 0; k < nop_; ++k) {
      any_negative = any_negative || full[k][d] < 0;
      any_positive = any_positive || full[k][d] > 0;
    }
    if (!any_negative || any_positive) continue;
    for (int k = 0; k < nop_; ++k) {
      base_[k] += full[k][d] * (shape[d] - 1);
      full[k][d] = -full[k][d];
    }
  }
  // Keep dims of extent > 1, ordered so the innermost has the smallest
  // strides (the last operand - the output by convention - decides first).
  std::vector<int> dims;
  for (int i = 0; i < static_cast<int>(shape.size()); ++i) {
    if (shape[i] != 1) dims.push_back(i);
  }
  std::stable_sort(dims.begin(), dims.end(), [&](int a, int b) {
    for (int k = nop_ - 1; k >= 0; --k) {
      const int64_t sa = std::llabs(full[k][a]), sb = std::llabs(full[k][b]);
      if (sa == 0 || sb == 0) continue;
      if (sa != sb) return sa > sb;
    }
    return false;
  });
  strides_.assign(nop_, {});
  for (int d : dims) {
    // Merge the stored outer dim with inner dim d when, for every operand,
    // the outer stride equals the inner stride times the inner extent.
    const bool can_merge = !shape_.empty() && [&] {
      for (int k = 0; k < nop_; ++k) {
        if (strides_[k].back() != full[k][d] * shape[d]) return false;
      }
      return true;
    }();
    if (can_merge) {
      shape_.back() *= shape[d];
      for (int k = 0; k < nop_; ++k) strides_[k].back() = full[k][d];
    } else {
      shape_.push_back(shape[d]);
      for (int k = 0; k < nop_; ++k) strides_[k].push_back(full[k][d]);
    }
  }
}

}  // namespace ufuncx::internal
