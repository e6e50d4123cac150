// Scalar kernels of every built-in ufunc. Each op is a struct with a static
// Call; the drivers (ufuncs/drivers/) own the loops and conversions, the
// table (ufuncs/ufuncs.toml) names the op per loop group.
//
// Conventions:
// - Call receives compute values: float16/bfloat16 arrive as float (NumPy
//   computes half loops in float) unless the op sets kNativeHalf.
// - Integer arithmetic wraps (done in unsigned types, so no UB); integer
//   division and remainder by zero give 0, as NumPy does.
// - Ops with two outputs take them by reference.
// - Ops that can fail set kMayFail and take an `int& status` last.
// - Complex arithmetic uses NumPy's textbook formulas (not C99 Annex G), and
//   complex transcendental functions use libm's (as NumPy does).
#pragma once

#include <bit>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <type_traits>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "ufuncx/loop.h"
#include "ufuncx/scalar.h"

namespace ufuncx::ops {

template <class T>
using Real = std::conditional_t<kIsComplex<T>, typename T::value_type, T>;

template <class T>
using Wide = std::conditional_t<(sizeof(T) < 4), uint32_t, std::make_unsigned_t<T>>;

template <class T>
inline T WrapAdd(T a, T b) { return static_cast<T>(Wide<T>(a) + Wide<T>(b)); }
template <class T>
inline T WrapSub(T a, T b) { return static_cast<T>(Wide<T>(a) - Wide<T>(b)); }
template <class T>
inline T WrapMul(T a, T b) { return static_cast<T>(Wide<T>(a) * Wide<T>(b)); }
template <class T>
inline T WrapNeg(T a) { return static_cast<T>(Wide<T>(0) - Wide<T>(a)); }

template <class T>
inline bool IsNaN(T v) {
  if constexpr (kIsComplex<T>) return std::isnan(v.real()) || std::isnan(v.imag());
  else if constexpr (std::is_floating_point_v<T>) return std::isnan(v);
  else return false;
}

template <class T>
inline bool Truth(T v) {
  if constexpr (kIsComplex<T>) return v.real() != 0 || v.imag() != 0;
  else return v != T(0);
}

// Complex helpers, NumPy's formulas.
template <class C>
inline C CMul(C a, C b) {
  // NumPy's SIMD loops compute this with fused multiply-adds:
  // re = fma(ar, br, -(ai*bi)), im = fma(ar, bi, ai*br).
  if constexpr (std::is_same_v<typename C::value_type, long double>) {
    return C(a.real() * b.real() - a.imag() * b.imag(),
             a.real() * b.imag() + a.imag() * b.real());
  } else {
    return C(std::fma(a.real(), b.real(), -(a.imag() * b.imag())),
             std::fma(a.real(), b.imag(), a.imag() * b.real()));
  }
}
// NumPy's scalar complex product (npy_cpow's cmul): no fused operations.
template <class C>
inline C CMulPlain(C a, C b) {
  return C(a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real());
}
template <class C>
inline C CDiv(C a, C b) {  // Smith's algorithm
  using R = typename C::value_type;
  const R ar = a.real(), ai = a.imag(), br = b.real(), bi = b.imag();
  const R abs_br = std::abs(br), abs_bi = std::abs(bi);
  if (abs_br >= abs_bi) {
    if (abs_br == 0 && abs_bi == 0) return C(ar / abs_br, ai / abs_bi);
    const R rat = bi / br;
    const R scl = R(1) / (br + bi * rat);
    return C((ar + ai * rat) * scl, (ai - ar * rat) * scl);
  }
  const R rat = br / bi;
  const R scl = R(1) / (bi + br * rat);
  return C((ar * rat + ai) * scl, (ai * rat - ar) * scl);
}
// Lexicographic complex order with NumPy's NaN rules.
template <class C>
inline bool CLt(C x, C y) {
  return (x.real() < y.real() && !std::isnan(x.imag()) && !std::isnan(y.imag())) ||
         (x.real() == y.real() && x.imag() < y.imag());
}
template <class C>
inline bool CLe(C x, C y) {
  return (x.real() < y.real() && !std::isnan(x.imag()) && !std::isnan(y.imag())) ||
         (x.real() == y.real() && x.imag() <= y.imag());
}
template <class C>
inline bool CGe(C x, C y) { return CLe(y, x); }

// ---------------------------------------------------------------- arithmetic

// Reductions: kHalfReduceInFloat keeps a half-precision reduction's
// running value in float (NumPy's HALF add/subtract/multiply/divide loops).
// (Which types reduce in NumPy's pairwise order is the table's `pairwise`.)
struct Add {
  static constexpr bool kHalfReduceInFloat = true;
  template <class T>
  static T Call(T a, T b) {
    if constexpr (std::is_same_v<T, bool>) return a || b;
    else if constexpr (kIsInt<T>) return WrapAdd(a, b);
    else if constexpr (kIsComplex<T>) return T(a.real() + b.real(), a.imag() + b.imag());
    else return a + b;
  }
};

struct Subtract {
  static constexpr bool kHalfReduceInFloat = true;
  template <class T>
  static T Call(T a, T b) {
    if constexpr (kIsInt<T>) return WrapSub(a, b);
    else if constexpr (kIsComplex<T>) return T(a.real() - b.real(), a.imag() - b.imag());
    else return a - b;
  }
};

struct Multiply {
  static constexpr bool kHalfReduceInFloat = true;
  // NumPy's reduce and accumulate reach its scalar complex loop, which
  // multiplies without fused operations.
  static constexpr bool kPlainComplexChain = true;
  template <class T>
  static T Call(T a, T b) {
    if constexpr (std::is_same_v<T, bool>) return a && b;
    else if constexpr (kIsInt<T>) return WrapMul(a, b);
    else if constexpr (kIsComplex<T>) return CMul(a, b);
    else return a * b;
  }
};

struct Divide {
  static constexpr bool kHalfReduceInFloat = true;
  template <class T>
  static T Call(T a, T b) {
    if constexpr (kIsComplex<T>) return CDiv(a, b);
    else return a / b;
  }
};

// NumPy's npy_divmod for floats: floor division and a remainder with the
// divisor's sign, exact where Python's are.
template <class T>
inline T FloatDivmod(T a, T b, T* modulus) {
  T mod = std::fmod(a, b);
  if (b == 0) {
    *modulus = mod;
    return a / b;
  }
  T div = (a - mod) / b;
  if (mod != 0) {
    if ((b < 0) != (mod < 0)) {
      mod += b;
      div -= T(1);
    }
  } else {
    mod = std::copysign(T(0), b);
  }
  T floordiv;
  if (div != 0) {
    floordiv = std::floor(div);
    if (div - floordiv > T(0.5)) floordiv += T(1);
  } else {
    floordiv = std::copysign(T(0), a / b);
  }
  *modulus = mod;
  return floordiv;
}

template <class T>
inline T IntFloorDiv(T a, T b) {
  if (b == 0) return 0;
  if constexpr (std::is_signed_v<T>) {
    if (a == std::numeric_limits<T>::min() && b == T(-1)) return a;
    T q = static_cast<T>(a / b);
    if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
    return q;
  } else {
    return static_cast<T>(a / b);
  }
}

template <class T>
inline T IntRemainder(T a, T b) {
  if (b == 0) return 0;
  if constexpr (std::is_signed_v<T>) {
    if (b == T(-1)) return 0;
    T r = static_cast<T>(a % b);
    if (r != 0 && ((r < 0) != (b < 0))) r = static_cast<T>(r + b);
    return r;
  } else {
    return static_cast<T>(a % b);
  }
}

struct FloorDivide {
  template <class T>
  static T Call(T a, T b) {
    if constexpr (kIsInt<T>) {
      return IntFloorDiv(a, b);
    } else {
      if (b == 0) return a / b;
      T mod;
      return FloatDivmod(a, b, &mod);
    }
  }
};

struct Remainder {
  template <class T>
  static T Call(T a, T b) {
    if constexpr (kIsInt<T>) {
      return IntRemainder(a, b);
    } else {
      if (b == 0) return std::fmod(a, b);
      T mod;
      FloatDivmod(a, b, &mod);
      return mod;
    }
  }
};

struct Divmod {
  template <class T>
  static void Call(T a, T b, T& q, T& r) {
    if constexpr (kIsInt<T>) {
      q = IntFloorDiv(a, b);
      r = IntRemainder(a, b);
    } else {
      q = FloatDivmod(a, b, &r);
    }
  }
};

struct Fmod {
  template <class T>
  static T Call(T a, T b) {
    if constexpr (kIsInt<T>) {
      if (b == 0) return 0;
      if constexpr (std::is_signed_v<T>) {
        if (b == T(-1)) return 0;
      }
      return static_cast<T>(a % b);
    } else {
      return std::fmod(a, b);
    }
  }
};

template <class C>
inline C ComplexPower(C a, C b) {
  using R = typename C::value_type;
  const R br = b.real(), bi = b.imag();
  if (br == 0 && bi == 0) return C(1, 0);
  if (a.real() == 0 && a.imag() == 0) {
    if (br > 0) return C(0, 0);
    const R nan = std::numeric_limits<R>::quiet_NaN();
    return C(nan, nan);
  }
  if (bi == 0 && br == std::trunc(br) && br > -100 && br < 100) {
    long n = static_cast<long>(br);
    if (n == 1) return a;
    if (n == 2) return CMulPlain(a, a);
    if (n == 3) return CMulPlain(CMulPlain(a, a), a);
    const bool neg = n < 0;
    unsigned long m = neg ? static_cast<unsigned long>(-n) : static_cast<unsigned long>(n);
    C acc(1, 0), base = a;
    for (unsigned long mask = 1; mask <= m; mask <<= 1) {
      if (m & mask) acc = CMulPlain(acc, base);
      base = CMulPlain(base, base);
    }
    return neg ? CDiv(C(1, 0), acc) : acc;
  }
  return std::pow(a, b);
}

struct Power {
  static constexpr bool kMayFail = true;
  template <class T>
  static T Call(T a, T b, int& status) {
    if constexpr (kIsInt<T>) {
      if constexpr (std::is_signed_v<T>) {
        if (b < 0) {
          status = kLoopNegativeIntPower;
          return 0;
        }
      }
      using W = Wide<T>;
      W base = static_cast<W>(a), acc = 1;
      for (auto e = static_cast<std::make_unsigned_t<T>>(b); e != 0; e >>= 1) {
        if (e & 1) acc = static_cast<W>(acc * base);
        base = static_cast<W>(base * base);
      }
      return static_cast<T>(acc);
    } else if constexpr (kIsComplex<T>) {
      return ComplexPower(a, b);
    } else {
      return std::pow(a, b);
    }
  }
};

struct FloatPower {
  template <class T>
  static T Call(T a, T b) {
    if constexpr (kIsComplex<T>) return ComplexPower(a, b);
    else return std::pow(a, b);
  }
};

// ------------------------------------------------------------- min and max
//
// The float min/max ops compute the compare x86 does in one instruction
// (maxsd/minsd: `b > a ? b : a`, which keeps `a` on ties and when `a` is
// NaN) behind a branch on the one NaN case it gets wrong. NaNs are rare, so
// the branch is predicted well in every loop: scatter, reductions and call
// loops alike. A branch on the comparison itself was mispredicted about
// 30% of the time by maximum.at into a fresh target (C harness: 4.6 against
// 1.35 ms for 1e6 updates into 1e5 places; add: 1.3 ms) and half the time
// by call loops on unordered data.

// `b > a ? b : a` and `b < a ? b : a` (a on ties and when either is NaN):
// on x86 one maxsd/minsd (maxss/minss), computed in vector registers. Left
// to itself the compiler may carry the values in integer registers and
// select with cmov, which puts two register-file crossings on the
// load-combine-store chain of a scatter (1.97 against 1.37 ms for
// maximum.at, 1e6 updates into 1e5 places).
template <class T>
inline T GreaterOf(T a, T b) {
#if defined(__SSE2__)
  if constexpr (std::is_same_v<T, double>) return _mm_cvtsd_f64(_mm_max_sd(_mm_set_sd(b), _mm_set_sd(a)));
  if constexpr (std::is_same_v<T, float>) return _mm_cvtss_f32(_mm_max_ss(_mm_set_ss(b), _mm_set_ss(a)));
#endif
  return b > a ? b : a;
}
template <class T>
inline T LesserOf(T a, T b) {
#if defined(__SSE2__)
  if constexpr (std::is_same_v<T, double>) return _mm_cvtsd_f64(_mm_min_sd(_mm_set_sd(b), _mm_set_sd(a)));
  if constexpr (std::is_same_v<T, float>) return _mm_cvtss_f32(_mm_min_ss(_mm_set_ss(b), _mm_set_ss(a)));
#endif
  return b < a ? b : a;
}

struct Maximum {
  template <class T>
  static T Call(T a, T b) {
    if constexpr (std::is_same_v<T, bool>) return a || b;
    else if constexpr (kIsComplex<T>) return (IsNaN(a) || CGe(a, b)) ? a : b;
    else if constexpr (kIsInt<T>) return a > b ? a : b;
    else return std::isnan(b) ? b : GreaterOf(a, b);  // see above
  }
};

struct Minimum {
  template <class T>
  static T Call(T a, T b) {
    if constexpr (std::is_same_v<T, bool>) return a && b;
    else if constexpr (kIsComplex<T>) return (IsNaN(a) || CLe(a, b)) ? a : b;
    else if constexpr (kIsInt<T>) return a < b ? a : b;
    else return std::isnan(b) ? b : LesserOf(a, b);  // see above
  }
};

struct Fmax {
  template <class T>
  static T Call(T a, T b) {
    if constexpr (std::is_same_v<T, bool>) return a || b;
    else if constexpr (kIsComplex<T>) return (IsNaN(b) || CGe(a, b)) ? a : b;
    else if constexpr (kIsInt<T>) return a > b ? a : b;
    else return std::isnan(a) ? b : GreaterOf(a, b);  // see above
  }
};

struct Fmin {
  template <class T>
  static T Call(T a, T b) {
    if constexpr (std::is_same_v<T, bool>) return a && b;
    else if constexpr (kIsComplex<T>) return (IsNaN(b) || CLe(a, b)) ? a : b;
    else if constexpr (kIsInt<T>) return a < b ? a : b;
    else return std::isnan(a) ? b : LesserOf(a, b);  // see above
  }
};

// ------------------------------------------------------------- comparisons

// Compares mixed signed/unsigned integers by value (NumPy's qQ/Qq loops).
template <class A, class B>
inline int CmpInt(A a, B b) {
  if constexpr (std::is_signed_v<A> && !std::is_signed_v<B>) {
    if (a < 0) return -1;
    using U = std::make_unsigned_t<A>;
    return static_cast<U>(a) < b ? -1 : static_cast<U>(a) > b ? 1 : 0;
  } else if constexpr (!std::is_signed_v<A> && std::is_signed_v<B>) {
    return -CmpInt(b, a);
  } else {
    return a < b ? -1 : a > b ? 1 : 0;
  }
}

#define UFX_COMPARISON(NAME, OP, COMPLEX_EXPR)                        \
  struct NAME {                                                       \
    template <class A, class B>                                       \
    static bool Call(A a, B b) {                                      \
      if constexpr (kIsComplex<A>) {                                  \
        const A x = a, y = b;                                         \
        return COMPLEX_EXPR;                                          \
      } else if constexpr (!std::is_same_v<A, B>) {                   \
        return CmpInt(a, b) OP 0;                                     \
      } else {                                                        \
        return a OP b;                                                \
      }                                                               \
    }                                                                 \
  };
UFX_COMPARISON(Equal, ==, x.real() == y.real() && x.imag() == y.imag())
UFX_COMPARISON(NotEqual, !=, x.real() != y.real() || x.imag() != y.imag())
UFX_COMPARISON(Less, <, CLt(x, y))
UFX_COMPARISON(LessEqual, <=, CLe(x, y))
UFX_COMPARISON(Greater, >, CLt(y, x))
UFX_COMPARISON(GreaterEqual, >=, CLe(y, x))
#undef UFX_COMPARISON

// ----------------------------------------------------------------- logical

struct LogicalAnd {
  template <class T>
  static bool Call(T a, T b) { return Truth(a) && Truth(b); }
};
struct LogicalOr {
  template <class T>
  static bool Call(T a, T b) { return Truth(a) || Truth(b); }
};
struct LogicalXor {
  template <class T>
  static bool Call(T a, T b) { return Truth(a) != Truth(b); }
};
struct LogicalNot {
  template <class T>
  static bool Call(T a) { return !Truth(a); }
};

// ----------------------------------------------------------------- bitwise

struct BitwiseAnd {
  template <class T>
  static T Call(T a, T b) {
    if constexpr (std::is_same_v<T, bool>) return a && b;
    else return static_cast<T>(a & b);
  }
};
struct BitwiseOr {
  template <class T>
  static T Call(T a, T b) {
    if constexpr (std::is_same_v<T, bool>) return a || b;
    else return static_cast<T>(a | b);
  }
};
struct BitwiseXor {
  template <class T>
  static T Call(T a, T b) {
    if constexpr (std::is_same_v<T, bool>) return a != b;
    else return static_cast<T>(a ^ b);
  }
};
struct Invert {
  template <class T>
  static T Call(T a) {
    if constexpr (std::is_same_v<T, bool>) return !a;
    else return static_cast<T>(~a);
  }
};

// Shifts by the width or more (or by a negative count) give 0, or -1 for a
// right shift of a negative value: NumPy's npy_lshift/npy_rshift.
struct LeftShift {
  template <class T>
  static T Call(T a, T b) {
    using U = std::make_unsigned_t<T>;
    if (static_cast<uint64_t>(static_cast<std::make_unsigned_t<T>>(b)) >= sizeof(T) * 8 ||
        (std::is_signed_v<T> && b < 0)) {
      return 0;
    }
    return static_cast<T>(static_cast<U>(static_cast<U>(a) << b));
  }
};
struct RightShift {
  template <class T>
  static T Call(T a, T b) {
    if (static_cast<uint64_t>(static_cast<std::make_unsigned_t<T>>(b)) >= sizeof(T) * 8 ||
        (std::is_signed_v<T> && b < 0)) {
      if constexpr (std::is_signed_v<T>) return a < 0 ? T(-1) : T(0);
      else return 0;
    }
    return static_cast<T>(a >> b);
  }
};

template <class T>
inline std::make_unsigned_t<T> UAbs(T a) {
  using U = std::make_unsigned_t<T>;
  if constexpr (std::is_signed_v<T>) return a < 0 ? static_cast<U>(U(0) - static_cast<U>(a)) : static_cast<U>(a);
  else return a;
}

struct BitwiseCount {
  template <class T>
  static uint8_t Call(T a) { return static_cast<uint8_t>(std::popcount(UAbs(a))); }
};

template <class U>
inline U UGcd(U a, U b) {
  while (b != 0) {
    const U t = a % b;
    a = b;
    b = t;
  }
  return a;
}
struct Gcd {
  template <class T>
  static T Call(T a, T b) { return static_cast<T>(UGcd(UAbs(a), UAbs(b))); }
};
struct Lcm {
  template <class T>
  static T Call(T a, T b) {
    using U = std::make_unsigned_t<T>;
    const U ua = UAbs(a), ub = UAbs(b);
    const U g = UGcd(ua, ub);
    if (g == 0) return 0;
    return static_cast<T>(static_cast<Wide<T>>(static_cast<Wide<T>>(ua / g) * ub));
  }
};

// ------------------------------------------------------------------- unary

struct Negative {
  template <class T>
  static T Call(T a) {
    if constexpr (kIsInt<T>) return WrapNeg(a);
    else return -a;
  }
};
struct Positive {
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
    return larger * std::sqrt(std::fma(ratio, ratio, R(1)));
  }
}

