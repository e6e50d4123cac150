// The bounds policy of a scatter (internal): where a start index lands, or
// whether it is dropped or refused. Both index sources ask it - the walker
// for windows of any extent, the index column for one index per update -
// so every plan applies one rule.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "ufuncx/error.h"
#include "ufuncx/scatter.h"

namespace ufuncx::internal {

// NumPy's message; the torch front ends re-word it from the fields.
class ScatterIndexError : public IndexError {
 public:
  ScatterIndexError(int64_t index, int dim, int64_t size)
      : IndexError("index " + std::to_string(index) + " is out of bounds for axis " +
                   std::to_string(dim) + " with size " + std::to_string(size)),
        index(index), dim(dim), size(size) {}
  int64_t index;
  int dim;
  int64_t size;
};

class BoundsPolicy {
 public:
  explicit BoundsPolicy(Bounds mode) : mode_(mode) {}

  Bounds mode() const { return mode_; }
  // Every index is checked before the first write, and a bad one raises.
  bool raises() const { return mode_ == Bounds::kRaise || mode_ == Bounds::kWrapThenRaise; }
  bool wraps() const { return mode_ == Bounds::kWrapThenRaise; }
  bool clips() const { return mode_ == Bounds::kClip; }

  // A negative index wrapped once (NumPy's rule), branch-free.
  int64_t Wrap(int64_t v, int64_t size) const {
    return wraps() ? v + ((v >> 63) & size) : v;
  }

  // A window of extent `ext` starting at `*start` (wrapped) in a dim of
  // `size`. Returns false when the policy drops the whole window; otherwise
  // clamps `*start` (clip) and narrows the kept window offsets [*lo, *hi)
  // (skip-element, where `window_dim` says the dim is one of the window's).
  // Raises ScatterIndexError naming the first position out of range.
  bool Fit(int64_t* start, int64_t size, int64_t ext, bool window_dim, int dim, int64_t* lo,
           int64_t* hi) const {
    const int64_t s = *start;
    if (s >= 0 && s <= size - ext) return true;
    if (raises()) {
      // The first out-of-range position (no overflow for huge starts).
      throw ScatterIndexError(s < 0 || s >= size ? s : s + ext - 1, dim, size);
    }
    if (size < ext) return false;  // a zero-size dim: nothing to clip to
    switch (mode_) {
      case Bounds::kClip:
        *start = std::clamp<int64_t>(s, 0, size - ext);
        return true;
      case Bounds::kSkipWindow:
        return false;
      default:  // kSkipElement, kUnchecked (a broken promise is dropped, never written)
        if (!window_dim || s >= size || s <= -ext) return false;
        // Window offsets w with 0 <= s + w < size, computed without overflow.
        *lo = std::max<int64_t>(*lo, s < 0 ? -s : 0);
        *hi = std::min(*hi, std::min(ext, size - s));
        return *lo < *hi;
    }
  }

  // Fit() for a window of extent 1: the position the (wrapped) index lands
  // at, or -1 when the policy drops it. Under the raise policies it is for
  // indices already checked, so -1 means another thread changed one.
  int64_t Land(int64_t v, int64_t size) const {
    if (static_cast<uint64_t>(v) < static_cast<uint64_t>(size)) return v;
    return clips() && size > 0 ? (v < 0 ? 0 : size - 1) : -1;
  }

 private:
  Bounds mode_;
};

}  // namespace ufuncx::internal
