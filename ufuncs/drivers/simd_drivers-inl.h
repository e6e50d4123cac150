// Highway drivers for the contiguous slot (outputs contiguous; inputs
// contiguous or broadcast with step 0). The driver owns the loop and the
// tail, the op (ufuncs/ops/simd_ops-inl.h) is only the vector body - the
// shape of hwy/contrib/algo/transform-inl.h. Tails go through a full vector
// so every element is computed by the same instructions.
#if defined(UFUNCX_SIMD_DRIVERS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef UFUNCX_SIMD_DRIVERS_INL_H_
#undef UFUNCX_SIMD_DRIVERS_INL_H_
#else
#define UFUNCX_SIMD_DRIVERS_INL_H_
#endif

#include <hwy/cache_control.h>
#include <hwy/highway.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "simd/hwy_shim-inl.h"
#include "ufuncx/loop.h"

HWY_BEFORE_NAMESPACE();
namespace ufuncx::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <class D, class T = hn::TFromD<D>>
HWY_INLINE hn::VFromD<D> LoadArg(D d, const T* p, bool bcast, size_t i) {
  return bcast ? hn::Set(d, *p) : hn::LoadU(d, p + i);
}
template <class D, class T = hn::TFromD<D>>
HWY_INLINE hn::VFromD<D> LoadArgTail(D d, const T* p, bool bcast, size_t i,
                                     size_t count) {
  return bcast ? hn::Set(d, *p) : LoadTail(d, p + i, count);
}

// Loops whose inputs and output together exceed this many bytes no longer
// run in the last-level cache: they write the output with streaming stores,
// which skip reading each output line before overwriting it. Measured for
// float64 add: 0.35 ms against 0.48 ms at 1e6 elements (24 MB), 6.4 against
// 9.0 ms at 1e7; at 12 MB and below plain stores stay faster.
constexpr size_t kStreamMinBytes = size_t{16} << 20;

// Writes o[0, n) from vectors: full(i) gives lanes [i, i + N), part(i, c)
// the first c of them. Past a few vectors the stores are aligned: a head of
// up to N - 1 lanes goes first, so no whole-vector store straddles two cache
// lines (a straddling 64-byte store costs about two: floor float64 at 1e5
// in L2 took 27.7 us with the output at 32 bytes past a line, 19.8 aligned;
// NumPy's 19.5). With `stream`, the aligned vectors go out as streaming
// stores (each element is still computed once). `granule`: lanes per
// element (2 for the interleaved complex loops), whose vectors must start at
// an element: an output whose alignment would need a head of part of an
// element (complex128 at 8 bytes past 16) keeps unaligned stores.
template <class D, class T, class Full, class Part>
HWY_INLINE void StoreAll(D d, T* HWY_RESTRICT o, size_t n, bool stream, const Full& full,
                         const Part& part, size_t granule = 1) {
  const size_t N = hn::Lanes(d);
  size_t i = 0;
  const size_t vec_bytes = N * sizeof(T);
  const uintptr_t addr = reinterpret_cast<uintptr_t>(o);
  const size_t head = (vec_bytes - addr % vec_bytes) % vec_bytes / sizeof(T);
  const bool aligned = n >= 4 * N && addr % sizeof(T) == 0 && head % granule == 0;
  if (aligned && head) {
    StoreTail(d, part(0, head), o, head);
    i = head;
  }
  // One loop, so `full` has one call site and is inlined: with three (one
  // per kind of store) GCC called it per vector, reloading every constant
  // of the body each time (float32 arccosh at 1e3: 2.3 -> 1.9 us). After
  // the head an aligned output takes StoreU as fast as Store.
  const bool streaming = aligned && stream;
  for (; i + N <= n; i += N) {
    const auto v = full(i);
    if (streaming) {
      hn::Stream(v, d, o + i);
    } else {
      hn::StoreU(v, d, o + i);
    }
  }
  if (streaming) hwy::FlushStream();
  if (i < n) StoreTail(d, part(i, n - i), o + i, n - i);
}

// (T) -> T
template <class Op, class T>
int Map1(const LoopContext&, char* const* args, const int64_t* dims,
         const int64_t* steps, void*) noexcept {
  const hn::ScalableTag<T> d;
  const size_t n = static_cast<size_t>(dims[0]);
  const T* a = reinterpret_cast<const T*>(args[0]);
  T* o = reinterpret_cast<T*>(args[1]);
  const bool ba = steps[0] == 0;
  const Op op;
  const bool stream = n * sizeof(T) * (ba ? 1 : 2) >= kStreamMinBytes;
  auto part = [&](size_t i, size_t c) { return op(d, LoadArgTail(d, a, ba, i, c)); };
  if (!ba) {
    StoreAll(d, o, n, stream, [&](size_t i) { return op(d, hn::LoadU(d, a + i)); }, part);
  } else {
    StoreAll(d, o, n, stream, [&](size_t) { return op(d, hn::Set(d, *a)); }, part);
  }
  return 0;
}

// (T, T) -> T
template <class Op, class T>
int Map2(const LoopContext&, char* const* args, const int64_t* dims,
         const int64_t* steps, void*) noexcept {
  const hn::ScalableTag<T> d;
  const size_t n = static_cast<size_t>(dims[0]);
  const T* a = reinterpret_cast<const T*>(args[0]);
  const T* b = reinterpret_cast<const T*>(args[1]);
  T* o = reinterpret_cast<T*>(args[2]);
  const bool ba = steps[0] == 0, bb = steps[1] == 0;
  const Op op;
  const bool stream = n * sizeof(T) * (1 + !ba + !bb) >= kStreamMinBytes;
  auto part = [&](size_t i, size_t c) {
    return op(d, LoadArgTail(d, a, ba, i, c), LoadArgTail(d, b, bb, i, c));
  };
  if (!ba && !bb) {
    // The common case, kept free of the broadcast tests.
    StoreAll(
        d, o, n, stream, [&](size_t i) { return op(d, hn::LoadU(d, a + i), hn::LoadU(d, b + i)); },
        part);
  } else {
    StoreAll(
        d, o, n, stream,
        [&](size_t i) { return op(d, LoadArg(d, a, ba, i), LoadArg(d, b, bb, i)); }, part);
  }
  return 0;
}

// The rows slot of a (T, T) -> T loop: each row, in order, is combined into
// its destination in place, with the vector body of Map2. Taking every row
// in one call saves a call, its dispatch and its setup per row (row scatter
// of 64 float64 per row: 0.45 -> 0.35 ms for 20000 rows in the C harness).
template <class Op, class T>
int Rows2(const LoopContext&, char* const* args, const int64_t* dims, const int64_t*,
          void* aux) noexcept {
  const hn::ScalableTag<T> d;
  const size_t N = hn::Lanes(d);
  const int64_t rows = dims[0];
  const size_t len = static_cast<size_t>(dims[1]);
  char* const base = args[0];
  const int64_t* dst = reinterpret_cast<const int64_t*>(args[1]);
  const char* const upd = args[2];
  const int64_t* src = reinterpret_cast<const int64_t*>(args[3]);
  const RowsPrefetch pf = aux ? *static_cast<const RowsPrefetch*>(aux) : RowsPrefetch{};
  const size_t row_bytes = len * sizeof(T);
  const Op op;
  for (int64_t r = 0; r < rows; ++r) {
    if (pf.dst_ahead && r + pf.dst_ahead < rows) {
      const char* p = base + dst[r + pf.dst_ahead];
      for (size_t b = 0; b < row_bytes; b += 64) __builtin_prefetch(p + b, 1);
    }
    if (pf.src_ahead && r + pf.src_ahead < rows) {
      const char* p = upd + src[r + pf.src_ahead];
      for (size_t b = 0; b < row_bytes; b += 64) __builtin_prefetch(p + b, 0);
    }
    T* o = reinterpret_cast<T*>(base + dst[r]);
    const T* b = reinterpret_cast<const T*>(upd + src[r]);
    size_t i = 0;
    // Four vectors per step: all loads issue before the stores, which
    // measured 10-15% faster than one vector per step for 64 float64.
    for (; i + 4 * N <= len; i += 4 * N) {
      const auto v0 = op(d, hn::LoadU(d, o + i), hn::LoadU(d, b + i));
      const auto v1 = op(d, hn::LoadU(d, o + i + N), hn::LoadU(d, b + i + N));
      const auto v2 = op(d, hn::LoadU(d, o + i + 2 * N), hn::LoadU(d, b + i + 2 * N));
      const auto v3 = op(d, hn::LoadU(d, o + i + 3 * N), hn::LoadU(d, b + i + 3 * N));
      hn::StoreU(v0, d, o + i);
      hn::StoreU(v1, d, o + i + N);
      hn::StoreU(v2, d, o + i + 2 * N);
      hn::StoreU(v3, d, o + i + 3 * N);
    }
    for (; i + N <= len; i += N) hn::StoreU(op(d, hn::LoadU(d, o + i), hn::LoadU(d, b + i)), d, o + i);
    if (i < len) {
      const size_t c = len - i;
      StoreTail(d, op(d, LoadTail(d, o + i, c), LoadTail(d, b + i, c)), o + i, c);
    }
  }
  return 0;
}

