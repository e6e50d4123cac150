// C++ element types behind each DType and the one conversion rule between
// them. Conversions follow NumPy on x86-64 without undefined behaviour:
// float -> integer goes through a 32- or 64-bit truncating conversion that
// yields the "integer indefinite" value (INT_MIN) for NaN and out-of-range
// inputs, exactly as cvttsd2si does, and complex -> real drops the imaginary
// part.
#pragma once

#include <Eigen/Core>
#include <cfenv>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "ufuncx/dtype.h"
#include "ufuncx/float8.h"

namespace ufuncx {

using float16 = Eigen::half;
using bfloat16 = Eigen::bfloat16;
using longdouble = long double;
using complex64 = std::complex<float>;
using complex128 = std::complex<double>;
using clongdouble = std::complex<long double>;

template <class T>
inline constexpr bool kIsComplex = false;
template <class T>
inline constexpr bool kIsComplex<std::complex<T>> = true;

// The ml_dtypes types: NumPy applies their ufunc loops element by element,
// rounding every result (reductions included) to the type.
template <class T>
inline constexpr bool kIsMlFloat = std::is_same_v<T, bfloat16> || kIsFloat8<T>;
// Narrow floats: stored narrow, computed in float.
template <class T>
inline constexpr bool kIsHalf = std::is_same_v<T, float16> || kIsMlFloat<T>;

template <class T>
inline constexpr bool kIsFloat = std::is_floating_point_v<T> || kIsHalf<T>;

template <class T>
inline constexpr bool kIsInt = std::is_integral_v<T> && !std::is_same_v<T, bool>;

// Bit patterns of ml_dtypes' types (bfloat16, float8), for the ops that step
// through representable values.
template <class T>
struct MlBits {  // float8
  using U = uint8_t;
  static constexpr U kSign = 0x80;
  static U Get(T v) { return v.bits(); }
  static T Make(U b) { return T::FromBits(b); }
};
template <>
struct MlBits<bfloat16> {
  using U = uint16_t;
  static constexpr U kSign = 0x8000;
  static U Get(bfloat16 v) { return Eigen::numext::bit_cast<uint16_t>(v); }
  static bfloat16 Make(U b) { return Eigen::numext::bit_cast<bfloat16>(b); }
};
// Sign-bit operations on ml_dtypes' types, which keep every other bit (NaN
// payloads included), as ml_dtypes' own loops do.
template <class T>
inline T MlFlipSign(T a) {
  using B = MlBits<T>;
  return B::Make(static_cast<typename B::U>(B::Get(a) ^ B::kSign));
}
template <class T>
inline T MlCopySign(T a, T b) {
  using B = MlBits<T>;
  return B::Make(static_cast<typename B::U>((B::Get(a) & ~B::kSign) | (B::Get(b) & B::kSign)));
}

template <DType D>
struct CTypeOf;
#define UFX_MAP_DTYPE(D, T) \
  template <>               \
  struct CTypeOf<DType::D> { \
    using type = T;          \
  };
UFX_MAP_DTYPE(kBool, bool)
UFX_MAP_DTYPE(kInt8, int8_t)
UFX_MAP_DTYPE(kUInt8, uint8_t)
UFX_MAP_DTYPE(kInt16, int16_t)
UFX_MAP_DTYPE(kUInt16, uint16_t)
UFX_MAP_DTYPE(kInt32, int32_t)
UFX_MAP_DTYPE(kUInt32, uint32_t)
UFX_MAP_DTYPE(kInt64, int64_t)
UFX_MAP_DTYPE(kUInt64, uint64_t)
UFX_MAP_DTYPE(kFloat8E4M3FN, float8_e4m3fn)
UFX_MAP_DTYPE(kFloat8E5M2, float8_e5m2)
UFX_MAP_DTYPE(kFloat16, float16)
UFX_MAP_DTYPE(kBFloat16, bfloat16)
UFX_MAP_DTYPE(kFloat32, float)
UFX_MAP_DTYPE(kFloat64, double)
UFX_MAP_DTYPE(kLongDouble, longdouble)
UFX_MAP_DTYPE(kComplex64, complex64)
UFX_MAP_DTYPE(kComplex128, complex128)
UFX_MAP_DTYPE(kCLongDouble, clongdouble)
#undef UFX_MAP_DTYPE
template <DType D>
using CType = typename CTypeOf<D>::type;

// Calls f(TypeTag<T>{}) with the C type of a runtime DType.
template <class T>
struct TypeTag {
  using type = T;
};
template <class F>
constexpr decltype(auto) VisitDType(DType t, F&& f) {
  switch (t) {
#define UFX_CASE(D) \
  case DType::D:    \
    return f(TypeTag<CType<DType::D>>{});
    UFX_CASE(kBool) UFX_CASE(kInt8) UFX_CASE(kUInt8) UFX_CASE(kInt16)
    UFX_CASE(kUInt16) UFX_CASE(kInt32) UFX_CASE(kUInt32) UFX_CASE(kInt64)
    UFX_CASE(kUInt64) UFX_CASE(kFloat8E4M3FN) UFX_CASE(kFloat8E5M2) UFX_CASE(kFloat16) UFX_CASE(kBFloat16) UFX_CASE(kFloat32)
    UFX_CASE(kFloat64) UFX_CASE(kLongDouble) UFX_CASE(kComplex64)
    UFX_CASE(kComplex128) UFX_CASE(kCLongDouble)
#undef UFX_CASE
  }
  return f(TypeTag<double>{});
}

namespace detail {
// cvttsd2si semantics: truncation toward zero, INT_MIN for NaN or overflow.
template <class I, class F>
inline I TruncateToInt(F x) {
  constexpr F lo = static_cast<F>(std::numeric_limits<I>::min());
  // 2^(bits-1) is exactly representable; the valid range is [lo, -lo).
  if (!(x >= lo && x < -lo)) return std::numeric_limits<I>::min();
  return static_cast<I>(x);
}
template <class F>
inline uint64_t TruncateToUInt64(F x) {
  constexpr F two63 = static_cast<F>(9223372036854775808.0);
  // NaN takes the first branch, as the compiled x86 sequence does.
  if (!(x >= two63)) return static_cast<uint64_t>(TruncateToInt<int64_t>(x));
  return static_cast<uint64_t>(TruncateToInt<int64_t>(x - two63)) ^
         (uint64_t{1} << 63);
}
template <class To, class F>
inline To FloatToInt(F x) {
  if constexpr (std::is_same_v<F, long double> &&
                (sizeof(To) == 1 || std::is_same_v<To, int16_t>)) {
    // x87 (long double) converts to 8- and 16-bit signed through a 16-bit
    // fistp: 0x8000 for NaN or overflow.
    return static_cast<To>(TruncateToInt<int16_t>(x));
  } else if constexpr (sizeof(To) < 4 || std::is_same_v<To, int32_t>) {
    return static_cast<To>(TruncateToInt<int32_t>(x));
  } else if constexpr (std::is_same_v<To, uint32_t> ||
                       std::is_same_v<To, int64_t>) {
    return static_cast<To>(TruncateToInt<int64_t>(x));
  } else {
    return TruncateToUInt64(x);
  }
}
// Rounds a double once, to nearest even, at the precision of the half type
// (NumPy's npy_double_to_half), instead of twice through float.
template <class H>
inline H WideToHalf(double x) {
  if (!std::isfinite(x) || x == 0) return H(static_cast<float>(x));
  constexpr int kMantissa = std::is_same_v<H, float16> ? 10 : 7;
  constexpr int kMinExp = std::is_same_v<H, float16> ? -14 : -126;
  int e = std::ilogb(x);
  if (e < kMinExp) e = kMinExp;
  if (e > 200) return H(static_cast<float>(x));  // overflows to inf anyway
  const double c = std::ldexp(1.0, e - kMantissa + 52);
  const double r = x >= 0 ? (x + c) - c : (x - c) + c;
  return H(static_cast<float>(r));  // exact: r has few enough bits
}
// The floating-point flags NumPy's float-to-half conversion raises (they
// reach np.errstate): overflow when a finite value becomes inf, underflow
// when a nonzero value below half's normal range loses bits (quiet
// comparisons: a NaN raises nothing).
inline void HalfRoundingFlags(double x, float h) {
  if (std::isinf(h) && std::isfinite(x)) [[unlikely]] {
    std::feraiseexcept(FE_OVERFLOW | FE_INEXACT);
  } else if (x != 0 && std::isless(std::fabs(x), 6.103515625e-05) && static_cast<double>(h) != x) [[unlikely]] {
    std::feraiseexcept(FE_UNDERFLOW | FE_INEXACT);
  }
}
}  // namespace detail

// Fused multiply-add, correctly rounded as std::fma. Code built for baseline
// x86-64 (the scalar loops) has no FMA instruction, and std::fma there is a
// software routine that made complex multiply 10x slower than NumPy. So the
// drivers of ops that use Fma (kUsesFma) also build their loops for CPUs
// with the instruction (target "fma") and take them when CpuHasFma(); Fma,
// always inlined, becomes the instruction there (the same bits either way).
namespace detail {
#if defined(__x86_64__) && !defined(__FMA__) && defined(__GNUC__)
#define UFX_FMA_DISPATCH 1
inline bool CpuHasFma() {
  static const bool has = (__builtin_cpu_init(), __builtin_cpu_supports("fma"));
  return has;
}
#endif
}  // namespace detail

template <class R>
[[gnu::always_inline]] inline R Fma(R a, R b, R c) {
  if constexpr (std::is_same_v<R, float>) return __builtin_fmaf(a, b, c);
  else if constexpr (std::is_same_v<R, double>) return __builtin_fma(a, b, c);
  else return std::fma(a, b, c);
}

// Reads one element from possibly unaligned memory. bool is read as a byte
// and normalised, since NumPy bool arrays may hold any nonzero byte.
template <class T>
inline T LoadElem(const char* p) {
  if constexpr (std::is_same_v<T, bool>) {
    return *reinterpret_cast<const uint8_t*>(p) != 0;
  } else if constexpr (kIsComplex<T>) {
    // By parts: a complex copied whole through memory is stored as two
    // halves and reloaded as one, which stalls store forwarding (10x
    // slower loops), and the parts stay in registers this way.
    using R = typename T::value_type;
    R re, im;
    std::memcpy(&re, p, sizeof(R));
    std::memcpy(&im, p + sizeof(R), sizeof(R));
    return T(re, im);
  } else {
    T v;
    std::memcpy(static_cast<void*>(&v), p, sizeof(T));
    return v;
  }
}
template <class T>
inline void StoreElem(char* p, T v) {
  if constexpr (kIsComplex<T>) {
    using R = typename T::value_type;
    const R re = v.real(), im = v.imag();
    std::memcpy(p, &re, sizeof(R));
    std::memcpy(p + sizeof(R), &im, sizeof(R));
  } else {
    std::memcpy(p, static_cast<const void*>(&v), sizeof(T));
  }
}

// The single conversion rule, used by casts, loops and scatter.
template <class To, class From>
inline To Convert(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (kIsComplex<From>) {
    if constexpr (kIsComplex<To>) {
      return To(static_cast<typename To::value_type>(v.real()),
                static_cast<typename To::value_type>(v.imag()));
    } else if constexpr (std::is_same_v<To, bool>) {
      return v.real() != 0 || v.imag() != 0;
    } else {
      return Convert<To>(v.real());
    }
  } else if constexpr (kIsHalf<From>) {
    return Convert<To>(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (kIsComplex<To>) {
    return To(Convert<typename To::value_type>(v), 0);
  } else if constexpr (kIsFloat8<To>) {
    return To(static_cast<double>(v));  // one rounding from double
  } else if constexpr (kIsHalf<To>) {
    To h;
    if constexpr (std::is_same_v<From, double> ||
                  std::is_same_v<From, long double>) {
      h = detail::WideToHalf<To>(static_cast<double>(v));
    } else {
      h = To(static_cast<float>(v));
    }
    if constexpr (std::is_same_v<To, float16> && std::is_floating_point_v<From>) {
      detail::HalfRoundingFlags(static_cast<double>(v), static_cast<float>(h));
    }
    return h;
  } else if constexpr (std::is_floating_point_v<From> && kIsInt<To>) {
    return detail::FloatToInt<To>(v);
  } else {
    return static_cast<To>(v);
  }
}

}  // namespace ufuncx
