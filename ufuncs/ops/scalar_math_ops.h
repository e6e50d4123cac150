// Scalar kernels of the built-in ufuncs, part two: unary ops and the
// floating-point math functions (part one, with the helpers and the
// conventions every op follows: scalar_ops.h).
#pragma once

#include <bit>
#include <cfenv>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "ops/scalar_ops.h"

namespace ufuncx::ops {

// ------------------------------------------------------------------- unary

struct Negative {
  static constexpr bool kNativeMl = true;
  template <class T>
  static T Call(T a) {
    if constexpr (kIsMlFloat<T>) return MlFlipSign(a);
    else if constexpr (kIsInt<T>) return WrapNeg(a);
    else return -a;
  }
};
struct Positive {
  static constexpr bool kNativeMl = true;
  template <class T>
  static T Call(T a) { return a; }
};
// |z| as NumPy's SIMD loops compute it for complex64/complex128
// (larger * sqrt(fma(ratio, ratio, 1))), and libm's hypot for clongdouble.
template <class C>
inline typename C::value_type ComplexAbs(C z) {
  using R = typename C::value_type;
  if constexpr (std::is_same_v<R, long double>) {
    return std::hypot(z.real(), z.imag());
  } else {
    const R re = std::abs(z.real()), im = std::abs(z.imag());
    if (std::isinf(re) || std::isinf(im)) return std::numeric_limits<R>::infinity();
    if (std::isnan(re) || std::isnan(im)) return std::numeric_limits<R>::quiet_NaN();
    const R larger = re > im ? re : im, smaller = re > im ? im : re;
    if (larger == 0) return 0;
    const R ratio = smaller / larger;
    return larger * std::sqrt(Fma(ratio, ratio, R(1)));
  }
}

struct Absolute {
  static constexpr bool kNativeMl = true;
  static constexpr bool kUsesFma = true;  // (the complex magnitude)
  template <class T>
  static auto Call(T a) {
    if constexpr (kIsMlFloat<T>) return MlCopySign(a, T(0.0f));
    else if constexpr (std::is_same_v<T, bool> || std::is_unsigned_v<T>) return a;
    else if constexpr (kIsInt<T>) return a < 0 ? WrapNeg(a) : a;
    else if constexpr (kIsComplex<T>) return ComplexAbs(a);
    else return std::fabs(a);
  }
};
struct Fabs {
  static constexpr bool kNativeMl = true;
  template <class T>
  static T Call(T a) {
    if constexpr (kIsMlFloat<T>) return MlCopySign(a, T(0.0f));
    else return std::fabs(a);
  }
};
struct Conjugate {
  static constexpr bool kNativeMl = true;
  template <class T>
  static T Call(T a) {
    if constexpr (kIsComplex<T>) return std::conj(a);
    else return a;
  }
};
struct Square {
  static constexpr bool kUsesFma = true;
  template <class T>
  static T Call(T a) { return Multiply::Call(a, a); }
};
struct Reciprocal {
  template <class T>
  static T Call(T a) {
    if constexpr (kIsInt<T>) {
      // NumPy's loop converts 1.0 / 0 = inf with the x86 truncation, which
      // raises invalid for every integer type; Convert's range check does
      // not, so the flag is raised here.
      const double r = 1.0 / static_cast<double>(a);
      if (!std::isfinite(r)) std::feraiseexcept(FE_INVALID);
      return Convert<T>(r);
    } else if constexpr (kIsComplex<T>) {
      using R = typename T::value_type;
      const R r = a.real(), i = a.imag();
      if (std::abs(i) <= std::abs(r)) {
        const R q = i / r, d = r + i * q;
        return T(R(1) / d, -q / d);
      }
      const R q = r / i, d = r * q + i;
      return T(q / d, R(-1) / d);
    } else {
      return T(1) / a;
    }
  }
};
struct Sign {
  static constexpr bool kNativeMl = true;
  template <class T>
  static T Call(T a) {
    if constexpr (kIsMlFloat<T>) {  // NaN and signed zeros come back as they are
      const float f = static_cast<float>(a);
      return std::isnan(f) || f == 0 ? a : T(f > 0 ? 1.0f : -1.0f);
    } else if constexpr (std::is_unsigned_v<T>) return a > 0 ? 1 : 0;
    else if constexpr (kIsInt<T>) return static_cast<T>((a > 0) - (a < 0));
    else if constexpr (kIsComplex<T>) {
      using R = typename T::value_type;
      const R r = a.real(), i = a.imag();
      const R nan = std::numeric_limits<R>::quiet_NaN();
      // (an infinite part decides before a NaN in the other, as NumPy's)
      if (std::isinf(r)) return std::isinf(i) ? T(nan, nan) : T(r > 0 ? 1 : -1, 0);
      if (std::isinf(i)) return T(0, i > 0 ? 1 : -1);
      if (std::isnan(r) || std::isnan(i)) return T(nan, nan);
      if (r == 0 && i == 0) return T(0, 0);
      const R m = std::hypot(r, i);
      return T(r / m, i / m);
    } else {
      return a > 0 ? T(1) : a < 0 ? T(-1) : a == 0 ? T(0) : a;
    }
  }
};

#define UFX_ROUNDING(NAME, FN)                     \
  struct NAME {                                    \
    template <class T>                             \
    static T Call(T a) {                           \
      if constexpr (std::is_floating_point_v<T>) { \
        return std::FN(a);                         \
      } else {                                     \
        return a;                                  \
      }                                            \
    }                                              \
  };
UFX_ROUNDING(Floor, floor)
UFX_ROUNDING(Ceil, ceil)
UFX_ROUNDING(Trunc, trunc)
#undef UFX_ROUNDING

struct Rint {
  template <class T>
  static T Call(T a) {
    if constexpr (kIsComplex<T>) return T(std::nearbyint(a.real()), std::nearbyint(a.imag()));
    else return std::nearbyint(a);
  }
};

// Transcendentals: std:: overloads for float, double, long double and
// std::complex (libm's c* functions, like NumPy).
#define UFX_STD_UNARY(NAME, FN)         \
  struct NAME {                         \
    template <class T>                  \
    static T Call(T a) { return std::FN(a); } \
  };
UFX_STD_UNARY(Sqrt, sqrt)
UFX_STD_UNARY(Exp, exp)
UFX_STD_UNARY(Log, log)
UFX_STD_UNARY(Log10, log10)
UFX_STD_UNARY(Sin, sin)
UFX_STD_UNARY(Cos, cos)
UFX_STD_UNARY(Tan, tan)
UFX_STD_UNARY(Arcsin, asin)
UFX_STD_UNARY(Arccos, acos)
UFX_STD_UNARY(Arctan, atan)
UFX_STD_UNARY(Sinh, sinh)
UFX_STD_UNARY(Cosh, cosh)
UFX_STD_UNARY(Tanh, tanh)
UFX_STD_UNARY(Arcsinh, asinh)
UFX_STD_UNARY(Arccosh, acosh)
UFX_STD_UNARY(Arctanh, atanh)
#undef UFX_STD_UNARY

struct Cbrt {
  template <class T>
  static T Call(T a) { return std::cbrt(a); }
};
struct Exp2 {
  template <class T>
  static T Call(T a) {
    if constexpr (kIsComplex<T>) {
      using R = typename T::value_type;
      return std::exp(a * R(0.693147180559945309417232121458176568L));
    } else {
      return std::exp2(a);
    }
  }
};
struct Expm1 {
  template <class T>
  static T Call(T a) {
    if constexpr (kIsComplex<T>) {
      using R = typename T::value_type;
      const R x = a.real(), y = a.imag();
      const R s = std::sin(y / 2);
      return T(std::expm1(x) * std::cos(y) - 2 * s * s, std::exp(x) * std::sin(y));
    } else {
      return std::expm1(a);
    }
  }
};
struct Log2 {
  template <class T>
  static T Call(T a) {
    if constexpr (kIsComplex<T>) {
      using R = typename T::value_type;
      return std::log(a) * R(1.442695040888963407359924681001892137L);
    } else {
      return std::log2(a);
    }
  }
};
struct Log1p {
  template <class T>
  static T Call(T a) {
    if constexpr (kIsComplex<T>) {
      using R = typename T::value_type;
      const R x = a.real() + R(1), y = a.imag();
      return T(std::log(std::hypot(x, y)), std::atan2(y, x));
    } else {
      return std::log1p(a);
    }
  }
};

template <class T>
inline constexpr T kPi = static_cast<T>(3.141592653589793238462643383279502884L);
struct Deg2rad {
  template <class T>
  static T Call(T a) { return a * (kPi<T> / T(180)); }
};
struct Rad2deg {
  template <class T>
  static T Call(T a) { return a * (T(180) / kPi<T>); }
};

struct Signbit {
  template <class T>
  static bool Call(T a) { return std::signbit(a); }
};
// (Complex parts are tested both, with & and |: no branch in the loop.)
struct Isfinite {
  template <class T>
  static bool Call(T a) {
    if constexpr (kIsComplex<T>) return std::isfinite(a.real()) & std::isfinite(a.imag());
    else if constexpr (std::is_floating_point_v<T>) return std::isfinite(a);
    else return true;
  }
};
struct Isinf {
  template <class T>
  static bool Call(T a) {
    if constexpr (kIsComplex<T>) return std::isinf(a.real()) | std::isinf(a.imag());
    else if constexpr (std::is_floating_point_v<T>) return std::isinf(a);
    else return false;
  }
};
// isnan of float32/float64 (and their complex parts) on the bits: a float
// compare of a signaling NaN raises invalid, which NumPy's isnan does not.
template <class T>
inline bool BitsAreNaN(T v) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
    constexpr U kSign = U{1} << (sizeof(T) * 8 - 1);
    constexpr U kInf = sizeof(T) == 4 ? U(0x7f800000u) : U(0x7ff0000000000000ull);
    return (std::bit_cast<U>(v) & ~kSign) > kInf;
  } else {
    return IsNaN(v);
  }
}
struct Isnan {
  template <class T>
  static bool Call(T a) {
    if constexpr (kIsComplex<T>) return BitsAreNaN(a.real()) | BitsAreNaN(a.imag());
    else return BitsAreNaN(a);
  }
};