struct Absolute {
  template <class T>
  static auto Call(T a) {
    if constexpr (std::is_same_v<T, bool> || std::is_unsigned_v<T>) return a;
    else if constexpr (kIsInt<T>) return a < 0 ? WrapNeg(a) : a;
    else if constexpr (kIsComplex<T>) return ComplexAbs(a);
    else return std::fabs(a);
  }
};
struct Fabs {
  template <class T>
  static T Call(T a) { return std::fabs(a); }
};
struct Conjugate {
  template <class T>
  static T Call(T a) {
    if constexpr (kIsComplex<T>) return std::conj(a);
    else return a;
  }
};
struct Square {
  template <class T>
  static T Call(T a) { return Multiply::Call(a, a); }
};
struct Reciprocal {
  template <class T>
  static T Call(T a) {
    if constexpr (kIsInt<T>) {
      return Convert<T>(1.0 / static_cast<double>(a));
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
  template <class T>
  static T Call(T a) {
    if constexpr (std::is_unsigned_v<T>) return a > 0 ? 1 : 0;
    else if constexpr (kIsInt<T>) return static_cast<T>((a > 0) - (a < 0));
    else if constexpr (kIsComplex<T>) {
      using R = typename T::value_type;
      const R r = a.real(), i = a.imag();
      const R nan = std::numeric_limits<R>::quiet_NaN();
      if (std::isnan(r) || std::isnan(i)) return T(nan, nan);
      if (std::isinf(r)) return std::isinf(i) ? T(nan, nan) : T(r > 0 ? 1 : -1, 0);
      if (std::isinf(i)) return T(0, i > 0 ? 1 : -1);
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
struct Isfinite {
  template <class T>
  static bool Call(T a) {
    if constexpr (kIsComplex<T>) return std::isfinite(a.real()) && std::isfinite(a.imag());
    else if constexpr (std::is_floating_point_v<T>) return std::isfinite(a);
    else return true;
  }
};
struct Isinf {
  template <class T>
  static bool Call(T a) {
    if constexpr (kIsComplex<T>) return std::isinf(a.real()) || std::isinf(a.imag());
    else if constexpr (std::is_floating_point_v<T>) return std::isinf(a);
    else return false;
  }
};
struct Isnan {
  template <class T>
  static bool Call(T a) { return IsNaN(a); }
};

// Half-precision bit helpers for the ops NumPy implements on half bits.
inline uint16_t HalfBits(float16 h) { return Eigen::numext::bit_cast<uint16_t>(h); }
inline float16 HalfFromBits(uint16_t b) { return Eigen::numext::bit_cast<float16>(b); }

struct Spacing {
  static constexpr bool kNativeHalf = true;
  template <class T>
  static T Call(T a) {
    if constexpr (std::is_same_v<T, float16>) {
      // NumPy's npy_half_spacing: for a negative power of two it returns the
      // (positive) gap below, otherwise the gap above |a|.
      const uint16_t h = HalfBits(a);
      const uint16_t e = h & 0x7c00u, sig = h & 0x03ffu;
      uint16_t r;
      if (e == 0x7c00u) return HalfFromBits(0x7e00u);
      if (h == 0x7bffu) return HalfFromBits(0x7c00u);
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
    } else if constexpr (std::is_same_v<T, bfloat16>) {
      return T(Call(static_cast<float>(a)));
    } else {
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
      return HalfFromBits(static_cast<uint16_t>(toward_zero ? hx - 1 : hx + 1));
    } else if constexpr (std::is_same_v<T, bfloat16>) {
      return T(std::nextafter(static_cast<float>(x), static_cast<float>(y)));
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
  template <class T>
  static T Call(T a, T b) { return std::copysign(a, b); }
};
struct Heaviside {
  template <class T>
  static T Call(T x, T h0) {
    if (std::isnan(x)) return x;
    if (x == 0) return h0;
    return x < 0 ? T(0) : T(1);
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
  static void Call(T a, T& frac, T& whole) { frac = std::modf(a, &whole); }
};
struct Frexp {
  template <class T>
  static void Call(T a, T& mantissa, int32_t& exponent) {
    int e = 0;
    mantissa = std::frexp(a, &e);
    exponent = std::isfinite(a) ? e : 0;
  }
};

}  // namespace ufuncx::ops
