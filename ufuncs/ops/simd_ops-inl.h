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

#include "ops/scalar_math_ops.h"
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
// (b on ties, as NumPy's float32 and float64 loops: maximum(0.0, -0.0) is
// -0.0; a NaN in either wins: MaxOrSecond gives b for a NaN in either, and
// a's NaN is put back. fmax and fmin keep a on ties and drop a NaN: the
// operands swapped, and b where a is NaN. One max/min, one NaN test and
// one select on x86, where the compare-or-NaN form took two compares and
// an or: float32 maximum at 1e5 held to AVX2, out= given, 19.4-20.5 -> 17.3
// us; NumPy 14-15.)
struct Maximum {
  template <class D, class V>
  HWY_INLINE V operator()(D, V a, V b) const {
    return hn::IfThenElse(hn::IsNaN(a), a, MaxOrSecond(a, b));
  }
  template <class D, class V>
  HWY_INLINE V NanFree(D, V a, V b) const { return hn::Max(a, b); }
};
struct Minimum {
  template <class D, class V>
  HWY_INLINE V operator()(D, V a, V b) const {
    return hn::IfThenElse(hn::IsNaN(a), a, MinOrSecond(a, b));
  }
  template <class D, class V>
  HWY_INLINE V NanFree(D, V a, V b) const { return hn::Min(a, b); }
};
UFX_VEC2(Fmax, hn::IfThenElse(hn::IsNaN(a), b, MaxOrSecond(b, a)))
UFX_VEC2(Fmin, hn::IfThenElse(hn::IsNaN(a), b, MinOrSecond(b, a)))
UFX_VEC2(BitwiseAnd, hn::And(a, b))
UFX_VEC2(BitwiseOr, hn::Or(a, b))
UFX_VEC2(BitwiseXor, hn::Xor(a, b))

UFX_VEC1(Sqrt, hn::Sqrt(a))
UFX_VEC1(Absolute, hn::Abs(a))
UFX_VEC1(Negative, hn::Neg(a))
UFX_VEC1(IntNegative, hn::Sub(hn::Zero(d), a))
UFX_VEC1(Square, hn::Mul(a, a))
// 64-bit integer square (wrapping), by the MulEven pieces of Mul64.
struct Square64 {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V a) const { return Mul64()(d, a, a); }
};
// The identity: floor, ceil, trunc, positive and conjugate of integers
// (and positive and conjugate of real floats).
UFX_VEC1(Identity, a)

// Integer reciprocal, as the scalar op's 1.0 / x converted back: 1 for 1,
// -1 for -1, 0 for every other x but 0. A vector holding a 0 goes lane by
// lane through the scalar op, which gives 0's value and raises its flags.
struct IntReciprocal {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V a) const {
    using T = hn::TFromD<D>;
    if (HWY_UNLIKELY(!hn::AllFalse(d, hn::Eq(a, hn::Zero(d))))) {
      HWY_ALIGN T buf[HWY_MAX_BYTES / sizeof(T)];
      hn::Store(a, d, buf);
      for (size_t j = 0; j < hn::Lanes(d); ++j) buf[j] = ufuncx::ops::Reciprocal::Call(buf[j]);
      return hn::Load(d, buf);
    }
    const V one = hn::Set(d, T(1));
    V r = hn::IfThenElseZero(hn::Eq(a, one), one);
    if constexpr (hwy::IsSigned<T>()) r = hn::IfThenElse(hn::Eq(a, hn::Set(d, T(-1))), a, r);
    return r;
  }
};

// The 1-bits of |x| (NumPy's bitwise_count), in x's lanes.
struct BitwiseCount {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V a) const {
    const hn::RebindToUnsigned<D> du;
    if constexpr (hwy::IsSigned<hn::TFromD<D>>()) a = hn::Abs(a);
#if HWY_ARCH_X86 && HWY_TARGET > HWY_AVX3_DL
    // No 64-bit lane count below AVX3_DL: Highway widens the byte counts
    // in three shift-and-add steps, where one psadbw (SumsOf8) adds a
    // lane's eight byte counts (int64 at step 3 over 1e4 held to AVX2:
    // 1.45-1.59x NumPy's scalar popcnt loop -> 1.03-1.09x).
    if constexpr (sizeof(hn::TFromD<D>) == 8) {
      const hn::Repartition<uint8_t, D> d8;
      return hn::BitCast(d, hn::SumsOf8(hn::PopulationCount(hn::BitCast(d8, a))));
    }
#endif
    return hn::BitCast(d, hn::PopulationCount(hn::BitCast(du, a)));
  }
};

// Complex bodies: vectors of interleaved (re, im) pairs (CMap drivers).
// HWY_SCALAR has no pairs (ComplexUsable is false there): the names exist
// but have no body.
#if HWY_TARGET != HWY_SCALAR
// The product as the scalar CMul computes it: re = fma(ar, br, -(ai*bi)),
// im = fma(ar, bi, ai*br); t = (ai*bi, ai*br) pairs, negated in even lanes.
struct CMultiply {
  static constexpr bool kNeedsFma = true;
  template <class D, class V>
  HWY_INLINE V operator()(D d, V a, V b) const {
    const V t = hn::Mul(hn::DupOdd(a), hn::Reverse2(d, b));
    return hn::MulAdd(hn::DupEven(a), b, hn::OddEven(t, hn::Neg(t)));
  }
};
struct CSquare {
  static constexpr bool kNeedsFma = true;
  template <class D, class V>
  HWY_INLINE V operator()(D d, V a) const { return CMultiply()(d, a, a); }
};
// conj: the sign bit of every imaginary lane flipped (as -im does).
UFX_VEC1(CConjugate, hn::Xor(a, hn::OddEven(hn::Set(d, hn::TFromD<D>(-0.0)), hn::Zero(d))))
// |z| from real and imaginary parts, as the scalar ComplexAbs: larger *
// sqrt(fma(ratio, ratio, 1)); inf if either part is, else NaN if either
// is, 0 for 0. The division sees 1 where larger is 0 or inf, so no lane
// raises a flag the scalar loop (which returns early there) would not.
struct CAbsolute {
  static constexpr bool kNeedsFma = true;
  template <class D, class V>
  HWY_INLINE V operator()(D d, V re, V im) const {
    using T = hn::TFromD<D>;
    const V one = hn::Set(d, T(1));
    const auto nan = hn::Or(hn::IsNaN(re), hn::IsNaN(im));
    // (NaN lanes are zeroed first: x86's max and min signal invalid for a
    // quiet NaN, where NumPy's absolute reports nothing)
    const V ar = hn::IfThenZeroElse(nan, hn::Abs(re)), ai = hn::IfThenZeroElse(nan, hn::Abs(im));
    const V larger = hn::Max(ar, ai), smaller = hn::Min(ar, ai);
    const auto inf = hn::Or(hn::IsInf(re), hn::IsInf(im));
    const auto easy = hn::Or(hn::Or(inf, nan), hn::Eq(larger, hn::Zero(d)));
    const V ratio = hn::Div(hn::IfThenZeroElse(easy, smaller), hn::IfThenElse(easy, one, larger));
    V r = hn::Mul(hn::IfThenZeroElse(easy, larger), hn::Sqrt(hn::MulAdd(ratio, ratio, one)));
    r = hn::IfThenElse(nan, hn::Set(d, std::numeric_limits<T>::quiet_NaN()), r);
    return hn::IfThenElse(inf, hn::Set(d, std::numeric_limits<T>::infinity()), r);
  }
};
// Complex predicates: a mask whose even (real) lanes hold each pair's
// result (the CPred drivers keep those lanes). ImagAtReal moves each
// pair's imaginary-lane mask onto its real lane.
template <class D, class M>
HWY_INLINE M ImagAtReal(D d, M m) {
  return hn::MaskFromVec(hn::DupOdd(hn::VecFromMask(d, m)));
}
// NumPy's lexicographic order: x < y when xr < yr and neither imaginary
// part is NaN, or when xr == yr and xi < yi (so `real` is the strict
// comparison of the real parts, `imag` the comparison of the imaginary
// parts, strict or not). NumPy's C compares signal: invalid is raised when
// a real part is NaN, or the real parts are equal and an imaginary part is
// NaN (RaiseInvalid; the masks themselves come from quiet compares).
template <class D, class V, class M>
HWY_INLINE M Lexicographic(D d, V a, V b, M real, M imag) {
  const M nan = hn::Or(hn::IsNaN(a), hn::IsNaN(b));
  const M nan_imag = ImagAtReal(d, nan);
  const M eq = hn::Eq(a, b);
  const M signal = hn::Or(nan, hn::And(eq, nan_imag));  // (the real lanes count)
  if (HWY_UNLIKELY(!hn::AllFalse(d, hn::MaskFromVec(hn::DupEven(hn::VecFromMask(d, signal)))))) {
    ufuncx::ops::RaiseInvalid();
  }
  return hn::Or(hn::AndNot(nan_imag, real), hn::And(eq, ImagAtReal(d, imag)));
}
struct CLess {
  template <class D, class V>
  HWY_INLINE auto operator()(D d, V a, V b) const {
    return Lexicographic(d, a, b, QuietLt(a, b), QuietLt(a, b));
  }
};
struct CLessEqual {
  template <class D, class V>
  HWY_INLINE auto operator()(D d, V a, V b) const {
    return Lexicographic(d, a, b, QuietLt(a, b), QuietLe(a, b));
  }
};
struct CGreater {
  template <class D, class V>
  HWY_INLINE auto operator()(D d, V a, V b) const { return CLess()(d, b, a); }
};
struct CGreaterEqual {
  template <class D, class V>
  HWY_INLINE auto operator()(D d, V a, V b) const { return CLessEqual()(d, b, a); }
};
struct CEqual {
  template <class D, class V>
  HWY_INLINE auto operator()(D d, V a, V b) const {
    const auto eq = hn::Eq(a, b);
    return hn::And(eq, ImagAtReal(d, eq));
  }
};
struct CNotEqual {
  template <class D, class V>
  HWY_INLINE auto operator()(D d, V a, V b) const { return hn::Not(CEqual()(d, a, b)); }
};
#else
struct CMultiply {
  template <class D, class V>
  V operator()(D, V a, V) const { return a; }
};
using CLess = CMultiply;
using CLessEqual = CMultiply;
using CGreater = CMultiply;
using CGreaterEqual = CMultiply;
using CEqual = CMultiply;
using CNotEqual = CMultiply;
struct CSquare {
  template <class D, class V>
  V operator()(D, V a) const { return a; }
};
using CConjugate = CSquare;
struct CAbsolute {
  template <class D, class V>
  V operator()(D, V a, V) const { return a; }
};
#endif
UFX_VEC1(Reciprocal, hn::Div(hn::Set(d, hn::TFromD<D>(1)), a))
UFX_VEC1(Invert, hn::Not(a))
// sign of integers: (a > 0) - (a < 0), from masks of all ones (-1);
// unsigned: min(a, 1).
UFX_VEC1(IntSign, hn::Sub(hn::VecFromMask(d, hn::Lt(a, hn::Zero(d))),
                          hn::VecFromMask(d, hn::Gt(a, hn::Zero(d)))))
UFX_VEC1(UintSign, hn::Min(a, hn::Set(d, hn::TFromD<D>(1))))

// Shifts with NumPy's rule for counts of the width or more (negative counts
// are huge unsigned ones): a left shift gives 0; a right shift gives 0, or -1
// for a negative signed value, which is the arithmetic shift by width - 1.
// (32- and 64-bit lanes only: Highway 1.0.3's 16-bit variable shifts use
// an SSE4.1 instruction in its SSSE3 target.)
struct LeftShift {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V a, V b) const {
    using T = hn::TFromD<D>;
    const hn::RebindToUnsigned<D> du;
    const auto count = hn::BitCast(du, b);
    const auto in_range = hn::Lt(count, hn::Set(du, sizeof(T) * 8));
    const auto shifted = hn::BitCast(d, hn::Shl(hn::BitCast(du, a),
                                                hn::IfThenElseZero(in_range, count)));
    return hn::IfThenElseZero(hn::RebindMask(d, in_range), shifted);
  }
};
struct RightShift {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V a, V b) const {
    using T = hn::TFromD<D>;
    const hn::RebindToUnsigned<D> du;
    const auto count = hn::BitCast(du, b);
    const auto width = hn::Set(du, sizeof(T) * 8);
    if constexpr (std::is_signed_v<T>) {
      const auto clamped = hn::Min(count, hn::Set(du, sizeof(T) * 8 - 1));
      return hn::Shr(a, hn::BitCast(d, clamped));
    } else {
      const auto in_range = hn::Lt(count, width);
      return hn::IfThenElseZero(in_range, hn::Shr(a, hn::IfThenElseZero(in_range, count)));
    }
  }
};

// f per lane, through memory: the scalar fallback of the SIMD bodies.
template <class D, class V, class F>
HWY_NOINLINE V LaneByLane(D d, V a, F f) {
  using T = hn::TFromD<D>;
  HWY_ALIGN T buf[HWY_MAX_BYTES / sizeof(T)];
  hn::Store(a, d, buf);
  for (size_t i = 0; i < hn::Lanes(d); ++i) buf[i] = f(buf[i]);
  return hn::Load(d, buf);
}

// The math bodies below run a SIMD body on the lanes where a mask `ok`
// holds (the range where the body meets the table's bound) and libm on the
// others, lane by lane: each lane's result depends on its own value only, so
// a value gives the same result in any layout, any position in a vector and
// beside any neighbours. The other lanes are replaced by kBenign before the
// SIMD body sees them (a value inside every body's range), so it raises no
// flag that their libm call would not.
inline constexpr double kBenign = 0.5;

// Lanes where ok holds take fast(a, b), computed on the vectors with the
// other lanes replaced by kBenign; the others slow(a[i], b[i]).
template <class D, class M, class V, class Fast, class Slow>
HWY_NOINLINE V GuardedMixed2(D d, M ok, V a, V b, Fast fast, Slow slow) {
  using T = hn::TFromD<D>;
  HWY_ALIGN T ina[HWY_MAX_BYTES / sizeof(T)];
  HWY_ALIGN T inb[HWY_MAX_BYTES / sizeof(T)];
  HWY_ALIGN T out[HWY_MAX_BYTES / sizeof(T)];
  hn::Store(a, d, ina);
  hn::Store(b, d, inb);
  hn::Store(a, d, out);
  if (!hn::AllFalse(d, ok)) {
    const V benign = hn::Set(d, T(kBenign));
    hn::Store(fast(hn::IfThenElse(ok, a, benign), hn::IfThenElse(ok, b, benign)), d, out);
  }
  uint8_t bits[HWY_MAX_BYTES / sizeof(T) / 8 + 8];
  hn::StoreMaskBits(d, ok, bits);
  for (size_t i = 0; i < hn::Lanes(d); ++i) {
    if (!((bits[i >> 3] >> (i & 7)) & 1)) out[i] = slow(ina[i], inb[i]);
  }
  return hn::Load(d, out);
}

template <class D, class M, class V, class Fast, class Slow>
HWY_INLINE V Guarded2(D d, M ok, V a, V b, Fast fast, Slow slow) {
  if (HWY_LIKELY(hn::AllTrue(d, ok))) return fast(a, b);
  return GuardedMixed2(d, ok, a, b, fast, slow);
}

// Unary form: fast(a) where every lane is ok (the common case), else the
// mixed path above with slow(a[i]) for the other lanes.
template <class D, class M, class V, class Fast, class Slow>
HWY_INLINE V Guarded(D d, M ok, V a, Fast fast, Slow slow) {
  if (HWY_LIKELY(hn::AllTrue(d, ok))) return fast(a);
  using T = hn::TFromD<D>;
  return GuardedMixed2(
      d, ok, a, a, [&fast](V v, V) { return fast(v); }, [&slow](T x, T) { return slow(x); });
}

