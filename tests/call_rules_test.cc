// NumPy's call rules as a C++ caller of the registry gets them: NEP 50 weak
// scalars, order= for new results, and the gufunc keywords axes=, axis=
// and keepdims=. Expected values are NumPy 2.x's.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "test_util.h"
#include "ufuncx/error.h"
#include "ufuncx/ufuncx.h"

namespace ufuncx {
namespace {

using testing::Vec;

Array Call1(const char* name, std::vector<CallInput> in, const CallOptions& opt = {}) {
  return GetUfunc(name)(std::span<const CallInput>(in), opt)[0];
}

TEST(WeakScalars, TakeTheArraysType) {
  const Array u8 = Vec<uint8_t>(DType::kUInt8, {1, 2, 250});
  // uint8 + 3 stays uint8 and wraps as uint8 does (NumPy: [4, 5, 253]).
  const Array r = Call1("add", {u8, WeakScalar::Int(3)});
  ASSERT_EQ(r.dtype(), DType::kUInt8);
  EXPECT_EQ(r.typed<uint8_t>()[2], 253);
  // float32 * 0.1: float32, the scalar rounded to float32 first.
  const Array f4 = Vec<float>(DType::kFloat32, {10.0f});
  const Array m = Call1("multiply", {f4, WeakScalar::Float(0.1)});
  ASSERT_EQ(m.dtype(), DType::kFloat32);
  EXPECT_EQ(m.typed<float>()[0], 10.0f * 0.1f);
  // An int beside a float array takes the float type; a float beside an
  // int array becomes float64; complex beside float32 is complex64.
  EXPECT_EQ(Call1("add", {f4, WeakScalar::Int(1)}).dtype(), DType::kFloat32);
  EXPECT_EQ(Call1("add", {u8, WeakScalar::Float(0.5)}).dtype(), DType::kFloat64);
  EXPECT_EQ(Call1("add", {f4, WeakScalar::Complex({0, 1})}).dtype(), DType::kComplex64);
  // Alone, Python scalars are int64, float64 and complex128; an int beyond
  // int64 is uint64 when it is the only operand or meets a float; several
  // ints promote as Python ints, to int64 (2**63 + 1 overflows in NumPy).
  EXPECT_EQ(Call1("add", {WeakScalar::Int(1), WeakScalar::Int(2)}).dtype(), DType::kInt64);
  EXPECT_EQ(Call1("add", {WeakScalar::Float(1), WeakScalar::Int(2)}).dtype(), DType::kFloat64);
  EXPECT_EQ(Call1("positive", {WeakScalar::UInt(uint64_t{1} << 63)}).dtype(), DType::kUInt64);
  EXPECT_THROW(Call1("add", {WeakScalar::UInt(uint64_t{1} << 63), WeakScalar::Int(1)}),
               OverflowError);
  EXPECT_EQ(Call1("add", {WeakScalar::UInt(uint64_t{1} << 63), WeakScalar::Float(1.5)}).dtype(),
            DType::kFloat64);
  EXPECT_EQ(Call1("less", {WeakScalar::UInt(uint64_t{1} << 63), WeakScalar::Int(1)}).dtype(),
            DType::kBool);
  // Python bool is not weak: bool + 1 is int64.
  const Array b = Vec<bool>(DType::kBool, {true});
  EXPECT_EQ(Call1("add", {b, WeakScalar::Int(1)}).dtype(), DType::kInt64);
}

TEST(WeakScalars, IntsThatDoNotFitRaiseNumpysOverflowError) {
  const Array u8 = Vec<uint8_t>(DType::kUInt8, {1});
  try {
    Call1("add", {u8, WeakScalar::Int(300)});
    FAIL() << "uint8 + 300 must raise";
  } catch (const OverflowError& e) {
    EXPECT_STREQ(e.what(), "Python integer 300 out of bounds for uint8");
  }
  EXPECT_THROW(Call1("add", {u8, WeakScalar::Int(-1)}), OverflowError);
  const Array i64 = Vec<int64_t>(DType::kInt64, {1});
  try {
    Call1("add", {i64, WeakScalar::UInt(uint64_t{1} << 63)});
    FAIL() << "int64 + 2**63 must raise";
  } catch (const OverflowError& e) {
    EXPECT_STREQ(e.what(), "Python int too large to convert to C long");
  }
  EXPECT_THROW(Call1("add", {WeakScalar::HugeInt(1e30), WeakScalar::Int(1)}), OverflowError);
  // The failed call wrote nothing: a given output keeps its values.
  Array out = Vec<uint8_t>(DType::kUInt8, {7});
  const CallInput in[] = {u8, WeakScalar::Int(300)};
  const ArrayView outs[] = {out.view()};
  EXPECT_THROW(GetUfunc("add").CallInto(in, outs), OverflowError);
  EXPECT_EQ(out.typed<uint8_t>()[0], 7);
}

TEST(WeakScalars, TheLoopsTypeDecidesForDeferredInts) {
  const Array u8 = Vec<uint8_t>(DType::kUInt8, {1});
  // logaddexp has no uint8 loop: uint8 runs in float16, where 300 fits.
  const Array r = Call1("logaddexp", {u8, WeakScalar::Int(300)});
  EXPECT_EQ(r.dtype(), DType::kFloat16);
  // The logical ufuncs take the scalar's truth (NumPy's logical promoter).
  const Array l = Call1("logical_and", {u8, WeakScalar::Int(300)});
  ASSERT_EQ(l.dtype(), DType::kBool);
  EXPECT_TRUE(l.typed<bool>()[0]);
}

TEST(WeakScalars, ComparisonsCompareByValue) {
  const Array u8 = Vec<uint8_t>(DType::kUInt8, {0, 255});
  const Array lt = Call1("less", {u8, WeakScalar::Int(300)});
  ASSERT_EQ(lt.dtype(), DType::kBool);
  EXPECT_TRUE(lt.typed<bool>()[0] && lt.typed<bool>()[1]);
  const Array gt = Call1("greater", {u8, WeakScalar::Int(-1)});
  EXPECT_TRUE(gt.typed<bool>()[0] && gt.typed<bool>()[1]);
  const Array i64 = Vec<int64_t>(DType::kInt64, {std::numeric_limits<int64_t>::max()});
  const Array eq = Call1("equal", {i64, WeakScalar::UInt(uint64_t{1} << 63)});
  EXPECT_FALSE(eq.typed<bool>()[0]);
}

TEST(WeakScalars, FitsInteger) {
  EXPECT_TRUE(WeakScalar::Int(-128).FitsInteger(DType::kInt8));
  EXPECT_FALSE(WeakScalar::Int(-129).FitsInteger(DType::kInt8));
  EXPECT_TRUE(WeakScalar::Int(255).FitsInteger(DType::kUInt8));
  EXPECT_FALSE(WeakScalar::Int(-1).FitsInteger(DType::kUInt64));
  EXPECT_TRUE(WeakScalar::Int(std::numeric_limits<int64_t>::min()).FitsInteger(DType::kInt64));
  EXPECT_TRUE(WeakScalar::UInt(~uint64_t{0}).FitsInteger(DType::kUInt64));
  EXPECT_FALSE(WeakScalar::UInt(~uint64_t{0}).FitsInteger(DType::kInt64));
  EXPECT_FALSE(WeakScalar::HugeInt(1e20).FitsInteger(DType::kUInt64));
  EXPECT_TRUE(WeakScalar::HugeInt(1e20).FitsInteger(DType::kFloat32));
}

// A (rows x cols) float64 array stored column-major (Fortran order).
Array Fortran(int64_t rows, int64_t cols) {
  Array a(DType::kFloat64, {rows, cols}, std::vector<int>{0, 1});
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) a.view().Ref<double>({i, j}) = double(i * cols + j);
  }
  return a;
}

