// Highway passes over scatter index arrays (dynamic dispatch): the bounds
// check that runs before any write, which also learns what the plans want
// to know about the data (negative indices; runs of equal indices, from a
// prefix). A few vector ops per vector of indices: the pass is bound by
// memory, or by L1 when the fused element scatter checks a block at a time.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "scatter/index_scan.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <algorithm>

#include "scatter/index_scan.h"
#include "simd/hwy_shim-inl.h"
#include "workers.h"

HWY_BEFORE_NAMESPACE();
namespace ufuncx::internal::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Whether lo <= v < hi for every v of p[0..n) (lo < hi), and whether any v
// is negative. In range is one unsigned compare, (v - lo) < (hi - lo),
// done as a signed compare with both sides' sign bits flipped; negatives
// show in the sign bit of the OR of all lanes.
template <class T>
void RangeT(const T* p, int64_t n, T lo, T hi, bool* in_range, bool* has_negative) {
  using U = hwy::MakeUnsigned<T>;
  const hn::ScalableTag<T> d;
  const size_t N = hn::Lanes(d), count = static_cast<size_t>(n);
  const T sign = static_cast<T>(U{1} << (sizeof(T) * 8 - 1));
  const auto vlo = hn::Set(d, lo), vsign = hn::Set(d, sign);
  const auto vspan = hn::Set(d, static_cast<T>(static_cast<U>(static_cast<U>(hi) - static_cast<U>(lo)) ^ static_cast<U>(sign)));
  auto ok = [&](auto v) { return hn::Lt(hn::Xor(hn::Sub(v, vlo), vsign), vspan); };
  auto good0 = hn::VecFromMask(d, hn::FirstN(d, N)), good1 = good0;
  auto neg0 = hn::Zero(d), neg1 = hn::Zero(d);
  size_t i = 0;
  for (; i + 2 * N <= count; i += 2 * N) {
    const auto v0 = hn::LoadU(d, p + i), v1 = hn::LoadU(d, p + i + N);
    good0 = hn::And(good0, hn::VecFromMask(d, ok(v0)));
    good1 = hn::And(good1, hn::VecFromMask(d, ok(v1)));
    neg0 = hn::Or(neg0, v0);
    neg1 = hn::Or(neg1, v1);
  }
  for (; i < count; i += N) {  // the rest, padded with hi - 1 (in range, >= 0)
    const size_t left = std::min(N, count - i);
    const auto v = hn::IfThenElse(hn::FirstN(d, left), simd::HWY_NAMESPACE::LoadTail(d, p + i, left),
                                  hn::Set(d, static_cast<T>(hi - 1)));
    good0 = hn::And(good0, hn::VecFromMask(d, ok(v)));
    neg0 = hn::Or(neg0, v);
  }
  *in_range = hn::AllTrue(d, hn::MaskFromVec(hn::And(good0, good1)));
  *has_negative = !hn::AllFalse(d, hn::Lt(hn::Or(neg0, neg1), hn::Zero(d)));
}

void Range64(const int64_t* p, int64_t n, int64_t lo, int64_t hi, bool* in_range, bool* neg) {
  RangeT<int64_t>(p, n, lo, hi, in_range, neg);
}
void Range32(const int32_t* p, int64_t n, int32_t lo, int32_t hi, bool* in_range, bool* neg) {
  RangeT<int32_t>(p, n, lo, hi, in_range, neg);
}

// The split scatter's writer pass: of n contiguous int64 indices (plus
// wrap_size where negative) and their 8-byte updates, keeps in order those
// with lo <= index < lo + span (unsigned compare of index - lo), compressed
// into kept / kept_upd; both need Lanes more slots than n (whole vectors
// are stored). Returns how many.
int64_t KeepSlice64(const int64_t* p, const uint64_t* upd, int64_t n, int64_t wrap_size,
                    int64_t lo, int64_t span, int64_t* kept, uint64_t* kept_upd) {
  const hn::ScalableTag<int64_t> d;
  const hn::RebindToUnsigned<decltype(d)> du;
  const size_t N = hn::Lanes(d), count = static_cast<size_t>(n);
  const auto vwrap = hn::Set(d, wrap_size);
  const auto vlo = hn::Set(du, static_cast<uint64_t>(lo));
  const auto vspan = hn::Set(du, static_cast<uint64_t>(span));
  // (unsigned less-than as a signed compare with both sign bits flipped)
  const auto flip = hn::Set(du, uint64_t{1} << 63);
  auto mine = [&](auto v) {
    const auto rel = hn::Xor(hn::Sub(hn::BitCast(du, v), vlo), flip);
    return hn::RebindMask(d, hn::Lt(hn::BitCast(d, rel), hn::BitCast(d, hn::Xor(vspan, flip))));
  };
  size_t k = 0, i = 0;
  for (; i + N <= count; i += N) {
    const auto raw = hn::LoadU(d, p + i);
    const auto v = hn::Add(raw, hn::And(hn::ShiftRight<63>(raw), vwrap));
    k += simd::HWY_NAMESPACE::CompressPair64(d, mine(v), v,
                                             hn::BitCast(d, hn::LoadU(du, upd + i)), kept + k,
                                             reinterpret_cast<int64_t*>(kept_upd + k));
  }
  for (; i < count; ++i) {
    const int64_t v = p[i] + ((p[i] >> 63) & wrap_size);
    kept[k] = v;
    kept_upd[k] = upd[i];
    k += static_cast<uint64_t>(v) - static_cast<uint64_t>(lo) < static_cast<uint64_t>(span);
  }
  return static_cast<int64_t>(k);
}

}  // namespace ufuncx::internal::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ufuncx::internal {
HWY_EXPORT(Range64);
HWY_EXPORT(Range32);
HWY_EXPORT(KeepSlice64);