// Rounding as nearbyint (round half to even, no inexact flag), floor, ceil
// and trunc: SSE4.1's and AVX's round instructions keep signed zeros and
// NaN as libm does. Where Highway emulates them (SCALAR, EMU128, SSSE3) it
// gets some of them wrong (floor(-0.0) is +0.0 in Highway 1.0.3, and Round
// adds 0.5 before truncating, which misrounds 0.49999999999999994), so
// those targets round lane by lane with libm.
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_SSE4
#define UFX_ROUNDING(NAME, HWY_OP, LIBM)                                   \
  struct NAME {                                                           \
    template <class D, class V>                                           \
    HWY_INLINE V operator()(D, V a) const { return hn::HWY_OP(a); }       \
  };
#else
#define UFX_ROUNDING(NAME, HWY_OP, LIBM)                                   \
  struct NAME {                                                           \
    template <class D, class V>                                           \
    HWY_INLINE V operator()(D d, V a) const {                             \
      return LaneByLane(d, a, [](auto x) { return std::LIBM(x); });       \
    }                                                                     \
  };
#endif
UFX_ROUNDING(Rint, Round, nearbyint)
UFX_ROUNDING(Floor, Floor, floor)
UFX_ROUNDING(Ceil, Ceil, ceil)
UFX_ROUNDING(Trunc, Trunc, trunc)
#undef UFX_ROUNDING

// The lanes in [lo, hi] (NaN is not). NaN lanes are replaced before the
// ordered comparisons: on SSE targets those signal (raise invalid) for NaN.
// (AVX2 and later compare with quiet predicates: there NaN is simply false.)
#undef UFX_QUIET_COMPARES
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
#define UFX_QUIET_COMPARES 1
#else
#define UFX_QUIET_COMPARES 0
#endif
template <class D, class V>
HWY_INLINE auto Within(D d, V a, hn::TFromD<D> lo, hn::TFromD<D> hi) {
#if UFX_QUIET_COMPARES
  return hn::And(AnyGe(a, hn::Set(d, lo)), AnyLe(a, hn::Set(d, hi)));
#else
  const auto ordered = hn::Eq(a, a);  // (quiet)
  const V lo_v = hn::Set(d, lo);
  const V x = hn::IfThenElse(ordered, a, lo_v);
  return hn::And(ordered, hn::And(AnyGe(x, lo_v), AnyLe(x, hn::Set(d, hi))));
#endif
}

struct Log {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V a) const {
    using T = hn::TFromD<D>;
    // (up to 1e30 / 1e290: Highway's Log scales every lane by 2^25 / 2^54
    // for its subnormal case and blends, and below AVX-512, where a masked
    // multiply keeps quiet, the product of a larger lane raises overflow;
    // libm takes those)
    return Guarded(
        d, Within(d, a, std::numeric_limits<T>::min(), T(sizeof(T) == 4 ? 1.0e30 : 1.0e290)), a,
        [d](V v) { return hn::Log(d, v); }, [](T x) { return std::log(x); });
  }
};

// The other contrib/math functions, guarded the same way: a lane takes
// Highway's body when it is a normal number inside the range where Highway
// states its error bound (and, for odd functions, outside the neighbourhood
// of 0 where libm returns x itself with its sign); other lanes (NaN,
// infinities, zeros, subnormals, out of range) go to libm, which gives
// NumPy's special values and flags.
template <class D, class V>
HWY_INLINE auto MathOk(D d, V a, double lo32, double hi32, double lo64, double hi64,
                       bool odd_series = true) {
  using T = hn::TFromD<D>;
  constexpr bool k32 = sizeof(T) == 4;
  // Series in x (sin, tanh, ...): below this magnitude their higher powers
  // of x underflow (sin of 1e-154 raised the underflow flag), so libm, which
  // returns such x without a flag, takes those lanes. Logarithms need only
  // normal numbers.
  const V tiny = hn::Set(d, odd_series ? static_cast<T>(k32 ? 0x1p-12 : 0x1p-90)
                                       : std::numeric_limits<T>::min());
  const auto within =
      Within(d, a, static_cast<T>(k32 ? lo32 : lo64), static_cast<T>(k32 ? hi32 : hi64));
#if UFX_QUIET_COMPARES
  return hn::And(within, AnyGe(hn::Abs(a), tiny));
#else
  // (the magnitude test on a NaN-free copy, as in Within)
  return hn::And(within, AnyGe(hn::Abs(hn::IfThenElse(within, a, tiny)), tiny));
#endif
}
#define UFX_MATH1(NAME, HWY_FN, LIBM_FN, LO32, HI32, LO64, HI64, SERIES)              \
  struct NAME {                                                                      \
    template <class D, class V>                                                      \
    HWY_INLINE V operator()(D d, V a) const {                                        \
      using T = hn::TFromD<D>;                                                       \
      return Guarded(                                                                \
          d, MathOk(d, a, LO32, HI32, LO64, HI64, SERIES), a,                        \
          [d](V v) { return hn::HWY_FN(d, v); }, [](T x) { return std::LIBM_FN(x); }); \
    }                                                                                \
  };
// (ranges: Highway's stated valid ranges, narrowed where its body loses
// accuracy near an edge: sinh and tanh stop where the result overflows or
// is ±1, arcsin/arccos/arctanh keep away from ±1)
UFX_MATH1(HwyArctanh, Atanh, atanh, -0.999, 0.999, -0.999, 0.999, true)
UFX_MATH1(HwyLog1p, Log1p, log1p, 0.0, 3.0e38, 0.0, 1.0e308, true)
UFX_MATH1(HwyArcsin, Asin, asin, -0.999, 0.999, -0.999, 0.999, true)
// (arccos: below |x| = 2^-60 in float64, pi/2 - x rounds to pi/2, and the
// powers of x in Highway's body underflow: x = 0 there; float32's lanes
// that small go to libm)
struct SimdArccos {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V a) const {
    using T = hn::TFromD<D>;
    return Guarded(
        d, MathOk(d, a, -0.999, 0.999, -0.999, 0.999, true), a,
        [d](V v) {
          if constexpr (sizeof(T) == 8) v = hn::IfThenZeroElse(hn::Lt(hn::Abs(v), hn::Set(d, 0x1p-60)), v);
          return hn::Acos(d, v);
        },
        [](T x) { return std::acos(x); });
  }
};
// (float32 arctan up to 3e4: beyond, the powers of 1 / x in Highway's
// series underflow)
UFX_MATH1(HwyArctan, Atan, atan, -3.0e4, 3.0e4, -1.0e308, 1.0e308, true)
UFX_MATH1(HwySin, Sin, sin, -39000.0, 39000.0, -39000.0, 39000.0, true)
UFX_MATH1(HwyCos, Cos, cos, -39000.0, 39000.0, -39000.0, 39000.0, true)
#undef UFX_MATH1
// ---- float32 log2 and log10 of our own ------------------------------------
// x = 2^e m from the bits with m in [sqrt(1/2), sqrt(2)), f = m - 1 (exact);
// log_b(1 + f) = f c0 + f^2 Q(f), c0 = 1 / ln b as a float32 pair so the
// leading product rounds once, inside the last fused multiply-add, and Q of
// degree 8 by Estrin's scheme (a fit whose error is 2^-26 of the result, in
// float32 coefficients). No division and no table: Highway's Log2/Log10
// (log x, then a product) took 0.42 ns per element at 1e5 against NumPy's
// 0.20. Normal x only (Guarded sends the rest to libm).
namespace log32 {
struct Log2Coefficients {
  static constexpr float kC0Hi = 0x1.715476p+0f, kC0Lo = 0x1.4ae0c0p-26f;
  static constexpr float kQ[9] = {-0x1.715472p-1f, 0x1.ec70d8p-2f,  -0x1.715992p-2f,
                                  0x1.276c1cp-2f,  -0x1.eacd76p-3f, 0x1.a5ecfep-3f,
                                  -0x1.89b2c4p-3f, 0x1.6b1e48p-3f,  -0x1.891b7ap-4f};
};
struct Log10Coefficients {
  static constexpr float kC0Hi = 0x1.bcb7b2p-2f, kC0Lo = -0x1.5b235ep-27f;
  static constexpr float kQ[9] = {-0x1.bcb7acp-3f, 0x1.287a9ap-3f,  -0x1.bcbdd6p-4f,
                                  0x1.63b952p-4f,  -0x1.277e1ap-4f, 0x1.fc0c9cp-5f,
                                  -0x1.da0f5cp-5f, 0x1.b53cecp-5f,  -0x1.d95930p-6f};
};

// (log2's fit times ln 2: the leading coefficient is 1)
struct LnCoefficients {
  static constexpr float kC0Hi = 1.0f, kC0Lo = 0.0f;
  static constexpr float kQ[9] = {-0x1.fffffap-2f, 0x1.55557ep-2f,  -0x1.00038ap-2f,
                                  0x1.998ad2p-3f,  -0x1.5432ccp-3f, 0x1.2474e6p-3f,
                                  -0x1.10e41p-3f,  0x1.f7638ap-4f,  -0x1.107b32p-4f};
};

// The parts of log_b(1 + f) for m = 1 + f, and e, from a normal positive
// float32 x: log_b(1 + f) = f c0_hi + tail, f exact.
template <class C, class D, class V>
HWY_INLINE V MantissaTail(D d, V x, V& e, V& f) {
  const hn::RebindToSigned<D> di;
  const auto offset = hn::Set(di, 0x3f3504f3);  // sqrt(1/2)'s bits
  const auto t = hn::Sub(hn::BitCast(di, x), offset);
  e = hn::ConvertTo(d, hn::ShiftRight<23>(t));
  f = hn::Sub(hn::BitCast(d, hn::Add(hn::And(t, hn::Set(di, 0x7fffff)), offset)),
              hn::Set(d, 1.0f));
  const V f2 = hn::Mul(f, f);
#if HWY_NATIVE_FMA
  const V f4 = hn::Mul(f2, f2);
#else
  // (without FMA, f^4 and f^8 only from |f| = 2^-10 on: below, their terms
  // are under 2^-40 of the tail, and f^8 as a separate product underflows:
  // log2(1 + 2^-20) raised the flag on SSE4. With FMA that product stays
  // inside the fused operation, and the test would cost 10% of the body.)
  const V f4 = hn::IfThenZeroElse(hn::Lt(hn::Abs(f), hn::Set(d, 0x1p-10f)), hn::Mul(f2, f2));
#endif
  const auto c = [d](int k) { return hn::Set(d, C::kQ[k]); };
  const V p01 = hn::MulAdd(c(1), f, c(0)), p23 = hn::MulAdd(c(3), f, c(2));
  const V p45 = hn::MulAdd(c(5), f, c(4)), p67 = hn::MulAdd(c(7), f, c(6));
  const V p03 = hn::MulAdd(p23, f2, p01), p47 = hn::MulAdd(p67, f2, p45);
  const V q = hn::MulAdd(hn::Mul(c(8), f4), f4, hn::MulAdd(p47, f4, p03));
  return hn::MulAdd(f, hn::Set(d, C::kC0Lo), hn::Mul(f2, q));
}

// log_b(1 + f) for m = 1 + f, and e, from a normal positive float32 x.
template <class C, class D, class V>
HWY_INLINE V Log1pOfMantissa(D d, V x, V& e) {
  V f;
  const V tail = MantissaTail<C>(d, x, e, f);
  return hn::MulAdd(f, hn::Set(d, C::kC0Hi), tail);
}

// log(yh + yl) for a positive normal yh and |yl| within its ULP: yh's
// reduction and fit, yl / yh (from the approximate reciprocal and one
// Newton step: 2^-23 of it) added to the tail, e ln 2 with ln 2 as a pair
// (e ln2_hi exact). Within 2^-25 of the result before its rounding.
template <class D, class V>
HWY_INLINE V LnPair(D d, V yh, V yl) {
  V e, f;
  const V tail = MantissaTail<LnCoefficients>(d, yh, e, f);
  // (yl is 0 far from 1: the reciprocal of min(yh, 2^64) keeps huge yh's
  // subnormal reciprocal, and its underflow flag, out)
  const V ym = hn::Min(yh, hn::Set(d, 0x1p64f));
  const V r0 = hn::ApproximateReciprocal(ym);
  const V r = hn::Mul(r0, hn::NegMulAdd(ym, r0, hn::Set(d, 2.0f)));
  const V low = hn::MulAdd(e, hn::Set(d, 0x1.7f7d1cp-20f), hn::MulAdd(yl, r, tail));
  return hn::MulAdd(e, hn::Set(d, 0x1.62e4p-1f), hn::Add(f, low));
}

template <class D, class V>
HWY_INLINE V Log2(D d, V x) {
  V e;
  const V r = Log1pOfMantissa<Log2Coefficients>(d, x, e);
  return hn::Add(e, r);  // (exact powers of two: e + 0, exactly)
}

template <class D, class V>
HWY_INLINE V Log10(D d, V x) {
  V e;
  const V r = Log1pOfMantissa<Log10Coefficients>(d, x, e);
  // e log10(2) with log10(2) as a pair: one rounding at the end
  return hn::MulAdd(e, hn::Set(d, 0x1.344136p-2f),
                    hn::MulAdd(e, hn::Set(d, -0x1.ec10c0p-27f), r));
}
}  // namespace log32

// float32 log2 by log32 (exact at powers of two: e + 0). float64 log2 by
// Highway, except at exact powers of two, where libm (and NumPy's tests) give
// the exponent exactly and Highway's log(x) / ln 2 is an ulp off.
struct SimdLog2 {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V a) const {
    using T = hn::TFromD<D>;
    if constexpr (sizeof(T) == 4) {
      return Guarded(
          d, MathOk(d, a, 0.0, 3.0e38, 0.0, 0.0, false), a, [d](V v) { return log32::Log2(d, v); },
          [](T x) { return std::log2(x); });
    }
    const auto body = [d](V a) {
      using TI = hwy::MakeSigned<T>;
      constexpr int kMant = sizeof(T) == 4 ? 23 : 52;
      const hn::RebindToSigned<D> di;
      const auto bits = hn::BitCast(di, a);  // (a > 0: the sign bit is clear)
      const auto pow2 = hn::Eq(hn::And(bits, hn::Set(di, (TI(1) << kMant) - 1)), hn::Zero(di));
      const auto exponent = hn::ConvertTo(
          d, hn::Sub(hn::ShiftRight<kMant>(bits), hn::Set(di, TI(sizeof(T) == 4 ? 127 : 1023))));
      return hn::IfThenElse(hn::RebindMask(d, pow2), exponent, hn::Log2(d, a));
    };
    // (up to 1e290: Highway's Log2 is its Log, see Log)
    return Guarded(d, MathOk(d, a, 0.0, 3.0e38, 0.0, 1.0e290, false), a, body,
                   [](T x) { return std::log2(x); });
  }
};

