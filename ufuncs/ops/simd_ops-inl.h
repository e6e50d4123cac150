// Vector bodies of the ufuncs that have Highway loops. Each must give the
// same result, bit for bit, as its scalar op in scalar_ops.h (except exp and
// log, which use Highway's contrib/math: error bounds in ufuncs.toml).
// Mask-returning ops feed the Pred drivers (bool outputs).
#if defined(UFUNCX_SIMD_OPS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef UFUNCX_SIMD_OPS_INL_H_
#undef UFUNCX_SIMD_OPS_INL_H_
#else
#define UFUNCX_SIMD_OPS_INL_H_
#endif

#include <cmath>
#include <limits>

#include <hwy/contrib/math/math-inl.h>
#include <hwy/highway.h>

#include "simd/hwy_shim-inl.h"

HWY_BEFORE_NAMESPACE();
namespace ufuncx::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#define UFX_VEC2(NAME, EXPR)                          \
  struct NAME {                                       \
    template <class D, class V>                       \
    HWY_INLINE V operator()(D d, V a, V b) const {    \
      (void)d;                                        \
      return EXPR;                                    \
    }                                                 \
  };
#define UFX_VEC1(NAME, EXPR)                          \
  struct NAME {                                       \
    template <class D, class V>                       \
    HWY_INLINE V operator()(D d, V a) const {         \
      (void)d;                                        \
      return EXPR;                                    \
    }                                                 \
  };
#define UFX_PRED2(NAME, EXPR)                         \
  struct NAME {                                       \
    template <class D, class V>                       \
    HWY_INLINE auto operator()(D d, V a, V b) const { \
      (void)d;                                        \
      return EXPR;                                    \
    }                                                 \
  };
#define UFX_PRED1(NAME, EXPR)                         \
  struct NAME {                                       \
    template <class D, class V>                       \
    HWY_INLINE auto operator()(D d, V a) const {      \
      (void)d;                                        \
      return EXPR;                                    \
    }                                                 \
  };

UFX_VEC2(Add, hn::Add(a, b))
UFX_VEC2(Subtract, hn::Sub(a, b))
UFX_VEC2(Multiply, hn::Mul(a, b))
UFX_VEC2(Divide, hn::Div(a, b))
// 64-bit integer multiply (wrapping), from 32x32->64 MulEven pieces: x86
// before AVX-512DQ has no 64-bit lane multiply.
struct Mul64 {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V a, V b) const {
#if HWY_TARGET == HWY_SCALAR
    using T = hn::TFromD<D>;
    return hn::Set(d, static_cast<T>(static_cast<uint64_t>(hn::GetLane(a)) *
                                     static_cast<uint64_t>(hn::GetLane(b))));
#else
    const hn::Repartition<uint64_t, D> du;
    const hn::Repartition<uint32_t, D> d32;
    const auto ua = hn::BitCast(du, a), ub = hn::BitCast(du, b);
    const auto lo = hn::MulEven(hn::BitCast(d32, ua), hn::BitCast(d32, ub));
    const auto cross =
        hn::Add(hn::MulEven(hn::BitCast(d32, ua), hn::BitCast(d32, hn::ShiftRight<32>(ub))),
                hn::MulEven(hn::BitCast(d32, hn::ShiftRight<32>(ua)), hn::BitCast(d32, ub)));
    return hn::BitCast(d, hn::Add(lo, hn::ShiftLeft<32>(cross)));
#endif
  }
};
// Integer min/max; float versions spell out NumPy's NaN rules because x86
// min/max instructions are asymmetric in NaN and ±0.
UFX_VEC2(IntMax, hn::Max(a, b))
UFX_VEC2(IntMin, hn::Min(a, b))
// Float comparisons here are ordered (false with a NaN), hence IsNaN, and
// "not equal" is spelled Not(Eq) so that NaN != x holds as in NumPy.
// Maximum and Minimum also give reductions a NaN-free combine (NaN lanes
// are then detected separately and the exact op takes over).
struct Maximum {
  template <class D, class V>
  HWY_INLINE V operator()(D, V a, V b) const {
    return hn::IfThenElse(hn::Or(AnyGe(a, b), hn::IsNaN(a)), a, b);
  }
  template <class D, class V>
  HWY_INLINE V NanFree(D, V a, V b) const { return hn::Max(a, b); }
};
struct Minimum {
  template <class D, class V>
  HWY_INLINE V operator()(D, V a, V b) const {
    return hn::IfThenElse(hn::Or(AnyLe(a, b), hn::IsNaN(a)), a, b);
  }
  template <class D, class V>
  HWY_INLINE V NanFree(D, V a, V b) const { return hn::Min(a, b); }
};
UFX_VEC2(Fmax, hn::IfThenElse(hn::Or(AnyGe(a, b), hn::IsNaN(b)), a, b))
UFX_VEC2(Fmin, hn::IfThenElse(hn::Or(AnyLe(a, b), hn::IsNaN(b)), a, b))
UFX_VEC2(BitwiseAnd, hn::And(a, b))
UFX_VEC2(BitwiseOr, hn::Or(a, b))
UFX_VEC2(BitwiseXor, hn::Xor(a, b))