int64_t KeepSlice64(const int64_t* p, const uint64_t* upd, int64_t n, int64_t wrap_size,
                    int64_t lo, int64_t span, int64_t* kept, uint64_t* kept_upd) {
  return HWY_DYNAMIC_DISPATCH(KeepSlice64)(p, upd, n, wrap_size, lo, span, kept, kept_upd);
}

namespace {
// Long index arrays are checked in halves on two threads: the pass is bound
// by memory, and two cores draw more of it (8 MB of int64 indices not in
// cache: 0.41-0.49 ms on one thread, 0.25-0.28 ms on two).
constexpr int64_t kSplitScanBytes = int64_t{2} << 20;

// range(q, m, &in_range, &has_negative) over p[0..n), in parts.
template <class T, class Range>
void RangeInParts(const T* p, int64_t n, Range range, IndexScan* r) {
  if (n * static_cast<int64_t>(sizeof(T)) < kSplitScanBytes || Cores() < 2) {
    range(p, n, &r->in_range, &r->has_negative);
    return;
  }
  bool in_range[2] = {true, true}, negative[2] = {false, false};
  const int64_t half = n / 2;
  RunWorkers(2, [&](int w) {
    range(p + w * half, w == 0 ? half : n - half, &in_range[w], &negative[w]);
  });
  r->in_range = in_range[0] && in_range[1];
  r->has_negative = negative[0] || negative[1];
}

// Runs: equal neighbours among the first kRunSample indices. Sorted or
// clustered data shows at once; random data has almost none.
constexpr int64_t kRunSample = 256;

template <class T>
void CountRuns(const T* p, int64_t n, IndexScan* r) {
  const int64_t m = std::min(n, kRunSample);
  r->pairs_sampled = std::max<int64_t>(m - 1, 0);
  r->equal_neighbours = r->descending_pairs = 0;
  for (int64_t i = 0; i + 1 < m; ++i) {
    r->equal_neighbours += p[i] == p[i + 1];
    r->descending_pairs += p[i] > p[i + 1];
  }
}
}  // namespace

IndexScan ScanIndices(const int64_t* p, int64_t n, int64_t lo, int64_t hi) {
  IndexScan r;
  if (lo >= hi) {
    r.in_range = n == 0;
  } else {
    RangeInParts(p, n, [&](const int64_t* q, int64_t m, bool* ok, bool* neg) {
      HWY_DYNAMIC_DISPATCH(Range64)(q, m, lo, hi, ok, neg);
    }, &r);
  }
  CountRuns(p, n, &r);
  return r;
}

IndexScan ScanIndices(const int32_t* p, int64_t n, int64_t lo, int64_t hi) {
  // Bounds beyond int32 clamp to its range without changing the answer.
  const int64_t l = std::max<int64_t>(lo, INT32_MIN), h = std::min<int64_t>(hi, INT32_MAX);
  IndexScan r;
  if (l >= h) {
    // Empty range, or hi past INT32_MAX with lo = INT32_MAX: scalar.
    for (int64_t i = 0; i < n; ++i) {
      r.in_range = r.in_range && p[i] >= lo && p[i] < hi;
      r.has_negative = r.has_negative || p[i] < 0;
    }
  } else {
    // h = INT32_MAX excludes INT32_MAX itself: a failure there is rechecked.
    RangeInParts(p, n, [&](const int32_t* q, int64_t m, bool* ok, bool* neg) {
      HWY_DYNAMIC_DISPATCH(Range32)(q, m, static_cast<int32_t>(l), static_cast<int32_t>(h), ok, neg);
    }, &r);
    if (!r.in_range && hi > INT32_MAX) {
      r.in_range = true;
      for (int64_t i = 0; i < n; ++i) r.in_range = r.in_range && p[i] >= lo;
    }
  }
  CountRuns(p, n, &r);
  return r;
}
}  // namespace ufuncx::internal
#endif