// frexp from the bits, as the scalar Frexp (the GMap1To2 driver: the
// mantissa returned, the exponent, in integer lanes of the same width, set):
// zeros as they are and inf and NaN as a + a (a signaling NaN quiet, with
// invalid), exponent 0 for those; subnormals scaled up exactly by
// 2^(mantissa bits + 2) first. The sums and the scaling see only their own
// lanes (zero elsewhere), so no lane raises a flag the scalar loop would not.
struct SimdFrexp {
  template <class D, class V, class VI>
  HWY_INLINE V operator()(D d, V a, VI& exponent) const {
    using T = hn::TFromD<D>;
    using TI = hwy::MakeSigned<T>;
    constexpr int kMant = sizeof(T) == 4 ? 23 : 52;
    constexpr TI kBias = sizeof(T) == 4 ? 127 : 1023;
    const hn::RebindToSigned<D> di;
    const auto exp_field = hn::Set(di, static_cast<TI>((2 * kBias + 1) << kMant));
    const auto magnitude = hn::Set(di, hwy::LimitsMax<TI>());
    const auto mag = hn::And(hn::BitCast(di, a), magnitude);
    const auto zero = hn::Eq(mag, hn::Zero(di));
    const auto special = hn::Or(zero, hn::Gt(mag, hn::Sub(exp_field, hn::Set(di, TI(1)))));
    const auto sub = hn::AndNot(zero, hn::Lt(mag, hn::Set(di, static_cast<TI>(TI(1) << kMant))));
    const auto sub_f = hn::RebindMask(d, sub);
    const V scale = hn::Set(d, static_cast<T>(TI(1) << (kMant + 2)));
    const V b = hn::IfThenElse(sub_f, hn::Mul(hn::IfThenElseZero(sub_f, a), scale), a);
    const auto bits = hn::BitCast(di, b);
    auto e = hn::Sub(hn::ShiftRight<kMant>(hn::And(bits, magnitude)), hn::Set(di, kBias - 1));
    e = hn::Sub(e, hn::IfThenElseZero(sub, hn::Set(di, TI(kMant + 2))));
    exponent = hn::IfThenZeroElse(special, e);
    const V mantissa =
        hn::BitCast(d, hn::Or(hn::AndNot(exp_field, bits), hn::Set(di, static_cast<TI>((kBias - 1) << kMant))));
    const auto special_f = hn::RebindMask(d, special);
    const V own = hn::IfThenElseZero(special_f, a);
    const V doubled = hn::Add(own, own);
    return hn::IfThenElse(special_f, hn::IfThenElse(hn::RebindMask(d, zero), a, doubled), mantissa);
  }
};

// Binary counterpart of LaneByLane: f(a[i], b[i]) per lane.
template <class D, class V, class F>
HWY_NOINLINE V LaneByLane2(D d, V a, V b, F f) {
  using T = hn::TFromD<D>;
  HWY_ALIGN T ba[HWY_MAX_BYTES / sizeof(T)];
  HWY_ALIGN T bb[HWY_MAX_BYTES / sizeof(T)];
  hn::Store(a, d, ba);
  hn::Store(b, d, bb);
  for (size_t i = 0; i < hn::Lanes(d); ++i) ba[i] = f(ba[i], bb[i]);
  return hn::Load(d, ba);
}

// Exponent arithmetic without integer<->float conversions (so every target
// has it, HWY_SCALAR included): `ExponentOf(d, bits)` is the biased
// exponent field of the lanes as a float, and `Pow2(d, k)` is 2^k for an
// integer-valued float k with 2^k normal. Both go through the mantissa of
// the magic number 2^M (M mantissa bits): 2^M + e, for an integer e below
// 2^M, holds e in its low mantissa bits.
template <class D>
HWY_INLINE hn::VFromD<D> Pow2(D d, hn::VFromD<D> k) {
  using T = hn::TFromD<D>;
  constexpr int kMant = sizeof(T) == 4 ? 23 : 52;
  constexpr T kMagic = static_cast<T>(sizeof(T) == 4 ? 0x1p23 : 0x1p52);
  constexpr T kBias = static_cast<T>(sizeof(T) == 4 ? 127 : 1023);
  const hn::RebindToUnsigned<D> du;
  // (the shift moves the biased exponent into place and drops the magic
  // number's own exponent bits off the top)
  return hn::BitCast(
      d, hn::ShiftLeft<kMant>(hn::BitCast(du, hn::Add(hn::Add(k, hn::Set(d, kBias)),
                                                      hn::Set(d, kMagic)))));
}
template <class D>
HWY_INLINE hn::VFromD<D> BiasedExponentOf(D d, hn::VFromD<D> x) {
  using T = hn::TFromD<D>;
  constexpr int kMant = sizeof(T) == 4 ? 23 : 52;
  const hn::RebindToUnsigned<D> du;
  const hn::VFromD<D> magic = hn::Set(d, static_cast<T>(sizeof(T) == 4 ? 0x1p23 : 0x1p52));
  const auto field = hn::ShiftRight<kMant>(hn::BitCast(du, hn::Abs(x)));
  return hn::Sub(hn::BitCast(d, hn::Or(field, hn::BitCast(du, magic))), magic);
}


// c[0] + c[1] t + ... + c[N-1] t^(N-1) by Estrin's scheme: pairs, then
// pairs of pairs (log2 N levels of multiply-adds instead of a chain of N).
template <size_t kLevel, class V>
HWY_INLINE V PowerOfTwoPower(V t) {  // t^(2^kLevel)
  if constexpr (kLevel == 0) {
    return t;
  } else {
    const V h = PowerOfTwoPower<kLevel - 1>(t);
    return hn::Mul(h, h);
  }
}
template <size_t kLo, size_t kLevel, size_t N, class D>
HWY_INLINE hn::VFromD<D> EstrinPart(D d, hn::VFromD<D> t, const double (&c)[N]) {
  if constexpr (kLevel == 0) {
    return hn::Set(d, c[kLo]);
  } else {
    constexpr size_t kHalf = size_t{1} << (kLevel - 1);
    const auto low = EstrinPart<kLo, kLevel - 1>(d, t, c);
    if constexpr (kLo + kHalf >= N) {
      return low;
    } else {
      return hn::MulAdd(EstrinPart<kLo + kHalf, kLevel - 1>(d, t, c),
                        PowerOfTwoPower<kLevel - 1>(t), low);
    }
  }
}
template <size_t N, class D>
HWY_INLINE hn::VFromD<D> Estrin(D d, hn::VFromD<D> t, const double (&c)[N]) {
  constexpr size_t kLevels = N <= 1 ? 0 : N <= 2 ? 1 : N <= 4 ? 2 : N <= 8 ? 3 : 4;
  static_assert(N <= 16);
  return EstrinPart<0, kLevels>(d, t, c);
}

// ---- float64 logarithms of our own ----------------------------------------
// NumPy validates float64 log10, log1p, arcsinh and arctanh within 1 ULP of
// the rounded result, and Highway's bodies measure 1.6-2.5 ULP, so float64
// takes these (float32: Highway's log1p and arctanh, log32's log10,
// hyp32's arcsinh). All four reduce to log(u) for a
// positive u = 2^k (1 + f), f in [sqrt(1/2) - 1, sqrt(2) - 1] exact, with
// s = f / (2 + f): log(1 + f) = 2 atanh(s) = f - hfsq + s (hfsq + R), where
// hfsq = f^2 / 2 and R = 2s^2/3 + 2s^4/5 + ... (ten terms: s^2 <= 0.0295,
// so the rest is below 2^-60 of the result), and k ln 2 in two parts, the
// first exact. An argument known to more than double precision comes as a
// pair (u, e), e the part u lost: log(u + e) = log(u) + e / u.
namespace log64 {

inline constexpr double kLn2Hi = 0x1.62e42feep-1;  // (32 bits: k * kLn2Hi is exact)
inline constexpr double kLn2Lo = 0x1.a39ef35793c76p-33;

// f = m - 1 (exact) and k for a positive normal x = 2^k m, m in
// [sqrt(1/2), sqrt(2)): adding 1.0's bits less sqrt(1/2)'s carries into the
// exponent field exactly when x's mantissa is sqrt(2)'s or more; k comes
// out of the field through the magic number 2^52 (no integer conversion).
// (float32's cut is the first float32 above sqrt(1/2), which float64's
// falls below too: a float32 x has the same k and f in either.)
template <class D>
HWY_INLINE hn::VFromD<D> Reduce(D d, hn::VFromD<D> x, hn::VFromD<D>& k) {
  using T = hn::TFromD<D>;
  using U = hwy::MakeUnsigned<T>;
  constexpr bool k32 = sizeof(T) == 4;
  constexpr int kMant = k32 ? 23 : 52;
  constexpr U kOne = static_cast<U>(k32 ? 0x3f800000ull : 0x3ff0000000000000ull);
  constexpr U kCut = static_cast<U>(k32 ? 0x3f3504f4ull : 0x3fe6a09e667f3bcdull);
  const hn::RebindToUnsigned<D> du;
  const auto u = hn::Add(hn::BitCast(du, x), hn::Set(du, static_cast<U>(kOne - kCut)));
  const auto magic = hn::Set(d, static_cast<T>(k32 ? 0x1p23 : 0x1p52));
  const auto field = hn::BitCast(d, hn::Or(hn::ShiftRight<kMant>(u), hn::BitCast(du, magic)));
  k = hn::Sub(field, hn::Set(d, static_cast<T>(k32 ? 0x1p23 + 127.0 : 0x1p52 + 1023.0)));
  const auto m = hn::Add(hn::And(u, hn::Set(du, static_cast<U>((U{1} << kMant) - 1))), hn::Set(du, kCut));
  return hn::Sub(hn::BitCast(d, m), hn::Set(d, T(1)));
}

// s (hfsq + R) for log(1 + f) = f - hfsq + tail, s = f / (2 + f); hfsq as
// well. R(z) = z P(z), z = s^2 <= 0.0295: P is a degree-7 fit (weighted
// least squares refined towards equal error; its error is below 2^-61 of
// the result) of (log((1 + s) / (1 - s)) - 2s) / s^3, whose series is
// 2/3 + 2z/5 + 2z^2/7 + ....
template <class D>
HWY_INLINE hn::VFromD<D> Tail(D d, hn::VFromD<D> f, hn::VFromD<D> s, hn::VFromD<D>& hfsq) {
  using V = hn::VFromD<D>;
  static constexpr double kP[] = {0x1.5555555555555p-1, 0x1.9999999999dffp-2,
                                  0x1.249249242b447p-2, 0x1.c71c7258f6e87p-3,
                                  0x1.745cde3863db3p-3, 0x1.3b20ab0174bf6p-3,
                                  0x1.0f5cd6f66265dp-3, 0x1.0f6288bfc46c2p-3};
  const V z = hn::Mul(s, s);
  const V poly = Estrin(d, z, kP);
  hfsq = hn::Mul(hn::Mul(hn::Set(d, 0.5), f), f);
  return hn::Mul(s, hn::Add(hfsq, hn::Mul(poly, z)));
}

// log(u + e) for a positive normal u and |e| well below u's ULP. One
// division gives both s = f / (2 + f) and e / u = e 2^-k / (1 + f):
// q = 1 / ((2 + f)(1 + f)) (1 + f = m is exact), s = f m q and 1 / m =
// (2 + f) q, each within 2 ULP (s enters the tail, a twentieth of the
// result at most; e / u is refined once from its remainder).
template <class D>
HWY_INLINE hn::VFromD<D> LogOf(D d, hn::VFromD<D> u, hn::VFromD<D> e) {
  using V = hn::VFromD<D>;
  V k, hfsq;
  const V f = Reduce(d, u, k);
  const V m = hn::Add(f, hn::Set(d, 1.0));
  const V two_f = hn::Add(hn::Set(d, 2.0), f);
  const V q = hn::Div(hn::Set(d, 1.0), hn::Mul(two_f, m));
  const V s = hn::Mul(hn::Mul(f, m), q);
  const V tail = Tail(d, f, s, hfsq);
  // 2^-k, for |k| < 1023 (beyond, e / u is far below the result's ULP):
  // the exponent field 1023 - k built in a magic number's mantissa
  const V kk = hn::Min(hn::Max(k, hn::Set(d, -1022.0)), hn::Set(d, 1022.0));
  const V scale = Pow2(d, hn::Neg(kk));
  const V inv_u = hn::Mul(scale, hn::Mul(two_f, q));
  // e / u, and once more from the remainder: near x = 0 the correction is
  // as large as the result, so it needs its own last bit
  const V c0 = hn::Mul(e, inv_u);
  const V correction = hn::MulAdd(hn::NegMulAdd(c0, u, e), inv_u, c0);
  // k ln2_hi - ((hfsq - (tail + (k ln2_lo + e / u))) - f): the small terms
  // first, f and the exact k ln2_hi last
  const V small = hn::Add(tail, hn::MulAdd(k, hn::Set(d, kLn2Lo), correction));
  return hn::Sub(hn::Mul(k, hn::Set(d, kLn2Hi)), hn::Sub(hn::Sub(hfsq, small), f));
}

// 1 + (xh + xl) as u + e, xl a correction well below xh's ULP: u = 1 + xh,
// e what its rounding lost (two-sum) plus xl; Log1p is log(u + e).
template <class D>
HWY_INLINE hn::VFromD<D> OnePlus(D d, hn::VFromD<D> xh, hn::VFromD<D> xl, hn::VFromD<D>& e) {
  using V = hn::VFromD<D>;
  const V one = hn::Set(d, 1.0);
  const V u = hn::Add(one, xh);
  const V back = hn::Sub(u, xh);
  e = hn::Add(hn::Add(hn::Sub(one, back), hn::Sub(xh, hn::Sub(u, back))), xl);
  return u;
}
template <class D>
HWY_INLINE hn::VFromD<D> Log1p(D d, hn::VFromD<D> xh, hn::VFromD<D> xl) {
  hn::VFromD<D> e;
  const hn::VFromD<D> u = OnePlus(d, xh, xl, e);
  return LogOf(d, u, e);
}
template <class D>
HWY_INLINE hn::VFromD<D> Log1pOf(D d, hn::VFromD<D> x) {
  return Log1p(d, x, hn::Zero(d));
}

// a + b rounded, and in err what the rounding lost, for |a| >= |b| (or a =
// 0): the fast two-sum.
template <class V>
HWY_INLINE V FastTwoSum(V a, V b, V& err) {
  const V sum = hn::Add(a, b);
  err = hn::Add(hn::Sub(a, sum), b);
  return sum;
}

// a * b - p exactly for p = a * b rounded: one fused multiply-add, or
// Dekker's product of halves on targets without FMA.
template <class D>
HWY_INLINE hn::VFromD<D> ProductError(D d, hn::VFromD<D> a, hn::VFromD<D> b, hn::VFromD<D> p) {
#if HWY_NATIVE_FMA
  (void)d;
  return hn::MulSub(a, b, p);
#else
  using V = hn::VFromD<D>;
  using T = hn::TFromD<D>;
  const V split = hn::Set(d, T(sizeof(T) == 4 ? 4097.0 : 134217729.0));  // 2^12 + 1, 2^27 + 1
  const auto halves = [&](V x, V& hi, V& lo) {
    const V t = hn::Mul(split, x);
    hi = hn::Sub(t, hn::Sub(t, x));
    lo = hn::Sub(x, hi);
  };
  V ah, al, bh, bl;
  halves(a, ah, al);
  halves(b, bh, bl);
  const V r = hn::Add(hn::Sub(hn::Mul(ah, bh), p), hn::Add(hn::Mul(ah, bl), hn::Mul(al, bh)));
  return hn::Add(r, hn::Mul(al, bl));
#endif
}

// log10(x), x positive normal: log(1 + f) as hi + lo with hi's low 32 bits
// clear, so hi * (1/ln 10)_hi and k * log10(2)_hi are exact; the small
// products summed first.
template <class D>
HWY_INLINE hn::VFromD<D> Log10(D d, hn::VFromD<D> x) {
  using V = hn::VFromD<D>;
  const hn::RebindToUnsigned<D> du;
  constexpr double kInvLn10Hi = 0x1.bcb7b152p-2, kInvLn10Lo = 0x1.b9438ca9aadd5p-36;
  constexpr double kLog10Of2Hi = 0x1.34413508p-2, kLog10Of2Lo = 0x1.f79fef311f12bp-34;
  V k, hfsq;
  const V f = Reduce(d, x, k);
  const V tail = Tail(d, f, hn::Div(f, hn::Add(hn::Set(d, 2.0), f)), hfsq);
  const V hi = hn::BitCast(d, hn::And(hn::BitCast(du, hn::Sub(f, hfsq)),
                                      hn::Set(du, 0xffffffff00000000ull)));
  const V lo = hn::Add(hn::Sub(hn::Sub(f, hi), hfsq), tail);
  const V inv_hi = hn::Set(d, kInvLn10Hi);
  const V val_hi = hn::Mul(hi, inv_hi);
  const V w = hn::Mul(k, hn::Set(d, kLog10Of2Hi));
  V val_lo = hn::MulAdd(hn::Add(lo, hi), hn::Set(d, kInvLn10Lo), hn::Mul(lo, inv_hi));
  val_lo = hn::MulAdd(k, hn::Set(d, kLog10Of2Lo), val_lo);
  // w + val_hi, |w| >= |val_hi| unless w is 0: its rounding error to val_lo
  const V sum = hn::Add(w, val_hi);
  val_lo = hn::Add(val_lo, hn::Add(hn::Sub(w, sum), val_hi));
  return hn::Add(val_lo, sum);
}

// asinh(|x|) = log1p(|x| + w), w = x^2 / (1 + sqrt(1 + x^2)) < |x| (the sum
// as a pair), below 2^28; log(2|x|) above, where the series' next term,
// 1 / (4x^2), is below 2^-60 of the result. The sign is x's.
template <class D>
HWY_INLINE hn::VFromD<D> Asinh(D d, hn::VFromD<D> x) {
  using V = hn::VFromD<D>;
  const V one = hn::Set(d, 1.0), big = hn::Set(d, 0x1p28);
  const V abs = hn::Abs(x);
  const V a = hn::Min(abs, big);  // (large lanes: no overflow in x^2)
  const V a2 = hn::Mul(a, a);
  const V w = hn::Div(a2, hn::Add(one, hn::Sqrt(hn::Add(one, a2))));
  const V sh = hn::Add(a, w);
  const V sl = hn::Sub(w, hn::Sub(sh, a));
  // log(1 + sh + sl) or log(2|x|): one logarithm per lane
  V e;
  const V u = OnePlus(d, sh, sl, e);
  const auto small = hn::Lt(abs, big);
  const V r = LogOf(d, hn::IfThenElse(small, u, hn::Add(abs, abs)), hn::IfThenElse(small, e, hn::Zero(d)));
  return hn::CopySignToAbs(r, x);
}

// atanh(|x|) = log1p(2|x| / (1 - |x|)) / 2 for |x| < 1, the quotient as a
// pair: 1 - |x| with its rounding error e, q = 2|x| / (1 - |x|) (a product
// with the reciprocal: within an ULP) and the rest (2|x| - q (1 - |x|) -
// q e) / (1 - |x|), which makes up q's error. The sign is x's.
template <class D>
HWY_INLINE hn::VFromD<D> Atanh(D d, hn::VFromD<D> x) {
  using V = hn::VFromD<D>;
  const V one = hn::Set(d, 1.0);
  const V a = hn::Abs(x);
  const V den = hn::Sub(one, a);
  const V e = hn::Sub(hn::Sub(one, den), a);  // (1 >= a: the fast two-sum)
  const V two_a = hn::Add(a, a);
  const V inv = hn::Div(hn::Set(d, 1.0), den);
  const V q = hn::Mul(two_a, inv);
  const V rem = hn::Neg(ProductError(d, q, den, two_a));  // two_a - q den, exact
  const V ql = hn::Mul(hn::NegMulAdd(q, e, rem), inv);
  return hn::CopySignToAbs(hn::Mul(hn::Set(d, 0.5), Log1p(d, q, ql)), x);
}

// acosh(x) for x in [1, 8e307]. Below 2^28, log1p(t + sqrt(t^2 + 2t)) with
// t = x - 1 (exact): t^2 + 2t as a pair, its square root as a pair (the
// root corrected by its exact remainder), the sum with t as a pair for
// Log1p. From 2^28, log(2x): the series' next term, 1 / (4x^2), is below
// 2^-58 of the result.
template <class D>
HWY_INLINE hn::VFromD<D> Acosh(D d, hn::VFromD<D> x) {
  using V = hn::VFromD<D>;
  const V big = hn::Set(d, 0x1p28);
  const auto near = hn::Lt(x, big);
  const auto below = [&] {
    const V t = hn::Sub(hn::Min(x, big), hn::Set(d, 1.0));  // (no overflow in t^2)
    const V p = hn::Mul(t, t);
    const V two_t = hn::Add(t, t);
    V ql;
    const V qh = FastTwoSum(hn::Max(two_t, p), hn::Min(two_t, p), ql);
    ql = hn::Add(ql, ProductError(d, t, t, p));
    const V s = hn::Sqrt(qh);
    const V ss = hn::Mul(s, s);
    const V rem = hn::Sub(hn::Sub(qh, ss), ProductError(d, s, s, ss));  // qh - s^2, exact
    // (x = 1: s = 0 and rem + ql = 0; the floor keeps 0.5 / s finite)
    const V sl = hn::Mul(hn::Add(rem, ql), hn::Div(hn::Set(d, 0.5), hn::Max(s, hn::Set(d, 1e-300))));
    V al;
    const V ah = FastTwoSum(s, t, al);  // (s > t)
    return Log1p(d, ah, hn::Add(al, sl));
  };
  if (hn::AllTrue(d, near)) return below();
  const V far = LogOf(d, hn::Add(x, x), hn::Zero(d));
  if (hn::AllFalse(d, near)) return far;
  return hn::IfThenElse(near, below(), far);
}

}  // namespace log64