// Half-precision bit helpers for the ops NumPy implements on half bits.
inline uint16_t HalfBits(float16 h) { return Eigen::numext::bit_cast<uint16_t>(h); }
inline float16 HalfFromBits(uint16_t b) { return Eigen::numext::bit_cast<float16>(b); }

// The next representable value after x toward y, stepping the pattern.
template <class T>
inline T MlNextafter(T x, T y) {
  using B = MlBits<T>;
  const float fx = static_cast<float>(x), fy = static_cast<float>(y);
  if (std::isnan(fx) || std::isnan(fy)) return T(std::numeric_limits<float>::quiet_NaN());
  if (fx == fy) return y;
  if (fx == 0) return B::Make(static_cast<typename B::U>((B::Get(y) & B::kSign) | 1));
  const auto b = B::Get(x);
  const bool away = (fx < fy) == (fx > 0);
  return B::Make(static_cast<typename B::U>(away ? b + 1 : b - 1));
}

// IEEE float32/float64 as their bits, for spacing, modf and frexp: integer tests on
// the bits raise no floating-point flag (an ordered compare with a NaN
// would), and the calls inline where libm's would not.
template <class T>
struct IeeeBits {
  using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  static constexpr int kMantissa = sizeof(T) == 4 ? 23 : 52;
  static constexpr U kSign = U{1} << (sizeof(T) * 8 - 1);
  static constexpr U kExponent = ~kSign & ~((U{1} << kMantissa) - 1);  // also +inf's bits
};
template <class T>
inline constexpr bool kIsIeee = std::is_same_v<T, float> || std::is_same_v<T, double>;

