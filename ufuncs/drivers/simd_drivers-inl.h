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

#include <hwy/highway.h>

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

// (T) -> T
template <class Op, class T>
int Map1(const LoopContext&, char* const* args, const int64_t* dims,
         const int64_t* steps, void*) noexcept {
  const hn::ScalableTag<T> d;
  const size_t N = hn::Lanes(d), n = static_cast<size_t>(dims[0]);
  const T* a = reinterpret_cast<const T*>(args[0]);
  T* o = reinterpret_cast<T*>(args[1]);
  const bool ba = steps[0] == 0;
  const Op op;
  size_t i = 0;
  for (; i + N <= n; i += N) hn::StoreU(op(d, LoadArg(d, a, ba, i)), d, o + i);
  if (i < n) StoreTail(d, op(d, LoadArgTail(d, a, ba, i, n - i)), o + i, n - i);
  return 0;
}

// (T, T) -> T
template <class Op, class T>
int Map2(const LoopContext&, char* const* args, const int64_t* dims,
         const int64_t* steps, void*) noexcept {
  const hn::ScalableTag<T> d;
  const size_t N = hn::Lanes(d), n = static_cast<size_t>(dims[0]);
  const T* a = reinterpret_cast<const T*>(args[0]);
  const T* b = reinterpret_cast<const T*>(args[1]);
  T* o = reinterpret_cast<T*>(args[2]);
  const bool ba = steps[0] == 0, bb = steps[1] == 0;
  const Op op;
  size_t i = 0;
  if (!ba && !bb) {
    // The common case, kept free of the broadcast tests.
    for (; i + N <= n; i += N) {
      hn::StoreU(op(d, hn::LoadU(d, a + i), hn::LoadU(d, b + i)), d, o + i);
    }
  } else {
    for (; i + N <= n; i += N) {
      hn::StoreU(op(d, LoadArg(d, a, ba, i), LoadArg(d, b, bb, i)), d, o + i);
    }
  }
  if (i < n) {
    const size_t r = n - i;
    StoreTail(d, op(d, LoadArgTail(d, a, ba, i, r), LoadArgTail(d, b, bb, i, r)),
              o + i, r);
  }
  return 0;
}

// (T) -> bool; the op returns a mask.
template <class Op, class T>
int Pred1(const LoopContext&, char* const* args, const int64_t* dims,
          const int64_t* steps, void*) noexcept {
  const hn::ScalableTag<T> d;
  const size_t N = hn::Lanes(d), n = static_cast<size_t>(dims[0]);
  const T* a = reinterpret_cast<const T*>(args[0]);
  uint8_t* o = reinterpret_cast<uint8_t*>(args[1]);
  const bool ba = steps[0] == 0;
  const Op op;
  size_t i = 0;
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
  size_t i = 0;
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

}  // namespace ufuncx::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // UFUNCX_SIMD_DRIVERS_INL_H_