// float32 x^y = 2^(y log2 x) in float64: log2 x = k + 2 atanh(s) / ln 2, s =
// f / (2 + f) (f and k from float32's bits, the quotient from its
// approximate reciprocal refined in float64), the series to s^13 (relative
// error below 2^-39), and 2^t =
// 2^n 2^r, |r| <= 1/2, by a degree-8 fit (below 2^-39): with |t| <= 128
// the float64 result is within 2^-33 of x^y, far inside half a float32 ULP.
// For normal x (negative only with an integral y, signed by its parity) and
// finite y whose result is a normal float32; other lanes (zeros,
// infinities, NaN, subnormals, overflow and underflow) go to libm's powf.
namespace pow32 {

// log2(2^k (1 + f)) in float64 from float32's f and k (exact) and r0, an
// approximation of 1 / (2 + f) to 2^-12 or better: two Newton steps take it
// below 2^-45, with no division.
template <class D>
HWY_INLINE hn::VFromD<D> Log2(D d, hn::VFromD<D> f, hn::VFromD<D> k, hn::VFromD<D> r0) {
  using V = hn::VFromD<D>;
  static constexpr double kC[] = {0x1.71547652b82fep+1, 0x1.ec709dc3a03fdp-1,
                                  0x1.2776c50ef9bfep-1, 0x1.a61762a7aded9p-2,
                                  0x1.484b13d7c02a9p-2, 0x1.0c9a84994022dp-2,
                                  0x1.c68f568d31760p-3};
  const V two = hn::Set(d, 2.0);
  const V den = hn::Add(two, f);
  const V r1 = hn::Mul(r0, hn::NegMulAdd(den, r0, two));
  const V r = hn::Mul(r1, hn::NegMulAdd(den, r1, two));
  const V s = hn::Mul(f, r);
  return hn::MulAdd(s, Estrin(d, hn::Mul(s, s), kC), k);
}

template <class D>
HWY_INLINE hn::VFromD<D> Exp2(D d, hn::VFromD<D> t) {
  using V = hn::VFromD<D>;
  // (Chebyshev interpolation of 2^r on [-1/2, 1/2]: 2^-39.7 of the result,
  // one term fewer than the series to r^9)
  static constexpr double kC[] = {0x1.0000000000000p+0, 0x1.62e42fef84cf0p-1,
                                  0x1.ebfbdff823cedp-3, 0x1.c6b08dd6fd234p-5,
                                  0x1.3b2ab7181b755p-7, 0x1.5d8745a728441p-10,
                                  0x1.4308ac85aa947p-13, 0x1.00dc4a532fb8ep-16,
                                  0x1.63d136366db24p-20};
  const V magic = hn::Set(d, 0x1.8p52);  // (adding it rounds to an integer)
  const V n = hn::Sub(hn::Add(t, magic), magic);
  return hn::Mul(Estrin(d, hn::Sub(t, n), kC), Pow2(d, n));
}

}  // namespace pow32

// float32 arccosh and arcsinh: log(a + sqrt(a^2 -+ 1)) in float32 pairs.
// q = a^2 -+ 1 as qh + ql (a^2's rounding error exact; a^2 - 1 exact for a
// in [1, 2^12]), its square root s + sl with sl = (q - s^2) / (2s) from
// the approximate reciprocal and a Newton step, y = a + s as yh + yl, then
// log32's LnPair: near a = 1 (arccosh, the result about s) and a = 0
// (arcsinh, about a) the pairs keep what a float32 sum would lose. From
// a = 2^12 on, y = 2a (the terms dropped are below 2^-29 of the result).
// Measured within 1.04 ULP with FMA, 1.11 without (NumPy's own: 1.16 and
// 0.97; its tolerance 2). The float64 version of this (halves promoted, the
// log in float64) was correctly rounded but took twice the time.
#if HWY_TARGET != HWY_SCALAR
namespace hyp32 {

template <bool kCosh, class D>
HWY_INLINE hn::VFromD<D> InverseHyperbolic(D d, hn::VFromD<D> a) {
  using V = hn::VFromD<D>;
  const V one = hn::Set(d, 1.0f);
  const V cap = hn::Set(d, 0x1p12f);
  const auto big = hn::Ge(a, cap);
  const V as = hn::Min(a, cap);
  const V ph = hn::Mul(as, as);
  const V pl = log64::ProductError(d, as, as, ph);
  V qh, ql;
  if constexpr (kCosh) {
    qh = log64::FastTwoSum(hn::Sub(ph, one), pl, ql);  // (|ph - 1| >= |pl|)
  } else {
    qh = log64::FastTwoSum(hn::Max(ph, one), hn::Min(ph, one), ql);
    ql = hn::Add(ql, pl);
  }
  const V s = hn::Sqrt(qh);
  const V ss = hn::Mul(s, s);
  const V rest = hn::Add(hn::Sub(hn::Sub(qh, ss), log64::ProductError(d, s, s, ss)), ql);
  // (at a = 1, s and rest are 0)
  const V sm = hn::Max(s, hn::Set(d, 0x1p-20f));
  const V rs0 = hn::ApproximateReciprocal(sm);
  const V rs = hn::Mul(rs0, hn::NegMulAdd(sm, rs0, hn::Set(d, 2.0f)));  // (2^-23: sl is about a
  const V sl = hn::Mul(hn::Mul(rest, rs), hn::Set(d, 0.5f));              // in arcsinh near 0)
  V e;
  const V yh = kCosh ? log64::FastTwoSum(as, s, e) : log64::FastTwoSum(s, as, e);
  return log32::LnPair(d, hn::IfThenElse(big, hn::Add(a, a), yh),
                       hn::IfThenZeroElse(big, hn::Add(e, sl)));
}

}  // namespace hyp32
#endif  // HWY_TARGET != HWY_SCALAR

// arccosh: float64 through log64::Acosh on [1, 8e307]; float32 through
// hyp32 on [1, 8e37]. Other lanes libm. (The bodies raise lanes below 1 to
// 1: the mixed path hands them kBenign, outside this domain.)
struct SimdArccosh {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V a) const {
    using T = hn::TFromD<D>;
    if constexpr (sizeof(T) == 8) {
      return Guarded(
          d, Within(d, a, 1.0, 8.0e307), a,
          [d](V v) { return log64::Acosh(d, hn::Max(v, hn::Set(d, 1.0))); },
          [](T x) { return std::acosh(x); });
    } else {
#if HWY_TARGET != HWY_SCALAR
      return Guarded(
          d, Within(d, a, 1.0f, 8.0e37f), a,
          [d](V v) { return hyp32::InverseHyperbolic<true>(d, hn::Max(v, hn::Set(d, 1.0f))); },
          [](T x) { return std::acosh(x); });
#else
      return LaneByLane(d, a, [](T x) { return std::acosh(x); });
#endif
    }
  }
};

// float32 arcsinh through hyp32 for |x| in [2^-20, 8e37]; other lanes
// libm.
struct Arcsinh32 {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V a) const {
#if HWY_TARGET != HWY_SCALAR
    const auto finite = MathOk(d, a, -8.0e37, 8.0e37, 0.0, 0.0, false);
    const V safe = hn::IfThenElse(finite, a, hn::Set(d, 1.0f));  // (no NaN compared)
    return Guarded(
        d, hn::And(finite, AnyGe(hn::Abs(safe), hn::Set(d, 0x1p-20f))), a,
        [d](V v) { return hn::CopySignToAbs(hyp32::InverseHyperbolic<false>(d, hn::Abs(v)), v); },
        [](float x) { return std::asinh(x); });
#else
    return LaneByLane(d, a, [](float x) { return std::asinh(x); });
#endif
  }
};

// The ops of log64 and exp64: float64 through them where MathOk holds
// (normal numbers inside each domain, away from 0 where libm returns x),
// float32 through Highway's bodies; other lanes libm.
#define UFX_OWN64(NAME, HWY_NAME, BODY, LIBM_FN, LO, HI, SERIES)                     \
  struct NAME {                                                                      \
    template <class D, class V>                                                      \
    HWY_INLINE V operator()(D d, V a) const {                                        \
      using T = hn::TFromD<D>;                                                       \
      if constexpr (sizeof(T) == 4) {                                                \
        return HWY_NAME()(d, a);                                                     \
      } else {                                                                       \
        return Guarded(                                                              \
            d, MathOk(d, a, 0.0, 0.0, LO, HI, SERIES), a,                            \
            [d](V v) { return BODY(d, v); }, [](T x) { return std::LIBM_FN(x); });   \
      }                                                                              \
    }                                                                                \
  };
// (float32 log10: log32's, not Highway's)
struct Log10F32 {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V a) const {
    return Guarded(
        d, MathOk(d, a, 0.0, 3.0e38, 0.0, 0.0, false), a, [d](V v) { return log32::Log10(d, v); },
        [](float x) { return std::log10(x); });
  }
};
UFX_OWN64(SimdLog10, Log10F32, log64::Log10, log10, 0.0, 1.0e308, false)
UFX_OWN64(SimdLog1p, HwyLog1p, log64::Log1pOf, log1p, -0.9999999999999999, 1.0e308, true)
UFX_OWN64(SimdArcsinh, Arcsinh32, log64::Asinh, asinh, -1.0e307, 1.0e307, true)
UFX_OWN64(SimdArctanh, HwyArctanh, log64::Atanh, atanh, -0.9999999999999999, 0.9999999999999999,
          true)