// ---------------------------------------------------------------- bfloat16
// bfloat16 loops over a float32 vector body: lanes widen exactly (the
// bits shifted up), the op runs in float32, and each result rounds once to
// nearest even, NaN kept quiet with its sign - the rounding Eigen and
// ml_dtypes use. Written on integer lanes so every Highway version gives
// the same bits. Only ops whose float32 result is exact IEEE (add,
// subtract, multiply, divide, sqrt) take these bodies: the result is then
// bit-identical to the scalar loop and to ml_dtypes'.

template <class DF>
using Bf16Tag = hn::Rebind<uint16_t, DF>;

template <class DF>
HWY_INLINE hn::VFromD<DF> WidenBf16(DF df, hn::VFromD<Bf16Tag<DF>> h) {
  const hn::RebindToUnsigned<DF> du;
  return hn::BitCast(df, hn::ShiftLeft<16>(hn::PromoteTo(du, h)));
}

template <class DF>
HWY_INLINE hn::VFromD<Bf16Tag<DF>> NarrowBf16(DF, hn::VFromD<DF> v) {
  const hn::RebindToUnsigned<DF> du;
  const hn::RebindToSigned<DF> di;
  const auto bits = hn::BitCast(du, v);
  const auto lsb = hn::And(hn::ShiftRight<16>(bits), hn::Set(du, 1u));
  const auto rounded = hn::Add(bits, hn::Add(hn::Set(du, 0x7fffu), lsb));
  const auto nan = hn::Or(hn::And(bits, hn::Set(du, 0x80000000u)), hn::Set(du, 0x7fc00000u));
  const auto r = hn::IfThenElse(hn::RebindMask(du, hn::IsNaN(v)), nan, rounded);
  return hn::DemoteTo(Bf16Tag<DF>(), hn::BitCast(di, hn::ShiftRight<16>(r)));
}

HWY_INLINE float Bf16ToFloat(uint16_t h) {
  const uint32_t u = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}

template <class DF>
HWY_INLINE hn::VFromD<DF> LoadBf16(DF df, const uint16_t* p, bool bcast, size_t i) {
  return bcast ? hn::Set(df, Bf16ToFloat(*p)) : WidenBf16(df, hn::LoadU(Bf16Tag<DF>(), p + i));
}
template <class DF>
HWY_INLINE hn::VFromD<DF> LoadBf16Tail(DF df, const uint16_t* p, bool bcast, size_t i,
                                       size_t count) {
  return bcast ? hn::Set(df, Bf16ToFloat(*p))
               : WidenBf16(df, LoadTail(Bf16Tag<DF>(), p + i, count));
}

// (bfloat16) -> bfloat16
template <class Op>
int MapBf16_1(const LoopContext&, char* const* args, const int64_t* dims, const int64_t* steps,
              void*) noexcept {
  const hn::ScalableTag<float> df;
  const Bf16Tag<decltype(df)> dh;
  const size_t n = static_cast<size_t>(dims[0]);
  const uint16_t* a = reinterpret_cast<const uint16_t*>(args[0]);
  uint16_t* o = reinterpret_cast<uint16_t*>(args[1]);
  const bool ba = steps[0] == 0;
  const Op op;
  StoreAll(
      dh, o, n, false, [&](size_t i) { return NarrowBf16(df, op(df, LoadBf16(df, a, ba, i))); },
      [&](size_t i, size_t c) { return NarrowBf16(df, op(df, LoadBf16Tail(df, a, ba, i, c))); });
  return 0;
}

// (bfloat16, bfloat16) -> bfloat16
template <class Op>
int MapBf16_2(const LoopContext&, char* const* args, const int64_t* dims, const int64_t* steps,
              void*) noexcept {
  const hn::ScalableTag<float> df;
  const Bf16Tag<decltype(df)> dh;
  const size_t n = static_cast<size_t>(dims[0]);
  const uint16_t* a = reinterpret_cast<const uint16_t*>(args[0]);
  const uint16_t* b = reinterpret_cast<const uint16_t*>(args[1]);
  uint16_t* o = reinterpret_cast<uint16_t*>(args[2]);
  const bool ba = steps[0] == 0, bb = steps[1] == 0;
  const Op op;
  StoreAll(
      dh, o, n, false,
      [&](size_t i) {
        return NarrowBf16(df, op(df, LoadBf16(df, a, ba, i), LoadBf16(df, b, bb, i)));
      },
      [&](size_t i, size_t c) {
        return NarrowBf16(df, op(df, LoadBf16Tail(df, a, ba, i, c), LoadBf16Tail(df, b, bb, i, c)));
      });
  return 0;
}

// The rows slot of a bfloat16 (E, E) -> E loop (see Rows2).
template <class Op>
int RowsBf16_2(const LoopContext&, char* const* args, const int64_t* dims, const int64_t*,
               void*) noexcept {
  const hn::ScalableTag<float> df;
  const Bf16Tag<decltype(df)> dh;
  const size_t N = hn::Lanes(df);
  const int64_t rows = dims[0];
  const size_t len = static_cast<size_t>(dims[1]);
  char* const base = args[0];
  const int64_t* dst = reinterpret_cast<const int64_t*>(args[1]);
  const char* const upd = args[2];
  const int64_t* src = reinterpret_cast<const int64_t*>(args[3]);
  const Op op;
  for (int64_t r = 0; r < rows; ++r) {
    uint16_t* o = reinterpret_cast<uint16_t*>(base + dst[r]);
    const uint16_t* b = reinterpret_cast<const uint16_t*>(upd + src[r]);
    size_t i = 0;
    for (; i + N <= len; i += N) {
      hn::StoreU(NarrowBf16(df, op(df, LoadBf16(df, o, false, i), LoadBf16(df, b, false, i))), dh,
                 o + i);
    }
    if (i < len) {
      const size_t c = len - i;
      StoreTail(dh,
                NarrowBf16(df, op(df, LoadBf16Tail(df, o, false, i, c),
                                  LoadBf16Tail(df, b, false, i, c))),
                o + i, c);
    }
  }
  return 0;
}

// ------------------------------------------------------------ strided
// The strided slot (LoopSlots::strided_simd) for 32- and 64-bit lanes: an
// input at a step of 2, 3 or 4 elements is read with Highway's
// deinterleaving loads (LoadInterleaved2/3/4: whole vectors and shuffles,
// keeping the first of each group; on AVX-512, steps 3 and 4 with two-table
// permutes), 1 with a plain load, 0 as a
// broadcast; outputs go out with a store when contiguous, else lane by
// lane from a vector-sized buffer. (Vector gathers were measured slower
// than the scalar loop on AVX3 here: 4x NumPy's time for isnan float64 at
// step 3.) The caller (RunElementwiseSlot) checks steps and alignment.

#if HWY_TARGET == HWY_AVX2
// AVX2's lanes at step 3 from three whole-vector loads: two blends (any
// port) bring each wanted element to a lane of its own, one cross-lane
// permute puts them in order. Highway's LoadInterleaved3 builds all three
// outputs with in-lane shuffles and 128-bit moves, and the four-load pairing
// below takes three shuffle-port moves per vector. Held to AVX2, 1e4
// elements at step 3, time over NumPy's, three alternating runs: isnan
// float32 1.42-1.46 -> 0.93-0.97, add float32 0.76 -> 0.41-0.56, subtract
// float64 1.02-1.05 -> 0.85-0.90, bitwise_and int64 1.04-1.10 -> 0.84-0.88;
// square float64 went 0.99-1.04 -> 1.11-1.13.
template <class D, class T = hn::TFromD<D>>
HWY_INLINE hn::VFromD<D> LoadThirds(D d, const T* q) {
  const hn::RebindToFloat<D> df;
  using VF = hn::VFromD<decltype(df)>;
  if constexpr (sizeof(T) == 8) {
    const double* p = reinterpret_cast<const double*>(q);
    // [0 1 2 3] [4 5 6 7] [8 9 10 11] -> [0 9 6 3] -> [0 3 6 9]
    __m256d t = _mm256_blend_pd(_mm256_loadu_pd(p), _mm256_loadu_pd(p + 4), 0x4);
    t = _mm256_blend_pd(t, _mm256_loadu_pd(p + 8), 0x2);
    return hn::BitCast(d, VF{_mm256_permute4x64_pd(t, _MM_SHUFFLE(1, 2, 3, 0))});
  } else {
    const float* p = reinterpret_cast<const float*>(q);
    // 0..7, 8..15, 16..23 -> [0 9 18 3 12 21 6 15] -> [0 3 6 ... 21]
    __m256 t = _mm256_blend_ps(_mm256_loadu_ps(p), _mm256_loadu_ps(p + 8), 0x92);
    t = _mm256_blend_ps(t, _mm256_loadu_ps(p + 16), 0x24);
    const __m256i order = _mm256_setr_epi32(0, 3, 6, 1, 4, 7, 2, 5);
    return hn::BitCast(d, VF{_mm256_permutevar8x32_ps(t, order)});
  }
}

