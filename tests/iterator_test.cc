// Broadcasting, dim dropping, stride ordering and coalescing of the strided
// iterator, on strided, negative-stride, zero-size and 0-d operands.
#include <gtest/gtest.h>

#include <numeric>

#include "iterator.h"
#include "ufuncx/array.h"
#include "ufuncx/error.h"

namespace ufuncx::internal {
namespace {

ArrayView View(char* data, Shape shape, Strides strides) {
  return ArrayView{data, DType::kFloat64, std::move(shape), std::move(strides)};
}

TEST(Broadcast, Shapes) {
  Shape a{3, 1, 4}, b{5, 1}, c{};
  const Shape* s[] = {&a, &b, &c};
  EXPECT_EQ(BroadcastShapes(s), (Shape{3, 5, 4}));
  Shape d{3}, e{4};
  const Shape* bad[] = {&d, &e};
  EXPECT_THROW(BroadcastShapes(bad), ValueError);
  Shape z{0, 3}, one{1};
  const Shape* zs[] = {&z, &one};
  EXPECT_EQ(BroadcastShapes(zs), (Shape{0, 3}));
}

TEST(Iterator, CoalescesContiguous) {
  Array a(DType::kFloat64, {4, 5, 6});
  ArrayView ops[] = {a.view(), a.view()};
  StridedIteration it(ops, a.shape());
  EXPECT_EQ(it.shape(), (Shape{120}));
  EXPECT_EQ(it.strides()[0], (Strides{8}));
}

TEST(Iterator, DropsSizeOneAndOrdersByStride) {
  Array a(DType::kFloat64, {1, 6, 1, 5});
  // A transposed view: (5, 6) with strides (8, 40).
  ArrayView t = View(a.data(), {5, 1, 6}, {8, 0, 40});
  Array out(DType::kFloat64, {5, 1, 6});
  ArrayView ops[] = {t, out.view()};
  StridedIteration it(ops, out.shape());
  ASSERT_EQ(it.shape().size(), 2u);
  EXPECT_EQ(it.shape(), (Shape{5, 6}));  // output order wins
  EXPECT_EQ(it.strides()[1], (Strides{48, 8}));
}

TEST(Iterator, BroadcastZeroStrideAndNegativeStride) {
  std::vector<double> buf(12);
  std::iota(buf.begin(), buf.end(), 0.0);
  char* p = reinterpret_cast<char*>(buf.data());
  ArrayView row = View(p, {4}, {8});
  ArrayView rev = View(p + 11 * 8, {3, 4}, {-32, -8});
  Array out(DType::kFloat64, {3, 4});
  ArrayView ops[] = {row, rev, out.view()};
  StridedIteration it(ops, out.shape());
  double sum_row = 0, sum_rev = 0;
  int64_t count = 0;
  it.ForEachInner([&](char* const* ptrs, int64_t n, const int64_t* steps) {
    for (int64_t i = 0; i < n; ++i) {
      sum_row += *reinterpret_cast<double*>(ptrs[0] + i * steps[0]);
      sum_rev += *reinterpret_cast<double*>(ptrs[1] + i * steps[1]);
    }
    count += n;
  });
  EXPECT_EQ(count, 12);
  EXPECT_EQ(sum_row, 3 * (0 + 1 + 2 + 3));
  EXPECT_EQ(sum_rev, 66);
}

TEST(Iterator, ZeroSizeAndZeroD) {
  Array empty(DType::kFloat64, {3, 0});
  ArrayView ops[] = {empty.view()};
  int calls = 0;
  StridedIteration(ops, empty.shape()).ForEachInner([&](auto...) { ++calls; });
  EXPECT_EQ(calls, 0);
  Array scalar(DType::kFloat64, {});
  ArrayView ops0[] = {scalar.view()};
  StridedIteration it0(ops0, scalar.shape());
  it0.ForEachInner([&](char* const*, int64_t n, const int64_t*) { calls += static_cast<int>(n); });
  EXPECT_EQ(calls, 1);
}

TEST(Iterator, RejectsNonBroadcastable) {
  Array a(DType::kFloat64, {3});
  ArrayView ops[] = {a.view()};
  EXPECT_THROW(StridedIteration(ops, Shape{4}), ValueError);
}

}  // namespace
}  // namespace ufuncx::internal
