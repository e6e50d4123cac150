// Scalar kernels of the built-in ufuncs, part one: the shared helpers,
// arithmetic, min and max, comparisons, logic and bitwise ops (part two,
// unary and floating-point math functions: scalar_math_ops.h). Each op is
// a struct with a static Call; the drivers (ufuncs/drivers/) own the loops
// and conversions, the table (ufuncs/ufuncs.toml) names the op per loop
// group.
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
#include <cfenv>
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
    return C(Fma(a.real(), b.real(), -(a.imag() * b.imag())),
             Fma(a.real(), b.imag(), a.imag() * b.real()));
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
// Lexicographic complex order with NumPy's NaN rules. CLtOrder/CLeOrder
// only order (maximum and minimum, which report no flag); CLt/CLe also
// raise NumPy's flags: its C compares (xr < yr, then xi < yi only when
// xr == yr) signal, so invalid is raised when a real part is NaN, or the
// real parts are equal and an imaginary part is NaN. Their compares are
// quiet and the flag explicit, whatever instructions the compiler picks.
// (Complex128 fmax at 1e3: 1.5 us with CLtOrder's short-circuit form,
// NumPy's 1.6; through CLt, flags and all, 5.0; with & and | 3.7.)
inline void RaiseInvalid() { std::feraiseexcept(FE_INVALID); }
template <class C>
inline bool CLtOrder(C x, C y) {
  return (x.real() < y.real() && !std::isnan(x.imag()) && !std::isnan(y.imag())) ||
         (x.real() == y.real() && x.imag() < y.imag());
}
template <class C>
inline bool CLeOrder(C x, C y) {
  return (x.real() < y.real() && !std::isnan(x.imag()) && !std::isnan(y.imag())) ||
         (x.real() == y.real() && x.imag() <= y.imag());
}
template <class C>
inline void CompareSignals(C x, C y) {
  if (std::isnan(x.real()) || std::isnan(y.real()) ||
      (x.real() == y.real() && (std::isnan(x.imag()) || std::isnan(y.imag())))) {
    RaiseInvalid();
  }
}
template <class C>
inline bool CLt(C x, C y) {
  CompareSignals(x, y);
  return (std::isless(x.real(), y.real()) && !std::isnan(x.imag()) && !std::isnan(y.imag())) ||
         (x.real() == y.real() && std::isless(x.imag(), y.imag()));
}
template <class C>
inline bool CLe(C x, C y) {
  CompareSignals(x, y);
  return (std::isless(x.real(), y.real()) && !std::isnan(x.imag()) && !std::isnan(y.imag())) ||
         (x.real() == y.real() && std::islessequal(x.imag(), y.imag()));
}
template <class C>
inline bool CGeOrder(C x, C y) { return CLeOrder(y, x); }

// ---------------------------------------------------------------- arithmetic

// Reductions: kHalfReduceInFloat keeps a half-precision reduction's
// running value in float (NumPy's HALF add/subtract/multiply/divide loops);
// the ml_dtypes types round every step, as ml_dtypes' loops do.
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
  static constexpr bool kUsesFma = true;  // (the complex product)
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
  if (std::isnan(a) || std::isnan(b)) {  // quietly: NaNs raise no invalid flag
    *modulus = a + b;
    return a + b;
  }
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

// NumPy's integer loops report division by zero, and floor division's
// MIN // -1, through the floating-point flags, as its float loops do; the
// caller reads them after the call (np.errstate).
inline void RaiseDivideByZero() { std::feraiseexcept(FE_DIVBYZERO); }
inline void RaiseOverflow() { std::feraiseexcept(FE_OVERFLOW); }

template <class T>
inline T IntFloorDiv(T a, T b) {
  if (b == 0) {
    RaiseDivideByZero();
    return 0;
  }
  if constexpr (std::is_signed_v<T>) {
    if (a == std::numeric_limits<T>::min() && b == T(-1)) {
      RaiseOverflow();
      return a;
    }
    // Truncated quotient, one down when a remainder is left and the signs
    // differ; without branches (the sign test is data-dependent).
    const T q = static_cast<T>(a / b);
    const T r = static_cast<T>(a - q * b);
    return static_cast<T>(q - static_cast<T>((r != 0) & ((r ^ b) < 0)));
  } else {
    return static_cast<T>(a / b);
  }
}