// AVX2's four 64-bit lanes from four loads at step es, two to a 128-bit
// half: the deinterleaving loads cross the vector's halves three times per
// vector there (vperm2f128), which made step 3 1.8-2x NumPy's time (NumPy's
// AVX2 loadn is this same pairing of loads).
template <class D, class T = hn::TFromD<D>>
HWY_INLINE hn::VFromD<D> LoadFourAtStep(D d, const T* q, int64_t es) {
  const hn::Half<D> dh;
  const auto lo = hn::InterleaveLower(dh, hn::Set(dh, q[0]), hn::Set(dh, q[es]));
  const auto hi = hn::InterleaveLower(dh, hn::Set(dh, q[2 * es]), hn::Set(dh, q[3 * es]));
  return hn::Combine(d, hi, lo);
}
#endif

#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
// AVX-512's lanes at step 3 or 4 from whole-vector loads and two-table
// permutes (vpermt2pd/vpermt2ps, on the lanes' bits): two permutes for step
// 3, three for step 4, where Highway's LoadInterleaved3/4 build the vectors
// from 128-bit block shuffles and byte lookups. False for other steps and
// vectors narrower than 512 bits.
template <class D, class T = hn::TFromD<D>>
HWY_INLINE bool LoadPermuted(D d, const T* q, int64_t es, hn::VFromD<D>& out) {
  if constexpr (sizeof(hn::VFromD<D>) != 64 || (sizeof(T) != 4 && sizeof(T) != 8)) {
    return false;
  } else {
    if (es != 3 && es != 4) return false;
    const hn::RebindToFloat<D> df;  // (the permutes of the float types)
    const size_t N = hn::Lanes(d);
    const auto at = [&](int k) { return hn::BitCast(df, hn::LoadU(d, q + k * N)).raw; };
    const auto two = [](auto a, __m512i idx, auto b) {
      if constexpr (sizeof(T) == 8) {
        return _mm512_permutex2var_pd(a, idx, b);
      } else {
        return _mm512_permutex2var_ps(a, idx, b);
      }
    };
    __m512i first, second;
    if constexpr (sizeof(T) == 8) {
      first = es == 3 ? _mm512_setr_epi64(0, 3, 6, 9, 12, 15, 0, 0)
                      : _mm512_setr_epi64(0, 4, 8, 12, 0, 0, 0, 0);
      second = es == 3 ? _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 10, 13)
                       : _mm512_setr_epi64(0, 1, 2, 3, 8, 9, 10, 11);
    } else {
      first = es == 3 ? _mm512_setr_epi32(0, 3, 6, 9, 12, 15, 18, 21, 24, 27, 30, 0, 0, 0, 0, 0)
                      : _mm512_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28, 0, 0, 0, 0, 0, 0, 0, 0);
      second = es == 3 ? _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 17, 20, 23, 26, 29)
                       : _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23);
    }
    const auto low = two(at(0), first, at(1));
    const auto high = es == 3 ? at(2) : two(at(2), first, at(3));
    out = hn::BitCast(d, hn::VFromD<decltype(df)>{two(low, second, high)});
    return true;
  }
}
#endif

// N lanes of the input from q on, at element step es. A group load reads
// es * N elements: the callers keep one element after the vector. The
// loops below advance q by es * N (no multiply per vector) and hoist the
// output's contiguity out of the loop.
template <class D, class T = hn::TFromD<D>>
HWY_INLINE hn::VFromD<D> LoadStep(D d, const T* q, int64_t es) {
#if HWY_TARGET == HWY_AVX2
  if constexpr (sizeof(T) == 4 || sizeof(T) == 8) {
    if (es == 3) return LoadThirds(d, q);
  }
  if constexpr (sizeof(T) == 8) {
    if (es >= 2) return LoadFourAtStep(d, q, es);
  }
#endif
  hn::VFromD<D> v0, v1, v2, v3;
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
  if (LoadPermuted(d, q, es, v0)) return v0;
#endif
  switch (es) {
    case 0: return hn::Set(d, *q);
    case 1: return hn::LoadU(d, q);
    case 2: hn::LoadInterleaved2(d, q, v0, v1); return v0;
    case 3: hn::LoadInterleaved3(d, q, v0, v1, v2); return v0;
    default: hn::LoadInterleaved4(d, q, v0, v1, v2, v3); return v0;
  }
}
// The first `count` lanes, the rest copies of the first (as LoadTail).
template <class D, class T = hn::TFromD<D>>
HWY_INLINE hn::VFromD<D> LoadStepTail(D d, const T* p, int64_t es, size_t i, size_t count) {
  HWY_ALIGN T buf[HWY_MAX_BYTES / sizeof(T)];
  const size_t N = hn::Lanes(d);
  for (size_t j = 0; j < N; ++j) {
    buf[j] = p[static_cast<int64_t>(i + (j < count ? j : 0)) * es];
  }
  return hn::Load(d, buf);
}
// Stores lanes [i, i + count) at element step `es` (contiguous when 1).
template <class D, class T = hn::TFromD<D>>
HWY_INLINE void StoreStrided(D d, hn::VFromD<D> v, T* o, int64_t es, size_t i, size_t count) {
  if (es == 1) {
    if (count == hn::Lanes(d)) {
      hn::StoreU(v, d, o + i);
    } else {
      StoreTail(d, v, o + i, count);
    }
    return;
  }
  HWY_ALIGN T buf[HWY_MAX_BYTES / sizeof(T)];
  hn::Store(v, d, buf);
  for (size_t j = 0; j < count; ++j) o[static_cast<int64_t>(i + j) * es] = buf[j];
}

// A vector of the strided loops' body to lanes [j, j + N) of o: a plain
// store where the output is contiguous (a compile-time fact), else lane by
// lane at step eo.
template <class D, class T, class Contiguous>
HWY_INLINE void StoreVector(D d, hn::VFromD<D> v, T* o, int64_t eo, size_t j, Contiguous) {
  if constexpr (Contiguous::value) {
    hn::StoreU(v, d, o + j);
  } else {
    StoreStrided(d, v, o, eo, j, hn::Lanes(d));
  }
}

// Full vectors [start, n - 1) of a strided loop: body(i, contiguous_out)
// for each, with contiguous_out a compile-time bool. Returns where the tail
// starts.
template <class F>
HWY_INLINE size_t StridedVectors(size_t n, size_t N, bool contiguous_out, F&& body,
                                 size_t start = 0) {
  size_t i = start;
  if (contiguous_out) {
    for (; i + N < n; i += N) body(i, std::true_type());
  } else {
    for (; i + N < n; i += N) body(i, std::false_type());
  }
  return i;
}

// How many lanes a strided input (step es >= 2 elements) takes one by one
// first so that its group loads (es whole vectors per vector of lanes) start
// on a vector boundary, where one exists within a vector's lanes; else 0.
// Each unaligned group load straddles a cache line: float64 negative at
// step 3 over 1e4 elements went 0.36 -> 0.31 ns per element (NumPy's 0.26).
template <class T>
HWY_INLINE size_t GroupAlignedHead(const T* a, int64_t es, size_t n, size_t N) {
  if (es < 2 || n < 4 * N) return 0;
  const size_t vec_bytes = N * sizeof(T), group_bytes = static_cast<size_t>(es) * sizeof(T);
  const uintptr_t addr = reinterpret_cast<uintptr_t>(a);
  for (size_t h = 0; h < N; ++h) {
    if ((addr + h * group_bytes) % vec_bytes == 0) return h;
  }
  return 0;
}

