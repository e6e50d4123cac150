// Hostile calls from C++: empty operands seen through strided views, indices
// that alias the operand, raw indices that go bad after the check pass,
// broken kUnchecked promises, torch's aliasing rules, asctile's uint64
// indices, truncated plugin files and the kept-memory release. Each checks
// that nothing outside the operand's elements is written.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <vector>

#include "generated.h"
#include "ufuncx/frontends.h"
#include "ufuncx/memory.h"
#include "ufuncx/plugin.h"
#include "ufuncx/scatter.h"
#include "ufuncx/ufuncx.h"

namespace ufuncx {
namespace {

constexpr ScatterPlan kPlans[] = {ScatterPlan::kAuto,        ScatterPlan::kWindowRuns,
                                  ScatterPlan::kElement,     ScatterPlan::kLocalTarget,
                                  ScatterPlan::kPartitioned, ScatterPlan::kSortedParallel,
                                  ScatterPlan::kGeneric,     ScatterPlan::kRows};

// The fuzz finding: a complex64 operand of shape (4, 4, 0) with non-zero
// strides, its empty dim inserted; the row plan used to write 6 elements.
TEST(Hostile, EmptyInsertedDimThroughAStridedViewWritesNothing) {
  std::vector<unsigned char> buf(1024, 0xA5);
  ArrayView op{reinterpret_cast<char*>(buf.data()) + 256, DType::kComplex64, {4, 4, 0},
               {32, 8, 8}};
  Array idx(DType::kInt64, {3, 1});
  idx.typed<int64_t>()[0] = 0;
  idx.typed<int64_t>()[1] = 1;
  idx.typed<int64_t>()[2] = 5;
  Array upd = Array::Zeros(DType::kComplex64, {3, 4, 4});
  ScatterRequest r;
  r.operands = {op};
  r.indices = idx.view();
  r.updates = {upd.view()};
  r.dims.update_window_dims = {1, 2};
  r.dims.inserted_window_dims = {2};
  r.dims.scatter_dims_to_operand_dims = {2};
  r.dims.index_vector_dim = 1;
  r.combiner = &GetUfunc("add");
  for (ScatterPlan p : kPlans) {
    r.force_plan = p;
    for (Bounds b : {Bounds::kSkipElement, Bounds::kSkipWindow, Bounds::kClip,
                     Bounds::kUnchecked}) {
      r.bounds = b;
      EXPECT_EQ(Scatter(r).updates_applied, 0) << PlanName(p);
    }
    r.bounds = Bounds::kRaise;
    EXPECT_THROW(Scatter(r), IndexError);
  }
  for (unsigned char c : buf) ASSERT_EQ(c, 0xA5);
}

TEST(Hostile, IndicesInsideTheOperandAreReadAsTheyWere) {
  // add.at(t, t[:4], 1) with t[:4] = {9, 2, 2, 0}: every update goes where
  // the index said when the call began.
  for (ScatterPlan p : kPlans) {
    Array t = Array::Zeros(DType::kInt64, {16});
    int64_t* v = t.typed<int64_t>();
    v[0] = 9, v[1] = 2, v[2] = 2, v[3] = 0;
    ArrayView idx{t.data(), DType::kInt64, {4, 1}, {8, 8}};
    Array one(DType::kInt64, {4});
    for (int i = 0; i < 4; ++i) one.typed<int64_t>()[i] = 100;
    ScatterRequest r;
    r.operands = {t.view()};
    r.indices = idx;
    r.updates = {one.view()};
    r.dims.inserted_window_dims = {0};
    r.dims.scatter_dims_to_operand_dims = {0};
    r.dims.index_vector_dim = 1;
    r.combiner = &GetUfunc("add");
    r.bounds = Bounds::kRaise;
    r.force_plan = p;
    Scatter(r);
    EXPECT_EQ(v[9], 100) << PlanName(p);
    EXPECT_EQ(v[2], 2 + 200) << PlanName(p);
    EXPECT_EQ(v[0], 9 + 100) << PlanName(p);
  }
}

// The indexed slot checks raw indices as it reads them: an index that is
// out of range stops it before the index is applied, wrapped or not.
TEST(Hostile, IndexedSlotStopsAtAnIndexOutsideTheTarget) {
  const Loop* loop = nullptr;
  for (const Loop& l : GetUfunc("add").loops()) {
    if (l.types[0] == DType::kFloat64 && l.types[1] == DType::kFloat64) loop = &l;
  }
  ASSERT_TRUE(loop && loop->slots.indexed);
  for (bool runs : {false, true}) {
    for (bool wrap : {false, true}) {
      for (int64_t size : {int64_t{8}, int64_t{1} << 20}) {  // (and a target beyond the caches)
        std::vector<double> t(static_cast<size_t>(size) + 16, 0.0);
        double* base = t.data() + 8;
        const int64_t idx[] = {1, 1, wrap ? -2 : 3, 2, int64_t{1} << 40, 0, 0};
        const double upd[] = {1, 1, 1, 1, 1, 1, 1};
        int64_t n = 7, stop = -1;
        IndexedIndices ix{size, 8, wrap, runs, &stop};
        char* args[3] = {reinterpret_cast<char*>(base),
                         reinterpret_cast<char*>(const_cast<int64_t*>(idx)),
                         reinterpret_cast<char*>(const_cast<double*>(upd))};
        const int64_t steps[3] = {0, 8, 8};
        ASSERT_EQ(loop->slots.indexed(LoopContext{"add"}, args, &n, steps, &ix), 0);
        EXPECT_EQ(stop, 4);
        EXPECT_EQ(base[1], 2.0);
        EXPECT_EQ(base[wrap ? size - 2 : 3], 1.0);
        EXPECT_EQ(base[2], 1.0);
        EXPECT_EQ(base[0], 0.0);  // after the stop: not applied
        for (int k = 0; k < 8; ++k) EXPECT_EQ(t[k], 0.0);
        n = 2;
        const int64_t bad_first[] = {-int64_t{1} << 40, 0};
        args[1] = reinterpret_cast<char*>(const_cast<int64_t*>(bad_first));
        ASSERT_EQ(loop->slots.indexed(LoopContext{"add"}, args, &n, steps, &ix), 0);
        EXPECT_EQ(stop, 0);
        EXPECT_EQ(base[0], 0.0);
      }
    }
  }
}

// A writer that owns a slice [lo, lo + size) of the target (the sorted split)
// stops at the first index outside its slice, below or above it, including
// indices whose difference from lo overflows int64, and writes nothing
// outside it; every body (runs, plain, prefetching, strided indices).
TEST(Hostile, IndexedSlotWithALowerBoundStopsOutsideItsSlice) {
  const Loop* loop = nullptr;
  for (const Loop& l : GetUfunc("add").loops()) {
    if (l.types[0] == DType::kFloat64 && l.types[1] == DType::kFloat64) loop = &l;
  }
  ASSERT_TRUE(loop && loop->slots.indexed);
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  for (bool runs : {false, true}) {
    for (int64_t istep : {int64_t{8}, int64_t{16}}) {
      for (int64_t total : {int64_t{16}, int64_t{1} << 20}) {
        const int64_t lo = total / 2, size = total / 4;  // the slice [lo, lo + size)
        for (int64_t bad : {lo - 1, lo + size, int64_t{-1}, kMin, kMin + lo - 1,
                            std::numeric_limits<int64_t>::max()}) {
          std::vector<double> t(static_cast<size_t>(total), 0.0);
          const int64_t raw[] = {lo, lo, lo + size - 1, bad, lo, lo + 1};
          std::vector<int64_t> idx(6 * static_cast<size_t>(istep / 8), 0);
          for (size_t k = 0; k < 6; ++k) idx[k * static_cast<size_t>(istep / 8)] = raw[k];
          const double upd[] = {1, 2, 4, 8, 16, 32};
          int64_t n = 6, stop = -1;
          IndexedIndices ix{size, 8, false, runs, &stop, lo};
          char* args[3] = {reinterpret_cast<char*>(t.data()), reinterpret_cast<char*>(idx.data()),
                           reinterpret_cast<char*>(const_cast<double*>(upd))};
          const int64_t steps[3] = {0, istep, 8};
          ASSERT_EQ(loop->slots.indexed(LoopContext{"add"}, args, &n, steps, &ix), 0);
          EXPECT_EQ(stop, 3) << bad;
          for (int64_t k = 0; k < total; ++k) {
            const double want = k == lo ? 3.0 : k == lo + size - 1 ? 4.0 : 0.0;
            EXPECT_EQ(t[static_cast<size_t>(k)], want) << k << " bad " << bad;
          }
        }
      }
    }
  }
}

TEST(Hostile, BrokenUncheckedPromisesAreDropped) {
  for (ScatterPlan p : kPlans) {
    std::vector<double> buf(64, 0.0);
    ArrayView op{reinterpret_cast<char*>(buf.data() + 16), DType::kFloat64, {8}, {8}};
    Array idx(DType::kInt64, {3, 1});
    idx.typed<int64_t>()[0] = 3;
    idx.typed<int64_t>()[1] = 40;
    idx.typed<int64_t>()[2] = -5;
    Array upd(DType::kFloat64, {3});
    for (int i = 0; i < 3; ++i) upd.typed<double>()[i] = 1.0;
    ScatterRequest r;
    r.operands = {op};
    r.indices = idx.view();
    r.updates = {upd.view()};
    r.dims.inserted_window_dims = {0};
    r.dims.scatter_dims_to_operand_dims = {0};
    r.dims.index_vector_dim = 1;
    r.combiner = &GetUfunc("add");
    r.bounds = Bounds::kUnchecked;
    r.force_plan = p;
    Scatter(r);
    for (int i = 0; i < 64; ++i) EXPECT_EQ(buf[i], i == 19 ? 1.0 : 0.0) << PlanName(p);
  }
}

TEST(Hostile, TorchFrontEndsRefuseDenseAliasing) {
  Array t = Array::Zeros(DType::kInt64, {100});
  ArrayView self{t.data() + 80, DType::kInt64, {90}, {8}};
  self.shape = {90};
  ArrayView index{t.data(), DType::kInt64, {20}, {8}};
  Array src = Array::Zeros(DType::kInt64, {20});
  EXPECT_THROW(torchlike::ScatterReduce(self, 0, index, src.view(), torchlike::Reduce::kAdd),
               RuntimeError);
  EXPECT_THROW(torchlike::IndexAdd(self, 0, index, src.view(), true), RuntimeError);
  EXPECT_THROW(torchlike::IndexPut(self, std::span(&index, 1), src.view(), true), RuntimeError);
  Array idx = Array::Zeros(DType::kInt64, {20});
  ArrayView alias_src{t.data() + 8 * 10, DType::kInt64, {20}, {8}};
  EXPECT_THROW(torchlike::ScatterReduce(self, 0, idx.view(), alias_src, torchlike::Reduce::kNone),
               RuntimeError);
  ArrayView repeated{t.data(), DType::kInt64, {5}, {0}};
  Array five = Array::Zeros(DType::kInt64, {2});
  Array i2 = Array::Zeros(DType::kInt64, {2});
  EXPECT_THROW(torchlike::IndexAdd(repeated, 0, i2.view(), five.view(), true), RuntimeError);
  // index_add_ with dim beyond the source's dims: torch's RuntimeError, no read past its shape.
  Array s3 = Array::Zeros(DType::kFloat64, {2, 3, 4});
  Array i1 = Array::Zeros(DType::kInt64, {1});
  Array one = Array::Zeros(DType::kFloat64, {1});
  EXPECT_THROW(torchlike::IndexAdd(s3.view(), 2, i1.view(), one.view(), true), RuntimeError);
}

TEST(Hostile, AsctileUint64IndicesNeverWrapIntoRange) {
  Array dst = Array::Zeros(DType::kFloat32, {6, 5});
  Array src(DType::kFloat32, {1, 5});
  for (int i = 0; i < 5; ++i) src.typed<float>()[i] = 1.0f;
  Array idx(DType::kUInt64, {1});
  idx.typed<uint64_t>()[0] = ~uint64_t{0} - 4;  // 2**64 - 5: "-5" if it wrapped
  const int64_t offsets[] = {5};
  asctile::Scatter(src.view(), 0, idx.view(), dst.view(), offsets, true);
  EXPECT_THROW(asctile::Scatter(src.view(), 0, idx.view(), dst.view(), offsets, false),
               IndexError);
  Array big(DType::kInt64, {1});
  big.typed<int64_t>()[0] = INT64_MAX;  // + 5 overflows
  EXPECT_THROW(asctile::Scatter(src.view(), 0, big.view(), dst.view(), offsets, false),
               IndexError);
  for (int i = 0; i < 30; ++i) EXPECT_EQ(dst.typed<float>()[i], 0.0f);
}

TEST(Hostile, TruncatedLibrariesAreRefusedBeforeLoading) {
  // Any real shared library serves: this test program's libufuncx.
  std::string lib;
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    const auto p = line.find('/');
    if (p != std::string::npos && line.find("libufuncx.so") != std::string::npos) {
      lib = line.substr(p);
      break;
    }
  }
  ASSERT_FALSE(lib.empty());
  std::ifstream in(lib, std::ios::binary);
  const std::string data((std::istreambuf_iterator<char>(in)), {});
  const auto dir = std::filesystem::temp_directory_path() / "ufx_truncated";
  std::filesystem::create_directories(dir);
  for (size_t cut : {size_t{10}, size_t{4096}, data.size() / 2, data.size() - 1}) {
    const auto path = dir / ("cut" + std::to_string(cut) + ".so");
    std::ofstream(path, std::ios::binary).write(data.data(), static_cast<std::streamsize>(cut));
    EXPECT_THROW(LoadPlugin(path.string()), ValueError) << cut;
  }
  EXPECT_THROW(LoadPlugin(dir.string()), ValueError);
  EXPECT_THROW(LoadPlugin(std::string("/tmp/x\0y.so", 11)), ValueError);
  std::filesystem::remove_all(dir);
}

TEST(Hostile, KeptBlocksAreReleased) {
  { Array big(DType::kFloat64, {int64_t{1} << 21}); }  // 16 MiB, kept when freed
  EXPECT_GE(ReleaseRetainedMemory(), size_t{16} << 20);
  EXPECT_EQ(ReleaseRetainedMemory(), 0u);
}

}  // namespace
}  // namespace ufuncx