template <class T>
inline T IntRemainder(T a, T b) {
  if (b == 0) {
    RaiseDivideByZero();
    return 0;
  }
  if constexpr (std::is_signed_v<T>) {
    if (b == T(-1)) return 0;
    const T r = static_cast<T>(a % b);
    return static_cast<T>(r + (((r != 0) & ((r ^ b) < 0)) ? b : T(0)));
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
    if constexpr (kIsInt<T> && std::is_signed_v<T>) {
      // One division: the remainder from the floored quotient, in 64-bit
      // modular arithmetic (q * b itself can overflow T: 5 divmod INT_MIN).
      q = IntFloorDiv(a, b);
      r = b == 0 || b == T(-1)
              ? T(0)
              : static_cast<T>(static_cast<uint64_t>(a) -
                               static_cast<uint64_t>(q) * static_cast<uint64_t>(b));
    } else if constexpr (kIsInt<T>) {
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
      if (b == 0) {
        RaiseDivideByZero();
        return 0;
      }
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
    // 0 to a power whose real part is not positive is ill-defined: NaN,
    // with NumPy's invalid flag.
    std::feraiseexcept(FE_INVALID);
    const R nan = std::numeric_limits<R>::quiet_NaN();
    return C(nan, nan);
  }
  // (NumPy converts a real exponent to an integer to test it, which signals
  // invalid for NaN)
  if (bi == 0 && std::isnan(br)) std::feraiseexcept(FE_INVALID);
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
  // (a negative exponent of a signed integer type; float loops never fail)
  template <class T>
  static constexpr bool kFailsFor = kIsInt<T> && std::is_signed_v<T>;
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
// (maxsd/minsd: `a > b ? a : b`, the second operand on ties and when either
// is NaN; the operands are swapped for the first on ties) behind a branch
// on the one NaN case it gets wrong. NaNs are rare, so
// the branch is predicted well in every loop: scatter, reductions and call
// loops alike. A branch on the comparison itself was mispredicted about
// 30% of the time by maximum.at into a fresh target (C harness: 4.6 against
// 1.35 ms for 1e6 updates into 1e5 places; add: 1.3 ms) and half the time
// by call loops on unordered data.

// `a > b ? a : b` and `a < b ? a : b` (b on ties and when either is NaN):
// on x86 one maxsd/minsd (maxss/minss), computed in vector registers. Left
// to itself the compiler may carry the values in integer registers and
// select with cmov, which puts two register-file crossings on the
// load-combine-store chain of a scatter (1.97 against 1.37 ms for
// maximum.at, 1e6 updates into 1e5 places).
template <class T>
inline T MaxSd(T a, T b) {
#if defined(__SSE2__)
  if constexpr (std::is_same_v<T, double>) return _mm_cvtsd_f64(_mm_max_sd(_mm_set_sd(a), _mm_set_sd(b)));
  if constexpr (std::is_same_v<T, float>) return _mm_cvtss_f32(_mm_max_ss(_mm_set_ss(a), _mm_set_ss(b)));
#endif
  return a > b ? a : b;
}
template <class T>
inline T MinSd(T a, T b) {
#if defined(__SSE2__)
  if constexpr (std::is_same_v<T, double>) return _mm_cvtsd_f64(_mm_min_sd(_mm_set_sd(a), _mm_set_sd(b)));
  if constexpr (std::is_same_v<T, float>) return _mm_cvtss_f32(_mm_min_ss(_mm_set_ss(a), _mm_set_ss(b)));
#endif
  return a < b ? a : b;
}
// NumPy's maximum and minimum give the second operand on ties (0.0 and
// -0.0) in float32 and float64, the first in float16 and long double.
template <class T>
inline constexpr bool kSecondOnTies = std::is_same_v<T, float> || std::is_same_v<T, double>;


struct Maximum {
  static constexpr bool kNativeMl = true;
  static constexpr bool kNativeHalf = true;  // (float16: a on ties, as NumPy's half loop)
  template <class T>
  static T Call(T a, T b) {
    if constexpr (std::is_same_v<T, float16>) {
      const float x = static_cast<float>(a), y = static_cast<float>(b);
      return std::isnan(x) || x >= y ? a : b;
    } else if constexpr (kIsMlFloat<T>) {  // ml_dtypes' rule: one operand, unchanged
      const float x = static_cast<float>(a), y = static_cast<float>(b);
      return std::isnan(x) || x > y ? a : b;
    } else if constexpr (std::is_same_v<T, bool>) return a || b;
    else if constexpr (kIsComplex<T>) return (IsNaN(a) || CGeOrder(a, b)) ? a : b;
    else if constexpr (kIsInt<T>) return a > b ? a : b;
    else if constexpr (kSecondOnTies<T>) return std::isnan(a) ? a : MaxSd(a, b);
    else return std::isnan(b) ? b : MaxSd(b, a);  // see above
  }
};

struct Minimum {
  static constexpr bool kNativeMl = true;
  static constexpr bool kNativeHalf = true;  // (float16: a on ties, as NumPy's half loop)
  template <class T>
  static T Call(T a, T b) {
    if constexpr (std::is_same_v<T, float16>) {
      const float x = static_cast<float>(a), y = static_cast<float>(b);
      return std::isnan(x) || x <= y ? a : b;
    } else if constexpr (kIsMlFloat<T>) {  // ml_dtypes' rule: one operand, unchanged
      const float x = static_cast<float>(a), y = static_cast<float>(b);
      return std::isnan(x) || x < y ? a : b;
    } else if constexpr (std::is_same_v<T, bool>) return a && b;
    else if constexpr (kIsComplex<T>) return (IsNaN(a) || CLeOrder(a, b)) ? a : b;
    else if constexpr (kIsInt<T>) return a < b ? a : b;
    else if constexpr (kSecondOnTies<T>) return std::isnan(a) ? a : MinSd(a, b);
    else return std::isnan(b) ? b : MinSd(b, a);  // see above
  }
};

struct Fmax {
  static constexpr bool kNativeMl = true;
  template <class T>
  static T Call(T a, T b) {
    if constexpr (kIsMlFloat<T>) {  // ml_dtypes' rule: one operand, unchanged
      const float x = static_cast<float>(a), y = static_cast<float>(b);
      return std::isnan(y) || x > y ? a : b;
    } else if constexpr (std::is_same_v<T, bool>) return a || b;
    else if constexpr (kIsComplex<T>) return (IsNaN(b) || CGeOrder(a, b)) ? a : b;
    else if constexpr (kIsInt<T>) return a > b ? a : b;
    else return std::isnan(a) ? b : MaxSd(b, a);  // see above
  }
};

struct Fmin {
  static constexpr bool kNativeMl = true;
  template <class T>
  static T Call(T a, T b) {
    if constexpr (kIsMlFloat<T>) {  // ml_dtypes' rule: one operand, unchanged
      const float x = static_cast<float>(a), y = static_cast<float>(b);
      return std::isnan(y) || x < y ? a : b;
    } else if constexpr (std::is_same_v<T, bool>) return a && b;
    else if constexpr (kIsComplex<T>) return (IsNaN(b) || CLeOrder(a, b)) ? a : b;
    else if constexpr (kIsInt<T>) return a < b ? a : b;
    else return std::isnan(a) ? b : MinSd(b, a);  // see above
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

// Real floating-point comparisons are quiet, as NumPy's are (QUIET: the
// <cmath> macro; == and != are quiet already); half-width types compare as
// float, exactly.
#define UFX_COMPARISON(NAME, OP, QUIET, COMPLEX_EXPR)                 \
  struct NAME {                                                       \
    template <class A, class B>                                       \
    static bool Call(A a, B b) {                                      \
      if constexpr (kIsComplex<A>) {                                  \
        const A x = a, y = b;                                         \
        return COMPLEX_EXPR;                                          \
      } else if constexpr (!std::is_same_v<A, B>) {                   \
        return CmpInt(a, b) OP 0;                                     \
      } else if constexpr (std::is_integral_v<A>) {                   \
        return a OP b;                                                \
      } else {                                                        \
        using F = std::conditional_t<std::is_floating_point_v<A>, A, float>; \
        return QUIET(static_cast<F>(a), static_cast<F>(b));           \
      }                                                               \
    }                                                                 \
  };
inline bool QuietEqual(auto a, auto b) { return a == b; }
inline bool QuietNotEqual(auto a, auto b) { return a != b; }
UFX_COMPARISON(Equal, ==, QuietEqual, x.real() == y.real() && x.imag() == y.imag())
UFX_COMPARISON(NotEqual, !=, QuietNotEqual, x.real() != y.real() || x.imag() != y.imag())
UFX_COMPARISON(Less, <, std::isless, CLt(x, y))
UFX_COMPARISON(LessEqual, <=, std::islessequal, CLe(x, y))
UFX_COMPARISON(Greater, >, std::isgreater, CLt(y, x))
UFX_COMPARISON(GreaterEqual, >=, std::isgreaterequal, CLe(y, x))
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

}  // namespace ufuncx::ops