// (T) -> T
template <class Op, class T>
int GMap1(const LoopContext&, char* const* args, const int64_t* dims, const int64_t* steps,
          void*) noexcept {
  const hn::ScalableTag<T> d;
  const size_t N = hn::Lanes(d), n = static_cast<size_t>(dims[0]);
  const T* a = reinterpret_cast<const T*>(args[0]);
  T* o = reinterpret_cast<T*>(args[1]);
  const int64_t ea = steps[0] / static_cast<int64_t>(sizeof(T));
  const int64_t eo = steps[1] / static_cast<int64_t>(sizeof(T));
  const Op op;
  const size_t head = GroupAlignedHead(a, ea, n, N);
  if (head) StoreStrided(d, op(d, LoadStepTail(d, a, ea, 0, head)), o, eo, 0, head);
  const T* qa = a + static_cast<int64_t>(head) * ea;
  const int64_t da = ea * static_cast<int64_t>(N);
  const size_t i = StridedVectors(
      n, N, eo == 1,
      [&](size_t j, auto contiguous_out) {
        const auto v = op(d, LoadStep(d, qa, ea));
        qa += da;
        StoreVector(d, v, o, eo, j, contiguous_out);
      },
      head);
  if (i < n) StoreStrided(d, op(d, LoadStepTail(d, a, ea, i, n - i)), o, eo, i, n - i);
  return 0;
}

// (T) -> uint8 (a count per element: bitwise_count): the op's T lanes
// truncated to bytes, at any input step the strided slot takes (0: a
// broadcast) and any output step.
template <class Op, class T>
int GMapToU8_1(const LoopContext&, char* const* args, const int64_t* dims, const int64_t* steps,
               void*) noexcept {
  const hn::ScalableTag<T> d;
  const hn::RebindToUnsigned<decltype(d)> du;
  const hn::Rebind<uint8_t, decltype(d)> d8;
  const size_t N = hn::Lanes(d), n = static_cast<size_t>(dims[0]);
  const T* a = reinterpret_cast<const T*>(args[0]);
  uint8_t* o = reinterpret_cast<uint8_t*>(args[1]);
  const int64_t ea = steps[0] / static_cast<int64_t>(sizeof(T)), eo = steps[1];
  const Op op;
  auto bytes = [&](auto v) { return hn::TruncateTo(d8, hn::BitCast(du, op(d, v))); };
  const T* qa = a;
  const int64_t da = ea * static_cast<int64_t>(N);
  const size_t i = StridedVectors(n, N, eo == 1, [&](size_t j, auto contiguous_out) {
    const auto v = bytes(LoadStep(d, qa, ea));
    qa += da;
    StoreVector(d8, v, o, eo, j, contiguous_out);
  });
  if (i < n) StoreStrided(d8, bytes(LoadStepTail(d, a, ea, i, n - i)), o, eo, i, n - i);
  return 0;
}

// (T) -> (T, int32) (frexp: mantissa and exponent); op(d, v, second)
// returns the first output and sets the second in the signed integer lanes
// of T's width, whose values fit int32 (truncated to it for float64). Any
// steps; both outputs contiguous take whole-vector stores.
template <class Op, class T>
int GMap1To2(const LoopContext&, char* const* args, const int64_t* dims, const int64_t* steps,
             void*) noexcept {
  const hn::ScalableTag<T> d;
  const hn::RebindToSigned<decltype(d)> di;
  const hn::Rebind<int32_t, decltype(d)> d32;
  const size_t N = hn::Lanes(d), n = static_cast<size_t>(dims[0]);
  const T* a = reinterpret_cast<const T*>(args[0]);
  T* o = reinterpret_cast<T*>(args[1]);
  int32_t* o2 = reinterpret_cast<int32_t*>(args[2]);
  const int64_t ea = steps[0] / static_cast<int64_t>(sizeof(T));
  const int64_t eo = steps[1] / static_cast<int64_t>(sizeof(T));
  const int64_t eo2 = steps[2] / static_cast<int64_t>(sizeof(int32_t));
  const Op op;
  const auto run = [&](hn::VFromD<decltype(d)> v, hn::VFromD<decltype(d32)>& second) {
    hn::VFromD<decltype(di)> wide;
    const auto first = op(d, v, wide);
    if constexpr (sizeof(T) == 4) {
      second = wide;
    } else {
      const hn::Rebind<uint32_t, decltype(d)> du32;
      second = hn::BitCast(d32, hn::TruncateTo(du32, hn::BitCast(hn::RebindToUnsigned<decltype(d)>(), wide)));
    }
    return first;
  };
  const T* qa = a;
  const int64_t da = ea * static_cast<int64_t>(N);
  const size_t i = StridedVectors(n, N, eo == 1 && eo2 == 1, [&](size_t j, auto contiguous_out) {
    hn::VFromD<decltype(d32)> second;
    const auto v = run(LoadStep(d, qa, ea), second);
    qa += da;
    StoreVector(d, v, o, eo, j, contiguous_out);
    StoreVector(d32, second, o2, eo2, j, contiguous_out);
  });
  if (i < n) {
    hn::VFromD<decltype(d32)> second;
    const auto v = run(LoadStepTail(d, a, ea, i, n - i), second);
    StoreStrided(d, v, o, eo, i, n - i);
    StoreStrided(d32, second, o2, eo2, i, n - i);
  }
  return 0;
}

// (T, T) -> T
template <class Op, class T>
int GMap2(const LoopContext&, char* const* args, const int64_t* dims, const int64_t* steps,
          void*) noexcept {
  const hn::ScalableTag<T> d;
  const size_t N = hn::Lanes(d), n = static_cast<size_t>(dims[0]);
  const T* a = reinterpret_cast<const T*>(args[0]);
  const T* b = reinterpret_cast<const T*>(args[1]);
  T* o = reinterpret_cast<T*>(args[2]);
  const int64_t ea = steps[0] / static_cast<int64_t>(sizeof(T));
  const int64_t eb = steps[1] / static_cast<int64_t>(sizeof(T));
  const int64_t eo = steps[2] / static_cast<int64_t>(sizeof(T));
  const Op op;
  // (the first strided input's group loads aligned; see GroupAlignedHead)
  const size_t head = ea >= 2 ? GroupAlignedHead(a, ea, n, N) : GroupAlignedHead(b, eb, n, N);
  if (head) {
    StoreStrided(d, op(d, LoadStepTail(d, a, ea, 0, head), LoadStepTail(d, b, eb, 0, head)), o,
                 eo, 0, head);
  }
  const T* qa = a + static_cast<int64_t>(head) * ea;
  const T* qb = b + static_cast<int64_t>(head) * eb;
  const int64_t da = ea * static_cast<int64_t>(N), db = eb * static_cast<int64_t>(N);
  const size_t i = StridedVectors(
      n, N, eo == 1,
      [&](size_t j, auto contiguous_out) {
        const auto v = op(d, LoadStep(d, qa, ea), LoadStep(d, qb, eb));
        qa += da;
        qb += db;
        StoreVector(d, v, o, eo, j, contiguous_out);
      },
      head);
  if (i < n) {
    const size_t c = n - i;
    StoreStrided(d, op(d, LoadStepTail(d, a, ea, i, c), LoadStepTail(d, b, eb, i, c)), o, eo, i, c);
  }
  return 0;
}

// Mask bytes at step `so` (bytes: a bool is one).
template <class D, class M>
HWY_INLINE void MaskToBytesStrided(D d, M m, uint8_t* o, int64_t so, size_t i, size_t count) {
  if (so == 1) {
    if (count == hn::Lanes(d)) {
      MaskToBytes(d, m, o + i);
    } else {
      MaskToBytesTail(d, m, o + i, count);
    }
    return;
  }
  uint8_t buf[HWY_MAX_BYTES];
  MaskToBytes(d, m, buf);
  for (size_t j = 0; j < count; ++j) o[static_cast<int64_t>(i + j) * so] = buf[j];
}

// A vector's mask to bytes [j, j + N) of o: a whole store where the output
// is contiguous (a compile-time fact), else byte by byte at step so.
template <class D, class M, class Contiguous>
HWY_INLINE void StoreMaskVector(D d, M m, uint8_t* o, int64_t so, size_t j, Contiguous) {
  if constexpr (Contiguous::value) {
    MaskToBytes(d, m, o + j);
  } else {
    MaskToBytesStrided(d, m, o, so, j, hn::Lanes(d));
  }
}