// ---- float64 exponentials of our own ----------------------------------------
// expm1, sinh and tanh, for the same reason as log64 (Highway's float64
// bodies measure 2.9-3.8 ULP; NumPy validates expm1 and sinh within 1 ULP,
// tanh within 2). x = k ln 2 + r with |r| <= ln(2)/2, r as a pair (rh, rl),
// and expm1(r) = r + r^2/2 + r^3 Q(r) as a pair (ph, pl): Q a degree-9 fit
// of (e^r - 1 - r - r^2/2) / r^3 (error below 2^-59 of the result, by the
// same refined least squares as log64's tail). The results are put
// together from exact pieces (powers of two times ph) by two-sums, the
// small terms added last.
namespace exp64 {

// k = round(x / ln 2) (an integer-valued double) and r = x - k ln 2 as rh + rl.
template <class D>
HWY_INLINE void Reduce(D d, hn::VFromD<D> x, hn::VFromD<D>& k, hn::VFromD<D>& rh,
                       hn::VFromD<D>& rl) {
  using V = hn::VFromD<D>;
  const V magic = hn::Set(d, 0x1.8p52);  // (adding it rounds to an integer)
  k = hn::Sub(hn::MulAdd(x, hn::Set(d, 0x1.71547652b82fep0), magic), magic);
  const V hi = hn::NegMulAdd(k, hn::Set(d, log64::kLn2Hi), x);  // (exact)
  const V lo = hn::Mul(k, hn::Set(d, log64::kLn2Lo));
  rh = hn::Sub(hi, lo);
  rl = hn::Sub(hn::Sub(hi, rh), lo);
}

// expm1(rh + rl) = ph + pl for |rh| <= 0.35.
template <class D>
HWY_INLINE void Core(D d, hn::VFromD<D> rh, hn::VFromD<D> rl, hn::VFromD<D>& ph,
                     hn::VFromD<D>& pl) {
  using V = hn::VFromD<D>;
  static constexpr double kQ[] = {0x1.5555555555559p-3, 0x1.555555555554ap-5,
                                  0x1.111111110f7a0p-7, 0x1.6c16c16c1c091p-10,
                                  0x1.a01a01af8f6a2p-13, 0x1.a01a0186f30fdp-16,
                                  0x1.71ddf91a77a7dp-19, 0x1.27e522cd56389p-22,
                                  0x1.af5d7ac7eee79p-26, 0x1.1f01e8d0fdf1ap-29};
  const V r2 = hn::Mul(rh, rh);
  const V q = Estrin(d, rh, kQ);
  const V half = hn::Set(d, 0.5);
  // s = r^2/2 + r^3 Q; r^2's rounding error goes to pl
  const V s = hn::MulAdd(hn::Mul(r2, rh), q, hn::Mul(half, r2));
  ph = hn::Add(rh, s);
  pl = hn::Add(hn::Sub(rh, ph), s);  // (|rh| >= |s|: the fast two-sum)
  pl = hn::MulAdd(half, log64::ProductError(d, rh, rh, r2), pl);
  // the pair's low part moves the result by rl e^rh
  pl = hn::MulAdd(rl, hn::Add(hn::Set(d, 1.0), ph), pl);
}

// e^x for x in [-708, 709]: 2^k (1 + ph + pl), 1 + ph as a pair (|ph| < 1:
// the fast two-sum), rounded once in the last sum; the product by 2^k is
// exact (normal results). Highway's Exp measured 1.1 ULP (exp(1) was an
// ulp above e); this one 0.544 over 4e6 points against long double, 0.4%
// of them not correctly rounded (NumPy's AVX-512 loop: 0.70 ULP, 4.5%),
// at about 1.1x Highway's time.
template <class D>
HWY_INLINE hn::VFromD<D> Exp(D d, hn::VFromD<D> x) {
  using V = hn::VFromD<D>;
  V k, rh, rl, ph, pl;
  Reduce(d, x, k, rh, rl);
  Core(d, rh, rl, ph, pl);
  const V one = hn::Set(d, 1.0);
  const V s = hn::Add(one, ph);
  const V e = hn::Add(hn::Sub(one, s), ph);
  return hn::Mul(hn::Add(s, hn::Add(e, pl)), Pow2(d, k));
}

// expm1(x) for x in [-37, 709] as hi + lo: (2^k - 1) + 2^k (ph + pl);
// 2^k - 1 is exact up to k = 53, and what it loses beyond goes back in as
// `fix`.
template <class D>
HWY_INLINE hn::VFromD<D> Expm1Pair(D d, hn::VFromD<D> x, hn::VFromD<D>& lo) {
  using V = hn::VFromD<D>;
  V k, rh, rl, ph, pl;
  Reduce(d, x, k, rh, rl);
  Core(d, rh, rl, ph, pl);
  const V one = hn::Set(d, 1.0);
  const V two = Pow2(d, k);
  const V t = hn::Sub(two, one);
  const V sp = hn::Mul(two, ph);
  const V sum = hn::Add(t, sp);
  const V err = hn::Sub(sp, hn::Sub(sum, t));  // (|t| >= |sp|, or t = 0)
  const V fix = hn::Sub(hn::Sub(two, t), one);
  return log64::FastTwoSum(sum, hn::Add(err, hn::MulAdd(two, pl, fix)), lo);
}
template <class D>
HWY_INLINE hn::VFromD<D> Expm1(D d, hn::VFromD<D> x) {
  hn::VFromD<D> lo;
  return Expm1Pair(d, x, lo);
}

// (e^a + e^-a) / 2 (kPlus) or (e^a - e^-a) / 2 for a in [0, 709]:
// (2^(k-1) +- 2^(-k-1)) + 2^(k-1) expm1(r) +- 2^(-k-1) expm1(-r), summed by
// two-sums (the first term is exact up to k = 26; either term is at least
// the others' sum, as e^-a <= e^a).
template <bool kPlus, class D>
HWY_INLINE hn::VFromD<D> HalfSumOfExponentials(D d, hn::VFromD<D> a) {
  using V = hn::VFromD<D>;
  const V one = hn::Set(d, 1.0);
  V k, rh, rl, pp, lp, pm, lm;
  Reduce(d, a, k, rh, rl);
  Core(d, rh, rl, pp, lp);
  Core(d, hn::Neg(rh), hn::Neg(rl), pm, lm);
  const V A = Pow2(d, hn::Sub(k, one));
  // (2^(-k-1) for k up to 1000: beyond, any tiny value does)
  V B = Pow2(d, hn::Neg(hn::Add(hn::Min(k, hn::Set(d, 1000.0)), one)));
  if constexpr (!kPlus) B = hn::Neg(B);
  const V c = hn::Add(A, B);
  const V ec = hn::Add(hn::Sub(A, c), B);  // (exact up to k = 26: 0)
  const V dh = hn::Mul(A, pp);
  const V db = hn::Mul(B, pm);
  const V s1 = hn::Add(c, dh);
  const V e1 = hn::Sub(dh, hn::Sub(s1, c));
  const V s2 = hn::Add(s1, db);
  const V e2 = hn::Add(hn::Sub(s1, s2), db);
  const V low = hn::Add(hn::Add(hn::Add(e1, e2), ec), hn::MulAdd(B, lm, hn::Mul(A, lp)));
  return hn::Add(s2, low);
}

// series() where every lane's a is below 1, big() where none is, else both
// blended.
template <class D, class Series, class Big>
HWY_INLINE hn::VFromD<D> SeriesBelowOne(D d, hn::VFromD<D> a, Series series, Big big) {
  const auto small = hn::Lt(a, hn::Set(d, 1.0));
  if (hn::AllTrue(d, small)) return series();
  if (hn::AllFalse(d, small)) return big();
  return hn::IfThenElse(small, series(), big());
}

// cosh(x) for |x| <= 709: below 1 the even series 1 + x^2/2 + x^4 Q(x^2)
// (Q a degree-5 fit, error below 2^-57 of the result), else the half sum.
template <class D>
HWY_INLINE hn::VFromD<D> Cosh(D d, hn::VFromD<D> x) {
  using V = hn::VFromD<D>;
  // (below |x| = 2^-28, cosh x rounds to 1 and the series' powers would
  // underflow: x = 0 there)
  x = hn::IfThenZeroElse(hn::Lt(hn::Abs(x), hn::Set(d, 0x1p-28)), x);
  const V a = hn::Abs(x);
  const V one = hn::Set(d, 1.0);
  const auto series = [&] {
    static constexpr double kC[] = {0x1.55555555554b6p-5, 0x1.6c16c16c2819dp-10,
                                    0x1.a01a0189a2bd8p-16, 0x1.27e509aefade0p-22,
                                    0x1.1ee41c47d19e7p-29, 0x1.99ec3fe2ff039p-37};
    const V z = hn::Mul(x, x);
    return hn::Add(one, hn::MulAdd(hn::Mul(z, z), Estrin(d, z, kC), hn::Mul(hn::Set(d, 0.5), z)));
  };
  return SeriesBelowOne(d, a, series,
                        [&] { return HalfSumOfExponentials<true>(d, hn::Max(a, one)); });
}

// sinh(x): below |x| = 1 the odd series x + x^3 Q(x^2) (Q a degree-6 fit,
// error below 2^-56 of the result); from 1 to 709, (e^|x| - e^-|x|) / 2.
// The sign is x's.
template <class D>
HWY_INLINE hn::VFromD<D> Sinh(D d, hn::VFromD<D> x) {
  using V = hn::VFromD<D>;
  const V a = hn::Abs(x);
  const auto series = [&] {
    static constexpr double kS[] = {0x1.5555555555556p-3, 0x1.11111111110a1p-7,
                                    0x1.a01a01a029211p-13, 0x1.71de3a45f6391p-19,
                                    0x1.ae6467672cf25p-26, 0x1.611a39e7cb36fp-33,
                                    0x1.b4cf8836d17a1p-41};
    const V z = hn::Mul(x, x);
    return hn::MulAdd(hn::Mul(z, x), Estrin(d, z, kS), x);
  };
  return SeriesBelowOne(d, a, series, [&] {
    return hn::CopySignToAbs(HalfSumOfExponentials<false>(d, hn::Max(a, hn::Set(d, 1.0))), x);
  });
}

// tanh(|x|) = E / (E + 2) with E = expm1(2|x|) as a pair (h, l), for |x|
// up to 19 (beyond, libm's +-1): E + 2 as a pair too (two-sum), q = h / (h
// + 2) from the reciprocal, then corrected by the exact remainder and both
// low parts. The sign is x's.
template <class D>
HWY_INLINE hn::VFromD<D> Tanh(D d, hn::VFromD<D> x) {
  using V = hn::VFromD<D>;
  const V a = hn::Abs(x);
  V l;
  const V h = Expm1Pair(d, hn::Add(a, a), l);
  const V two = hn::Set(d, 2.0);
  const V den = hn::Add(h, two);
  const V back = hn::Sub(den, h);
  const V den_lo = hn::Add(hn::Add(hn::Sub(h, hn::Sub(den, back)), hn::Sub(two, back)), l);
  const V inv = hn::Div(hn::Set(d, 1.0), den);
  const V q = hn::Mul(h, inv);
  const V rem = hn::Neg(log64::ProductError(d, q, den, h));  // h - q den, exact
  const V t = hn::MulAdd(hn::NegMulAdd(q, den_lo, hn::Add(rem, l)), inv, q);
  return hn::CopySignToAbs(t, x);
}

}  // namespace exp64

// exp: float32 through Highway's Exp, float64 through exp64::Exp; other
// lanes (beyond the range, NaN) libm.
struct Exp {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V a) const {
    using T = hn::TFromD<D>;
    constexpr bool k32 = sizeof(T) == 4;
    // (Tiny x, below about 2^-40 in float32 and 2^-127 in float64, raise
    // underflow through the bodies' powers of x, where NumPy's loops raise
    // none; sending them to libm cost 7-8% of exp's time and zeroing them
    // in the body 12-17%, for a flag NumPy's default errstate ignores: a
    // documented difference.)
    return Guarded(
        d, Within(d, a, T(k32 ? -87.0 : -708.0), T(k32 ? 88.0 : 709.0)), a,
        [d](V v) {
          if constexpr (k32) return hn::Exp(d, v);
          else return exp64::Exp(d, v);
        },
        [](T x) { return std::exp(x); });
  }
};

// float32 e^r for |r| <= ln(2)/2: 1 + (r + r^2 P(r)), P a degree-4 fit
// (relative error 2^-27.9 with these float32 coefficients).
template <class D>
HWY_INLINE hn::VFromD<D> Expm1SmallF32(D d, hn::VFromD<D> r) {  // e^r - 1 = r + r^2 P(r)
  using V = hn::VFromD<D>;
  V p = hn::Set(d, 0x1.6a6478p-10f);
  p = hn::MulAdd(p, r, hn::Set(d, 0x1.1238eep-7f));
  p = hn::MulAdd(p, r, hn::Set(d, 0x1.5558a4p-5f));
  p = hn::MulAdd(p, r, hn::Set(d, 0x1.555492p-3f));
  p = hn::MulAdd(p, r, hn::Set(d, 0x1.fffffcp-2f));
  return hn::MulAdd(hn::Mul(r, r), p, r);
}
template <class D>
HWY_INLINE hn::VFromD<D> ExpSmallF32(D d, hn::VFromD<D> r) {
  return hn::Add(hn::Set(d, 1.0f), Expm1SmallF32(d, r));
}

// e^a / 2 = 2^(n-1) e^r and e^-a / 2 = 2^(-n-1) e^-r for float32 a in [0,
// 88], a = n ln 2 + r (ln 2 in two parts, n ln2_hi exact): one reduction
// for both. (2^(-n-1) for n up to 125: beyond, e^-a is far below e^a's ULP.)
template <class D, class V = hn::VFromD<D>>
HWY_INLINE V ReduceLn2F32(D d, V a, V& r) {
  const V magic = hn::Set(d, 0x1.8p23f);
  const V n = hn::Sub(hn::MulAdd(a, hn::Set(d, 0x1.715476p+0f), magic), magic);
  r = hn::NegMulAdd(n, hn::Set(d, 0x1.0bfbe8p-15f), hn::NegMulAdd(n, hn::Set(d, 0x1.62ep-1f), a));
  return n;
}
template <class D, class V = hn::VFromD<D>>
HWY_INLINE void HalfExponentialsF32(D d, V a, V& up, V& down) {
  V r;
  const V n = ReduceLn2F32(d, a, r);
  const V one = hn::Set(d, 1.0f);
  up = hn::Mul(Pow2(d, hn::Sub(n, one)), ExpSmallF32(d, r));
  down = hn::Mul(Pow2(d, hn::Neg(hn::Add(hn::Min(n, hn::Set(d, 125.0f)), one))),
                 ExpSmallF32(d, hn::Neg(r)));
}

