// DType tables, parsing, promotion and casting (NumPy 2.x rules; the Python
// tests compare every pair against numpy itself).
#include <gtest/gtest.h>

#include "ufuncx/dtype.h"
#include "ufuncx/error.h"
#include "ufuncx/scalar.h"

namespace ufuncx {
namespace {

TEST(DType, TableIsConsistent) {
  for (int i = 0; i < kNumDTypes; ++i) {
    const DType t = static_cast<DType>(i);
    EXPECT_EQ(Info(t).dtype, t);
    EXPECT_EQ(FromTypeChar(TypeChar(t)), t) << Name(t);
    EXPECT_EQ(ParseDType(Name(t)), t);
    EXPECT_GE(ItemSize(t), Info(t).alignment);
  }
}

TEST(DType, InlineItemSizesMatchTheTable) {
  for (int i = 0; i < kNumDTypes; ++i) {
    const DType t = static_cast<DType>(i);
    EXPECT_EQ(ItemSize(t), Info(t).itemsize) << Name(t);
  }
}

TEST(DType, Spellings) {
  EXPECT_EQ(ParseDType("f4"), DType::kFloat32);
  EXPECT_EQ(ParseDType("<f8"), DType::kFloat64);
  EXPECT_EQ(ParseDType("q"), DType::kInt64);
  EXPECT_EQ(ParseDType("Q"), DType::kUInt64);
  EXPECT_EQ(ParseDType("complex"), DType::kComplex128);
  EXPECT_EQ(ParseDType("bfloat16"), DType::kBFloat16);
  EXPECT_THROW(ParseDType("f3"), TypeError);
  EXPECT_THROW(ParseCasting("sometimes"), ValueError);
}

TEST(DType, Promotion) {
  EXPECT_EQ(PromoteTypes(DType::kInt8, DType::kUInt8), DType::kInt16);
  EXPECT_EQ(PromoteTypes(DType::kUInt64, DType::kInt64), DType::kFloat64);
  EXPECT_EQ(PromoteTypes(DType::kInt16, DType::kFloat16), DType::kFloat32);
  EXPECT_EQ(PromoteTypes(DType::kInt64, DType::kComplex64), DType::kComplex128);
  EXPECT_EQ(PromoteTypes(DType::kLongDouble, DType::kComplex64), DType::kCLongDouble);
  EXPECT_EQ(PromoteTypes(DType::kFloat16, DType::kBFloat16), DType::kFloat32);
  EXPECT_EQ(PromoteTypes(DType::kUInt8, DType::kBFloat16), DType::kBFloat16);
  for (int i = 0; i < kNumDTypes; ++i) {
    for (int j = 0; j < kNumDTypes; ++j) {
      const DType a = static_cast<DType>(i), b = static_cast<DType>(j);
      EXPECT_EQ(PromoteTypes(a, b), PromoteTypes(b, a));
      EXPECT_TRUE(CanCast(a, PromoteTypes(a, b), Casting::kSafe));
    }
  }
}

// bfloat16's row and column, as ml_dtypes states them (the Python tests
// compare every ml_dtypes pair with ml_dtypes itself): safe from bool and
// 8-bit ints, safe to float32 and wider and to complex.
TEST(DType, BFloat16SafeCasts) {
  const DType all[] = {DType::kBool,    DType::kInt8,     DType::kUInt8,      DType::kInt16,
                       DType::kUInt16,  DType::kInt32,    DType::kUInt32,     DType::kInt64,
                       DType::kUInt64,  DType::kFloat16,  DType::kFloat32,    DType::kFloat64,
                       DType::kLongDouble, DType::kComplex64, DType::kComplex128,
                       DType::kCLongDouble};
  for (DType t : all) {
    const bool from = t == DType::kBool || t == DType::kInt8 || t == DType::kUInt8;
    const bool to = t == DType::kFloat32 || t == DType::kFloat64 || t == DType::kLongDouble ||
                    t == DType::kComplex64 || t == DType::kComplex128 || t == DType::kCLongDouble;
    EXPECT_EQ(CanCast(t, DType::kBFloat16, Casting::kSafe), from) << Name(t);
    EXPECT_EQ(CanCast(DType::kBFloat16, t, Casting::kSafe), to) << Name(t);
  }
}

TEST(DType, Float8PromotionAsMlDtypes) {
  EXPECT_EQ(PromoteTypes(DType::kFloat8E4M3FN, DType::kFloat8E5M2), DType::kFloat32);
  EXPECT_EQ(PromoteTypes(DType::kFloat8E5M2, DType::kBFloat16), DType::kBFloat16);
  EXPECT_EQ(PromoteTypes(DType::kFloat8E4M3FN, DType::kFloat16), DType::kFloat32);
  EXPECT_EQ(PromoteTypes(DType::kInt8, DType::kFloat8E4M3FN), DType::kFloat8E4M3FN);
  EXPECT_EQ(PromoteTypes(DType::kInt16, DType::kFloat8E5M2), DType::kFloat32);
  EXPECT_EQ(PromoteTypes(DType::kInt8, DType::kUInt8), DType::kInt16);  // not a float8
  EXPECT_EQ(ComplexOf(DType::kFloat8E5M2), DType::kComplex64);
  EXPECT_EQ(ParseDType("float8_e4m3fn"), DType::kFloat8E4M3FN);
  EXPECT_EQ(FromTypeChar('5'), DType::kFloat8E5M2);
}

template <class F>
void ExpectRoundTrips() {
  for (int b = 0; b < 256; ++b) {
    const F f = F::FromBits(static_cast<uint8_t>(b));
    const float x = static_cast<float>(f);
    if (F::IsNaNBits(static_cast<uint8_t>(b))) {
      EXPECT_TRUE(std::isnan(x)) << b;
      EXPECT_EQ(F(x).bits() & 0x80, b & 0x80) << b;  // NaN keeps its sign
    } else {
      EXPECT_EQ(F(x).bits(), b) << b;
      EXPECT_EQ(F(static_cast<double>(x)).bits(), b) << b;
    }
  }
}

TEST(DType, Float8EncodesAsMlDtypes) {
  ExpectRoundTrips<float8_e4m3fn>();
  ExpectRoundTrips<float8_e5m2>();
  // e4m3fn: max 448; ties to even; past the top is NaN (no infinity)
  EXPECT_EQ(float8_e4m3fn(448.0).bits(), 0x7e);
  EXPECT_EQ(float8_e4m3fn(464.0).bits(), 0x7e);
  EXPECT_EQ(float8_e4m3fn(465.0).bits(), 0x7f);
  EXPECT_EQ(float8_e4m3fn(-1e9).bits(), 0xff);
  EXPECT_EQ(float8_e4m3fn(std::ldexp(1.5, -9)).bits(), 0x02);  // subnormal tie to even
  EXPECT_EQ(float8_e4m3fn(std::ldexp(1.0, -10)).bits(), 0x00);
  // e5m2: max 57344, then infinity
  EXPECT_EQ(float8_e5m2(57344.0).bits(), 0x7b);
  EXPECT_EQ(float8_e5m2(61440.0).bits(), 0x7c);
  EXPECT_EQ(float8_e5m2(-HUGE_VAL).bits(), 0xfc);
  EXPECT_EQ(float8_e5m2(std::nan("")).bits(), 0x7e);
  // one rounding from double: 1 + 2^-4 + 2^-30 rounds up, through float it would not
  EXPECT_EQ(float8_e4m3fn(1.0 + 0.0625 + std::ldexp(1.0, -30)).bits(), 0x39);
  EXPECT_EQ((Convert<float8_e4m3fn>(1.0 + 0.0625 + std::ldexp(1.0, -30))).bits(), 0x39);
}

TEST(DType, Casting) {
  EXPECT_TRUE(CanCast(DType::kInt64, DType::kFloat64, Casting::kSafe));
  EXPECT_FALSE(CanCast(DType::kInt64, DType::kFloat32, Casting::kSafe));
  EXPECT_TRUE(CanCast(DType::kInt64, DType::kFloat32, Casting::kSameKind));
  EXPECT_TRUE(CanCast(DType::kUInt8, DType::kInt8, Casting::kSameKind));
  EXPECT_FALSE(CanCast(DType::kInt8, DType::kUInt8, Casting::kSameKind));
  EXPECT_FALSE(CanCast(DType::kFloat64, DType::kInt8, Casting::kSameKind));
  EXPECT_TRUE(CanCast(DType::kFloat64, DType::kInt8, Casting::kUnsafe));
  EXPECT_FALSE(CanCast(DType::kFloat32, DType::kFloat64, Casting::kNo));
  EXPECT_TRUE(CanCast(DType::kFloat32, DType::kFloat32, Casting::kEquiv));
}

}  // namespace
}  // namespace ufuncx