UFX_VEC1(Sqrt, hn::Sqrt(a))
UFX_VEC1(Absolute, hn::Abs(a))
UFX_VEC1(Negative, hn::Neg(a))
UFX_VEC1(IntNegative, hn::Sub(hn::Zero(d), a))
UFX_VEC1(Square, hn::Mul(a, a))

// Highway's Exp and Log are accurate only inside a range (finite, no
// overflow, no subnormal results; positive normal inputs for Log). Vectors
// with any lane outside it are computed lane by lane with libm, as NumPy's
// own SIMD loops do for special values. NaN lanes are tested first, with a
// quiet comparison: an ordered one would raise the invalid flag for them.
template <class D, class V, class F>
HWY_NOINLINE V LaneByLane(D d, V a, F f) {
  using T = hn::TFromD<D>;
  HWY_ALIGN T buf[HWY_MAX_BYTES / sizeof(T)];
  hn::Store(a, d, buf);
  for (size_t i = 0; i < hn::Lanes(d); ++i) buf[i] = f(buf[i]);
  return hn::Load(d, buf);
}

struct Exp {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V a) const {
    using T = hn::TFromD<D>;
    constexpr bool k32 = sizeof(T) == 4;
    const V lo = hn::Set(d, T(k32 ? -87.0 : -708.0));
    const V hi = hn::Set(d, T(k32 ? 88.0 : 709.0));
    if (HWY_LIKELY(hn::AllTrue(d, hn::Eq(a, a)) &&
                   hn::AllTrue(d, hn::And(AnyGe(a, lo), AnyLe(a, hi))))) {
      return hn::Exp(d, a);
    }
    return LaneByLane(d, a, [](T x) { return std::exp(x); });
  }
};

struct Log {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V a) const {
    using T = hn::TFromD<D>;
    const V lo = hn::Set(d, std::numeric_limits<T>::min());
    const V hi = hn::Set(d, std::numeric_limits<T>::max());
    if (HWY_LIKELY(hn::AllTrue(d, hn::Eq(a, a)) &&
                   hn::AllTrue(d, hn::And(AnyGe(a, lo), AnyLe(a, hi))))) {
      return hn::Log(d, a);
    }
    return LaneByLane(d, a, [](T x) { return std::log(x); });
  }
};

UFX_PRED2(Equal, hn::Eq(a, b))
UFX_PRED2(NotEqual, hn::Not(hn::Eq(a, b)))
UFX_PRED2(Less, hn::Lt(a, b))
UFX_PRED2(LessEqual, AnyLe(a, b))
UFX_PRED2(Greater, hn::Gt(a, b))
UFX_PRED2(GreaterEqual, AnyGe(a, b))
UFX_PRED2(LogicalAnd, hn::Not(hn::Or(hn::Eq(a, hn::Zero(d)), hn::Eq(b, hn::Zero(d)))))
UFX_PRED2(LogicalOr, hn::Not(hn::And(hn::Eq(a, hn::Zero(d)), hn::Eq(b, hn::Zero(d)))))
UFX_PRED2(LogicalXor, hn::Xor(hn::Eq(a, hn::Zero(d)), hn::Eq(b, hn::Zero(d))))
UFX_PRED1(LogicalNot, hn::Eq(a, hn::Zero(d)))
UFX_PRED1(Isnan, hn::IsNaN(a))

#undef UFX_VEC2
#undef UFX_VEC1
#undef UFX_PRED2
#undef UFX_PRED1

}  // namespace ufuncx::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // UFUNCX_SIMD_OPS_INL_H_