struct Spacing {
  static constexpr bool kNativeHalf = true;
  template <class T>
  static T Call(T a) {
    if constexpr (std::is_same_v<T, float16>) {
      // NumPy's npy_half_spacing: for a negative power of two it returns the
      // (positive) gap below, otherwise the gap above |a|; with its flags
      // (invalid for inf and NaN, overflow for the largest half).
      const uint16_t h = HalfBits(a);
      const uint16_t e = h & 0x7c00u, sig = h & 0x03ffu;
      uint16_t r;
      if (e == 0x7c00u) {
        std::feraiseexcept(FE_INVALID);
        return HalfFromBits(0x7e00u);
      }
      if (h == 0x7bffu) {
        RaiseOverflow();
        return HalfFromBits(0x7c00u);
      }
      if ((h & 0x8000u) && sig == 0) {
        if (e > 0x2c00u) r = static_cast<uint16_t>(e - 0x2c00u);
        else if (e > 0x0400u) r = static_cast<uint16_t>(1u << ((e >> 10) - 2));
        else r = 1;
      } else if (e > 0x2800u) {
        r = static_cast<uint16_t>(e - 0x2800u);
      } else if (e > 0x0400u) {
        r = static_cast<uint16_t>(1u << ((e >> 10) - 1));
      } else {
        r = 1;
      }
      return HalfFromBits(r);
    } else if constexpr (kIsMlFloat<T>) {
      // ml_dtypes' rule: nextafter(x, +-inf) - x, with the sign of x; the
      // largest float8_e4m3fn (which has no infinity) gives NaN.
      const float f = static_cast<float>(a);
      constexpr bool kHasInf = !std::is_same_v<T, float8_e4m3fn>;
      if constexpr (!kHasInf) {
        if (std::fabs(f) == 448.0f) return MlCopySign(T(std::numeric_limits<float>::quiet_NaN()), a);
      }
      const T away = MlCopySign(T(kHasInf ? std::numeric_limits<float>::infinity() : 448.0f), a);
      return T(static_cast<float>(MlNextafter(a, away)) - f);
    } else {
      if constexpr (kIsIeee<T>) {
        // Normal numbers below the largest: the next one away from zero is
        // the bit pattern plus one, and the difference is exact (no flag).
        // The rest - zeros, subnormals (underflow), the largest finite
        // (overflow), infinities, NaN - go through libm's flags below.
        using B = IeeeBits<T>;
        using U = typename B::U;
        const U bits = std::bit_cast<U>(a), mag = bits & ~B::kSign;
        if (mag >= (U{1} << B::kMantissa) && mag < B::kExponent - 1) {
          return std::bit_cast<T>(static_cast<U>(bits + 1)) - a;
        }
      }
      if (std::isinf(a)) return std::numeric_limits<T>::quiet_NaN();
      if (a == 0) return std::numeric_limits<T>::denorm_min();
      return std::nextafter(a, std::copysign(std::numeric_limits<T>::infinity(), a)) - a;
    }
  }
};

