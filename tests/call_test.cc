// The C++ call API: loop selection, broadcasting, out/where/casting/dtype/
// signature, buffered casts, overlap, 0-d and zero-size operands, errors.
#include <gtest/gtest.h>
#include <malloc.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <thread>
#include <vector>

#include "test_util.h"
#include "ufuncx/memory.h"
#include "ufuncx/ufuncx.h"

namespace ufuncx {
namespace {

using testing::Vec;

TEST(Registry, HasEveryNumpyUfunc) {
  EXPECT_EQ(AllUfuncs().size(), 89u);  // 85 elementwise + 4 generalized
  EXPECT_EQ(&GetUfunc("abs"), &GetUfunc("absolute"));
  EXPECT_EQ(&GetUfunc("true_divide"), &GetUfunc("divide"));
  ASSERT_NE(FindUfunc("matmul"), nullptr);
  EXPECT_EQ(FindUfunc("matmul")->core()->text, "(n?,k),(k,m?)->(n?,m?)");
  EXPECT_EQ(GetUfunc("add").core(), nullptr);
  EXPECT_THROW(GetUfunc("nope"), ValueError);
  const Ufunc& add = GetUfunc("add");
  EXPECT_EQ(add.nin(), 2);
  EXPECT_EQ(add.identity().kind, Identity::Kind::kInt);
  EXPECT_EQ(add.TypeStrings().front(), std::string("?") + "?->?");
  EXPECT_FALSE(SimdTargets().empty());
}

TEST(Call, SelectsNumpysLoop) {
  const Ufunc& add = GetUfunc("add");
  const DType i8f4[] = {DType::kInt8, DType::kFloat32};
  EXPECT_EQ(add.ResolveLoop(i8f4, {}).types[2], DType::kFloat32);
  const DType i64u64[] = {DType::kInt64, DType::kUInt64};
  EXPECT_EQ(add.ResolveLoop(i64u64, {}).types[2], DType::kFloat64);
  const DType ints[] = {DType::kInt8, DType::kInt8};
  EXPECT_EQ(GetUfunc("divide").ResolveLoop(ints, {}).types[2], DType::kFloat64);
  const DType ff[] = {DType::kFloat64, DType::kFloat64};
  EXPECT_THROW(GetUfunc("bitwise_and").ResolveLoop(ff, {}), TypeError);
  CallOptions opt;
  opt.dtype = DType::kFloat32;
  EXPECT_EQ(add.ResolveLoop(ints, opt).types[0], DType::kFloat32);
}

TEST(Call, BroadcastsAndCastsThroughBuffers) {
  Array a(DType::kInt8, {2, 3});
  for (int i = 0; i < 6; ++i) a.typed<int8_t>()[i] = static_cast<int8_t>(i - 3);
  Array b = Vec<float>(DType::kFloat32, {0.5f, 1.5f, 2.5f});
  Array c = GetUfunc("multiply")(a, b);
  ASSERT_EQ(c.dtype(), DType::kFloat32);
  ASSERT_EQ(c.shape(), (Shape{2, 3}));
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(c.typed<float>()[i], static_cast<float>(i - 3) * b.typed<float>()[i % 3]);
  }
}

TEST(Call, LongBufferedRunsAndStridedOutput) {
  const int64_t n = 20000;  // more than one cast buffer
  Array a(DType::kInt16, {n});
  for (int64_t i = 0; i < n; ++i) a.typed<int16_t>()[i] = static_cast<int16_t>(i % 1000);
  Array out(DType::kFloat64, {2 * n});
  ArrayView every_other{out.data(), DType::kFloat64, {n}, {16}};
  const ArrayView ins[] = {a.view()};
  const ArrayView outs[] = {every_other};
  GetUfunc("sqrt").CallInto(ins, outs);
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(out.typed<double>()[2 * i], std::sqrt(static_cast<float>(i % 1000)));
  }
}