// float32 cosh(x) = e^|x| / 2 + e^-|x| / 2: no cancellation in the sum
// (float64: exp64).
template <class D>
HWY_INLINE hn::VFromD<D> CoshF32(D d, hn::VFromD<D> x) {
  hn::VFromD<D> up, down;
  HalfExponentialsF32(d, hn::Abs(x), up, down);
  return hn::Add(up, down);
}
// float32 sinh: below |x| = 1 the odd series x + x^3 (1/6 + x^2 (1/120 +
// ...)) to x^11 (the rest below 2^-32), else e^|x| / 2 - e^-|x| / 2 (e^-|x|
// is at most e^-2 of e^|x| there); the sign is x's.
template <class D>
HWY_INLINE hn::VFromD<D> SinhF32(D d, hn::VFromD<D> x) {
  using V = hn::VFromD<D>;
  const V a = hn::Abs(x);
  const auto series = [&] {
    const V z = hn::Mul(x, x);
    V p = hn::Set(d, 1.0f / 39916800);
    p = hn::MulAdd(p, z, hn::Set(d, 1.0f / 362880));
    p = hn::MulAdd(p, z, hn::Set(d, 1.0f / 5040));
    p = hn::MulAdd(p, z, hn::Set(d, 1.0f / 120));
    p = hn::MulAdd(p, z, hn::Set(d, 1.0f / 6));
    return hn::MulAdd(hn::Mul(z, x), p, x);
  };
  return exp64::SeriesBelowOne(d, a, series, [&] {
    V up, down;
    HalfExponentialsF32(d, hn::Max(a, hn::Set(d, 1.0f)), up, down);
    return hn::CopySignToAbs(hn::Sub(up, down), x);
  });
}
// float32 tanh: below |x| = 1, x + x^3 P(x^2), P a degree-7 fit (relative
// error 2^-26.6); else 1 - 2 / (e^2|x| + 1), e^2|x| = 2^n e^r (the quotient
// is at most 0.24 of the result there); the sign is x's.
template <class D>
HWY_INLINE hn::VFromD<D> TanhF32(D d, hn::VFromD<D> x) {
  using V = hn::VFromD<D>;
  const V a = hn::Abs(x);
  const auto series = [&] {
    static constexpr float kP[] = {0x1.5050740p-14f, -0x1.58a5a20p-11f, 0x1.6759200p-9f,
                                   -0x1.0ef1620p-7f, 0x1.62020c0p-6f,   -0x1.b98ce00p-5f,
                                   0x1.110c660p-3f,  -0x1.55553a0p-2f};
    const V z = hn::Mul(x, x);
    V p = hn::Set(d, kP[0]);
    for (size_t k = 1; k < sizeof(kP) / sizeof(kP[0]); ++k) p = hn::MulAdd(p, z, hn::Set(d, kP[k]));
    return hn::MulAdd(hn::Mul(z, x), p, x);
  };
  return exp64::SeriesBelowOne(d, a, series, [&] {
    const V b = hn::Max(a, hn::Set(d, 1.0f));
    V r;
    const V n = ReduceLn2F32(d, hn::Add(b, b), r);
    const V one = hn::Set(d, 1.0f);
    const V e = hn::Mul(Pow2(d, n), ExpSmallF32(d, r));
    return hn::CopySignToAbs(hn::Sub(one, hn::Div(hn::Set(d, 2.0f), hn::Add(e, one))), x);
  });
}

// float32 expm1(x) = (2^n - 1) + 2^n (e^r - 1), x = n ln 2 + r: at n = 0
// just e^r - 1 (r = x); 2^n - 1 is exact up to n = 24 and either sum has at
// most a factor of 2.4 of cancellation (n = 1, r near -ln(2)/2).
template <class D>
HWY_INLINE hn::VFromD<D> Expm1F32(D d, hn::VFromD<D> x) {
  using V = hn::VFromD<D>;
  V r;
  const V two = Pow2(d, ReduceLn2F32(d, x, r));
  return hn::MulAdd(two, Expm1SmallF32(d, r), hn::Sub(two, hn::Set(d, 1.0f)));
}

// The float32 ops of these (float64: exp64's, through UFX_OWN64).
#define UFX_F32_EXP(NAME, BODY, LIBM_FN)                                               \
  struct NAME {                                                                        \
    template <class D, class V>                                                        \
    HWY_INLINE V operator()(D d, V a) const {                                          \
      using T = hn::TFromD<D>;                                                         \
      return Guarded(                                                                  \
          d, MathOk(d, a, -88.0, 88.0, -709.0, 709.0), a, [d](V v) { return BODY(d, v); }, \
          [](T x) { return std::LIBM_FN(x); });                                        \
    }                                                                                  \
  };
UFX_F32_EXP(Cosh32, CoshF32, cosh)
UFX_F32_EXP(Sinh32, SinhF32, sinh)
UFX_F32_EXP(Expm132, Expm1F32, expm1)
struct Tanh32 {  // (beyond |x| = 9, libm's +-1)
  template <class D, class V>
  HWY_INLINE V operator()(D d, V a) const {
    using T = hn::TFromD<D>;
    return Guarded(
        d, MathOk(d, a, -9.0, 9.0, -19.0, 19.0), a, [d](V v) { return TanhF32(d, v); },
        [](T x) { return std::tanh(x); });
  }
};
#undef UFX_F32_EXP

UFX_OWN64(SimdExpm1, Expm132, exp64::Expm1, expm1, -37.0, 709.0, true)
UFX_OWN64(SimdSinh, Sinh32, exp64::Sinh, sinh, -709.0, 709.0, true)
UFX_OWN64(SimdTanh, Tanh32, exp64::Tanh, tanh, -19.0, 19.0, true)
UFX_OWN64(SimdCosh, Cosh32, exp64::Cosh, cosh, -709.0, 709.0, false)

// ---- float64 arctangents of our own ------------------------------------------
// NumPy validates float64 arctan and arcsin within 1 ULP, and Highway's
// measure 1.6 and 2.2-2.5 (arctan2 1.9). atan(a / b) for a, b >= 0 is reduced by the ratio's
// range to |u| <= tan(pi/8): u = a / b (base 0), (a - b) / (a + b) (base
// pi/4) or -b / a (base pi/2); the numerator and denominator are pairs
// (two-sums), and u is a pair too: q from the reciprocal and the rest from
// the exact remainder. atan(u) = u + u^3 Q(u^2), Q a degree-10 fit of
// (atan(u) - u) / u^3 (error below 2^-58 of the result), and the base is
// added in two parts, its first by a two-sum with u.
namespace atan64 {

inline constexpr double kPi4Hi = 0x1.921fb54442d18p-1, kPi4Lo = 0x1.1a62633145c07p-55;

// atan(a / (b + bl)) as hi + lo, in [0, pi/2], for normal a, b >= 0 whose
// sum and quotients stay normal; bl a correction below b's ULP.
template <class D>
HWY_INLINE hn::VFromD<D> AtanOfRatio(D d, hn::VFromD<D> a, hn::VFromD<D> b, hn::VFromD<D> bl,
                                     hn::VFromD<D>& lo) {
  using V = hn::VFromD<D>;
  const V zero = hn::Zero(d);
  const auto small = AnyLe(a, hn::Mul(b, hn::Set(d, 0.41421356237309503)));
  const auto large = hn::Gt(a, hn::Mul(b, hn::Set(d, 2.4142135623730949)));
  // the middle case's pairs: a - b and a + b by two-sums, b's low part in
  const auto two_sum = [](V x, V y, V& err) {
    const V sum = hn::Add(x, y);
    const V back = hn::Sub(sum, x);
    err = hn::Add(hn::Sub(x, hn::Sub(sum, back)), hn::Sub(y, back));
    return sum;
  };
  V diff_lo, sum_lo;
  const V diff = two_sum(a, hn::Neg(b), diff_lo);
  const V sum = two_sum(a, b, sum_lo);
  // numerator and denominator of each case
  const V nh = hn::IfThenElse(small, a, hn::IfThenElse(large, hn::Neg(b), diff));
  const V nl = hn::IfThenElse(small, zero, hn::IfThenElse(large, hn::Neg(bl), hn::Sub(diff_lo, bl)));
  const V dh = hn::IfThenElse(small, b, hn::IfThenElse(large, a, sum));
  const V dl = hn::IfThenElse(small, bl, hn::IfThenElse(large, zero, hn::Add(sum_lo, bl)));
  // u = nh / dh as uh + ul
  const V inv = hn::Div(hn::Set(d, 1.0), dh);
  const V uh = hn::Mul(nh, inv);
  // Below |uh| = 2^-28 the series' terms and ul are far below the result's
  // last bit: they are computed from zeros, as their powers of uh would
  // underflow (atan of 1e20 raised the flag; NumPy's raises none).
  const auto negligible = hn::Lt(hn::Abs(uh), hn::Set(d, 0x1p-28));
  const V rem = hn::Neg(log64::ProductError(d, uh, dh, nh));  // nh - uh dh, exact
  const V ul = hn::Mul(hn::Add(hn::NegMulAdd(uh, dl, rem), nl), hn::IfThenZeroElse(negligible, inv));
  static constexpr double kQ[] = {-0x1.555555555553dp-2, 0x1.99999999958e8p-3, -0x1.24924922b1201p-3,
                                  0x1.c71c70e7a753bp-4, -0x1.745cf90c24cdap-4, 0x1.3b111c7e1581ep-4,
                                  -0x1.10ebdf05ba67ap-4, 0x1.df117f5ee8a6dp-5, -0x1.9cdca048a7c53p-5,
                                  0x1.37ee948ece071p-5, -0x1.25a0721c7850ap-6};
  const V us = hn::IfThenZeroElse(negligible, uh);
  const V z = hn::Mul(us, us);
  const V tail = hn::Mul(hn::Mul(us, z), Estrin(d, z, kQ));
  // base + uh (base >= |uh|, or 0), then the small terms: the tail, ul /
  // (1 + uh^2) (ul (1 - uh^2) is close enough for a correction), base's low part
  const V pi4 = hn::Set(d, kPi4Hi), pi4_lo = hn::Set(d, kPi4Lo);
  const V base = hn::IfThenElse(small, zero, hn::IfThenElse(large, hn::Add(pi4, pi4), pi4));
  const V base_lo =
      hn::IfThenElse(small, zero, hn::IfThenElse(large, hn::Add(pi4_lo, pi4_lo), pi4_lo));
  const V hi = hn::Add(base, uh);
  const V e = hn::Sub(uh, hn::Sub(hi, base));
  const V low = hn::Add(hn::Add(tail, hn::NegMulAdd(ul, z, ul)), hn::Add(base_lo, e));
  return log64::FastTwoSum(hi, low, lo);
}

// atan(x) for normal |x| up to 1e300: atan(|x| / 1), the sign x's.
template <class D>
HWY_INLINE hn::VFromD<D> Atan(D d, hn::VFromD<D> x) {
  hn::VFromD<D> lo;
  return hn::CopySignToAbs(AtanOfRatio(d, hn::Abs(x), hn::Set(d, 1.0), hn::Zero(d), lo), x);
}

// atan2(y, x) = atan(|y| / |x|), or pi less it for x < 0 (the difference
// of pairs), with y's sign.
template <class D>
HWY_INLINE hn::VFromD<D> Atan2(D d, hn::VFromD<D> y, hn::VFromD<D> x) {
  using V = hn::VFromD<D>;
  V lo;
  const V r = AtanOfRatio(d, hn::Abs(y), hn::Abs(x), hn::Zero(d), lo);
  const V pi = hn::Set(d, 4 * kPi4Hi);
  const V ph = hn::Sub(pi, r);
  const V pe = hn::Sub(hn::Sub(pi, ph), r);  // (pi >= r)
  const V back = hn::Add(ph, hn::Add(pe, hn::Sub(hn::Set(d, 4 * kPi4Lo), lo)));
  const auto negative_x = hn::Lt(x, hn::Zero(d));
  return hn::CopySignToAbs(hn::IfThenElse(negative_x, back, r), y);
}

// asin(x) for |x| < 1, the sign x's, as fdlibm reduces it: with z = x^2
// (|x| <= 1/2) or z = (1 - |x|) / 2 (exact, |x| > 1/2), asin(t) = t + t z
// R(z) for t = |x| or t = sqrt(z), R a degree-12 fit of (asin(sqrt z) -
// sqrt z) / z^1.5 on [0, 1/4] (Chebyshev interpolation; its error is below
// 2^-53 of R, 2^-57 of the result). Above 1/2, asin(|x|) = pi/2 - 2
// asin(s): s = sqrt(z) carries its rounding error sl = (z - s^2) / (2s)
// (the remainder exact, the quotient from float32's approximate
// reciprocal: sl is below s's ULP), and pi/2 - 2s is a fast two-sum, so
// the only rounding of size is the last. No division: 0.51 ULP measured,
// at under half the time of the arctangent form it replaced.
template <class D>
HWY_INLINE hn::VFromD<D> Asin(D d, hn::VFromD<D> x) {
  using V = hn::VFromD<D>;
  static constexpr double kR[] = {
      0x1.5555555555556p-3, 0x1.3333333332ecap-4, 0x1.6db6db6e31f13p-5, 0x1.f1c71c1db0623p-6,
      0x1.6e8bb1c8209a2p-6, 0x1.1c4d35cf95421p-6, 0x1.c9cf07674736ap-7, 0x1.782651caa6547p-7,
      0x1.52420b04b37bep-7, 0x1.65a9c4dfcf8b2p-8, 0x1.1d189408314eep-6, -0x1.e6aaa8a0a04ccp-7,
      0x1.d72b2bc8155f8p-6};
  const V a = hn::Abs(x);
  const V half = hn::Set(d, 0.5);
  const auto big = hn::Gt(a, half);
  const V w = hn::Mul(hn::Sub(hn::Set(d, 1.0), a), half);
  // (z at least 2^-100: the polynomial's z^8 of a smaller z would
  // underflow, and for such x, below 2^-50, x + x z R rounds to x either
  // way; one Max where zeroing the small lanes cost 8%)
  const V z = hn::Max(hn::IfThenElse(big, w, hn::Mul(a, a)), hn::Set(d, 0x1p-100));
  const V p = hn::Mul(z, Estrin(d, z, kR));
  // |x| <= 1/2
  const V near0 = hn::MulAdd(a, p, a);
  // |x| > 1/2: pi/2 - 2 (s + sl + s p)
  const V s = hn::Sqrt(w);
  const V ss = hn::Mul(s, s);
  const V rest = hn::Sub(hn::Sub(w, ss), log64::ProductError(d, s, s, ss));  // w - s^2, exact
  const hn::Rebind<float, D> df;
  const V inv = hn::PromoteTo(
      d, hn::ApproximateReciprocal(hn::DemoteTo(df, hn::Max(hn::Add(s, s), hn::Set(d, 0x1p-60)))));
  const V sl = hn::Mul(rest, inv);
  V err;
  const V head = log64::FastTwoSum(hn::Set(d, 0x1.921fb54442d18p+0), hn::Neg(hn::Add(s, s)), err);
  const V low = hn::Sub(hn::Add(err, hn::Set(d, 0x1.1a62633145c07p-54)),
                        hn::Add(hn::MulAdd(s, p, sl), hn::MulAdd(s, p, sl)));
  const V far = hn::Add(head, low);
  return hn::CopySignToAbs(hn::IfThenElse(big, far, near0), x);
}

}  // namespace atan64

// (|x| up to 1e300: beyond, the products of Dekker's split in ProductError
// on targets without FMA overflow)
UFX_OWN64(SimdArctan, HwyArctan, atan64::Atan, atan, -1.0e300, 1.0e300, true)
UFX_OWN64(SimdArcsin, HwyArcsin, atan64::Asin, asin, -0.9999999999999999, 0.9999999999999999, true)

