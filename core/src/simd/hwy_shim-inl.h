// The only place that knows Highway versions apart (1.0.3 on Debian 12,
// 1.2.x on Debian 13). Per-target code includes this after <hwy/highway.h>
// and uses these helpers instead of version-specific ops.
//
// Provides, in ufuncx::simd::HWY_NAMESPACE:
//   LoadTail(d, p, count)        loads 0 < count < Lanes(d) lanes, the rest copies
//                                of p[0] (so the unused lanes repeat a computation
//                                the used ones make: no floating-point flag that
//                                the data does not raise)
//   StoreTail(d, v, p, count)    stores the first count lanes
//   MaskToBytes(d, mask, out)    writes Lanes(d) bytes of 0/1 (NumPy bools)
//   MaskToBytesPacked(d, mask, out)  the same for kMasksPerByteVector<T>
//                                masks, one whole vector of bytes at a time
//   AnyGe(a, b), AnyLe(a, b)     ordered comparisons for every lane type
//   MaxOrSecond(a, b), MinOrSecond(a, b)  a > b ? a : b, a < b ? a : b on
//                                float lanes (x86's maxps/minps rule)
//   QuietLt(a, b), QuietLe(a, b) ordered comparisons that raise no flag on
//                                NaN (the AVX compare predicates; elsewhere
//                                NaN lanes are compared as zeros and masked)
//   CompressPair64(d, m, a, b, to_a, to_b)  the lanes of a and b (64-bit)
//                                that m selects, in order, at to_a and to_b as
//                                whole vectors; returns how many
//   UFX_HWY_VERSION              major*10000 + minor*100 + patch

//   SortKeysAscending(keys, n)   VQSort of uint64 keys (hwy::Sorter in 1.0.3)

// Target-independent part: included once.
#ifndef UFUNCX_HWY_SHIM_ONCE_H_
#define UFUNCX_HWY_SHIM_ONCE_H_
#include <cstddef>
#include <cstdint>

#include <hwy/contrib/sort/vqsort.h>
#include <hwy/highway.h>

#define UFX_HWY_VERSION (HWY_MAJOR * 10000 + HWY_MINOR * 100 + HWY_PATCH)

namespace ufuncx::simd {
// kSpreadBits[b][i] is bit i of b: eight mask bits as eight NumPy bools.
struct SpreadBitsTable {
  uint8_t bytes[256][8];
};
inline constexpr SpreadBitsTable kSpreadBits = [] {
  SpreadBitsTable t{};
  for (int b = 0; b < 256; ++b) {
    for (int i = 0; i < 8; ++i) t.bytes[b][i] = static_cast<uint8_t>((b >> i) & 1);
  }
  return t;
}();

// kCompressLanes<N>[bits] lists, as pairs of 32-bit lane numbers, the
// 64-bit lanes (of N = 2 or 4) that the mask bits select, in order; the
// rest repeat lane 0.
template <size_t N>
struct CompressLanesTable {
  int32_t lanes[1 << N][2 * N];
};
template <size_t N>
inline constexpr CompressLanesTable<N> kCompressLanes = [] {
  CompressLanesTable<N> t{};
  for (size_t b = 0; b < (size_t{1} << N); ++b) {
    size_t k = 0;
    for (size_t j = 0; j < N; ++j) {
      if ((b >> j) & 1) {
        t.lanes[b][2 * k] = static_cast<int32_t>(2 * j);
        t.lanes[b][2 * k + 1] = static_cast<int32_t>(2 * j + 1);
        ++k;
      }
    }
  }
  return t;
}();

inline void SortKeysAscending(uint64_t* keys, size_t n) {
#if UFX_HWY_VERSION >= 10100
  hwy::VQSort(keys, n, hwy::SortAscending());
#else
  const hwy::Sorter sorter;
  sorter(keys, n, hwy::SortAscending());
#endif
}
}  // namespace ufuncx::simd
#endif  // UFUNCX_HWY_SHIM_ONCE_H_

