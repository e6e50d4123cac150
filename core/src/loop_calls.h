// What every driver of loop slots shares: the elementwise call, the reduce
// family and the scatter plans all pick a slot, check the status it
// returns, cast through buffers of one size, walk a where= mask in runs and
// spell dtypes in messages as NumPy does. Each is written here once.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ufuncx/array.h"
#include "ufuncx/loop.h"

namespace ufuncx::internal {

// Elements per scratch buffer when a driver casts an operand in pieces.
inline constexpr int64_t kBufferElems = 8192;

// NumPy's spelling of a dtype in messages: dtype('float64').
std::string DTypeRepr(DType t);

// Throws NumPy's error for a failure status a loop of ufunc `name` returned
// (nothing for kLoopOk).
void CheckStatus(int status, const char* name);

// The elementwise slot for one call: the contiguous body when every step
// lets it run (`contig`) and the loop has one, else the strided one.
inline LoopFn ElementwiseSlot(const LoopSlots& s, bool contig) {
  return contig && s.contig ? s.contig : s.strided;
}

// Runs one elementwise stretch of n elements (item[k]: operand k's item
// size): the contiguous slot when every step lets it run (the item size, or
// 0 for an input); else, for a loop whose table entry asks for it
// (LoopSlots::gather_strided: a SIMD body that saves more than the copies
// cost, such as rounding or sqrt) and at least kGatherMin elements, the
// contiguous slot on blocks of the strided operands copied through
// scratch; else the strided slot (cheap ops: add, compare, ...). From one
// element (16 until stop 44): the SIMD bodies of the libm-backed loops can
// round the last bit otherwise than the scalar loop, and a result must not
// depend on the layout (float32 exp, sin, log2, ... of 10 elements at step
// 5 differed from the same call on a contiguous copy).
inline constexpr int64_t kGatherMin = 1;
int RunElementwiseSlot(const LoopSlots& s, const LoopContext& ctx, char* const* args, int64_t n,
                       const int64_t* steps, const int64_t* item, int nin, int nargs);

// The reduce slot for an input read at `step` bytes (contiguous when it is
// the item size `item`).
inline LoopFn ReduceSlot(const LoopSlots& s, int64_t step, int64_t item) {
  return step == item && s.reduce_contig ? s.reduce_contig : s.reduce;
}

// n values of T, on the stack up to N of them (per-operand flags and
// pointers of a call, which should not cost an allocation each).
template <class T, size_t N>
class SmallBuffer {
 public:
  SmallBuffer(size_t n, T value) : n_(n), heap_(n > N ? n : 0, value) {
    if (n <= N) std::fill(small_, small_ + n, value);
  }
  T* data() { return n_ <= N ? small_ : heap_.data(); }
  const T* data() const { return n_ <= N ? small_ : heap_.data(); }
  size_t size() const { return n_; }
  T& operator[](size_t i) { return data()[i]; }
  const T& operator[](size_t i) const { return data()[i]; }
  T* begin() { return data(); }
  T* end() { return data() + n_; }
  std::span<const T> span() const { return {data(), n_}; }

 private:
  size_t n_;
  T small_[N];
  std::vector<T> heap_;
};

// The same elements in the same order: data, dtype, shape and strides.
bool SameLayout(const ArrayView& a, const ArrayView& b);

// Whether no two elements of v (with these strides, broadcast ones
// included) share a byte: false for a zero stride, or a stride below the
// item size. (Sufficient, not necessary: false may be a false alarm.)
bool ElementsApart(const ArrayView& v, const Strides& strides);
inline bool ElementsApart(const ArrayView& v) { return ElementsApart(v, v.strides); }

// Calls f(begin, end) for every run of true values among the n bools at
// `mask`, `step` bytes apart, in order (NumPy's masked loops take runs).
template <class F>
void ForEachTrueRun(const char* mask, int64_t step, int64_t n, F&& f) {
  for (int64_t i = 0; i < n;) {
    if (!mask[i * step]) {
      ++i;
      continue;
    }
    int64_t j = i + 1;
    while (j < n && mask[j * step]) ++j;
    f(i, j);
    i = j;
  }
}

}  // namespace ufuncx::internal