// ---- float64 sine, cosine and tangent of our own ---------------------------------
// NumPy validates float64 sin, cos and tan within 1 ULP; Highway's Sin and
// Cos measure 2.4-2.6 each. x = k pi/2 + r for |x| up to 1e5 (Cody-Waite:
// pi/2 in three parts, the first two of 33 bits so k times them is exact),
// r as a pair; sin(r) and cos(r) on |r| <= pi/4 as pairs from fitted
// polynomials (r + r^3 S(r^2), 1 - r^2/2 + r^4 C(r^2), fitted as log64's
// tail is: errors below 2^-57 of the result). sin and cos of x are one of
// them by k mod 4; tan = sin/cos for even k, -cos/sin for odd k, the
// quotient corrected by its exact remainder and both low parts.
namespace tan64 {

// x = k pi/2 + r: k (an integer-valued double) and sin(r), cos(r) as pairs.
template <class D>
HWY_INLINE hn::VFromD<D> SinCos(D d, hn::VFromD<D> x, hn::VFromD<D>& sh, hn::VFromD<D>& sl,
                                hn::VFromD<D>& ch, hn::VFromD<D>& cl) {
  using V = hn::VFromD<D>;
  const V magic = hn::Set(d, 0x1.8p52);
  const V k = hn::Sub(hn::MulAdd(x, hn::Set(d, 0x1.45f306dc9c883p-1), magic), magic);
  const V t1 = hn::NegMulAdd(k, hn::Set(d, 0x1.921fb544p+0), x);  // (exact)
  const V kp2 = hn::Mul(k, hn::Set(d, 0x1.0b4611a6p-34));           // (exact)
  V rl;
  const V rh0 = log64::FastTwoSum(t1, hn::Neg(kp2), rl);
  rl = hn::NegMulAdd(k, hn::Set(d, 0x1.3198a2e037073p-69), rl);
  const V rh = log64::FastTwoSum(rh0, rl, rl);
  const V z = hn::Mul(rh, rh);
  const V z_lo = log64::ProductError(d, rh, rh, z);
  static constexpr double kS[] = {-0x1.5555555555549p-3, 0x1.111111110f85fp-7, -0x1.a01a019c0e128p-13,
                                  0x1.71de3574939bep-19, -0x1.ae5e63b58eec8p-26, 0x1.5d924146c10f8p-33};
  static constexpr double kC[] = {0x1.555555555554cp-5, -0x1.6c16c16c1515dp-10, 0x1.a01a019cae89dp-16,
                                  -0x1.27e4f807935ccp-22, 0x1.1ee9ea4481e6cp-29, -0x1.8fadbdc627defp-37};
  const V half = hn::Set(d, 0.5), one = hn::Set(d, 1.0);
  // sin(r) = sh + sl: rh + rh^3 S, and rl cos(r) for the pair's low part
  sh = log64::FastTwoSum(rh, hn::Mul(hn::Mul(rh, z), Estrin(d, z, kS)), sl);
  sl = hn::MulAdd(rl, hn::NegMulAdd(half, z, one), sl);
  // cos(r) = ch + cl: 1 - z/2 (a fast two-sum), + z^2 C, less z's low part
  // over 2 and rh rl (the pair's low part times -sin)
  V e1, e2;
  const V c0 = log64::FastTwoSum(one, hn::Neg(hn::Mul(half, z)), e1);
  ch = log64::FastTwoSum(c0, hn::Mul(hn::Mul(z, z), Estrin(d, z, kC)), e2);
  cl = hn::NegMulAdd(rh, rl, hn::NegMulAdd(half, z_lo, hn::Add(e1, e2)));
  return k;
}

// Lanes where bit `kBit` of the integer k is set (k + magic holds k's bits
// in its low mantissa bits).
template <int kBit, class D>
HWY_INLINE auto KBit(D d, hn::VFromD<D> k) {
  const hn::RebindToSigned<D> di;
  const auto bit = hn::Set(di, int64_t{1} << kBit);
  return hn::RebindMask(d, hn::Eq(hn::And(hn::BitCast(di, hn::Add(k, hn::Set(d, 0x1.8p52))), bit), bit));
}

template <class D>
HWY_INLINE hn::VFromD<D> Tan(D d, hn::VFromD<D> x) {
  using V = hn::VFromD<D>;
  V sh, sl, ch, cl;
  const auto odd = KBit<0>(d, SinCos(d, x, sh, sl, ch, cl));
  // odd k: -cos / sin
  const V nh = hn::IfThenElse(odd, hn::Neg(ch), sh), nl = hn::IfThenElse(odd, hn::Neg(cl), sl);
  const V dh = hn::IfThenElse(odd, sh, ch), dl = hn::IfThenElse(odd, sl, cl);
  const V inv = hn::Div(hn::Set(d, 1.0), dh);
  const V q = hn::Mul(nh, inv);
  const V rem = hn::Neg(log64::ProductError(d, q, dh, nh));  // nh - q dh, exact
  return hn::MulAdd(hn::Add(hn::NegMulAdd(q, dl, rem), nl), inv, q);
}

// sin(x) and cos(x): by k mod 4, sin(r), cos(r) or their negatives (cos(x)
// is sin(x + pi/2): k + 1).
template <bool kCos, class D>
HWY_INLINE hn::VFromD<D> SinOrCos(D d, hn::VFromD<D> x) {
  using V = hn::VFromD<D>;
  V sh, sl, ch, cl;
  V k = SinCos(d, x, sh, sl, ch, cl);
  if constexpr (kCos) k = hn::Add(k, hn::Set(d, 1.0));
  const auto odd = KBit<0>(d, k);
  const V r = hn::IfThenElse(odd, hn::Add(ch, cl), hn::Add(sh, sl));
  return hn::IfThenElse(KBit<1>(d, k), hn::Neg(r), r);
}
template <class D>
HWY_INLINE hn::VFromD<D> Sin(D d, hn::VFromD<D> x) {
  return SinOrCos<false>(d, x);
}
template <class D>
HWY_INLINE hn::VFromD<D> Cos(D d, hn::VFromD<D> x) {
  return SinOrCos<true>(d, x);
}

}  // namespace tan64

UFX_OWN64(SimdSin, HwySin, tan64::Sin, sin, -1.0e5, 1.0e5, true)
UFX_OWN64(SimdCos, HwyCos, tan64::Cos, cos, -1.0e5, 1.0e5, true)
#undef UFX_OWN64

// exp2(x) = 2^n 2^f with n = round(x), f = x - n exact in [-1/2, 1/2], for
// x whose result is a normal number; at integers (f = 0) the result is
// exactly 2^n.
struct SimdExp2 {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V a) const {
    using T = hn::TFromD<D>;
    constexpr bool k32 = sizeof(T) == 4;
    if constexpr (!k32) {
      // float64: 2^n (1 + expm1(f ln 2)) with f ln 2 as a pair and exp64's
      // polynomial, summed as expm1 is (exact at integers)
      const auto body = [d](V a) {
        const V magic = hn::Set(d, 0x1.8p52);
        const V n = hn::Sub(hn::Add(a, magic), magic);
        const V f = hn::Sub(a, n);
        const V ln2 = hn::Set(d, 0x1.62e42fefa39efp-1);
        const V rh = hn::Mul(f, ln2);
        const V rl = hn::MulAdd(f, hn::Set(d, 0x1.abc9e3b39803fp-56),
                                log64::ProductError(d, f, ln2, rh));
        V ph, pl;
        exp64::Core(d, rh, rl, ph, pl);
        const V two = Pow2(d, n);
        const V sp = hn::Mul(two, ph);
        const V sum = hn::Add(two, sp);
        const V err = hn::Add(hn::Sub(two, sum), sp);  // (two >= |sp|)
        return hn::Add(sum, hn::MulAdd(two, pl, err));
      };
      // (tiny x: as Exp's)
      return Guarded(d, Within(d, a, T(-1021.0), T(1023.0)), a, body,
                     [](T x) { return std::exp2(x); });
    }
    const auto body = [d](V a) {
      // (round to nearest by the magic-number add: exact for |x| < 2^23)
      const V magic = hn::Set(d, 0x1.8p23f);
      const V n = hn::Sub(hn::Add(a, magic), magic);
      const V f = hn::Sub(a, n);
      // 2^f = 1 + f (c1 + f (c2 + ...)) by Horner's rule: a degree-6 fit
      // (relative error 2^-25.9 with these float32 coefficients; 1 at f = 0)
      static constexpr float kC[] = {0x1.2c7feap-13f, 0x1.5e6ec2p-10f, 0x1.3b4a60p-7f,
                                     0x1.c6b0fap-5f,  0x1.ebfbbcp-3f,  0x1.62e42ep-1f, 1.0f};
      V p = hn::Set(d, kC[0]);
      for (size_t k = 1; k < sizeof(kC) / sizeof(kC[0]); ++k) p = hn::MulAdd(p, f, hn::Set(d, kC[k]));
      return hn::Mul(p, Pow2(d, n));
    };
    return Guarded(d, Within(d, a, T(-125.0), T(127.0)), a, body,
                   [](T x) { return std::exp2(x); });
  }
};

// tan = sin / cos with Highway's Sin and Cos over their stated range; the
// quotient's error is the sum of theirs plus half an ULP (measured bound in
// ufuncs.toml; listed for float32 only).
struct SimdTan {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V a) const {
    using T = hn::TFromD<D>;
    if constexpr (sizeof(T) == 8) {
      return Guarded(
          d, MathOk(d, a, 0.0, 0.0, -1.0e5, 1.0e5, true), a,
          [d](V v) { return tan64::Tan(d, v); }, [](T x) { return std::tan(x); });
    }
    return Guarded(
        d, MathOk(d, a, -39000.0, 39000.0, -39000.0, 39000.0, true), a,
        [d](V v) { return hn::Div(hn::Sin(d, v), hn::Cos(d, v)); }, [](T x) { return std::tan(x); });
  }
};

// cbrt(x) for normal x: |x| = m 2^e with m in [1, 2), e = 3q + r (r in
// 0..2), x' = m 2^r in [1, 8). No division: x'^(-1/3) starts as a quadratic
// in m (within 0.18%) times 2^(-r/3) and takes Newton steps
// u <- u + u (1 - x' u^3) / 3, whose relative error goes to about twice its
// square (two steps for float32, three for float64); then y = x' u^2 and
// one more Newton step for y^3 = x' whose residual y^3 - x' is computed
// with fused multiply-adds (divided by 3 y^2 as a product with u^2 / 3).
// The result is y 2^q with x's sign. (The Halley steps this replaced took
// four divisions per vector: float64 at 1e4 was 2.6 ns per element, NumPy's
// 1.0.)
struct SimdCbrt {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V a) const {
    using T = hn::TFromD<D>;
    constexpr bool k32 = sizeof(T) == 4;
    const auto body = [d](V a) {
      const V ax = hn::Abs(a);
      const hn::RebindToUnsigned<D> du;
      using TU = hn::TFromD<decltype(du)>;
      constexpr TU kMantMask = (TU(1) << (k32 ? 23 : 52)) - 1;
      const V one = hn::Set(d, T(1)), two = hn::Set(d, T(2)), three = hn::Set(d, T(3));
      const V third = hn::Set(d, T(1) / T(3));
      const V e = hn::Sub(BiasedExponentOf(d, ax), hn::Set(d, T(k32 ? 127 : 1023)));
      // ((e + 1/2) / 3 is at least 1/6 from an integer, far beyond the
      // product's rounding, so its floor is e's quotient by 3)
      const V q = hn::Floor(hn::Mul(hn::Add(e, hn::Set(d, T(0.5))), third));
      const V r = hn::NegMulAdd(q, three, e);
      const V m = hn::BitCast(d, hn::Or(hn::And(hn::BitCast(du, ax), hn::Set(du, kMantMask)),
                                        hn::BitCast(du, one)));
      const V x = hn::Mul(m, Pow2(d, r));  // in [1, 8)
      const V scale = hn::IfThenElse(
          hn::Eq(r, one), hn::Set(d, static_cast<T>(0.79370052598409973738)),
          hn::IfThenElse(hn::Eq(r, two), hn::Set(d, static_cast<T>(0.62996052494743658238)), one));
      V u = hn::Mul(hn::MulAdd(hn::MulAdd(hn::Set(d, T(0.09303886)), m, hn::Set(d, T(-0.48224276))),
                               m, hn::Set(d, T(1.38738999))),
                    scale);
      for (int i = 0; i < (k32 ? 2 : 3); ++i) {
        const V t = hn::NegMulAdd(x, hn::Mul(hn::Mul(u, u), u), one);  // 1 - x u^3
        u = hn::MulAdd(hn::Mul(u, t), third, u);
      }
      const V u2 = hn::Mul(u, u);
      V y = hn::Mul(x, u2);
      const V y2 = hn::Mul(y, y);
      const V y2_lo = hn::MulSub(y, y, y2);  // y^2 = y2 + y2_lo exactly (with FMA)
      const V residual = hn::MulAdd(y2_lo, y, hn::MulSub(y2, y, x));
      y = hn::NegMulAdd(residual, hn::Mul(u2, third), y);
      return hn::CopySign(hn::Mul(y, Pow2(d, q)), a);
    };
    return Guarded(
        d, Within(d, hn::Abs(a), std::numeric_limits<T>::min(), std::numeric_limits<T>::max()), a,
        body, [](T x) { return std::cbrt(x); });
  }
};

// ---- float64 power of our own ---------------------------------------------
// x^y = e^(y log x) needs log x to well beyond double precision: an error e
// in y log x is a relative error e in the result, and |y log x| reaches
// 709. So log|x| comes as a pair Lh + Ll (relative error below about
// 2^-64), y log|x| as a pair (an exact product), and the exponential takes
// the pair. log(1 + f) = 2 atanh(s), s = f / (2 + f) as a pair (the
// quotient corrected by its exact remainder), = 2s + (2/3) s^3 + (2/5) s^5
// + s^7 R(s^2): the first three terms in pairs, R (2/7 + 2z/9 + ..., nine
// terms: z <= 0.0295, the rest below 2^-70 of the result) in plain double.
namespace pow64 {

// (ah + al)(bh + bl) = ph + pl, the product al bl dropped.
template <class D, class V>
HWY_INLINE void TimesPair(D d, V ah, V al, V bh, V bl, V& ph, V& pl) {
  ph = hn::Mul(ah, bh);
  pl = hn::MulAdd(ah, bl, hn::MulAdd(al, bh, log64::ProductError(d, ah, bh, ph)));
}

// log(x) = hi + lo for a positive normal x.
template <class D>
HWY_INLINE hn::VFromD<D> LogPair(D d, hn::VFromD<D> x, hn::VFromD<D>& lo) {
  using V = hn::VFromD<D>;
  V k;
  const V f = log64::Reduce(d, x, k);
  // s = f / (2 + f) = sh + sl: the denominator as a pair (dh, dl), f - sh
  // dh exactly (f - p by Sterbenz, p's error from ProductError)
  const V two = hn::Set(d, 2.0);
  const V dh = hn::Add(two, f);
  const V dl = hn::Add(hn::Sub(two, dh), f);
  const V inv = hn::Div(hn::Set(d, 1.0), dh);
  const V sh = hn::Mul(f, inv);
  const V p = hn::Mul(sh, dh);
  const V rem = hn::Sub(hn::Sub(f, p), log64::ProductError(d, sh, dh, p));
  const V sl = hn::Mul(hn::NegMulAdd(sh, dl, rem), inv);
  // z = s^2, c = s^3 and q = s^5 as pairs (products of pairs, the low-low
  // terms dropped), then (2/3) c and (2/5) q
  const V zh = hn::Mul(sh, sh);
  const V zl = hn::MulAdd(hn::Add(sh, sh), sl, log64::ProductError(d, sh, sh, zh));
  V ch, cl, qh, ql, uh, ul, vh, vl;
  TimesPair(d, sh, sl, zh, zl, ch, cl);
  TimesPair(d, ch, cl, zh, zl, qh, ql);
  TimesPair(d, ch, cl, hn::Set(d, 0x1.5555555555555p-1), hn::Set(d, 0x1.5555555555555p-55), uh, ul);
  TimesPair(d, qh, ql, hn::Set(d, 0x1.999999999999ap-2), hn::Set(d, -0x1.999999999999ap-56), vh, vl);
  static constexpr double kR[] = {0x1.2492492492492p-2, 0x1.c71c71c71c71cp-3,
                                  0x1.745d1745d1746p-3, 0x1.3b13b13b13b14p-3,
                                  0x1.1111111111111p-3, 0x1.e1e1e1e1e1e1ep-4,
                                  0x1.af286bca1af28p-4, 0x1.8618618618618p-4,
                                  0x1.642c8590b2164p-4};
  const V tail = hn::Mul(hn::Mul(qh, zh), Estrin(d, zh, kR));
  // 2s + (2/3) s^3 + (2/5) s^5 (two-sums: each term is below the sum
  // before it), then + k ln 2 (k ln2_hi exact; |k ln 2| > |log(1 + f)|
  // unless k = 0), the small terms collected apart
  const V two_sh = hn::Add(sh, sh);
  V e0, e1;
  const V s0 = log64::FastTwoSum(two_sh, uh, e0);
  const V s1 = log64::FastTwoSum(s0, vh, e1);
  const V small = hn::Add(hn::Add(hn::Add(sl, sl), hn::Add(ul, vl)), hn::Add(tail, hn::Add(e0, e1)));
  const V kh = hn::Mul(k, hn::Set(d, log64::kLn2Hi));
  const V hi = hn::Add(kh, s1);
  const V e2 = hn::Add(hn::Sub(kh, hi), s1);
  // (the tail is up to 2^-12 of the result: lo is normalised at the end)
  return log64::FastTwoSum(hi, hn::Add(hn::MulAdd(k, hn::Set(d, log64::kLn2Lo), small), e2), lo);
}

// e^(th + tl) for th in [-708, 709] (a normal result) and |tl| below th's
// ULP: 2^k (1 + expm1(r)), r = th - k ln 2 + tl as a pair.
template <class D>
HWY_INLINE hn::VFromD<D> ExpPair(D d, hn::VFromD<D> th, hn::VFromD<D> tl) {
  using V = hn::VFromD<D>;
  // (as exp64::Exp: below 2^-54 the result rounds to 1, and the powers of
  // th would underflow: 1.5^(2^-400) raised the flag)
  const auto tiny = hn::Lt(hn::Abs(th), hn::Set(d, 0x1p-54));
  th = hn::IfThenZeroElse(tiny, th);
  tl = hn::IfThenZeroElse(tiny, tl);
  V k, rh, rl, ph, pl;
  exp64::Reduce(d, th, k, rh, rl);
  exp64::Core(d, rh, hn::Add(rl, tl), ph, pl);
  const V one = hn::Set(d, 1.0);
  const V sum = hn::Add(one, ph);
  const V err = hn::Add(hn::Sub(one, sum), ph);  // (|ph| < 1: the fast two-sum)
  return hn::Mul(hn::Add(sum, hn::Add(err, pl)), Pow2(d, k));
}

}  // namespace pow64