// (T) -> bool
template <class Op, class T>
int GPred1(const LoopContext&, char* const* args, const int64_t* dims, const int64_t* steps,
           void*) noexcept {
  const size_t n = static_cast<size_t>(dims[0]);
  uint8_t* o = reinterpret_cast<uint8_t*>(args[1]);
  if constexpr (requires { Op::kConstant; }) {
    if (n == 0) return 0;  // (memset takes no null pointer, even for 0 bytes)
    if (steps[1] == 1) {
      std::memset(o, Op::kConstant ? 1 : 0, n);
    } else {
      for (size_t i = 0; i < n; ++i) o[static_cast<int64_t>(i) * steps[1]] = Op::kConstant;
    }
    return 0;
  }
  const hn::ScalableTag<T> d;
  const size_t N = hn::Lanes(d);
  const T* a = reinterpret_cast<const T*>(args[0]);
  const int64_t ea = steps[0] / static_cast<int64_t>(sizeof(T));
  const Op op;
  // (group loads aligned, as in GMap1: AVX2's three-load groups at step 3
  // straddled cache lines from NumPy's 16-byte offsets, isinf float64 at
  // step 3 0.98x NumPy's time -> 1.28x without this)
  const size_t head = GroupAlignedHead(a, ea, n, N);
  if (head) MaskToBytesStrided(d, op(d, LoadStepTail(d, a, ea, 0, head)), o, steps[1], 0, head);
  const T* qa = a + static_cast<int64_t>(head) * ea;
  const int64_t da = ea * static_cast<int64_t>(N);
  const size_t i = StridedVectors(
      n, N, steps[1] == 1,
      [&](size_t j, auto contiguous_out) {
        const auto m = op(d, LoadStep(d, qa, ea));
        qa += da;
        StoreMaskVector(d, m, o, steps[1], j, contiguous_out);
      },
      head);
  if (i < n) MaskToBytesStrided(d, op(d, LoadStepTail(d, a, ea, i, n - i)), o, steps[1], i, n - i);
  return 0;
}

// (T, T) -> bool
template <class Op, class T>
int GPred2(const LoopContext&, char* const* args, const int64_t* dims, const int64_t* steps,
           void*) noexcept {
  const hn::ScalableTag<T> d;
  const size_t N = hn::Lanes(d), n = static_cast<size_t>(dims[0]);
  const T* a = reinterpret_cast<const T*>(args[0]);
  const T* b = reinterpret_cast<const T*>(args[1]);
  uint8_t* o = reinterpret_cast<uint8_t*>(args[2]);
  const int64_t ea = steps[0] / static_cast<int64_t>(sizeof(T));
  const int64_t eb = steps[1] / static_cast<int64_t>(sizeof(T));
  const Op op;
  const size_t head = ea >= 2 ? GroupAlignedHead(a, ea, n, N) : GroupAlignedHead(b, eb, n, N);
  if (head) {
    MaskToBytesStrided(d, op(d, LoadStepTail(d, a, ea, 0, head), LoadStepTail(d, b, eb, 0, head)),
                       o, steps[2], 0, head);
  }
  const T* qa = a + static_cast<int64_t>(head) * ea;
  const T* qb = b + static_cast<int64_t>(head) * eb;
  const int64_t da = ea * static_cast<int64_t>(N), db = eb * static_cast<int64_t>(N);
  const size_t i = StridedVectors(
      n, N, steps[2] == 1,
      [&](size_t j, auto contiguous_out) {
        const auto m = op(d, LoadStep(d, qa, ea), LoadStep(d, qb, eb));
        qa += da;
        qb += db;
        StoreMaskVector(d, m, o, steps[2], j, contiguous_out);
      },
      head);
  if (i < n) {
    const size_t c = n - i;
    MaskToBytesStrided(d, op(d, LoadStepTail(d, a, ea, i, c), LoadStepTail(d, b, eb, i, c)), o,
                       steps[2], i, c);
  }
  return 0;
}

// ------------------------------------------------------------ complex
// Complex loops run on interleaved (re, im) pairs as lanes of the real type
// R, two per element: a full vector holds whole pairs on every target but
// HWY_SCALAR, and bodies with fused multiply-adds run only where the target
// fuses them as the scalar loop's Fma does (elsewhere the slot is empty and
// the scalar loop runs).
template <class Op>
constexpr bool ComplexUsable() {
  if constexpr (HWY_TARGET == HWY_SCALAR) {
    return false;
  } else if constexpr (requires { Op::kNeedsFma; }) {
    return HWY_NATIVE_FMA != 0;
  } else {
    return true;
  }
}

// One complex value in every pair of lanes.
template <class D, class R = hn::TFromD<D>>
HWY_INLINE hn::VFromD<D> SetPair(D d, const R* p) {
  if constexpr (sizeof(R) == 8) {
    return hn::LoadDup128(d, p);
  } else {
    uint64_t bits;
    std::memcpy(&bits, p, 8);
    return hn::BitCast(d, hn::Set(hn::Repartition<uint64_t, D>(), bits));
  }
}

// The first `count` lanes from p, zeros after them: a partial vector of
// pairs computes nothing that could raise a flag the scalar loop would not
// (copies of a lane could, as inf - inf).
template <class D, class R = hn::TFromD<D>>
HWY_INLINE hn::VFromD<D> LoadTailZero(D d, const R* p, size_t count) {
  HWY_ALIGN R buf[HWY_MAX_BYTES / sizeof(R)] = {};
  std::memcpy(buf, p, count * sizeof(R));
  return hn::Load(d, buf);
}

template <class D, class R = hn::TFromD<D>>
HWY_INLINE hn::VFromD<D> LoadPairs(D d, const R* p, bool bcast, size_t i) {
  return bcast ? SetPair(d, p) : hn::LoadU(d, p + i);
}
template <class D, class R = hn::TFromD<D>>
HWY_INLINE hn::VFromD<D> LoadPairsTail(D d, const R* p, bool bcast, size_t i, size_t count) {
  return bcast ? SetPair(d, p) : LoadTailZero(d, p + i, count);
}

// Streaming stores start at the first vector-aligned lane: only an output
// aligned to a whole pair keeps that lane at a pair's start.
template <class R>
HWY_INLINE bool StreamPairs(const R* o, size_t lanes, size_t operands) {
  return reinterpret_cast<uintptr_t>(o) % (2 * sizeof(R)) == 0 &&
         lanes * sizeof(R) * operands >= kStreamMinBytes;
}

// (C) -> C
template <class Op, class R>
int CMap1(const LoopContext&, char* const* args, const int64_t* dims, const int64_t* steps,
          void*) noexcept {
  if constexpr (ComplexUsable<Op>()) {
    const hn::ScalableTag<R> d;
    const size_t n = 2 * static_cast<size_t>(dims[0]);
    const R* a = reinterpret_cast<const R*>(args[0]);
    R* o = reinterpret_cast<R*>(args[1]);
    const bool ba = steps[0] == 0;
    const Op op;
    StoreAll(
        d, o, n, StreamPairs(o, n, ba ? 1 : 2), [&](size_t i) { return op(d, LoadPairs(d, a, ba, i)); },
        [&](size_t i, size_t c) { return op(d, LoadPairsTail(d, a, ba, i, c)); }, 2);
  }
  return 0;
}

// (C, C) -> C
template <class Op, class R>
int CMap2(const LoopContext&, char* const* args, const int64_t* dims, const int64_t* steps,
          void*) noexcept {
  if constexpr (ComplexUsable<Op>()) {
    const hn::ScalableTag<R> d;
    const size_t n = 2 * static_cast<size_t>(dims[0]);
    const R* a = reinterpret_cast<const R*>(args[0]);
    const R* b = reinterpret_cast<const R*>(args[1]);
    R* o = reinterpret_cast<R*>(args[2]);
    const bool ba = steps[0] == 0, bb = steps[1] == 0;
    const Op op;
    StoreAll(
        d, o, n, StreamPairs(o, n, 1 + !ba + !bb),
        [&](size_t i) { return op(d, LoadPairs(d, a, ba, i), LoadPairs(d, b, bb, i)); },
        [&](size_t i, size_t c) {
          return op(d, LoadPairsTail(d, a, ba, i, c), LoadPairsTail(d, b, bb, i, c));
        },
        2);
  }
  return 0;
}

#if HWY_TARGET != HWY_SCALAR
// Pairs (one complex value each) at a step of `es` pairs: a vector of P
// pairs is built from two half vectors (Combine), down to one pair, so
// AVX2 takes two 128-bit loads and an insert for two complex128 values.
template <class D, class R = hn::TFromD<D>>
HWY_INLINE hn::VFromD<D> LoadPairsAtStep(D d, const R* p, int64_t es) {
  if constexpr (hn::MaxLanes(d) <= 2) {
    return hn::LoadU(d, p);
  } else {
    const hn::Half<D> dh;
    const int64_t half_pairs = static_cast<int64_t>(hn::MaxLanes(dh) / 2);
    return hn::Combine(d, LoadPairsAtStep(dh, p + 2 * half_pairs * es, es),
                       LoadPairsAtStep(dh, p, es));
  }
}
template <class D, class R = hn::TFromD<D>>
HWY_INLINE void StorePairsAtStep(D d, hn::VFromD<D> v, R* p, int64_t es) {
  if constexpr (hn::MaxLanes(d) <= 2) {
    hn::StoreU(v, d, p);
  } else {
    const hn::Half<D> dh;
    const int64_t half_pairs = static_cast<int64_t>(hn::MaxLanes(dh) / 2);
    StorePairsAtStep(dh, hn::LowerHalf(dh, v), p, es);
    StorePairsAtStep(dh, hn::UpperHalf(dh, v), p + 2 * half_pairs * es, es);
  }
}
#endif

