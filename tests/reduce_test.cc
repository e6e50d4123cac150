// The C++ reduce family and the generalized ufuncs: NumPy's orders (pairwise
// float add), identities, initial/where/keepdims/out, accumulate, reduceat
// rules, outer shapes, matmul's shape rules, and the error classes.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <complex>
#include <numeric>
#include <stdexcept>
#include <thread>
#include <vector>

#include "test_util.h"
#include "linalg/gemm.h"
#include "workers.h"
#include "ufuncx/ufuncx.h"

namespace ufuncx {
namespace {

using testing::Vec;

template <class T>
Array Iota(DType t, Shape shape) {
  Array a(t, shape);
  for (int64_t i = 0; i < a.size(); ++i) a.typed<T>()[i] = static_cast<T>(i);
  return a;
}

TEST(Reduce, FloatAddIsPairwise) {
  std::vector<float> v(16, 1.0f);
  v[0] = 16777216.0f;  // 2^24: a sequential sum would stay at 2^24
  const Array r = GetUfunc("add").Reduce(Vec<float>(DType::kFloat32, v));
  EXPECT_EQ(r.ndim(), 0);
  EXPECT_EQ(*r.typed<float>(), 16777230.0f);
}

TEST(Reduce, AxesKeepdimsAndColumnSums) {
  const Ufunc& add = GetUfunc("add");
  const Array m = Iota<double>(DType::kFloat64, {3, 4});
  const Array cols = add.Reduce(m);  // axis 0
  ASSERT_EQ(cols.shape(), (Shape{4}));
  EXPECT_EQ(cols.typed<double>()[1], 1.0 + 5.0 + 9.0);
  ReduceOptions rows;
  rows.axis = std::vector<int64_t>{-1};
  rows.keepdims = true;
  const Array r = add.Reduce(m, rows);
  ASSERT_EQ(r.shape(), (Shape{3, 1}));
  EXPECT_EQ(r.typed<double>()[2], 8.0 + 9.0 + 10.0 + 11.0);
  ReduceOptions all;
  all.axis = std::nullopt;
  EXPECT_EQ(*add.Reduce(m, all).typed<double>(), 66.0);
}

TEST(Reduce, IdentityInitialWhereAndEmpty) {
  const Ufunc& add = GetUfunc("add");
  const Ufunc& mx = GetUfunc("maximum");
  const Array e(DType::kFloat64, {0});
  EXPECT_EQ(*add.Reduce(e).typed<double>(), 0.0);
  EXPECT_THROW(mx.Reduce(e), ValueError);  // no identity
  Array init(DType::kFloat64, {});
  *init.typed<double>() = -5.0;
  ReduceOptions o;
  o.initial = &init.view();
  EXPECT_EQ(*mx.Reduce(e, o).typed<double>(), -5.0);
  const Array v = Vec<double>(DType::kFloat64, {1, 7, 3});
  const Array mask = Vec<bool>(DType::kBool, {true, false, true});
  ReduceOptions w;
  w.where = &mask.view();
  EXPECT_EQ(*add.Reduce(v, w).typed<double>(), 4.0);
  EXPECT_THROW(mx.Reduce(v, w), ValueError);  // where needs an identity or initial
  ReduceOptions none;
  none.no_initial = true;
  EXPECT_EQ(*add.Reduce(v, none).typed<double>(), 11.0);
}

TEST(Reduce, IntegerAccumulatorsAndOut) {
  const Array b = Vec<int8_t>(DType::kInt8, {100, 100, 100});
  const Array s = GetUfunc("add").Reduce(b);
  EXPECT_EQ(s.dtype(), DType::kInt64);
  EXPECT_EQ(*s.typed<int64_t>(), 300);
  Array out(DType::kInt8, {});
  GetUfunc("add").ReduceInto(b, out, {});
  EXPECT_EQ(*out.typed<int8_t>(), static_cast<int8_t>(44));  // int8 loop, wraps
}

TEST(Reduce, MultiAxisRules) {
  const Array m = Iota<double>(DType::kFloat64, {2, 3, 4});
  ReduceOptions o;
  o.axis = std::vector<int64_t>{0, 2};
  const Array r = GetUfunc("maximum").Reduce(m, o);
  ASSERT_EQ(r.shape(), (Shape{3}));
  EXPECT_EQ(r.typed<double>()[0], 15.0);
  EXPECT_THROW(GetUfunc("subtract").Reduce(m, o), ValueError);  // not reorderable
  o.axis = std::vector<int64_t>{0, -3};
  EXPECT_THROW(GetUfunc("add").Reduce(m, o), ValueError);  // duplicate
  o.axis = std::vector<int64_t>{3};
  EXPECT_THROW(GetUfunc("add").Reduce(m, o), AxisError);
  EXPECT_THROW(GetUfunc("sin").Reduce(m), ValueError);
  EXPECT_THROW(GetUfunc("divmod").Reduce(m), ValueError);
}

TEST(Accumulate, RunningValuesAlongEitherAxis) {
  const Ufunc& add = GetUfunc("add");
  const Array m = Iota<int64_t>(DType::kInt64, {3, 100});
  const Array down = add.Accumulate(m, 0);
  EXPECT_EQ(down.typed<int64_t>()[2 * 100 + 7], 7 + 107 + 207);
  const Array across = add.Accumulate(m, 1);
  EXPECT_EQ(across.typed<int64_t>()[99], 99 * 100 / 2);
  const Array f = Vec<double>(DType::kFloat64, {0.1, 0.2, 0.3});
  const Array c = add.Accumulate(f);
  EXPECT_EQ(c.typed<double>()[2], (0.1 + 0.2) + 0.3);
  EXPECT_THROW(add.Accumulate(Array(DType::kFloat64, {})), TypeError);
}

TEST(Reduceat, NumpysSegmentRules) {
  const Array a = Iota<double>(DType::kFloat64, {8});
  const int64_t idx[] = {0, 4, 1, 5};
  const Array r = GetUfunc("add").Reduceat(a, idx);
  const double want[] = {6, 4, 10, 18};  // decreasing index: a[4] alone; last to the end
  for (int i = 0; i < 4; ++i) EXPECT_EQ(r.typed<double>()[i], want[i]);
  const int64_t bad[] = {8};
  EXPECT_THROW(GetUfunc("add").Reduceat(a, bad), IndexError);
}

// A caller that allocates its own result plans once, allocates what the
// plan says, and runs it; planning raises argument errors before loop
// errors, and running a plan checks what planning could not.
TEST(ReducePlan, PlanAllocateRun) {
  const Ufunc& add = GetUfunc("add");
  const Array a = Iota<int8_t>(DType::kInt8, {2, 3});
  ReduceOptions opt;
  opt.axis = std::vector<int64_t>{1};
  const ReducePlan plan = add.PlanReduce(a.view(), opt);
  EXPECT_EQ(plan.dtype(), DType::kInt64);  // add widens int8, as NumPy
  EXPECT_EQ(plan.shape, (Shape{2}));
  EXPECT_EQ(plan.reduced, (std::vector<bool>{false, true}));
  Array out(plan.dtype(), plan.shape);
  add.RunReduce(plan, a.view(), out.view(), opt);
  EXPECT_EQ(out.typed<int64_t>()[0], 3);
  EXPECT_EQ(out.typed<int64_t>()[1], 12);
  // out= of another dtype takes part in the loop choice: no widening.
  EXPECT_EQ(add.PlanReduce(a.view(), opt, DType::kInt16).dtype(), DType::kInt16);
  // A wrong out= shape is refused before anything is written.
  Array wrong = Array::Zeros(DType::kInt64, {3});
  EXPECT_THROW(add.RunReduce(plan, a.view(), wrong.view(), opt), ValueError);
  for (int64_t i = 0; i < 3; ++i) EXPECT_EQ(wrong.typed<int64_t>()[i], 0);
  // Argument errors win over loop errors: an axis error for a bool
  // subtract, which has no loop.
  const Array b = Array::Zeros(DType::kBool, {3});
  opt.axis = std::vector<int64_t>{5};
  EXPECT_THROW(GetUfunc("subtract").PlanReduce(b.view(), opt), AxisError);
  opt.axis = std::vector<int64_t>{0};
  EXPECT_THROW(GetUfunc("subtract").PlanReduce(b.view(), opt), TypeError);
  EXPECT_THROW(GetUfunc("sqrt").PlanReduce(a.view(), opt), ValueError);

  const ReducePlan acc = add.PlanAccumulate(a.view(), -1, std::nullopt);
  EXPECT_EQ(acc.axis, 1);
  EXPECT_EQ(acc.shape, (Shape{2, 3}));
  Array running(acc.dtype(), acc.shape);
  add.RunAccumulate(acc, a.view(), running.view());
  EXPECT_EQ(running.typed<int64_t>()[5], 12);
  EXPECT_THROW(add.PlanAccumulate(Array(DType::kInt8, {}).view(), 0, std::nullopt), TypeError);

  const int64_t idx[] = {0, 2};
  const ReducePlan at = add.PlanReduceat(a.view(), idx, 1, std::nullopt);
  EXPECT_EQ(at.shape, (Shape{2, 2}));
  Array seg(at.dtype(), at.shape);
  add.RunReduceat(at, a.view(), idx, seg.view());
  EXPECT_EQ(seg.typed<int64_t>()[0], 1);   // 0 + 1
  EXPECT_EQ(seg.typed<int64_t>()[3], 5);   // 5
  const int64_t bad[] = {0, 3};
  EXPECT_THROW(add.PlanReduceat(a.view(), bad, 1, std::nullopt), IndexError);
  // A plan run with indices it did not check is refused.
  EXPECT_THROW(add.RunReduceat(at, a.view(), bad, seg.view()), ValueError);
}

TEST(Outer, ShapeIsTheConcatenation) {
  const Array a = Iota<double>(DType::kFloat64, {2, 3});
  const Array b = Iota<double>(DType::kFloat64, {4});
  const std::vector<Array> r = GetUfunc("multiply").Outer(a, b);
  ASSERT_EQ(r[0].shape(), (Shape{2, 3, 4}));
  EXPECT_EQ(r[0].typed<double>()[(1 * 3 + 2) * 4 + 3], 5.0 * 3.0);
  EXPECT_THROW(GetUfunc("sqrt").Outer(a, b), ValueError);
}

TEST(Gufunc, MatmulShapeRules) {
  const Ufunc& mm = GetUfunc("matmul");
  const Array a = Iota<double>(DType::kFloat64, {2, 3});
  const Array b = Iota<double>(DType::kFloat64, {3, 4});
  const Array c = mm(a, b);
  ASSERT_EQ(c.shape(), (Shape{2, 4}));
  EXPECT_EQ(c.typed<double>()[5], 3 * 1 + 4 * 5 + 5 * 9.0);
  const Array v = Iota<double>(DType::kFloat64, {3});
  EXPECT_EQ(mm(a, v).shape(), (Shape{2}));   // 1-D promotion, n? kept, m? dropped
  EXPECT_EQ(mm(v, b).shape(), (Shape{4}));
  EXPECT_EQ(mm(v, v).shape(), (Shape{}));
  const Array stack = Iota<double>(DType::kFloat64, {5, 1, 2, 3});
  EXPECT_EQ(mm(stack, b).shape(), (Shape{5, 1, 2, 4}));
  EXPECT_THROW(mm(b, b), ValueError);         // core dims 4 vs 3
  EXPECT_THROW(mm(Array(DType::kFloat64, {}), v), ValueError);
  const Array i = Iota<int32_t>(DType::kInt32, {2, 2});
  const Array ii = mm(i, i);
  EXPECT_EQ(ii.dtype(), DType::kInt32);
  EXPECT_EQ(ii.typed<int32_t>()[3], 2 * 1 + 3 * 3);
  EXPECT_THROW(mm.Reduce(a), RuntimeError);
}

// The worker pool behind threaded reductions, row scatter and GEMM: every
// worker runs once per call, the first exception comes back to the caller,
// and callers on several threads at once all finish (those that find the
// pool busy start threads of their own).
TEST(Workers, EveryWorkerRunsAndErrorsComeBack) {
  for (int call = 0; call < 50; ++call) {
    std::vector<int> ran(3, 0);
    internal::RunWorkers(3, [&](int w) { ++ran[static_cast<size_t>(w)]; });
    EXPECT_EQ(ran, std::vector<int>({1, 1, 1}));
  }
  EXPECT_THROW(internal::RunWorkers(2, [](int w) {
                 if (w == 1) throw std::runtime_error("worker 1");
               }),
               std::runtime_error);
  std::atomic<int64_t> total{0};
  std::vector<std::thread> callers;
  for (int c = 0; c < 4; ++c) {
    callers.emplace_back([&] {
      for (int call = 0; call < 100; ++call) {
        internal::RunWorkers(2, [&](int w) { total += w + 1; });
      }
    });
  }
  for (std::thread& t : callers) t.join();
  EXPECT_EQ(total.load(), 4 * 100 * 3);
}

}  // namespace
}  // namespace ufuncx

