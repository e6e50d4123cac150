// Highway passes over scatter index arrays (dynamic dispatch): the bounds
// check that runs before any write, which also learns what the plans want
// to know about the data (negative indices, runs of equal indices). The
// pass is bound by memory.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "scatter/index_scan.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <algorithm>

#include "scatter/index_scan.h"
#include "simd/hwy_shim-inl.h"

HWY_BEFORE_NAMESPACE();
namespace ufuncx::internal::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// One pass over a contiguous index array: whether lo <= v < hi for every v,
// whether any v is negative, and how many neighbours are equal.
template <class T>
IndexScan ScanT(const T* p, int64_t n, T lo, T hi) {
  const hn::ScalableTag<T> d;
  const size_t N = hn::Lanes(d);
  const auto vlo = hn::Set(d, lo), vhi = hn::Set(d, hi), zero = hn::Zero(d);
  // Out-of-range and negative lanes become all-ones in `bad` and `neg`;
  // equal neighbours subtract one (an all-ones lane) from `eq`.
  auto bad = hn::Zero(d), neg = hn::Zero(d), eq = hn::Zero(d);
  auto step = [&](auto v, auto next, auto valid, auto valid_next) {
    const auto b = hn::Or(hn::VecFromMask(d, hn::Lt(v, vlo)),
                          hn::VecFromMask(d, simd::HWY_NAMESPACE::AnyGe(v, vhi)));
    bad = hn::Or(bad, hn::IfThenElseZero(valid, b));
    neg = hn::Or(neg, hn::IfThenElseZero(valid, hn::VecFromMask(d, hn::Lt(v, zero))));
    eq = hn::Add(eq, hn::IfThenElseZero(valid_next, hn::VecFromMask(d, hn::Eq(v, next))));
  };
  const size_t count = static_cast<size_t>(n);
  const auto all = hn::FirstN(d, N);
  size_t i = 0;
  // Full vectors whose next-neighbour vector is also in bounds.
  for (; i + N + 1 <= count; i += N) {
    step(hn::LoadU(d, p + i), hn::LoadU(d, p + i + 1), all, all);
  }
  if (i < count) {  // the last (partial) vector: lanes past the end ignored
    const size_t left = count - i;
    const auto v = simd::HWY_NAMESPACE::LoadTail(d, p + i, left);
    const auto next = simd::HWY_NAMESPACE::LoadTail(d, p + i + 1, left - 1);
    step(v, next, hn::FirstN(d, left), hn::FirstN(d, left - 1));
  }
  IndexScan r;
  r.in_range = hn::AllTrue(d, hn::Eq(bad, zero));
  r.has_negative = !hn::AllTrue(d, hn::Eq(neg, zero));
  HWY_ALIGN T lanes[HWY_MAX_BYTES / sizeof(T)];
  hn::Store(eq, d, lanes);
  int64_t equal = 0;
  for (size_t k = 0; k < N; ++k) equal -= static_cast<int64_t>(lanes[k]);
  r.equal_neighbours = equal;
  return r;
}

IndexScan Scan64(const int64_t* p, int64_t n, int64_t lo, int64_t hi) {
  return ScanT<int64_t>(p, n, lo, hi);
}
IndexScan Scan32(const int32_t* p, int64_t n, int32_t lo, int32_t hi) {
  return ScanT<int32_t>(p, n, lo, hi);
}

}  // namespace ufuncx::internal::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ufuncx::internal {
HWY_EXPORT(Scan64);
HWY_EXPORT(Scan32);

namespace {
// Blocks of 2**28 indices keep the per-lane counters of the int32 pass from
// overflowing; the neighbours across a block boundary are compared here.
template <class T, class F>
IndexScan Blocked(const T* p, int64_t n, F scan) {
  constexpr int64_t kBlock = int64_t{1} << 28;
  IndexScan r;
  for (int64_t start = 0; start < n; start += kBlock) {
    const int64_t m = std::min(kBlock, n - start);
    const IndexScan b = scan(p + start, m);
    r.in_range = r.in_range && b.in_range;
    r.has_negative = r.has_negative || b.has_negative;
    r.equal_neighbours += b.equal_neighbours;
    if (start + m < n) r.equal_neighbours += p[start + m - 1] == p[start + m];
  }
  return r;
}
}  // namespace

IndexScan ScanIndices(const int64_t* p, int64_t n, int64_t lo, int64_t hi) {
  return Blocked(p, n, [&](const int64_t* q, int64_t m) {
    return HWY_DYNAMIC_DISPATCH(Scan64)(q, m, lo, hi);
  });
}

IndexScan ScanIndices(const int32_t* p, int64_t n, int64_t lo, int64_t hi) {
  // Bounds beyond int32 clamp to its range without changing the answer; a
  // target of 2**31 elements or more (hi past INT32_MAX) takes a scalar pass.
  const int64_t l = std::max<int64_t>(lo, INT32_MIN);
  if (hi <= INT32_MAX) {
    if (l >= hi) return IndexScan{n == 0, false, 0};
    return Blocked(p, n, [&](const int32_t* q, int64_t m) {
      return HWY_DYNAMIC_DISPATCH(Scan32)(q, m, static_cast<int32_t>(l), static_cast<int32_t>(hi));
    });
  }
  IndexScan r{true, false, 0};
  for (int64_t i = 0; i < n; ++i) {
    r.in_range = r.in_range && p[i] >= l;
    r.has_negative = r.has_negative || p[i] < 0;
    if (i + 1 < n) r.equal_neighbours += p[i] == p[i + 1];
  }
  return r;
}
}  // namespace ufuncx::internal
#endif