// The strided SIMD slot of complex maps: elements at any step of whole
// elements (0 for a broadcast input), loaded and stored pair by pair; the
// last partial vector goes through a buffer padded with the first element
// of the tail (so it raises no flag the data does not).
template <class Op, class R, int Nin>
int GCMapN(char* const* args, const int64_t* dims, const int64_t* steps) noexcept {
#if HWY_TARGET != HWY_SCALAR
  if constexpr (ComplexUsable<Op>()) {
    const hn::ScalableTag<R> d;
    const size_t P = hn::Lanes(d) / 2, n = static_cast<size_t>(dims[0]);
    constexpr int64_t kPair = 2 * sizeof(R);
    const R* in[2] = {reinterpret_cast<const R*>(args[0]),
                      reinterpret_cast<const R*>(args[Nin == 2 ? 1 : 0])};
    R* o = reinterpret_cast<R*>(args[Nin]);
    const int64_t e[2] = {steps[0] / kPair, steps[Nin == 2 ? 1 : 0] / kPair};
    const int64_t eo = steps[Nin] / kPair;
    const Op op;
    auto apply = [&](auto... v) { return op(d, v...); };
    // (pointers advance a vector at a time; the output's contiguity is
    // decided once)
    const R* qa = in[0];
    const R* qb = in[1];
    R* qo = o;
    const int64_t da = 2 * static_cast<int64_t>(P) * e[0], db = 2 * static_cast<int64_t>(P) * e[1];
    auto vectors = [&](auto contiguous_out) {
      size_t i = 0;
      for (; i + P <= n; i += P, qa += da, qb += db, qo += 2 * static_cast<int64_t>(P) * eo) {
        hn::VFromD<decltype(d)> r;
        if constexpr (Nin == 2) {
          r = apply(LoadPairsAtStep(d, qa, e[0]), LoadPairsAtStep(d, qb, e[1]));
        } else {
          r = apply(LoadPairsAtStep(d, qa, e[0]));
        }
        if constexpr (decltype(contiguous_out)::value) {
          hn::StoreU(r, d, qo);
        } else {
          StorePairsAtStep(d, r, qo, eo);
        }
      }
      return i;
    };
    const size_t i = eo == 1 ? vectors(std::true_type()) : vectors(std::false_type());
    if (i < n) {
      const size_t count = n - i;
      HWY_ALIGN R buf[2][HWY_MAX_BYTES / sizeof(R)];
      for (int k = 0; k < Nin; ++k) {
        for (size_t j = 0; j < P; ++j) {
          const int64_t src = static_cast<int64_t>(i + (j < count ? j : 0)) * e[k];
          buf[k][2 * j] = in[k][2 * src];
          buf[k][2 * j + 1] = in[k][2 * src + 1];
        }
      }
      hn::VFromD<decltype(d)> r;
      if constexpr (Nin == 2) {
        r = apply(hn::Load(d, buf[0]), hn::Load(d, buf[1]));
      } else {
        r = apply(hn::Load(d, buf[0]));
      }
      hn::Store(r, d, buf[0]);
      for (size_t j = 0; j < count; ++j) {
        const int64_t dst = static_cast<int64_t>(i + j) * eo;
        o[2 * dst] = buf[0][2 * j];
        o[2 * dst + 1] = buf[0][2 * j + 1];
      }
    }
  }
#else
  (void)args, (void)dims, (void)steps;
#endif
  return 0;
}
template <class Op, class R>
int GCMap1(const LoopContext&, char* const* args, const int64_t* dims, const int64_t* steps,
           void*) noexcept {
  return GCMapN<Op, R, 1>(args, dims, steps);
}
template <class Op, class R>
int GCMap2(const LoopContext&, char* const* args, const int64_t* dims, const int64_t* steps,
           void*) noexcept {
  return GCMapN<Op, R, 2>(args, dims, steps);
}

// (C) -> R: two vectors of pairs give one vector of real parts and one of
// imaginary parts (ConcatEven / ConcatOdd), and the op maps them to R.
template <class Op, class R>
int CMapReal1(const LoopContext&, char* const* args, const int64_t* dims,
              const int64_t* steps, void*) noexcept {
#if HWY_TARGET != HWY_SCALAR
  if constexpr (ComplexUsable<Op>()) {
    const hn::ScalableTag<R> d;
    const size_t N = hn::Lanes(d), n = static_cast<size_t>(dims[0]);
    const R* a = reinterpret_cast<const R*>(args[0]);
    R* o = reinterpret_cast<R*>(args[1]);
    const bool ba = steps[0] == 0;
    const Op op;
    auto split = [&](auto lo, auto hi) {
      return op(d, hn::ConcatEven(d, hi, lo), hn::ConcatOdd(d, hi, lo));
    };
    StoreAll(
        d, o, n, false,
        [&](size_t i) {
          return split(LoadPairs(d, a, ba, 2 * i), LoadPairs(d, a, ba, 2 * i + N));
        },
        [&](size_t i, size_t c) {  // c < N values: 2c lanes, over one or two vectors
          const size_t first = std::min(2 * c, N);
          return split(LoadPairsTail(d, a, ba, 2 * i, first),
                       2 * c > N ? LoadPairsTail(d, a, ba, 2 * i + N, 2 * c - N)
                                 : hn::Zero(d));
        });
  }
#else
  (void)args, (void)dims, (void)steps;
#endif
  return 0;
}

// The last count (< N) values from value i on, at a step of e pairs, as
// two vectors of pairs in buf (N lanes each), padded with the first of them
// so that the padding raises no flag the data does not.
template <class R>
HWY_INLINE void TailPairs(const R* a, int64_t e, size_t i, size_t count, size_t N, R* buf) {
  for (size_t j = 0; j < N; ++j) {
    const int64_t src = 2 * static_cast<int64_t>(i + (j < count ? j : 0)) * e;
    buf[2 * j] = a[src];
    buf[2 * j + 1] = a[src + 1];
  }
}

// The strided SIMD slot of CMapReal1 (absolute): pairs loaded one by one at
// any step of whole elements, values stored at any step; the last values
// through a buffer padded with the first of them. complex128 absolute at
// step 3 copied blocks through scratch at 1.4-1.5x NumPy's time.
template <class Op, class R>
int GCMapReal1(const LoopContext&, char* const* args, const int64_t* dims,
               const int64_t* steps, void*) noexcept {
#if HWY_TARGET != HWY_SCALAR
  if constexpr (ComplexUsable<Op>()) {
    const hn::ScalableTag<R> d;
    const size_t N = hn::Lanes(d), n = static_cast<size_t>(dims[0]);
    const R* a = reinterpret_cast<const R*>(args[0]);
    R* o = reinterpret_cast<R*>(args[1]);
    const int64_t e = steps[0] / static_cast<int64_t>(2 * sizeof(R));  // (in pairs)
    const int64_t eo = steps[1] / static_cast<int64_t>(sizeof(R));
    const Op op;
    auto split = [&](auto lo, auto hi) {
      return op(d, hn::ConcatEven(d, hi, lo), hn::ConcatOdd(d, hi, lo));
    };
    const int64_t half = static_cast<int64_t>(N) * e;  // (lanes between the two vectors)
    size_t i = 0;
    const R* p = a;
    for (; i + N <= n; i += N, p += 2 * half) {
      const auto v = split(LoadPairsAtStep(d, p, e), LoadPairsAtStep(d, p + half, e));
      if (eo == 1) {
        hn::StoreU(v, d, o + i);
      } else {
        StoreStrided(d, v, o, eo, i, N);
      }
    }
    if (i < n) {
      HWY_ALIGN R buf[2 * HWY_MAX_BYTES / sizeof(R)];
      TailPairs(a, e, i, n - i, N, buf);
      StoreStrided(d, split(hn::Load(d, buf), hn::Load(d, buf + N)), o, eo, i, n - i);
    }
  }
#else
  (void)args, (void)dims, (void)steps;
#endif
  return 0;
}

// Bools into a contiguous output, whole byte vectors at a time: blocks of
// kMasksPerByteVector<T> vectors, mask_at(j) the mask of lanes j on.
// Returns how many elements it wrote (whole blocks; the caller does the
// rest a vector at a time).
template <class D, class MaskAt>
HWY_INLINE size_t PackedPredicates(D d, size_t n, uint8_t* o, MaskAt mask_at) {
  const size_t N = hn::Lanes(d), block = kMasksPerByteVector<hn::TFromD<D>> * N;
  if (block == N) return 0;  // (one-byte lanes: MaskToBytes stores whole vectors)
  size_t i = 0;
  for (; i + block <= n; i += block) {
    MaskToBytesPacked(d, [&](size_t k) { return mask_at(i + k * N); }, o + i);
  }
  return i;
}