#if defined(UFUNCX_HWY_SHIM_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef UFUNCX_HWY_SHIM_INL_H_
#undef UFUNCX_HWY_SHIM_INL_H_
#else
#define UFUNCX_HWY_SHIM_INL_H_
#endif

#include <cstring>

#include <hwy/highway.h>


HWY_BEFORE_NAMESPACE();
namespace ufuncx::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <class D, class T = hn::TFromD<D>>
HWY_INLINE hn::VFromD<D> LoadTail(D d, const T* p, size_t count) {
  T first;  // (p may be misaligned for T: a byte copy)
  std::memcpy(&first, p, sizeof(T));
#if UFX_HWY_VERSION >= 10100
  return hn::IfThenElse(hn::FirstN(d, count), hn::LoadN(d, p, count), hn::Set(d, first));
#else
  HWY_ALIGN T buf[HWY_MAX_BYTES / sizeof(T)];
  const size_t lanes = hn::Lanes(d);
  for (size_t i = count; i < lanes; ++i) buf[i] = first;
  std::memcpy(buf, p, count * sizeof(T));
  return hn::Load(d, buf);
#endif
}

template <class D, class T = hn::TFromD<D>>
HWY_INLINE void StoreTail(D d, hn::VFromD<D> v, T* p, size_t count) {
#if UFX_HWY_VERSION >= 10100
  hn::StoreN(v, d, p, count);
#else
  HWY_ALIGN T buf[HWY_MAX_BYTES / sizeof(T)];
  hn::Store(v, d, buf);
  std::memcpy(p, buf, count * sizeof(T));
#endif
}