struct Nextafter {
  static constexpr bool kNativeHalf = true;
  template <class T>
  static T Call(T x, T y) {
    if constexpr (std::is_same_v<T, float16>) {
      const uint16_t hx = HalfBits(x), hy = HalfBits(y);
      const auto isnan = [](uint16_t h) { return (h & 0x7c00u) == 0x7c00u && (h & 0x03ffu); };
      if (isnan(hx) || isnan(hy)) return HalfFromBits(0x7e00u);
      if (static_cast<float>(x) == static_cast<float>(y)) return x;
      if ((hx & 0x7fffu) == 0) return HalfFromBits(static_cast<uint16_t>((hy & 0x8000u) + 1));
      // Step the bit pattern: toward zero is -1, away from zero is +1.
      bool toward_zero;
      if (!(hx & 0x8000u)) {
        toward_zero = static_cast<int16_t>(hx) > static_cast<int16_t>(hy);
      } else {
        toward_zero = !(hy & 0x8000u) || (hx & 0x7fffu) > (hy & 0x7fffu);
      }
      const uint16_t r = static_cast<uint16_t>(toward_zero ? hx - 1 : hx + 1);
      // (NumPy's npy_half_nextafter flags overflow when a finite x steps
      // to infinity)
      if ((r & 0x7fffu) == 0x7c00u && (hx & 0x7c00u) != 0x7c00u) RaiseOverflow();
      return HalfFromBits(r);
    } else if constexpr (kIsMlFloat<T>) {
      return MlNextafter(x, y);
    } else {
      return std::nextafter(x, y);
    }
  }
};

