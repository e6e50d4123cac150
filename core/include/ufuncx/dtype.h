// Element types, their NumPy names and type chars, and NumPy 2.x promotion and
// casting rules. Knows nothing about arrays or ufuncs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace ufuncx {

// Order matters: it is the order NumPy lists loops in, with the ml_dtypes
// types (not NumPy types) placed where promotion needs them: the float8s
// after the integers, bfloat16 between float16 and float32. Promotion picks
// the first type in this order that both operands cast to safely.
enum class DType : uint8_t {
  kBool,
  kInt8,
  kUInt8,
  kInt16,
  kUInt16,
  kInt32,
  kUInt32,
  kInt64,
  kUInt64,
  kFloat8E4M3FN,
  kFloat8E5M2,
  kFloat16,
  kBFloat16,
  kFloat32,
  kFloat64,
  kLongDouble,
  kComplex64,
  kComplex128,
  kCLongDouble,
};
inline constexpr int kNumDTypes = 19;

enum class Kind : uint8_t { kBool, kUnsigned, kSigned, kFloat, kComplex };

enum class Casting : uint8_t { kNo, kEquiv, kSafe, kSameKind, kUnsafe };

struct DTypeInfo {
  DType dtype;
  const char* name;  // NumPy's name: "float32"
  char chr;          // NumPy's type char: 'f'; ml_dtypes' are 'E', '4', '5'
  Kind kind;
  size_t itemsize;
  size_t alignment;
};

const DTypeInfo& Info(DType t);
// (inline: every call asks; dtype_test ties it to Info(t).itemsize)
inline size_t ItemSize(DType t) {
  static constexpr size_t kSizes[kNumDTypes] = {
      1, 1, 1, 2, 2, 4, 4, 8, 8, 1, 1, 2, 2, 4, 8, sizeof(long double), 8, 16, 2 * sizeof(long double)};
  return kSizes[static_cast<size_t>(t)];
}
inline const char* Name(DType t) { return Info(t).name; }
inline char TypeChar(DType t) { return Info(t).chr; }
inline Kind KindOf(DType t) { return Info(t).kind; }
inline bool IsInteger(DType t) {
  return KindOf(t) == Kind::kSigned || KindOf(t) == Kind::kUnsigned;
}
// The types ml_dtypes adds to NumPy (bfloat16, float8_e4m3fn, float8_e5m2).
inline bool IsMlDType(DType t) {
  return t == DType::kBFloat16 || t == DType::kFloat8E4M3FN || t == DType::kFloat8E5M2;
}
inline bool IsInexact(DType t) {
  return KindOf(t) == Kind::kFloat || KindOf(t) == Kind::kComplex;
}

// Accepts names ("float32", "int", "double", "complex", "bool"), NumPy type
// chars ('f', 'q', 'l', '?') and kind+size strings ("f4", "i8", "c16").
// Throws TypeError for anything else.
DType ParseDType(std::string_view spec);
bool TryParseDType(std::string_view spec, DType* out);
DType FromTypeChar(char c);  // throws TypeError

Casting ParseCasting(std::string_view s);  // throws ValueError
const char* CastingName(Casting c);

// NumPy 2.x semantics for every pair (numpy.promote_types / numpy.can_cast).
DType PromoteTypes(DType a, DType b);
bool CanCast(DType from, DType to, Casting casting);

// The real type of a complex type and the complex type of a real one.
DType RealOf(DType t);
DType ComplexOf(DType t);

}  // namespace ufuncx