TEST(Call, OutCastingAndWhere) {
  Array a = Vec<double>(DType::kFloat64, {1.5, 2.5, 3.5});
  Array out = Vec<int64_t>(DType::kInt64, {7, 7, 7});
  const ArrayView ins[] = {a.view(), a.view()};
  const ArrayView outs[] = {out.view()};
  EXPECT_THROW(GetUfunc("add").CallInto(ins, outs), TypeError);
  EXPECT_EQ(out.typed<int64_t>()[0], 7);  // untouched after the error
  Array mask(DType::kBool, {3});
  mask.typed<bool>()[0] = true;
  mask.typed<bool>()[1] = false;
  mask.typed<bool>()[2] = true;
  CallOptions opt;
  opt.casting = Casting::kUnsafe;
  opt.where = &mask.view();
  GetUfunc("add").CallInto(ins, outs, opt);
  EXPECT_EQ(out.typed<int64_t>()[0], 3);
  EXPECT_EQ(out.typed<int64_t>()[1], 7);
  EXPECT_EQ(out.typed<int64_t>()[2], 7);
}

TEST(Call, AFailingLoopLeavesGivenOutputsUnchanged) {
  // Integer power fails at its negative exponent, after writing the
  // elements before it; the caller's out (and out= of reduce, accumulate,
  // reduceat) keeps its old values.
  Array base = Vec<int64_t>(DType::kInt64, {2, 3, 4, 5});
  Array exps = Vec<int64_t>(DType::kInt64, {1, 2, -1, 3});
  Array out = Vec<int64_t>(DType::kInt64, {7, 7, 7, 7});
  const ArrayView ins[] = {base.view(), exps.view()};
  const ArrayView outs[] = {out.view()};
  const Ufunc& power = GetUfunc("power");
  EXPECT_THROW(power.CallInto(ins, outs), ValueError);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(out.typed<int64_t>()[i], 7);
  Array one = Vec<int64_t>(DType::kInt64, {7});
  ArrayView scalar_out{one.data(), DType::kInt64, {}, {}};
  EXPECT_THROW(power.ReduceInto(exps.view(), scalar_out, ReduceOptions{}), ValueError);
  EXPECT_EQ(one.typed<int64_t>()[0], 7);
  EXPECT_THROW(power.AccumulateInto(exps.view(), out.view()), ValueError);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(out.typed<int64_t>()[i], 7);
  const int64_t starts[] = {0, 2};
  ArrayView pair{out.data(), DType::kInt64, {2}, {8}};
  Array segments = Vec<int64_t>(DType::kInt64, {2, -1, 3, 1});
  EXPECT_THROW(power.ReduceatInto(segments.view(), starts, pair), ValueError);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(out.typed<int64_t>()[i], 7);
  exps.typed<int64_t>()[2] = 0;
  power.CallInto(ins, outs);
  EXPECT_EQ(out.typed<int64_t>()[1], 9);
  EXPECT_EQ(out.typed<int64_t>()[2], 1);
}

TEST(Call, OverlapIsCopiedFirst) {
  Array a(DType::kFloat64, {10});
  std::iota(a.typed<double>(), a.typed<double>() + 10, 0.0);
  ArrayView head{a.data(), DType::kFloat64, {9}, {8}};
  ArrayView tail{a.data() + 8, DType::kFloat64, {9}, {8}};
  Array one(DType::kFloat64, {});
  *one.typed<double>() = 1.0;
  const ArrayView ins[] = {head, one.view()};
  const ArrayView outs[] = {tail};
  GetUfunc("add").CallInto(ins, outs);
  for (int i = 1; i < 10; ++i) EXPECT_EQ(a.typed<double>()[i], i);  // (i-1)+1
}

TEST(Call, ZeroDAndZeroSize) {
  Array s(DType::kFloat32, {});
  *s.typed<float>() = 4.0f;
  Array r = GetUfunc("sqrt")(s);
  EXPECT_EQ(r.ndim(), 0);
  EXPECT_EQ(*r.typed<float>(), 2.0f);
  Array e(DType::kFloat32, {0, 5});
  EXPECT_EQ(GetUfunc("exp")(e).shape(), (Shape{0, 5}));
}