// The dense GEMM path (packing space kept per thread, operands copied to
// unit-stride rows when they lack them, products split over threads), with
// and without conjugating the left operand, against a plain triple loop.
TEST(Gemm, DenseProductsMatchAPlainLoop) {
  using C = std::complex<double>;
  const int64_t n = 256, k = 128, m = 130;  // over 2^22 multiply-adds: two threads
  std::vector<C> a(static_cast<size_t>(2 * n * k)), b(static_cast<size_t>(k * m));
  for (size_t i = 0; i < a.size(); ++i) a[i] = C(std::sin(0.3 * i), std::cos(0.7 * i));
  for (size_t i = 0; i < b.size(); ++i) b[i] = C(std::cos(0.11 * i), std::sin(0.5 * i));
  for (const bool conj : {false, true}) {
    for (const int64_t a_c : {int64_t{1}, int64_t{2}}) {  // a's columns strided or not
      const int64_t a_r = k * a_c;
      std::vector<C> o(static_cast<size_t>(n * m * 2), C(-7, 7));
      const int64_t o_r = 1, o_c = n;  // a column-major result (copied back)
      ufuncx::internal::Gemm<C>(n, k, m, a.data(), a_r, a_c, conj, b.data(), m, 1, o.data(),
                                o_r, o_c);
      for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = 0; j < m; ++j) {
          C want = 0;
          for (int64_t t = 0; t < k; ++t) {
            const C x = a[static_cast<size_t>(i * a_r + t * a_c)];
            want += (conj ? std::conj(x) : x) * b[static_cast<size_t>(t * m + j)];
          }
          const C got = o[static_cast<size_t>(i * o_r + j * o_c)];
          ASSERT_NEAR(got.real(), want.real(), 1e-12 * k) << conj << " " << i << " " << j;
          ASSERT_NEAR(got.imag(), want.imag(), 1e-12 * k) << conj << " " << i << " " << j;
        }
      }
      for (size_t i = static_cast<size_t>(n * m); i < o.size(); ++i) ASSERT_EQ(o[i], C(-7, 7));
    }
  }
}