// (T) -> bool; the op returns a mask, or is the constant Op::kConstant
// (isnan of an integer: the input is not read, as NumPy does not read it).
template <class Op, class T>
int Pred1(const LoopContext&, char* const* args, const int64_t* dims,
          const int64_t* steps, void*) noexcept {
  if constexpr (requires { Op::kConstant; }) {
    std::memset(args[1], Op::kConstant, static_cast<size_t>(dims[0]));
    return 0;
  }
  const hn::ScalableTag<T> d;
  const size_t N = hn::Lanes(d), n = static_cast<size_t>(dims[0]);
  const T* a = reinterpret_cast<const T*>(args[0]);
  uint8_t* o = reinterpret_cast<uint8_t*>(args[1]);
  const bool ba = steps[0] == 0;
  const Op op;
  size_t i = ba ? 0 : PackedPredicates(d, n, o, [&](size_t j) { return op(d, hn::LoadU(d, a + j)); });
  for (; i + N <= n; i += N) MaskToBytes(d, op(d, LoadArg(d, a, ba, i)), o + i);
  if (i < n) {
    MaskToBytesTail(d, op(d, LoadArgTail(d, a, ba, i, n - i)), o + i, n - i);
  }
  return 0;
}

// (T, T) -> bool; the op returns a mask.
template <class Op, class T>
int Pred2(const LoopContext&, char* const* args, const int64_t* dims,
          const int64_t* steps, void*) noexcept {
  const hn::ScalableTag<T> d;
  const size_t N = hn::Lanes(d), n = static_cast<size_t>(dims[0]);
  const T* a = reinterpret_cast<const T*>(args[0]);
  const T* b = reinterpret_cast<const T*>(args[1]);
  uint8_t* o = reinterpret_cast<uint8_t*>(args[2]);
  const bool ba = steps[0] == 0, bb = steps[1] == 0;
  const Op op;
  // (the packed loop with the broadcasts known at compile time: no branch
  // per vector)
  auto packed = [&](auto bcast_a, auto bcast_b) {
    return PackedPredicates(d, n, o, [&](size_t j) {
      return op(d, LoadArg(d, a, bcast_a(), j), LoadArg(d, b, bcast_b(), j));
    });
  };
  const std::true_type bcast;
  const std::false_type whole;
  size_t i = ba ? (bb ? 0 : packed(bcast, whole)) : bb ? packed(whole, bcast) : packed(whole, whole);
  for (; i + N <= n; i += N) {
    MaskToBytes(d, op(d, LoadArg(d, a, ba, i), LoadArg(d, b, bb, i)), o + i);
  }
  if (i < n) {
    const size_t r = n - i;
    MaskToBytesTail(d, op(d, LoadArgTail(d, a, ba, i, r), LoadArgTail(d, b, bb, i, r)),
                    o + i, r);
  }
  return 0;
}

// Complex predicates, (C) -> bool and (C, C) -> bool, on interleaved pairs:
// the op's mask holds each pair's result in its even (real) lane; two
// vectors of pairs give one mask of N values (their even lanes, in order),
// stored as Pred's masks are, packed into whole byte vectors where they fill
// one. complex128 less at 1e3 ran the scalar loop at 1.65x NumPy's time.
#if HWY_TARGET != HWY_SCALAR
template <class D, class M>
HWY_INLINE M EvenLanes(D d, M lo, M hi) {
  return hn::MaskFromVec(hn::ConcatEven(d, hn::VecFromMask(d, hi), hn::VecFromMask(d, lo)));
}

// The mask of values [j, j + N) (lanes 2j on) of a complex predicate of
// nin inputs, and of the last count < N values.
template <class Op, int kNin, class D, class R = hn::TFromD<D>>
struct ComplexMasks {
  D d;
  Op op;
  const R* in[kNin];
  bool bcast[kNin];

  // (a member, not a lambda: GCC left a lambda here out of line, and
  // the AVX2 complex128 isnan spilled every vector around its calls)
  HWY_INLINE auto Load(int k, size_t lane, size_t count) const {
    return count >= hn::Lanes(d) ? LoadPairs(d, in[k], bcast[k], lane)
                                 : LoadPairsTail(d, in[k], bcast[k], lane, count);
  }
  HWY_INLINE auto Apply(size_t lane, size_t count) const {
    if constexpr (kNin == 1) {
      return op(d, Load(0, lane, count));
    } else {
      return op(d, Load(0, lane, count), Load(1, lane, count));
    }
  }
  HWY_INLINE auto Full(size_t j) const {
    const size_t N = hn::Lanes(d);
    return EvenLanes(d, Apply(2 * j, N), Apply(2 * j + N, N));
  }
  HWY_INLINE auto Tail(size_t j, size_t count) const {
    const size_t N = hn::Lanes(d), lanes = 2 * count;
    const auto lo = Apply(2 * j, std::min(lanes, N));
    return EvenLanes(d, lo, lanes > N ? Apply(2 * j + N, lanes - N) : lo);
  }
};
#endif

template <class Op, class R, int kNin>
int CPred(const LoopContext&, char* const* args, const int64_t* dims, const int64_t* steps,
          void*) noexcept {
#if HWY_TARGET != HWY_SCALAR
  if constexpr (ComplexUsable<Op>()) {
    const hn::ScalableTag<R> d;
    const size_t N = hn::Lanes(d), n = static_cast<size_t>(dims[0]);
    uint8_t* o = reinterpret_cast<uint8_t*>(args[kNin]);
    ComplexMasks<Op, kNin, decltype(d)> masks{d, Op(), {}, {}};
    for (int k = 0; k < kNin; ++k) {
      masks.in[k] = reinterpret_cast<const R*>(args[k]);
      masks.bcast[k] = steps[k] == 0;
    }
    size_t i = PackedPredicates(d, n, o, [&](size_t j) { return masks.Full(j); });
    for (; i + N <= n; i += N) MaskToBytes(d, masks.Full(i), o + i);
    if (i < n) MaskToBytesTail(d, masks.Tail(i, n - i), o + i, n - i);
  }
#else
  (void)args, (void)dims, (void)steps;
#endif
  return 0;
}
template <class Op, class R>
int CPred1(const LoopContext& ctx, char* const* args, const int64_t* dims, const int64_t* steps,
           void* aux) noexcept {
  return CPred<Op, R, 1>(ctx, args, dims, steps, aux);
}
template <class Op, class R>
int CPred2(const LoopContext& ctx, char* const* args, const int64_t* dims, const int64_t* steps,
           void* aux) noexcept {
  return CPred<Op, R, 2>(ctx, args, dims, steps, aux);
}

// The strided SIMD slot of complex predicates of one input: pairs loaded
// one by one at any step of whole elements (as GCMap's), the masks of two
// vectors' real lanes packed as CPred's; the last values through a buffer
// padded with the first of them. complex128 isnan at step 3 ran the scalar
// loop at 1.7-2x NumPy's time.
template <class Op, class R>
int GCPred1(const LoopContext&, char* const* args, const int64_t* dims, const int64_t* steps,
            void*) noexcept {
#if HWY_TARGET != HWY_SCALAR
  if constexpr (ComplexUsable<Op>()) {
    const hn::ScalableTag<R> d;
    const size_t N = hn::Lanes(d), n = static_cast<size_t>(dims[0]);
    const R* a = reinterpret_cast<const R*>(args[0]);
    const int64_t e = steps[0] / static_cast<int64_t>(2 * sizeof(R));  // (in pairs)
    uint8_t* o = reinterpret_cast<uint8_t*>(args[1]);
    const Op op;
    // (N values are two vectors of N / 2 pairs each)
    const int64_t half = static_cast<int64_t>(N) * e;  // (lanes between the two vectors)
    size_t i = 0;
    const R* p = a;
    for (; i + N <= n; i += N, p += 2 * half) {
      const auto m = EvenLanes(d, op(d, LoadPairsAtStep(d, p, e)),
                               op(d, LoadPairsAtStep(d, p + half, e)));
      MaskToBytesStrided(d, m, o, steps[1], i, N);
    }
    if (i < n) {
      HWY_ALIGN R buf[2 * HWY_MAX_BYTES / sizeof(R)];
      TailPairs(a, e, i, n - i, N, buf);
      const auto m = EvenLanes(d, op(d, hn::Load(d, buf)), op(d, hn::Load(d, buf + N)));
      MaskToBytesStrided(d, m, o, steps[1], i, n - i);
    }
  }
#else
  (void)args, (void)dims, (void)steps;
#endif
  return 0;
}