TEST(Call, NumericsAndErrors) {
  Array a = Vec<int32_t>(DType::kInt32, {7, -7, 7, -7, INT32_MIN});
  Array b = Vec<int32_t>(DType::kInt32, {2, 2, -2, 0, -1});
  Array q = GetUfunc("floor_divide")(a, b);
  Array m = GetUfunc("remainder")(a, b);
  const int32_t eq[] = {3, -4, -4, 0, INT32_MIN}, em[] = {1, 1, -1, 0, 0};
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(q.typed<int32_t>()[i], eq[i]);
    EXPECT_EQ(m.typed<int32_t>()[i], em[i]);
  }
  Array neg = Vec<int32_t>(DType::kInt32, {-1});
  EXPECT_THROW(GetUfunc("power")(a, neg), ValueError);
  Array x = Vec<double>(DType::kFloat64, {1, 2, 3});
  Array y = Vec<double>(DType::kFloat64, {1, 2});
  EXPECT_THROW(GetUfunc("add")(x, y), ValueError);
}

TEST(Call, TwoOutputs) {
  Array a = Vec<double>(DType::kFloat64, {-3.5, 2.25});
  const ArrayView ins[] = {a.view()};
  std::vector<Array> r = GetUfunc("modf")(ins);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].typed<double>()[0], -0.5);
  EXPECT_EQ(r[1].typed<double>()[0], -3.0);
  std::vector<Array> fe = GetUfunc("frexp")(ins);
  EXPECT_EQ(fe[1].dtype(), DType::kInt32);
  EXPECT_EQ(fe[1].typed<int32_t>()[1], 2);
}

TEST(Call, HalfAndBFloat16) {
  Array h(DType::kFloat16, {2});
  h.typed<float16>()[0] = float16(1.5f);
  h.typed<float16>()[1] = float16(65504.0f);
  Array r = GetUfunc("add")(h, h);
  EXPECT_EQ(r.dtype(), DType::kFloat16);
  EXPECT_EQ(static_cast<float>(r.typed<float16>()[0]), 3.0f);
  EXPECT_TRUE(std::isinf(static_cast<float>(r.typed<float16>()[1])));
  Array bf(DType::kBFloat16, {1});
  bf.typed<bfloat16>()[0] = bfloat16(2.0f);
  Array s = GetUfunc("multiply")(bf, bf);
  EXPECT_EQ(s.dtype(), DType::kBFloat16);
  EXPECT_EQ(static_cast<float>(s.typed<bfloat16>()[0]), 4.0f);
  Array mixed = GetUfunc("add")(h, bf);
  EXPECT_EQ(mixed.dtype(), DType::kFloat32);
}

}  // namespace
}  // namespace ufuncx

#include "ufuncx/eigen.h"

namespace ufuncx {
namespace {

TEST(Eigen, MapsViewsAndCopiesBack) {
  Eigen::MatrixXd m(2, 3);
  m << 1, 2, 3, 4, 5, 6;
  Array a = FromEigen(m);
  EXPECT_EQ(a.shape(), (Shape{2, 3}));
  Array r = GetUfunc("multiply")(a, a);
  auto mapped = AsEigen<double>(r.view());
  EXPECT_EQ(mapped(1, 2), 36.0);
  // A transposed, negative-stride view maps without copying.
  ArrayView t{a.data() + 5 * 8, DType::kFloat64, {3, 2}, {-8, -24}};
  auto tm = AsEigen<double>(t);
  EXPECT_EQ(tm(0, 0), 6.0);
  EXPECT_EQ(tm(2, 1), 1.0);
  EXPECT_THROW(AsEigen<float>(a.view()), TypeError);
}

}  // namespace
}  // namespace ufuncx