// A product whose packed panel of b exceeds the shared-panel limit (8 MiB)
// is packed in row chunks, with a depth over several blocks, on two
// workers of uneven rows. The result starts as NaN, so a block the kernel
// adds into without clearing shows. Checked at sampled entries against a
// double-precision sum.
TEST(Gemm, LargeProductsPackTheirSharedPanelInChunks) {
  const int64_t n = 131, k = 1100, m = 4200;
  std::vector<float> a(static_cast<size_t>(n * k)), b(static_cast<size_t>(k * m));
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(std::sin(0.37 * i));
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(std::cos(0.13 * i));
  std::vector<float> o(static_cast<size_t>(n * m), std::nanf(""));
  ufuncx::internal::Gemm<float>(n, k, m, a.data(), k, 1, false, b.data(), m, 1, o.data(), m, 1);
  for (int64_t i = 0; i < n; i += 5) {
    for (int64_t j = 0; j < m; j += (j < 30 || j > m - 30) ? 1 : 97) {
      double want = 0;
      for (int64_t t = 0; t < k; ++t) {
        want += double{a[static_cast<size_t>(i * k + t)]} * double{b[static_cast<size_t>(t * m + j)]};
      }
      ASSERT_NEAR(o[static_cast<size_t>(i * m + j)], want, 1e-4 * k) << i << " " << j;
    }
  }
}
