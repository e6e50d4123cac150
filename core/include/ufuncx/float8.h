// The two 8-bit float formats ml_dtypes defines (and JAX and TensorFlow use):
// float8_e4m3fn (4 exponent bits, 3 mantissa bits, bias 7, no infinities,
// one NaN pattern per sign, max 448) and float8_e5m2 (IEEE-like: 5 exponent
// bits, 2 mantissa bits, bias 15, infinities, max 57344).
//
// Arithmetic happens in float: a value widens exactly (a 256-entry table)
// and narrows with one round-to-nearest-even from float or double, as
// ml_dtypes converts. Out-of-range values become NaN (e4m3fn) or infinity
// (e5m2) with the sign kept, as ml_dtypes' non-saturating conversion does.
#pragma once

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <type_traits>

namespace ufuncx {

template <int kExpBits, int kManBits, bool kFiniteOnly>
class Float8 {
 public:
  static constexpr int kMantissa = kManBits;
  static constexpr int kBias = (1 << (kExpBits - 1)) - 1;
  static constexpr int kMinExp = 1 - kBias;  // of the normal range
  static constexpr bool kHasInf = !kFiniteOnly;

  Float8() = default;
  template <class T, class = std::enable_if_t<std::is_arithmetic_v<T>>>
  explicit Float8(T v) : bits_(Encode(static_cast<double>(v))) {}

  static constexpr Float8 FromBits(uint8_t b) {
    Float8 f;
    f.bits_ = b;
    return f;
  }
  constexpr uint8_t bits() const { return bits_; }

  explicit operator float() const { return kDecoded[bits_]; }
  explicit operator double() const { return kDecoded[bits_]; }

  // The bit pattern of NaN and of the largest finite magnitude.
  static constexpr uint8_t kNaNBits = kFiniteOnly ? 0x7f : (0x7f & ~((1 << (kManBits - 1)) - 1));
  static constexpr uint8_t kMaxBits = kFiniteOnly ? 0x7e : static_cast<uint8_t>(((1 << kExpBits) - 2) << kManBits | ((1 << kManBits) - 1));
  static constexpr uint8_t kInfBits = static_cast<uint8_t>(((1 << kExpBits) - 1) << kManBits);

  static constexpr bool IsNaNBits(uint8_t b) {
    const uint8_t m = b & 0x7f;
    return kFiniteOnly ? m == 0x7f : m > kInfBits;
  }

 private:
  static constexpr float Decode(uint8_t b) {
    const bool neg = b & 0x80;
    const int e = (b >> kManBits) & ((1 << kExpBits) - 1);
    const int m = b & ((1 << kManBits) - 1);
    float v;
    if (IsNaNBits(b)) {
      v = std::numeric_limits<float>::quiet_NaN();
    } else if (!kFiniteOnly && e == (1 << kExpBits) - 1) {
      v = std::numeric_limits<float>::infinity();
    } else if (e == 0) {  // zero and subnormals: m * 2^(kMinExp - kManBits)
      v = static_cast<float>(m);
      for (int i = 0; i < kManBits - kMinExp; ++i) v *= 0.5f;
    } else {
      const uint32_t fb = static_cast<uint32_t>(e - kBias + 127) << 23 |
                          static_cast<uint32_t>(m) << (23 - kManBits);
      v = std::bit_cast<float>(fb);
    }
    return neg ? -v : v;
  }
  static constexpr std::array<float, 256> MakeTable() {
    std::array<float, 256> t{};
    for (int i = 0; i < 256; ++i) t[i] = Decode(static_cast<uint8_t>(i));
    return t;
  }
  static constexpr std::array<float, 256> kDecoded = MakeTable();

  // One rounding, to nearest even, from double (float widens exactly).
  static uint8_t Encode(double x) {
    const uint8_t sign = std::signbit(x) ? 0x80 : 0;
    if (std::isnan(x)) return sign | kNaNBits;
    const double a = std::fabs(x);
    if (std::isinf(a)) return sign | (kFiniteOnly ? kNaNBits : kInfBits);
    if (a == 0) return sign;
    int e = std::ilogb(a);
    if (e < kMinExp) e = kMinExp;
    if (e > 64) return sign | (kFiniteOnly ? kNaNBits : kInfBits);
    // a / 2^(e - kManBits) is exact; nearbyint rounds half to even.
    double n = std::nearbyint(std::ldexp(a, kManBits - e));
    if (n >= (1 << (kManBits + 1))) {
      n *= 0.5;
      ++e;
    }
    const int q = static_cast<int>(n);
    if (q == 0) return sign;
    if (q < (1 << kManBits)) return sign | static_cast<uint8_t>(q);  // subnormal
    const int field = e + kBias;
    const uint8_t b = static_cast<uint8_t>(field << kManBits | (q - (1 << kManBits)));
    if (field >= (1 << kExpBits) || (b & 0x7f) > kMaxBits) {
      return sign | (kFiniteOnly ? kNaNBits : kInfBits);
    }
    return sign | b;
  }

  uint8_t bits_;
};

using float8_e4m3fn = Float8<4, 3, true>;
using float8_e5m2 = Float8<5, 2, false>;

template <class T>
inline constexpr bool kIsFloat8 =
    std::is_same_v<T, float8_e4m3fn> || std::is_same_v<T, float8_e5m2>;

}  // namespace ufuncx