// Reduce slot of the logical ufuncs on bools ('??->?'): the op gives a mask
// (nonzero bytes are true), accumulators hold 0/1 bytes. Logical and, or
// and xor are associative and commutative, so lanes may combine in any
// order.
template <class Op, class T>
int ReducePred(const LoopContext&, char* const* args, const int64_t* dims,
               const int64_t*, void*) noexcept {
  const hn::ScalableTag<T> d;
  const hn::CappedTag<T, 1> d1;
  const Op op;
  const size_t N = hn::Lanes(d), n = static_cast<size_t>(dims[0]);
  const T* a = reinterpret_cast<const T*>(args[1]);
  T* acc = reinterpret_cast<T*>(args[0]);
  const auto ones = hn::Set(d, T{1});
  auto step = [&](auto v, auto x) { return hn::IfThenElseZero(op(d, v, x), ones); };
  auto one = [&](T x, T y) {
    return static_cast<T>(hn::AllFalse(d1, op(d1, hn::Set(d1, x), hn::Set(d1, y))) ? 0 : 1);
  };
  // An absorbing value (false for and, true for or) ends the scan early,
  // as NumPy's loops do; the accumulators are checked between chunks.
  const bool absorbs0 = one(0, 0) == 0 && one(0, 1) == 0;
  const bool absorbs1 = one(1, 0) == 1 && one(1, 1) == 1;
  T r = static_cast<T>(*acc != 0);
  if ((absorbs0 && r == 0) || (absorbs1 && r == 1)) return 0;
  size_t i = 0;
  if (n >= 4 * N) {
    constexpr size_t kChunk = 4096;
    auto v0 = step(hn::LoadU(d, a), hn::LoadU(d, a + N));
    auto v1 = step(hn::LoadU(d, a + 2 * N), hn::LoadU(d, a + 3 * N));
    i = 4 * N;
    while (i + 2 * N <= n) {
      const size_t end = i + std::min(kChunk, (n - i) / (2 * N) * (2 * N));
      for (; i < end; i += 2 * N) {
        v0 = step(v0, hn::LoadU(d, a + i));
        v1 = step(v1, hn::LoadU(d, a + i + N));
      }
      const auto set = hn::Ne(step(v0, v1), hn::Zero(d));
      if ((absorbs0 && !hn::AllTrue(d, set)) || (absorbs1 && !hn::AllFalse(d, set))) {
        *acc = static_cast<T>(absorbs1 && !hn::AllFalse(d, set));
        return 0;
      }
    }
    HWY_ALIGN T lanes[HWY_MAX_BYTES / sizeof(T)];
    hn::Store(step(v0, v1), d, lanes);
    for (size_t j = 0; j < N; ++j) r = one(r, lanes[j]);
  }
  for (; i < n; ++i) r = one(r, a[i]);
  *acc = static_cast<T>(r != 0);
  return 0;
}

// Reduce slot for a contiguous input when the op may be applied in any
// order without changing the result (integer add/multiply/bitwise, min/max):
// four vector accumulators, then lanes and tail one at a time through the
// same op on a one-lane vector.
template <class Op, class T>
int ReduceLanes(const LoopContext&, char* const* args, const int64_t* dims,
                const int64_t*, void*) noexcept {
  const hn::ScalableTag<T> d;
  const hn::CappedTag<T, 1> d1;
  const Op op;
  const size_t N = hn::Lanes(d), n = static_cast<size_t>(dims[0]);
  const T* a = reinterpret_cast<const T*>(args[1]);
  T* acc = reinterpret_cast<T*>(args[0]);
  auto one = [&](T x, T y) {
    return hn::GetLane(op(d1, hn::Set(d1, x), hn::Set(d1, y)));
  };
  T r = *acc;
  size_t i = 0;
  if constexpr (hwy::IsFloat<T>() && requires { &Op::template NanFree<decltype(d), hn::VFromD<decltype(d)>>; }) {
    // Float max/min: the plain instruction on the chain, NaNs noted on the
    // side; with any NaN (or a NaN start) the exact op below runs instead.
    if (n >= 4 * N && !std::isnan(r)) {
      auto v0 = hn::LoadU(d, a), v1 = hn::LoadU(d, a + N);
      auto v2 = hn::LoadU(d, a + 2 * N), v3 = hn::LoadU(d, a + 3 * N);
      auto nan = hn::Or(hn::Or(hn::IsNaN(v0), hn::IsNaN(v1)), hn::Or(hn::IsNaN(v2), hn::IsNaN(v3)));
      for (i = 4 * N; i + 4 * N <= n; i += 4 * N) {
        const auto x0 = hn::LoadU(d, a + i), x1 = hn::LoadU(d, a + i + N);
        const auto x2 = hn::LoadU(d, a + i + 2 * N), x3 = hn::LoadU(d, a + i + 3 * N);
        nan = hn::Or(nan, hn::Or(hn::Or(hn::IsNaN(x0), hn::IsNaN(x1)),
                                 hn::Or(hn::IsNaN(x2), hn::IsNaN(x3))));
        v0 = op.NanFree(d, v0, x0);
        v1 = op.NanFree(d, v1, x1);
        v2 = op.NanFree(d, v2, x2);
        v3 = op.NanFree(d, v3, x3);
      }
      if (hn::AllFalse(d, nan)) {
        const auto v = op.NanFree(d, op.NanFree(d, v0, v1), op.NanFree(d, v2, v3));
        HWY_ALIGN T lanes[HWY_MAX_BYTES / sizeof(T)];
        hn::Store(v, d, lanes);
        for (size_t j = 0; j < N; ++j) r = one(r, lanes[j]);
        for (; i < n; ++i) r = one(r, a[i]);
        *acc = r;
        return 0;
      }
      i = 0;
    }
  }
  if (n >= 4 * N) {
    auto v0 = hn::LoadU(d, a), v1 = hn::LoadU(d, a + N);
    auto v2 = hn::LoadU(d, a + 2 * N), v3 = hn::LoadU(d, a + 3 * N);
    for (i = 4 * N; i + 4 * N <= n; i += 4 * N) {
      v0 = op(d, v0, hn::LoadU(d, a + i));
      v1 = op(d, v1, hn::LoadU(d, a + i + N));
      v2 = op(d, v2, hn::LoadU(d, a + i + 2 * N));
      v3 = op(d, v3, hn::LoadU(d, a + i + 3 * N));
    }
    for (; i + N <= n; i += N) v0 = op(d, v0, hn::LoadU(d, a + i));
    const auto v = op(d, op(d, v0, v1), op(d, v2, v3));
    HWY_ALIGN T lanes[HWY_MAX_BYTES / sizeof(T)];
    hn::Store(v, d, lanes);
    for (size_t j = 0; j < N; ++j) r = one(r, lanes[j]);
  }
  for (; i < n; ++i) r = one(r, a[i]);
  *acc = r;
  return 0;
}

// NumPy's pairwise summation (see drivers::PairwiseSum) with its eight
// accumulators held in vector lanes: the same additions in the same order.
template <class T>
T PairwiseSumLanes(const T* a, size_t n) {
  if (n < 8) {
    T res = -T(0);
    for (size_t i = 0; i < n; ++i) res += a[i];
    return res;
  }
  if (n <= 128) {
    const hn::CappedTag<T, 8> d;
    const size_t N = hn::Lanes(d), K = 8 / N;
    using V = hn::VFromD<decltype(d)>;
    V r[8];
    for (size_t k = 0; k < K; ++k) r[k] = hn::LoadU(d, a + k * N);
    size_t i = 8;
    for (; i < n - (n % 8); i += 8) {
      for (size_t k = 0; k < K; ++k) r[k] = hn::Add(r[k], hn::LoadU(d, a + i + k * N));
    }
    HWY_ALIGN T s[8];
    for (size_t k = 0; k < K; ++k) hn::Store(r[k], d, s + k * N);
    T res = ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
    for (; i < n; ++i) res += a[i];
    return res;
  }
  size_t n2 = n / 2;
  n2 -= n2 % 8;
  return PairwiseSumLanes(a, n2) + PairwiseSumLanes(a + n2, n - n2);
}

template <class T>
int ReducePairwise(const LoopContext&, char* const* args, const int64_t* dims,
                   const int64_t*, void*) noexcept {
  T* acc = reinterpret_cast<T*>(args[0]);
  *acc = *acc + PairwiseSumLanes(reinterpret_cast<const T*>(args[1]),
                                 static_cast<size_t>(dims[0]));
  return 0;
}

}  // namespace ufuncx::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // UFUNCX_SIMD_DRIVERS_INL_H_