TEST(Order, NewResultsFollowTheInputsOrAsked) {
  const Array f = Fortran(3, 4);
  ASSERT_TRUE(f.view().IsFContiguous());
  // K (the default): the result is laid out as the input is.
  const Array k = Call1("negative", {f});
  EXPECT_TRUE(k.view().IsFContiguous());
  EXPECT_FALSE(k.view().IsCContiguous());
  EXPECT_EQ(k.view().Ref<double>({2, 3}), -11.0);
  CallOptions opt;
  opt.order = Order::kC;
  EXPECT_TRUE(Call1("negative", {f}, opt).view().IsCContiguous());
  opt.order = Order::kA;
  EXPECT_TRUE(Call1("negative", {f}, opt).view().IsFContiguous());
  // A C-ordered operand votes for C: mixed operands under K give C order.
  Array c(DType::kFloat64, {3, 4});
  for (int64_t i = 0; i < 12; ++i) c.typed<double>()[i] = 1;
  EXPECT_TRUE(Call1("add", {c, f}).view().IsCContiguous());
  // A weak scalar and a 1-D operand do not vote.
  const Array s = Call1("add", {f, WeakScalar::Int(1)});
  EXPECT_TRUE(s.view().IsFContiguous());
  EXPECT_EQ(ResultAxisOrder(Order::kF, {2, 3, 4}, {}), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(ResultAxisOrder(Order::kK, {2, 3, 4}, {}), (std::vector<int>{2, 1, 0}));
}

Array Iota(Shape shape) {
  Array a(DType::kFloat64, shape);
  for (int64_t i = 0; i < a.size(); ++i) a.typed<double>()[i] = double(i % 7) - 2.5;
  return a;
}

TEST(GufuncKeywords, AxesMoveTheCoreDims) {
  // matmul(a, b, axes=[(0, 1), (0, 1), (1, 0)]) for a: (3, 4, 2), b: (4, 5, 2):
  // the core dims are the first two, the loop dim the last, and the
  // result's core dims are stored transposed.
  const Array a = Iota({3, 4, 2}), b = Iota({4, 5, 2});
  CallOptions opt;
  opt.axes = std::vector<std::vector<int64_t>>{{0, 1}, {0, 1}, {1, 0}};
  const Array r = Call1("matmul", {a, b}, opt);
  ASSERT_EQ(r.shape(), (Shape{5, 3, 2}));
  for (int64_t l = 0; l < 2; ++l) {
    for (int64_t i = 0; i < 3; ++i) {
      for (int64_t j = 0; j < 5; ++j) {
        double want = 0;
        for (int64_t k = 0; k < 4; ++k) {
          want += a.view().Ref<double>({i, k, l}) * b.view().Ref<double>({k, j, l});
        }
        EXPECT_DOUBLE_EQ(r.view().Ref<double>({j, i, l}), want);
      }
    }
  }
  // The same into a given output.
  Array out = Array::Zeros(DType::kFloat64, {5, 3, 2});
  const CallInput in[] = {a, b};
  const ArrayView outs[] = {out.view()};
  GetUfunc("matmul").CallInto(in, outs, opt);
  for (int64_t i = 0; i < out.size(); ++i) EXPECT_EQ(out.typed<double>()[i], r.view().Ref<double>({i / 6, i / 2 % 3, i % 2}));
}

TEST(GufuncKeywords, AxisAndKeepdims) {
  const Array x = Iota({3, 4});
  CallOptions opt;
  opt.axis = 0;
  const Array v = Call1("vecdot", {x, x}, opt);
  ASSERT_EQ(v.shape(), (Shape{4}));
  double want = 0;
  for (int64_t i = 0; i < 3; ++i) want += x.view().Ref<double>({i, 1}) * x.view().Ref<double>({i, 1});
  EXPECT_DOUBLE_EQ(v.typed<double>()[1], want);
  opt.keepdims = true;
  const Array kept = Call1("vecdot", {x, x}, opt);
  ASSERT_EQ(kept.shape(), (Shape{1, 4}));
  EXPECT_DOUBLE_EQ(kept.view().Ref<double>({0, 1}), want);
  opt.axis.reset();
  EXPECT_EQ(Call1("vecdot", {x, x}, opt).shape(), (Shape{3, 1}));
}

TEST(GufuncKeywords, NumpysErrors) {
  const Array x = Iota({3, 4});
  CallOptions opt;
  opt.axis = 0;
  opt.axes = std::vector<std::vector<int64_t>>{{0}, {0}};
  EXPECT_THROW(Call1("vecdot", {x, x}, opt), TypeError);  // both axis and axes
  opt.axis.reset();
  opt.axes = std::vector<std::vector<int64_t>>{{0, 1}, {0}};
  EXPECT_THROW(Call1("vecdot", {x, x}, opt), AxisError);  // 2 axes for 1 core dim
  opt.axes = std::vector<std::vector<int64_t>>{{5}, {0}};
  EXPECT_THROW(Call1("vecdot", {x, x}, opt), AxisError);
  opt.axes = std::vector<std::vector<int64_t>>{{0, 0}, {0, 1}, {0, 1}};
  try {
    Call1("matmul", {x, Iota({4, 3})}, opt);
    FAIL();
  } catch (const ValueError& e) {
    EXPECT_STREQ(e.what(), "axes item 0 has value 0 repeated");
  }
  opt.axes = std::vector<std::vector<int64_t>>{{0, 1}, {0, 1}};
  EXPECT_THROW(Call1("matmul", {x, Iota({4, 3})}, opt), ValueError);  // output entry missing
  CallOptions keep;
  keep.keepdims = true;
  EXPECT_THROW(Call1("matmul", {x, Iota({4, 3})}, keep), TypeError);
  // Elementwise ufuncs take none of these keywords.
  EXPECT_THROW(Call1("add", {x, x}, keep), TypeError);
}

}  // namespace
}  // namespace ufuncx