// Whether y is integral and whether odd, for a NaN-free y: tested on |y|
// capped at 2^(mantissa bits + 1) (beyond, every value is an even integer),
// so that no emulated rounding converts an out-of-range value.
template <class D, class V>
HWY_INLINE void IntegralAndOdd(D d, V y, hn::Mask<D>& integral, hn::Mask<D>& odd) {
  using T = hn::TFromD<D>;
  const V yt = hn::Min(hn::Abs(y), hn::Set(d, static_cast<T>(sizeof(T) == 4 ? 0x1p24 : 0x1p53)));
  const V half = hn::Mul(yt, hn::Set(d, T(0.5)));
  integral = hn::Eq(hn::Trunc(yt), yt);
  odd = hn::AndNot(hn::Eq(hn::Trunc(half), half), integral);
}

// x^y for float64 where x is a normal number (negative only with an
// integral y), y is 0 or has a magnitude in [2^-500, 1e300] (so no product
// below underflows or overflows) and y log|x| is in [-708, 709] (a normal
// result): pow64, the sign flipped for a negative x and an odd y. Other
// lanes (zeros, infinities, NaN, subnormals, overflow, underflow, negative
// bases with fractional exponents) are libm's pow, with its flags.
template <class D, class V>
HWY_INLINE V Power64(D d, V x, V y) {
  const V ax = hn::Abs(x), ay = hn::Abs(y);
  auto ok = hn::And(Within(d, ax, std::numeric_limits<double>::min(),
                           std::numeric_limits<double>::max()),
                    hn::Or(Within(d, ay, 0x1p-500, 1.0e300), hn::Eq(y, hn::Zero(d))));
  // (the ordered compares below see no NaN: on SSE targets they signal)
  const V benign = hn::Set(d, kBenign);
  const V x1 = hn::IfThenElse(ok, x, benign), y1 = hn::IfThenElse(ok, y, benign);
  const V ax1 = hn::Abs(x1);
  const auto negative = hn::Lt(x1, hn::Zero(d));
  hn::Mask<D> integral, odd;
  IntegralAndOdd(d, y1, integral, odd);
  ok = hn::And(ok, hn::Or(hn::Not(negative), integral));
  V lo;
  const V hi = pow64::LogPair(d, ax1, lo);
  const V th = hn::Mul(y1, hi);
  const V tl = hn::MulAdd(y1, lo, log64::ProductError(d, y1, hi, th));
  const auto in_range = Within(d, th, -708.0, 709.0);
  ok = hn::And(ok, in_range);
  V r = pow64::ExpPair(d, hn::IfThenElseZero(in_range, th), hn::IfThenElseZero(in_range, tl));
  r = hn::IfThenElse(hn::And(odd, negative), hn::Neg(r), r);
  if (HWY_LIKELY(hn::AllTrue(d, ok))) return r;
  return GuardedMixed2(d, ok, x, y, [r](V, V) { return r; },
                       [](double a, double b) { return std::pow(a, b); });
}

template <class D, class V>
HWY_INLINE V Power32(D d, V a, V b) {
  const auto slow = [](float x, float y) { return std::pow(x, y); };
#if HWY_TARGET != HWY_SCALAR
  const hn::Half<D> dh;
  const hn::Rebind<double, decltype(dh)> dd;
  using VD = hn::VFromD<decltype(dd)>;
  auto ok = hn::And(Within(d, hn::Abs(a), std::numeric_limits<float>::min(),
                           std::numeric_limits<float>::max()),
                    Within(d, b, -3.0e38f, 3.0e38f));
  const V benign = hn::Set(d, static_cast<float>(kBenign));
  const V a1 = hn::IfThenElse(ok, a, benign), b1 = hn::IfThenElse(ok, b, benign);
  const auto negative = hn::Lt(a1, hn::Zero(d));
  hn::Mask<D> integral, odd;
  IntegralAndOdd(d, b1, integral, odd);
  ok = hn::And(ok, hn::Or(hn::Not(negative), integral));
  // t = y log2|x| in float64 (to 2^-39 relative), from float32's
  // reduction and approximate reciprocal
  V k;
  const V f = log64::Reduce(d, hn::Abs(a1), k);
  const V r0 = hn::ApproximateReciprocal(hn::Add(hn::Set(d, 2.0f), f));
  const auto t_half = [&](auto half) {
    return hn::Mul(hn::PromoteTo(dd, half(b1)),
                   pow32::Log2(dd, hn::PromoteTo(dd, half(f)), hn::PromoteTo(dd, half(k)),
                               hn::PromoteTo(dd, half(r0))));
  };
  const VD t_lo = t_half([dh](V v) { return hn::LowerHalf(dh, v); });
  const VD t_hi = t_half([dh](V v) { return hn::UpperHalf(dh, v); });
  // Exp2 takes t clamped to [-125.95, 127.95] (t is finite: the lanes out
  // of range hold kBenign), so no lane raises a flag; a lane keeps its
  // result when that is a normal float32 from t inside [-125.9, 127.9],
  // tested on the float32 result (2^t rounds monotonically), and every t
  // outside gives a result outside. (Testing t itself took a demotion of
  // both halves and two more range tests.)
  const auto exp2 = [dh, dd](VD t) {
    t = hn::Min(hn::Max(t, hn::Set(dd, -125.95)), hn::Set(dd, 127.95));
    // (and 0 below 2^-60, where 2^t rounds to 1: without FMA the
    // polynomial's products of such t underflow, as 1.5^FLT_MIN did)
    t = hn::IfThenZeroElse(hn::Lt(hn::Abs(t), hn::Set(dd, 0x1p-60)), t);
    return hn::DemoteTo(dh, pow32::Exp2(dd, t));
  };
  V r = hn::Combine(d, exp2(t_hi), exp2(t_lo));
  ok = hn::And(ok, Within(d, r, 0x1.125fbep-126f, 0x1.ddb68p+127f));
  r = hn::IfThenElse(hn::And(odd, negative), hn::Neg(r), r);
  if (HWY_LIKELY(hn::AllTrue(d, ok))) return r;
  return GuardedMixed2(d, ok, a, b, [r](V, V) { return r; }, slow);
#else
  return LaneByLane2(d, a, b, slow);
#endif
}

struct SimdPower {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V a, V b) const {
    if constexpr (sizeof(hn::TFromD<D>) == 8) {
      return Power64(d, a, b);
    } else {
      return Power32(d, a, b);
    }
  }
};

// atan2(y, x) for finite non-zero x and y whose ratio is not tiny: the
// arctangent of the smaller magnitude over the larger (in [0, 1], Highway's
// Atan), reflected into the octant of (x, y).
struct SimdArctan2 {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V y, V x) const {
    using T = hn::TFromD<D>;
    constexpr bool k32 = sizeof(T) == 4;
    const auto body = [d](V y, V x) {
      if constexpr (!k32) return atan64::Atan2(d, y, x);
      const V ay = hn::Abs(y), ax = hn::Abs(x);
      const V pi = hn::Set(d, static_cast<T>(3.14159265358979323846));
      const V half_pi = hn::Set(d, static_cast<T>(1.57079632679489661923));
      V r = hn::Atan(d, hn::Div(hn::Min(ay, ax), hn::Max(ay, ax)));
      r = hn::IfThenElse(hn::Gt(ay, ax), hn::Sub(half_pi, r), r);
      r = hn::IfThenElse(hn::Lt(x, hn::Zero(d)), hn::Sub(pi, r), r);
      return hn::CopySign(r, y);
    };
    // (NaN lanes are replaced before Min, Max and the ordered comparisons:
    // Min and Max return one operand when the other is NaN)
    const auto ordered = hn::And(hn::Eq(y, y), hn::Eq(x, x));
    const V benign = hn::Set(d, static_cast<T>(kBenign));
    const V ay = hn::Abs(hn::IfThenElse(ordered, y, benign));
    const V ax = hn::Abs(hn::IfThenElse(ordered, x, benign));
    const V small = hn::Min(ay, ax), large = hn::Max(ay, ax);
    // (ratios below tiny go to libm, which returns them unrounded by a
    // polynomial whose powers would underflow)
    const V tiny = hn::Set(d, static_cast<T>(k32 ? 0x1p-12 : 0x1p-90));
    // (float64: up to 1e299, so that atan64's |y| + |x| and the products of
    // Dekker's split of it on targets without FMA stay finite: 2 x 1e300
    // times 2^27 + 1 overflowed)
    const auto normal = hn::And(AnyGe(small, hn::Set(d, std::numeric_limits<T>::min())),
                                AnyLe(large, hn::Set(d, k32 ? std::numeric_limits<T>::max() : T(1e299))));
    // (the ratio test on normal lanes only: a subnormal product would raise
    // underflow)
    // (and from large = 2^-900 up: the product large * tiny of a smaller
    // large would underflow, and raise the flag; below, the test sends
    // every lane whose small is under 2^-990 to libm, correct if slower)
    const V large_n = hn::Max(hn::IfThenElse(normal, large, benign),
                              hn::Set(d, static_cast<T>(k32 ? 0x1p-100 : 0x1p-900)));
    const auto ok = hn::And(hn::And(ordered, normal), AnyGe(small, hn::Mul(large_n, tiny)));
    return Guarded2(d, ok, y, x, body, [](T u, T v) { return std::atan2(u, v); });
  }
};

UFX_PRED2(Equal, hn::Eq(a, b))
UFX_PRED2(NotEqual, hn::Not(hn::Eq(a, b)))
UFX_PRED2(Less, QuietLt(a, b))
UFX_PRED2(LessEqual, QuietLe(a, b))
UFX_PRED2(Greater, QuietLt(b, a))
UFX_PRED2(GreaterEqual, QuietLe(b, a))
UFX_PRED2(LogicalAnd, hn::Not(hn::Or(hn::Eq(a, hn::Zero(d)), hn::Eq(b, hn::Zero(d)))))
UFX_PRED2(LogicalOr, hn::Not(hn::And(hn::Eq(a, hn::Zero(d)), hn::Eq(b, hn::Zero(d)))))
UFX_PRED2(LogicalXor, hn::Xor(hn::Eq(a, hn::Zero(d)), hn::Eq(b, hn::Zero(d))))
UFX_PRED1(LogicalNot, hn::Eq(a, hn::Zero(d)))
// isnan on the bits (|x|'s above infinity's, an integer compare): a float
// compare of a signaling NaN raises invalid, which NumPy's isnan does not
// (Highway's IsNaN is such a compare below AVX-512).
template <class D, class V>
HWY_INLINE auto BitsAreNaN(D d, V a) {
  using T = hn::TFromD<D>;
  const hn::RebindToSigned<D> di;
  using I = hn::TFromD<decltype(di)>;
  const I inf = static_cast<I>(sizeof(T) == 4 ? 0x7f800000ll : 0x7ff0000000000000ll);
  const auto magnitude = hn::And(hn::BitCast(di, a), hn::Set(di, static_cast<I>(~(I{1} << (sizeof(T) * 8 - 1)))));
  return hn::RebindMask(d, hn::Gt(magnitude, hn::Set(di, inf)));
}
UFX_PRED1(Isnan, BitsAreNaN(d, a))
UFX_PRED1(Isinf, hn::IsInf(a))
UFX_PRED1(Isfinite, hn::IsFinite(a))
// Complex isnan and isinf: of either part; isfinite: of both (a mask in
// each pair's real lane, as the complex comparisons give).
#if HWY_TARGET != HWY_SCALAR
struct CIsnan {
  template <class D, class V>
  HWY_INLINE auto operator()(D d, V a) const {
    const auto m = BitsAreNaN(d, a);
    return hn::Or(m, ImagAtReal(d, m));
  }
};
struct CIsinf {
  template <class D, class V>
  HWY_INLINE auto operator()(D d, V a) const {
    const auto m = hn::IsInf(a);
    return hn::Or(m, ImagAtReal(d, m));
  }
};
struct CIsfinite {
  template <class D, class V>
  HWY_INLINE auto operator()(D d, V a) const {
    const auto m = hn::IsFinite(a);
    return hn::And(m, ImagAtReal(d, m));
  }
};
#else
using CIsnan = CSquare;
using CIsinf = CSquare;
using CIsfinite = CSquare;
#endif
UFX_PRED1(Signbit, hn::RebindMask(d, hn::Lt(hn::BitCast(hn::RebindToSigned<D>(), a),
                                             hn::Zero(hn::RebindToSigned<D>()))))
// isnan and isinf of integers and bool are false, isfinite true: constants,
// which the Pred1 driver writes without reading the input (kConstant); the
// masks are for any other driver.
struct AlwaysFalse {
  static constexpr int kConstant = 0;
  template <class D, class V>
  HWY_INLINE auto operator()(D d, V) const { return hn::FirstN(d, 0); }
};
struct AlwaysTrue {
  static constexpr int kConstant = 1;
  template <class D, class V>
  HWY_INLINE auto operator()(D d, V) const { return hn::FirstN(d, hn::Lanes(d)); }
};

#undef UFX_VEC2
#undef UFX_VEC1
#undef UFX_PRED2
#undef UFX_PRED1

}  // namespace ufuncx::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // UFUNCX_SIMD_OPS_INL_H_
