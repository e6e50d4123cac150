// DType tables and NumPy 2.x promotion/casting. Promotion is derived from the
// safe-cast relation: the result is the first type (in DType order) that both
// operands cast to safely, which reproduces NumPy's table for every pair.
#include "ufuncx/dtype.h"

#include <array>
#include <string>

#include "ufuncx/error.h"

namespace ufuncx {
namespace {

constexpr std::array<DTypeInfo, kNumDTypes> kInfo = {{
    {DType::kBool, "bool", '?', Kind::kBool, 1, 1},
    {DType::kInt8, "int8", 'b', Kind::kSigned, 1, 1},
    {DType::kUInt8, "uint8", 'B', Kind::kUnsigned, 1, 1},
    {DType::kInt16, "int16", 'h', Kind::kSigned, 2, 2},
    {DType::kUInt16, "uint16", 'H', Kind::kUnsigned, 2, 2},
    {DType::kInt32, "int32", 'i', Kind::kSigned, 4, 4},
    {DType::kUInt32, "uint32", 'I', Kind::kUnsigned, 4, 4},
    {DType::kInt64, "int64", 'l', Kind::kSigned, 8, 8},
    {DType::kUInt64, "uint64", 'L', Kind::kUnsigned, 8, 8},
    {DType::kFloat8E4M3FN, "float8_e4m3fn", '4', Kind::kFloat, 1, 1},
    {DType::kFloat8E5M2, "float8_e5m2", '5', Kind::kFloat, 1, 1},
    {DType::kFloat16, "float16", 'e', Kind::kFloat, 2, 2},
    {DType::kBFloat16, "bfloat16", 'E', Kind::kFloat, 2, 2},
    {DType::kFloat32, "float32", 'f', Kind::kFloat, 4, 4},
    {DType::kFloat64, "float64", 'd', Kind::kFloat, 8, 8},
    {DType::kLongDouble, "longdouble", 'g', Kind::kFloat, 16, 16},
    {DType::kComplex64, "complex64", 'F', Kind::kComplex, 8, 4},
    {DType::kComplex128, "complex128", 'D', Kind::kComplex, 16, 8},
    {DType::kCLongDouble, "clongdouble", 'G', Kind::kComplex, 32, 16},
}};


// NumPy's safe-cast relation (numpy.can_cast(a, b, "safe")).
bool SafeCast(DType from, DType to) {
  if (from == to) return true;
  const Kind kf = KindOf(from), kt = KindOf(to);
  const size_t sf = ItemSize(from), st = ItemSize(to);
  if (kf == Kind::kBool) return true;
  if (kt == Kind::kBool) return false;
  // ml_dtypes' casts: bool, int8 and uint8 go safely to each of its types
  // (and float8 to bfloat16); its types go safely to bfloat16 (float8
  // only), float32 and wider, never to float16 or to the other float8.
  if (IsMlDType(to)) {
    return from == DType::kInt8 || from == DType::kUInt8 ||
           (to == DType::kBFloat16 && IsMlDType(from));
  }
  if (IsMlDType(from)) {
    return kt == Kind::kComplex ||
           (kt == Kind::kFloat && to != DType::kFloat16 && !IsMlDType(to));
  }
  switch (kf) {
    case Kind::kUnsigned:
      if (kt == Kind::kUnsigned) return st >= sf;
      if (kt == Kind::kSigned) return st > sf;
      break;
    case Kind::kSigned:
      if (kt == Kind::kSigned) return st >= sf;
      if (kt == Kind::kUnsigned) return false;
      break;
    case Kind::kFloat:
      if (kt == Kind::kFloat) return st >= sf;
      if (kt == Kind::kComplex) return st >= 2 * sf;
      return false;
    case Kind::kComplex:
      return kt == Kind::kComplex && st >= sf;
    default:
      break;
  }
  // Integer to inexact: NumPy's rule is by size, not by exactness:
  // 1-byte ints -> float16+, 2-byte -> float32+, 4- and 8-byte -> float64+.
  size_t need = sf == 1 ? 2 : sf == 2 ? 4 : 8;
  if (kt == Kind::kFloat) return st >= need;
  return st >= 2 * need;  // complex
}

int KindRank(Kind k) {
  switch (k) {
    case Kind::kBool: return 0;
    case Kind::kUnsigned: return 1;
    case Kind::kSigned: return 2;
    case Kind::kFloat: return 3;
    case Kind::kComplex: return 4;
  }
  return 0;
}

}  // namespace

const DTypeInfo& Info(DType t) { return kInfo[static_cast<size_t>(t)]; }

bool TryParseDType(std::string_view s, DType* out) {
  struct Alias {
    const char* name;
    DType t;
  };
  static constexpr Alias kAliases[] = {
      {"bool", DType::kBool},          {"bool_", DType::kBool},
      {"b1", DType::kBool},            {"int8", DType::kInt8},
      {"i1", DType::kInt8},            {"byte", DType::kInt8},
      {"uint8", DType::kUInt8},        {"u1", DType::kUInt8},
      {"ubyte", DType::kUInt8},        {"int16", DType::kInt16},
      {"i2", DType::kInt16},           {"short", DType::kInt16},
      {"uint16", DType::kUInt16},      {"u2", DType::kUInt16},
      {"ushort", DType::kUInt16},      {"int32", DType::kInt32},
      {"i4", DType::kInt32},           {"intc", DType::kInt32},
      {"uint32", DType::kUInt32},      {"u4", DType::kUInt32},
      {"uintc", DType::kUInt32},       {"int64", DType::kInt64},
      {"i8", DType::kInt64},           {"int", DType::kInt64},
      {"int_", DType::kInt64},         {"intp", DType::kInt64},
      {"long", DType::kInt64},         {"longlong", DType::kInt64},
      {"uint64", DType::kUInt64},      {"u8", DType::kUInt64},
      {"uint", DType::kUInt64},        {"uintp", DType::kUInt64},
      {"ulong", DType::kUInt64},       {"ulonglong", DType::kUInt64},
      {"float16", DType::kFloat16},    {"f2", DType::kFloat16},
      {"half", DType::kFloat16},       {"bfloat16", DType::kBFloat16},
      {"float8_e4m3fn", DType::kFloat8E4M3FN}, {"float8_e5m2", DType::kFloat8E5M2},
      {"float32", DType::kFloat32},    {"f4", DType::kFloat32},
      {"single", DType::kFloat32},     {"float64", DType::kFloat64},
      {"f8", DType::kFloat64},         {"float", DType::kFloat64},
      {"double", DType::kFloat64},     {"float_", DType::kFloat64},
      {"longdouble", DType::kLongDouble}, {"float128", DType::kLongDouble},
      {"f16", DType::kLongDouble},     {"complex64", DType::kComplex64},
      {"c8", DType::kComplex64},       {"csingle", DType::kComplex64},
      {"complex128", DType::kComplex128}, {"c16", DType::kComplex128},
      {"complex", DType::kComplex128}, {"cdouble", DType::kComplex128},
      {"complex_", DType::kComplex128}, {"clongdouble", DType::kCLongDouble},
      {"complex256", DType::kCLongDouble}, {"c32", DType::kCLongDouble},
  };
  if (s.size() == 1) {
    const char c = s[0];
    if (c == 'q') return *out = DType::kInt64, true;
    if (c == 'Q') return *out = DType::kUInt64, true;
    if (c == 'p') return *out = DType::kInt64, true;
    if (c == 'P') return *out = DType::kUInt64, true;
    for (const DTypeInfo& info : kInfo) {
      if (info.chr == c) return *out = info.dtype, true;
    }
    return false;
  }
  // Accept an explicit native/little byte-order prefix ("<f8", "=i4").
  if (s.size() > 1 && (s[0] == '<' || s[0] == '=' || s[0] == '|')) {
    s.remove_prefix(1);
  }
  for (const Alias& a : kAliases) {
    if (s == a.name) return *out = a.t, true;
  }
  return false;
}

DType ParseDType(std::string_view s) {
  DType t;
  if (!TryParseDType(s, &t)) {
    throw TypeError("data type '" + std::string(s) + "' not understood");
  }
  return t;
}

DType FromTypeChar(char c) { return ParseDType(std::string_view(&c, 1)); }

Casting ParseCasting(std::string_view s) {
  if (s == "no") return Casting::kNo;
  if (s == "equiv") return Casting::kEquiv;
  if (s == "safe") return Casting::kSafe;
  if (s == "same_kind") return Casting::kSameKind;
  if (s == "unsafe") return Casting::kUnsafe;
  throw ValueError(
      "casting must be one of 'no', 'equiv', 'safe', 'same_kind', or "
      "'unsafe'");
}

const char* CastingName(Casting c) {
  switch (c) {
    case Casting::kNo: return "no";
    case Casting::kEquiv: return "equiv";
    case Casting::kSafe: return "safe";
    case Casting::kSameKind: return "same_kind";
    case Casting::kUnsafe: return "unsafe";
  }
  return "?";
}

bool CanCast(DType from, DType to, Casting casting) {
  switch (casting) {
    case Casting::kNo:
    case Casting::kEquiv:
      return from == to;
    case Casting::kSafe:
      return SafeCast(from, to);
    case Casting::kSameKind:
      return SafeCast(from, to) ||
             KindRank(KindOf(from)) <= KindRank(KindOf(to));
    case Casting::kUnsafe:
      return true;
  }
  return false;
}

DType PromoteTypes(DType a, DType b) {
  if (a == b) return a;
  // ml_dtypes promotes the two float8 formats to float32, not to bfloat16
  // (which both cast to safely).
  if ((a == DType::kFloat8E4M3FN && b == DType::kFloat8E5M2) ||
      (a == DType::kFloat8E5M2 && b == DType::kFloat8E4M3FN)) {
    return DType::kFloat32;
  }
  for (int i = 0; i < kNumDTypes; ++i) {
    const DType t = static_cast<DType>(i);
    if (SafeCast(a, t) && SafeCast(b, t)) return t;
  }
  return DType::kCLongDouble;  // unreachable: everything casts to it
}

DType RealOf(DType t) {
  switch (t) {
    case DType::kComplex64: return DType::kFloat32;
    case DType::kComplex128: return DType::kFloat64;
    case DType::kCLongDouble: return DType::kLongDouble;
    default: return t;
  }
}

DType ComplexOf(DType t) {
  switch (t) {
    case DType::kFloat8E4M3FN:
    case DType::kFloat8E5M2:
    case DType::kFloat16:
    case DType::kBFloat16:
    case DType::kFloat32: return DType::kComplex64;
    case DType::kLongDouble: return DType::kCLongDouble;
    default: return KindOf(t) == Kind::kComplex ? t : DType::kComplex128;
  }
}

}  // namespace ufuncx