// The block allocator behind Array: a large freed block is reused (its pages
// already mapped), never while it is in use, never for more than it holds,
// and Zeros clears what a reused block held.
TEST(Memory, LargeBlocksAreReusedSafely) {
  const size_t mib = size_t{1} << 20;
  void* x = ufuncx::AllocateBlock(8 * mib);
  void* y = ufuncx::AllocateBlock(8 * mib);
  ASSERT_NE(x, nullptr);
  ASSERT_NE(y, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(x) % 64, 0u);
  std::memset(x, 0x5a, 8 * mib);
  std::memset(y, 0x5a, 8 * mib);
  ufuncx::FreeBlock(x, 8 * mib);  // the two kept blocks are now x and y
  ufuncx::FreeBlock(y, 8 * mib);
  void* b = ufuncx::AllocateBlock(7 * mib + 5);  // at most 1/8 smaller: reused
  EXPECT_TRUE(b == x || b == y);
  void* c = ufuncx::AllocateBlock(8 * mib);
  EXPECT_TRUE(c == x || c == y);
  EXPECT_NE(c, b);
  void* d = ufuncx::AllocateBlock(8 * mib);  // both in use: a fresh block
  EXPECT_NE(d, b);
  EXPECT_NE(d, c);
  ufuncx::FreeBlock(d, 8 * mib);
  void* e = ufuncx::AllocateBlock(2 * mib);  // far smaller than d: not given it
  EXPECT_NE(e, d);
  const std::pair<void*, size_t> live[] = {{b, 7 * mib + 5}, {c, 8 * mib}, {e, 2 * mib}};
  for (const auto& [p, bytes] : live) {
    EXPECT_GE(malloc_usable_size(p), bytes);
    std::memset(p, 1, bytes);
  }
  for (const auto& [p, bytes] : live) ufuncx::FreeBlock(p, bytes);
  const ufuncx::Array z = ufuncx::Array::Zeros(ufuncx::DType::kInt64, {1 << 20});
  for (int64_t i = 0; i < z.size(); ++i) ASSERT_EQ(z.typed<int64_t>()[i], 0);
}

// A kept block waits about a second, then the helper thread frees it though
// nothing else is allocated: when the helper was asleep with nothing kept
// (woken by the block), and when it was waiting for an older block's time
// (the newer block is freed on its next round, without a wake-up per block).
TEST(Memory, AnIdleProcessGivesKeptBlocksBack) {
  const size_t mib = size_t{1} << 20;
  // The helper starts with the first kept block; with nothing kept after
  // that block's time, it sleeps until woken.
  void* first = ufuncx::AllocateBlock(2 * mib);
  ASSERT_NE(first, nullptr);
  ufuncx::FreeBlock(first, 2 * mib);
  ufuncx::ReleaseRetainedMemory();
  std::this_thread::sleep_for(std::chrono::milliseconds(1200));
  void* a = ufuncx::AllocateBlock(2 * mib);
  ASSERT_NE(a, nullptr);
  ufuncx::FreeBlock(a, 2 * mib);  // kept; wakes the sleeping helper
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  void* b = ufuncx::AllocateBlock(2 * mib);  // takes it back
  EXPECT_EQ(b, a);
  ufuncx::FreeBlock(b, 2 * mib);  // kept again, the helper still waiting for a's time
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  EXPECT_EQ(ufuncx::ReleaseRetainedMemory(), 0u);
}

// Blocks from 64 KiB to 1 MiB are kept apart from the large ones: a cache-
// sized result made again and again lands where the last one was, and a
// stream of them never pushes a kept large block out.
TEST(Memory, CacheSizedBlocksAreKeptApartFromLargeOnes) {
  const size_t kib = size_t{1} << 10, mib = kib << 10;
  ufuncx::ReleaseRetainedMemory();
  void* big = ufuncx::AllocateBlock(8 * mib);
  ASSERT_NE(big, nullptr);
  ufuncx::FreeBlock(big, 8 * mib);
  void* first = ufuncx::AllocateBlock(400 * kib);
  ASSERT_NE(first, nullptr);
  EXPECT_NE(first, big);  // (far smaller than the kept large block)
  ufuncx::FreeBlock(first, 400 * kib);
  for (int i = 0; i < 5; ++i) {
    void* again = ufuncx::AllocateBlock(400 * kib);
    EXPECT_EQ(again, first) << i;
    std::memset(again, i, 400 * kib);
    void* other = ufuncx::AllocateBlock(100 * kib);  // (both small slots in use below)
    ufuncx::FreeBlock(other, 100 * kib);
    ufuncx::FreeBlock(again, 400 * kib);
  }
  void* big_again = ufuncx::AllocateBlock(8 * mib);
  EXPECT_EQ(big_again, big);  // still kept after every small block came and went
  ufuncx::FreeBlock(big_again, 8 * mib);
  void* tiny = ufuncx::AllocateBlock(32 * kib);  // below 64 KiB: plain memory, freed at once
  ufuncx::FreeBlock(tiny, 32 * kib);
  EXPECT_GE(ufuncx::ReleaseRetainedMemory(), 8 * mib);
}