struct Arctan2 {
  template <class T>
  static T Call(T a, T b) { return std::atan2(a, b); }
};
struct Hypot {
  template <class T>
  static T Call(T a, T b) { return std::hypot(a, b); }
};
struct Copysign {
  static constexpr bool kNativeMl = true;
  template <class T>
  static T Call(T a, T b) {
    if constexpr (kIsMlFloat<T>) return MlCopySign(a, b);
    else return std::copysign(a, b);
  }
};
struct Heaviside {
  template <class T>
  static T Call(T x, T h0) {
    if (std::isnan(x)) return x;
    if (x == 0) return h0;
    // (the sign bit, not a compare: GCC vectorizes this loop with compares
    // that signal for the NaN lanes it also evaluates)
    if constexpr (std::is_floating_point_v<T>) return std::signbit(x) ? T(0) : T(1);
    else return x < 0 ? T(0) : T(1);
  }
};
struct Logaddexp {
  template <class T>
  static T Call(T x, T y) {
    if (x == y) return x + static_cast<T>(0.693147180559945309417232121458176568L);
    const T d = x - y;
    if (d > 0) return x + std::log1p(std::exp(-d));
    if (d <= 0) return y + std::log1p(std::exp(d));
    return d;  // NaN
  }
};
struct Logaddexp2 {
  template <class T>
  static T Call(T x, T y) {
    constexpr T kLog2e = static_cast<T>(1.442695040888963407359924681001892137L);
    if (x == y) return x + T(1);
    const T d = x - y;
    if (d > 0) return x + kLog2e * std::log1p(std::exp2(-d));
    if (d <= 0) return y + kLog2e * std::log1p(std::exp2(d));
    return d;
  }
};
struct Ldexp {
  template <class T, class I>
  static T Call(T x, I e) {
    int ie;
    if constexpr (sizeof(I) > sizeof(int)) {
      ie = e > INT32_MAX ? INT32_MAX : e < INT32_MIN ? INT32_MIN : static_cast<int>(e);
    } else {
      ie = static_cast<int>(e);
    }
    return std::ldexp(x, ie);
  }
};

struct Modf {
  template <class T>
  static void Call(T a, T& frac, T& whole) {
    if constexpr (kIsIeee<T>) {
      using B = IeeeBits<T>;
      const typename B::U mag = std::bit_cast<typename B::U>(a) & ~B::kSign;
      // Below 2^mantissa a value has a fraction to drop (an int64 holds its
      // integral part); from there on, and for inf and NaN, it is its own
      // integral part. The sign stays: modf(-0.5) = (-0.5, -0.0), and the
      // fraction of -3.0 or -inf is -0.0.
      const bool small = mag < std::bit_cast<typename B::U>(T(typename B::U{1} << B::kMantissa));
      // (a + 0 quiets a signaling NaN with the invalid flag, as libm's modf)
      whole = small ? std::copysign(static_cast<T>(static_cast<int64_t>(a)), a) : a + T(0);
      frac = std::copysign(mag == B::kExponent ? T(0) : a - whole, a);
    } else {
      frac = std::modf(a, &whole);
    }
  }
};
struct Frexp {
  template <class T>
  static void Call(T a, T& mantissa, int32_t& exponent) {
    if constexpr (kIsIeee<T>) {
      using B = IeeeBits<T>;
      using U = typename B::U;
      constexpr int kBias = sizeof(T) == 4 ? 127 : 1023;
      U bits = std::bit_cast<U>(a);
      U mag = bits & ~B::kSign;
      if (mag == 0 || mag >= B::kExponent) {
        // Zeros come back as they are; inf and NaN as a + a, as from libm's
        // frexp (a signaling NaN quiet, with the invalid flag).
        mantissa = mag == 0 ? a : a + a;
        exponent = 0;
        return;
      }
      int shift = 0;
      if (mag < (U{1} << B::kMantissa)) {  // subnormal: scaled up exactly first
        shift = B::kMantissa + 2;
        bits = std::bit_cast<U>(a * static_cast<T>(U{1} << shift));
        mag = bits & ~B::kSign;
      }
      exponent = static_cast<int32_t>(mag >> B::kMantissa) - (kBias - 1) - shift;
      mantissa = std::bit_cast<T>((bits & ~B::kExponent) | (U{kBias - 1} << B::kMantissa));
    } else {
      int e = 0;
      mantissa = std::frexp(a, &e);
      exponent = std::isfinite(a) ? e : 0;
    }
  }
};

}  // namespace ufuncx::ops