// MaxOrSecond(a, b) is a > b ? a : b and MinOrSecond(a, b) is a < b ? a : b
// on float lanes: the second operand on ties (0.0 and -0.0) and wherever
// either is NaN. On x86 that is maxps/minps's own rule, one instruction
// (called here on the raw registers, whatever Highway's Max promises about
// NaN); elsewhere a compare and a select. (maxps raises invalid on a quiet
// NaN as the ordered compare does: callers do not report flags.)
#if HWY_ARCH_X86 && (HWY_TARGET & (HWY_SCALAR | HWY_EMU128)) == 0
#define UFX_X86_OR_SECOND(name, op, cmp)                                               \
  template <class V>                                                                   \
  HWY_INLINE V name(V a, V b) {                                                        \
    constexpr bool kF32 = sizeof(hn::TFromV<V>) == 4;                                  \
    if constexpr (sizeof(a.raw) == 16) {                                               \
      if constexpr (kF32) return V{_mm_##op##_ps(a.raw, b.raw)};                       \
      else return V{_mm_##op##_pd(a.raw, b.raw)};                                      \
    } else if constexpr (sizeof(a.raw) == 32) {                                        \
      if constexpr (kF32) return V{_mm256_##op##_ps(a.raw, b.raw)};                    \
      else return V{_mm256_##op##_pd(a.raw, b.raw)};                                   \
    } else {                                                                           \
      if constexpr (kF32) return V{_mm512_##op##_ps(a.raw, b.raw)};                    \
      else return V{_mm512_##op##_pd(a.raw, b.raw)};                                   \
    }                                                                                  \
  }
#else
#define UFX_X86_OR_SECOND(name, op, cmp) \
  template <class V>                     \
  HWY_INLINE V name(V a, V b) {          \
    return hn::IfThenElse(hn::cmp(a, b), a, b); \
  }
#endif
UFX_X86_OR_SECOND(MaxOrSecond, max, Gt)
UFX_X86_OR_SECOND(MinOrSecond, min, Lt)
#undef UFX_X86_OR_SECOND

// Ordered comparisons for every lane type: 1.0.3 has integer Ge/Le only as
// the negation of Lt/Gt.
template <class V>
HWY_INLINE auto AnyGe(V a, V b) {
#if UFX_HWY_VERSION >= 10100
  return hn::Ge(a, b);
#else
  if constexpr (hwy::IsFloat<hn::TFromV<V>>()) return hn::Ge(a, b);
  else return hn::Not(hn::Lt(a, b));
#endif
}
template <class V>
HWY_INLINE auto AnyLe(V a, V b) {
  return AnyGe(b, a);
}

// Comparisons with IEEE's quiet predicates: NumPy's float comparisons
// report no invalid for NaN. AVX and AVX-512 compare with the _OQ
// predicates; SSE's cmplt/cmple (Highway's SSSE3 and SSE4 Lt, Gt, Ge),
// the C++ compares of EMU128 and SCALAR and other architectures' compares
// may signal, so there NaN lanes compare as zeros and are masked off.
template <class V, class Cmp>
HWY_INLINE auto QuietCompare(V a, V b, Cmp cmp) {
#if !(HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2)
  if constexpr (hwy::IsFloat<hn::TFromV<V>>()) {
    const auto ordered = hn::And(hn::Eq(a, a), hn::Eq(b, b));
    return hn::And(ordered, cmp(hn::IfThenElseZero(ordered, a), hn::IfThenElseZero(ordered, b)));
  }
#endif
  return cmp(a, b);
}
template <class V>
HWY_INLINE auto QuietLt(V a, V b) {
  return QuietCompare(a, b, [](V x, V y) HWY_ATTR { return hn::Lt(x, y); });
}
template <class V>
HWY_INLINE auto QuietLe(V a, V b) {
  return QuietCompare(a, b, [](V x, V y) HWY_ATTR { return AnyLe(x, y); });
}

// Compress of two vectors of 64-bit lanes by one mask, each into a register
// and stored whole (room for Lanes(d) at to_a and to_b). Highway 1.0.3's
// Compress and CompressStore of 64-bit lanes copy their lookup table onto
// the stack at every call on AVX2 and AVX-512 (rep movsq: the split
// scatter's keep pass took 8 ns an index on AVX2), and AVX-512's
// compress-to-memory instruction is slow on Intel cores; so AVX-512 uses the
// register form of vpcompressq, and 2- or 4-lane vectors one 32-bit lane
// permute from a table, whose lanes both vectors share.
template <class D, class V = hn::VFromD<D>, class M, class T = hn::TFromD<D>>
HWY_INLINE size_t CompressPair64(D d, M m, V a, V b, T* to_a, T* to_b) {
  static_assert(sizeof(T) == 8);
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
  if constexpr (hn::MaxLanes(D()) == 8) {
    const hn::RebindToSigned<D> di;
    using VI = hn::VFromD<decltype(di)>;
    const __mmask8 bits = m.raw;
    hn::StoreU(hn::BitCast(d, VI{_mm512_maskz_compress_epi64(bits, hn::BitCast(di, a).raw)}), d,
               to_a);
    hn::StoreU(hn::BitCast(d, VI{_mm512_maskz_compress_epi64(bits, hn::BitCast(di, b).raw)}), d,
               to_b);
    return static_cast<size_t>(__builtin_popcount(bits));
  }
#endif
#if HWY_TARGET != HWY_SCALAR
  constexpr size_t kN = hn::MaxLanes(D());
  if constexpr (kN == 2 || kN == 4) {
    uint8_t bits[8] = {};
    hn::StoreMaskBits(d, m, bits);
    const unsigned b_ = bits[0] & ((1u << kN) - 1);
    const hn::Repartition<int32_t, D> d32;
    const auto lanes = hn::SetTableIndices(d32, kCompressLanes<kN>.lanes[b_]);
    hn::StoreU(hn::BitCast(d, hn::TableLookupLanes(hn::BitCast(d32, a), lanes)), d, to_a);
    hn::StoreU(hn::BitCast(d, hn::TableLookupLanes(hn::BitCast(d32, b), lanes)), d, to_b);
    return static_cast<size_t>(__builtin_popcount(b_));
  }
#endif
  hn::CompressStore(b, m, d, to_b);
  return hn::CompressStore(a, m, d, to_a);
}

// Bytes of 0/1 from a mask of any lane size (TruncateTo exists in both
// versions for unsigned lanes).
template <class D, class M>
HWY_INLINE void MaskToBytes(D d, M m, uint8_t* out) {
  using T = hn::TFromD<D>;
  const hn::RebindToUnsigned<D> du;
  if constexpr (sizeof(T) == 1) {
    const auto ones = hn::And(hn::BitCast(du, hn::VecFromMask(d, m)), hn::Set(du, 1));
    hn::StoreU(ones, du, out);
  } else if constexpr (sizeof(T) >= 4) {
    // (1.0.3 truncates 32- and 64-bit lanes to bytes by a chain of shuffles
    // and permutes: the mask's bits through a table are faster)
    uint8_t bits[(HWY_MAX_BYTES / 8 + 7) / 8 + 8];
    hn::StoreMaskBits(d, m, bits);
    const size_t lanes = hn::Lanes(d);
    if (lanes >= 8) {
      for (size_t j = 0; j < lanes / 8; ++j) std::memcpy(out + 8 * j, kSpreadBits.bytes[bits[j]], 8);
    } else {
      std::memcpy(out, kSpreadBits.bytes[bits[0] & ((1u << lanes) - 1)], lanes);
    }
  } else {
    const auto ones = hn::And(hn::BitCast(du, hn::VecFromMask(d, m)), hn::Set(du, 1));
    const hn::Rebind<uint8_t, decltype(du)> d8;
    hn::StoreU(hn::TruncateTo(d8, ones), d8, out);
  }
}

template <class D, class M>
HWY_INLINE void MaskToBytesTail(D d, M m, uint8_t* out, size_t count) {
  HWY_ALIGN uint8_t buf[HWY_MAX_BYTES];
  MaskToBytes(d, m, buf);
  std::memcpy(out, buf, count);
}

// kMasksPerByteVector<T> masks of T lanes hold one vector of bytes:
// MaskToBytesPacked(d, mask, out) writes their bools, mask(k) giving lanes
// k * Lanes(d) on, as whole byte vectors (NumPy's comparison loops pack the
// same way): each halving step takes the low half of every lane of two
// vectors of 0 / all-ones lanes, in order (ConcatEven, in both versions).
template <class T>
inline constexpr size_t kMasksPerByteVector = HWY_TARGET == HWY_SCALAR ? 1 : sizeof(T);

#if HWY_TARGET != HWY_SCALAR  // (no ConcatEven: one lane a vector)
template <class V>
HWY_INLINE auto HalveMaskLanes(V lo, V hi) {
  using D = hn::DFromV<V>;
  const hn::Repartition<hwy::MakeNarrow<hn::TFromV<V>>, D> dn;
  return hn::ConcatEven(dn, hn::BitCast(dn, hi), hn::BitCast(dn, lo));
}
#endif

template <class D, class MaskAt>
HWY_INLINE void MaskToBytesPacked(D d, MaskAt mask, uint8_t* out) {
  using T = hn::TFromD<D>;
  constexpr size_t kMasks = kMasksPerByteVector<T>;
#if HWY_TARGET <= HWY_AVX3 && HWY_ARCH_X86
  // AVX-512: each mask register holds its lanes' bits; they go out as the
  // bits of one byte mask, which selects ones.
  if constexpr (kMasks > 1) {
    constexpr size_t kBytes = hn::MaxLanes(D()) / 8;  // (8 or more lanes a vector)
    uint8_t bits[kBytes * kMasks + 8] = {};
    for (size_t k = 0; k < kMasks; ++k) hn::StoreMaskBits(d, mask(k), bits + k * kBytes);
    const hn::Repartition<uint8_t, D> d8;
    hn::StoreU(hn::IfThenElseZero(hn::LoadMaskBits(d8, bits), hn::Set(d8, 1)), d8, out);
    return;
  }
#elif HWY_TARGET == HWY_AVX2
  // AVX2, 32-bit lanes: NumPy's packing - signed saturating packs keep 0 and
  // -1, each within its 128-bit half, and one lane permute puts the four
  // bytes groups in order.
  if constexpr (kMasks == 4) {
    const hn::RebindToSigned<D> di;
    auto v = [&](size_t k) { return hn::BitCast(di, hn::VecFromMask(d, mask(k))).raw; };
    const __m256i p01 = _mm256_packs_epi32(v(0), v(1));
    const __m256i p23 = _mm256_packs_epi32(v(2), v(3));
    const __m256i p = _mm256_packs_epi16(p01, p23);
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    const __m256i ones = _mm256_abs_epi8(_mm256_permutevar8x32_epi32(p, order));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), ones);
    return;
  }
  // 64-bit lanes: three rounds of packs (each mask appears twice after the
  // first two, once after the third), then one qword permute and one
  // in-half byte shuffle to put the 32 bytes in order: 9 shuffles where
  // the chain of ConcatEven below takes 14 (held to AVX2, 1e5 float64
  // isnan 18.2-19.9 -> 17.5 us, int64 equal 18.7-20.2 -> 15.4-15.7 us;
  // NumPy 13.3-14.5 and 14.4-15.0).
  if constexpr (kMasks == 8) {
    const hn::RebindToSigned<D> di;
    auto v = [&](size_t k) { return hn::BitCast(di, hn::VecFromMask(d, mask(k))).raw; };
    const __m256i ab = _mm256_packs_epi16(_mm256_packs_epi32(v(0), v(1)),
                                          _mm256_packs_epi32(v(2), v(3)));
    const __m256i cd = _mm256_packs_epi16(_mm256_packs_epi32(v(4), v(5)),
                                          _mm256_packs_epi32(v(6), v(7)));
    // bytes: [m0 m1 m4 m5 m8 m9 m12 m13, m16 .. m29 | m2 m3 m6 m7 .. m15, m18 .. m31]
    const __m256i p = _mm256_permute4x64_epi64(_mm256_packs_epi16(ab, cd), 0xD8);
    // halves: [m0 m1 m4 m5 m8 m9 m12 m13 m2 m3 m6 m7 m10 m11 m14 m15 | the same from m16]
    const __m256i order = _mm256_setr_epi8(0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15,
                                           0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15);
    const __m256i ones = _mm256_abs_epi8(_mm256_shuffle_epi8(p, order));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), ones);
    return;
  }
#endif
  if constexpr (kMasks == 1) {
    MaskToBytes(d, mask(0), out);
  } else {
#if HWY_TARGET != HWY_SCALAR
    const hn::RebindToUnsigned<D> du;
    auto v = [&](size_t k) { return hn::BitCast(du, hn::VecFromMask(d, mask(k))); };
    const hn::Repartition<uint8_t, D> d8;
    if constexpr (kMasks == 2) {
      const auto r = HalveMaskLanes(v(0), v(1));
      hn::StoreU(hn::And(hn::BitCast(d8, r), hn::Set(d8, 1)), d8, out);
    } else if constexpr (kMasks == 4) {
      const auto r = HalveMaskLanes(HalveMaskLanes(v(0), v(1)), HalveMaskLanes(v(2), v(3)));
      hn::StoreU(hn::And(hn::BitCast(d8, r), hn::Set(d8, 1)), d8, out);
    } else {
      const auto lo = HalveMaskLanes(HalveMaskLanes(v(0), v(1)), HalveMaskLanes(v(2), v(3)));
      const auto hi = HalveMaskLanes(HalveMaskLanes(v(4), v(5)), HalveMaskLanes(v(6), v(7)));
      hn::StoreU(hn::And(hn::BitCast(d8, HalveMaskLanes(lo, hi)), hn::Set(d8, 1)), d8, out);
    }
#endif
  }
}

}  // namespace ufuncx::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // UFUNCX_HWY_SHIM_INL_H_
