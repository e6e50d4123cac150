// The scatter planner against a plain reference written from the StableHLO
// spec (one update element at a time, row-major over the updates), for every
// plan, bounds policy, index dtype and dimension layout; plus the worked
// examples of the spec walk-through and the constraint errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <random>

#include <hwy/targets.h>

#include "generated.h"
#include "scatter/bounds.h"
#include "scatter/index_scan.h"
#include "ufuncx/scatter.h"
#include "ufuncx/ufuncx.h"

namespace ufuncx {
namespace {

bool Has(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

int64_t ReadIndex(const ArrayView& idx, const std::vector<int64_t>& at) {
  return VisitDType(idx.dtype, [&](auto tag) -> int64_t {
    using T = typename decltype(tag)::type;
    if constexpr (kIsInt<T>) {
      const T v = *reinterpret_cast<const T*>(idx.At(at.data()));
      if constexpr (std::is_same_v<T, uint64_t>) {
        return v > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(v);
      }
      return static_cast<int64_t>(v);
    }
    return 0;
  });
}

// The spec, literally. Returns false where the reference would raise.
bool Reference(const ScatterRequest& r) {
  const ScatterDims& d = r.dims;
  const ArrayView& op = r.operands[0];
  const ArrayView& upd = r.updates[0];
  const int64_t rank = op.ndim(), urank = upd.ndim(), irank = r.indices.ndim();
  std::vector<int64_t> usd;
  for (int64_t i = 0; i < urank; ++i) {
    if (!Has(d.update_window_dims, i)) usd.push_back(i);
  }
  std::vector<int64_t> window_operand_dims;
  for (int64_t i = 0; i < rank; ++i) {
    if (!Has(d.inserted_window_dims, i) && !Has(d.input_batching_dims, i)) {
      window_operand_dims.push_back(i);
    }
  }
  std::vector<int64_t> ext(rank, 1);
  for (size_t i = 0; i < window_operand_dims.size(); ++i) {
    ext[window_operand_dims[i]] = upd.shape[d.update_window_dims[i]];
  }
  std::vector<std::vector<int64_t>> targets;  // resolved result indices in order
  std::vector<std::vector<int64_t>> sources;
  std::vector<int64_t> ui(urank, 0);
  const int64_t total = upd.size();
  for (int64_t t = 0; t < total; ++t) {
    if (t > 0) {
      for (int64_t k = urank - 1; k >= 0; --k) {
        if (++ui[k] < upd.shape[k]) break;
        ui[k] = 0;
      }
    }
    std::vector<int64_t> si;
    for (int64_t k : usd) si.push_back(ui[k]);
    std::vector<int64_t> start;
    if (d.index_vector_dim < irank) {
      for (int64_t j = 0; j < r.indices.shape[d.index_vector_dim]; ++j) {
        std::vector<int64_t> at = si;
        at.insert(at.begin() + d.index_vector_dim, j);
        start.push_back(ReadIndex(r.indices, at));
      }
    } else {
      start.push_back(ReadIndex(r.indices, si));
    }
    std::vector<int64_t> full_start(rank, 0);
    for (size_t j = 0; j < start.size(); ++j) {
      int64_t v = start[j];
      const int64_t dim = d.scatter_dims_to_operand_dims[j];
      if (r.bounds == Bounds::kWrapThenRaise && v < 0 && v >= -op.shape[dim]) v += op.shape[dim];
      full_start[dim] = v;
    }
    for (size_t i = 0; i < d.input_batching_dims.size(); ++i) {
      const int64_t sd = d.scatter_indices_batching_dims[i];
      full_start[d.input_batching_dims[i]] = si[sd - (sd < d.index_vector_dim ? 0 : 1)];
    }
    std::vector<int64_t> full_window(rank, 0);
    for (size_t i = 0; i < window_operand_dims.size(); ++i) {
      full_window[window_operand_dims[i]] = ui[d.update_window_dims[i]];
    }
    bool window_in = true;
    for (int64_t k = 0; k < rank; ++k) {
      window_in = window_in && full_start[k] >= 0 && full_start[k] <= op.shape[k] - ext[k];
    }
    if (!window_in) {
      if (r.bounds == Bounds::kRaise || r.bounds == Bounds::kWrapThenRaise) return false;
      if (r.bounds == Bounds::kSkipWindow) continue;
      if (r.bounds == Bounds::kClip) {
        for (int64_t k = 0; k < rank; ++k) {
          full_start[k] = std::clamp<int64_t>(full_start[k], 0, op.shape[k] - ext[k]);
        }
      }
    }
    std::vector<int64_t> result(rank);
    bool in = true;
    for (int64_t k = 0; k < rank; ++k) {
      result[k] = full_start[k] + full_window[k];
      in = in && result[k] >= 0 && result[k] < op.shape[k];
    }
    if (!in) continue;  // skip element
    targets.push_back(result);
    sources.push_back(ui);
  }
  for (size_t i = 0; i < targets.size(); ++i) {
    ArrayView cur{op.At(targets[i].data()), op.dtype, {}, {}};
    ArrayView u{upd.At(sources[i].data()), upd.dtype, {}, {}};
    if (!r.combiner) {
      CopyInto(cur, u);
    } else {
      const ArrayView ins[2] = {cur, u};
      const ArrayView outs[1] = {cur};
      CallOptions opt;
      opt.casting = Casting::kUnsafe;
      r.combiner->CallInto(std::span<const ArrayView>(ins, 2), outs, opt);
    }
  }
  return true;
}

template <class T>
Array Filled(DType t, Shape shape, std::mt19937& rng, double lo, double hi) {
  Array a(t, std::move(shape));
  std::uniform_real_distribution<double> u(lo, hi);
  for (int64_t i = 0; i < a.size(); ++i) {
    a.typed<T>()[i] = static_cast<T>(std::is_integral_v<T> ? std::floor(u(rng)) : u(rng));
  }
  return a;
}

bool SameBytes(const Array& a, const Array& b) {
  return a.size() == b.size() &&
         std::memcmp(a.data(), b.data(), static_cast<size_t>(a.size()) * a.view().itemsize()) == 0;
}

const ScatterPlan kPlans[] = {ScatterPlan::kAuto,        ScatterPlan::kWindowRuns,
                              ScatterPlan::kElement,     ScatterPlan::kLocalTarget,
                              ScatterPlan::kPartitioned, ScatterPlan::kSortedParallel,
                              ScatterPlan::kGeneric,     ScatterPlan::kRows};
const Bounds kBounds[] = {Bounds::kSkipElement, Bounds::kSkipWindow, Bounds::kClip,
                          Bounds::kRaise, Bounds::kWrapThenRaise};

// Runs one request on every plan and bounds policy; compares with the
// reference bit for bit, and checks that raising leaves the operand alone.
void CheckAllPlans(ScatterRequest base, const Array& operand) {
  for (Bounds b : kBounds) {
    Array expect = Array::CopyOf(operand);
    ScatterRequest ref = base;
    ref.operands = {expect.view()};
    ref.bounds = b;
    const bool ok = Reference(ref);
    for (ScatterPlan p : kPlans) {
      Array got = Array::CopyOf(operand);
      ScatterRequest req = base;
      req.operands = {got.view()};
      req.bounds = b;
      req.force_plan = p;
      if (!ok) {
        EXPECT_THROW(Scatter(req), IndexError) << PlanName(p);
        EXPECT_TRUE(SameBytes(got, operand)) << "operand changed by a failed scatter";
        continue;
      }
      Scatter(req);
      EXPECT_TRUE(SameBytes(got, expect))
          << "plan " << PlanName(p) << " bounds " << static_cast<int>(b);
    }
  }
}

TEST(Scatter, SpecWalkThroughExample) {
  Array input(DType::kInt64, {3, 4, 2});
  for (int i = 0; i < 24; ++i) input.typed<int64_t>()[i] = i + 1;
  // The first copy of scatter_indices in the walk-through. With it only the
  // update traced there (U23's row) reaches [2, 1, 0]: 19 + 1 = 20. The
  // second copy ([1, 2, :] = [0, 2]) sends row [0, 0] there too: 21.
  Array idx(DType::kInt64, {2, 3, 2});
  const int64_t iv[] = {0, 2, 1, 0, 2, 1, 0, 1, 1, 0, 2, 0};
  std::copy(iv, iv + 12, idx.typed<int64_t>());
  Array upd(DType::kInt64, {2, 3, 2, 2});
  std::fill(upd.typed<int64_t>(), upd.typed<int64_t>() + 24, 1);
  ScatterRequest r;
  r.operands = {input.view()};
  r.indices = idx.view();
  r.updates = {upd.view()};
  r.dims.update_window_dims = {2, 3};
  r.dims.inserted_window_dims = {0};
  r.dims.scatter_dims_to_operand_dims = {1, 0};
  r.dims.index_vector_dim = 2;
  r.combiner = &GetUfunc("add");
  CheckAllPlans(r, input);
  Array first = Array::CopyOf(input.view());
  r.operands = {first.view()};
  Scatter(r);
  EXPECT_EQ(first.view().Ref<int64_t>({2, 1, 0}), 20);
  idx.typed<int64_t>()[10] = 0;
  idx.typed<int64_t>()[11] = 2;
  CheckAllPlans(r, input);
  Array second = Array::CopyOf(input.view());
  r.operands = {second.view()};
  Scatter(r);
  EXPECT_EQ(second.view().Ref<int64_t>({2, 1, 0}), 21);
}

TEST(Scatter, InterpreterTest1x4) {
  Array input(DType::kInt64, {1, 4});
  for (int i = 0; i < 4; ++i) input.typed<int64_t>()[i] = i;
  Array idx(DType::kInt64, {3, 2});
  const int64_t iv[] = {0, 1, 0, 2, 0, 3};
  std::copy(iv, iv + 6, idx.typed<int64_t>());
  Array upd(DType::kInt64, {3, 1});
  for (int i = 0; i < 3; ++i) upd.typed<int64_t>()[i] = 4 + i;
  ScatterRequest r;
  r.operands = {input.view()};
  r.indices = idx.view();
  r.updates = {upd.view()};
  r.dims.update_window_dims = {1};
  r.dims.inserted_window_dims = {0};
  r.dims.scatter_dims_to_operand_dims = {0, 1};
  r.dims.index_vector_dim = 1;
  CheckAllPlans(r, input);
  Scatter(r);
  const int64_t want[] = {0, 4, 5, 6};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(input.typed<int64_t>()[i], want[i]);
}

TEST(Scatter, ElementScatterWithDuplicatesIsBitIdentical) {
  std::mt19937 rng(1);
  for (DType t : {DType::kFloat32, DType::kFloat64, DType::kInt32}) {
    for (int64_t target : {7, 1000, 400000}) {
      const int64_t n = target > 1000 ? 300000 : 2000;
      Array op = t == DType::kInt32 ? Filled<int32_t>(t, {target}, rng, -100, 100)
                 : t == DType::kFloat32 ? Filled<float>(t, {target}, rng, -1, 1)
                                        : Filled<double>(t, {target}, rng, -1, 1);
      Array idx = Filled<int64_t>(DType::kInt64, {n}, rng, -target, static_cast<double>(target));
      Array upd = t == DType::kInt32 ? Filled<int32_t>(t, {n}, rng, -100, 100)
                  : t == DType::kFloat32 ? Filled<float>(t, {n}, rng, -1e3, 1e3)
                                         : Filled<double>(t, {n}, rng, -1e3, 1e3);
      ScatterRequest r;
      r.indices = idx.view();
      r.updates = {upd.view()};
      r.dims.inserted_window_dims = {0};
      r.dims.scatter_dims_to_operand_dims = {0};
      r.dims.index_vector_dim = 1;
      r.combiner = &GetUfunc("add");
      if (target <= 1000) {
        CheckAllPlans(r, op);
        continue;
      }
      // Large (two workers in the reordering plans): the policies that do not
      // raise on these indices, combining and replacing.
      for (Bounds bounds : {Bounds::kWrapThenRaise, Bounds::kSkipElement, Bounds::kClip}) {
        for (const Ufunc* combiner : {&GetUfunc("add"), static_cast<const Ufunc*>(nullptr)}) {
          Array expect = Array::CopyOf(op);
          ScatterRequest ref = r;
          ref.operands = {expect.view()};
          ref.bounds = bounds;
          ref.combiner = combiner;
          ASSERT_TRUE(Reference(ref));
          for (ScatterPlan p : {ScatterPlan::kAuto, ScatterPlan::kPartitioned,
                                ScatterPlan::kSortedParallel, ScatterPlan::kElement}) {
            for (int threads : {1, 2}) {
              Array got = Array::CopyOf(op);
              ScatterRequest req = ref;
              req.operands = {got.view()};
              req.force_plan = p;
              req.max_threads = threads;
              const ScatterReport rep = Scatter(req);
              EXPECT_TRUE(SameBytes(got, expect))
                  << PlanName(p) << " ran " << PlanName(rep.plan) << " bounds "
                  << static_cast<int>(bounds) << " threads " << threads;
              if (bounds == Bounds::kSkipElement) {
                EXPECT_EQ(rep.updates_applied + rep.updates_skipped, n);
                EXPECT_GT(rep.updates_skipped, 0);
              }
            }
          }
        }
      }
    }
  }
}

TEST(Scatter, AutoPlanChoices) {
  std::mt19937 rng(2);
  Array big = Filled<float>(DType::kFloat32, {1 << 20}, rng, 0, 1);
  Array idx = Filled<int64_t>(DType::kInt64, {1 << 16}, rng, 0, 1 << 20);
  Array upd = Filled<float>(DType::kFloat32, {1 << 16}, rng, 0, 1);
  ScatterRequest r;
  r.operands = {big.view()};
  r.indices = idx.view();
  r.updates = {upd.view()};
  r.dims.inserted_window_dims = {0};
  r.dims.scatter_dims_to_operand_dims = {0};
  r.dims.index_vector_dim = 1;
  r.combiner = &GetUfunc("add");
  EXPECT_EQ(Scatter(r).plan, ScatterPlan::kElement);  // the typed fast path, at any size
  r.force_plan = ScatterPlan::kPartitioned;
  EXPECT_EQ(Scatter(r).plan, ScatterPlan::kPartitioned);
  r.force_plan = ScatterPlan::kAuto;
  Array small = Filled<float>(DType::kFloat32, {100}, rng, 0, 1);
  Array sidx = Filled<int64_t>(DType::kInt64, {50}, rng, 0, 100);
  r.operands = {small.view()};
  r.indices = sidx.view();
  r.updates = {ArrayView{upd.data(), DType::kFloat32, {50}, {4}}};
  EXPECT_EQ(Scatter(r).plan, ScatterPlan::kElement);
  Array rows = Filled<float>(DType::kFloat32, {10, 64}, rng, 0, 1);
  Array ridx = Filled<int64_t>(DType::kInt64, {5}, rng, 0, 10);
  Array rupd = Filled<float>(DType::kFloat32, {5, 64}, rng, 0, 1);
  r.operands = {rows.view()};
  r.indices = ridx.view();
  r.updates = {rupd.view()};
  r.dims.update_window_dims = {1};
  EXPECT_EQ(Scatter(r).plan, ScatterPlan::kRows);
  EXPECT_EQ(Scatter(r).source, IndexSource::kColumn);
  r.force_plan = ScatterPlan::kWindowRuns;  // the same rows through the walker
  EXPECT_EQ(Scatter(r).plan, ScatterPlan::kWindowRuns);
  EXPECT_EQ(Scatter(r).source, IndexSource::kWalker);
  r.force_plan = ScatterPlan::kAuto;
  Array f64 = Filled<double>(DType::kFloat64, {5, 64}, rng, 0, 1);
  r.updates = {f64.view()};
  EXPECT_EQ(Scatter(r).plan, ScatterPlan::kGeneric);
}

// Random layouts: batching dims, index_vector_dim anywhere, windows, index
// dtypes, strided operands, every plan and policy against the reference.
TEST(Scatter, RandomRequestsMatchReference) {
  std::mt19937 rng(3);
  const DType index_types[] = {DType::kInt8, DType::kUInt8, DType::kInt32, DType::kUInt64,
                               DType::kInt64};
  for (int trial = 0; trial < 150; ++trial) {
    // operand (B, X, Y): batching dim 0 (sometimes), scatter into X, window Y.
    const bool batching = trial % 3 == 0;
    const int64_t B = 2, X = 3 + trial % 5, Y = 1 + trial % 4, R = 1 + trial % 6;
    const int64_t win = 1 + (trial / 2) % Y;
    const int64_t ivd_choice = trial % 3;  // index vector dim before, after, or absent
    Array op = Filled<double>(DType::kFloat64, {B, X, Y}, rng, -5, 5);
    ScatterRequest r;
    r.combiner = trial % 4 == 0 ? nullptr : &GetUfunc(trial % 4 == 1 ? "add" : trial % 4 == 2 ? "maximum" : "multiply");
    Shape idx_shape, upd_shape;
    if (batching) {
      // indices (B, R[, 1]): row dims (B, R); updates (B, R, win)
      r.dims.input_batching_dims = {0};
      r.dims.inserted_window_dims = {1};
      r.dims.scatter_dims_to_operand_dims = {1};
      r.dims.update_window_dims = {2};
      if (ivd_choice == 2) {
        idx_shape = {B, R};
        r.dims.index_vector_dim = 2;
      } else {
        idx_shape = {B, R, 1};
        r.dims.index_vector_dim = 2;
      }
      r.dims.scatter_indices_batching_dims = {0};
      upd_shape = {B, R, win};
    } else {
      // indices: (2, R) with ivd 0, (R, 2) with ivd 1; scatter into (B, X)
      r.dims.inserted_window_dims = {0, 1};
      r.dims.scatter_dims_to_operand_dims = {0, 1};
      if (ivd_choice == 0) {
        idx_shape = {2, R};
        r.dims.index_vector_dim = 0;
      } else {
        idx_shape = {R, 2};
        r.dims.index_vector_dim = 1;
      }
      r.dims.update_window_dims = {1};
      upd_shape = {R, win};
    }
    const DType it = index_types[trial % 5];
    Array idx(it, idx_shape);
    std::uniform_int_distribution<int> pick(-2, static_cast<int>(X) + 1);
    VisitDType(it, [&](auto tag) {
      using T = typename decltype(tag)::type;
      for (int64_t i = 0; i < idx.size(); ++i) {
        int v = pick(rng);
        if (std::is_unsigned_v<T> && v < 0) v = 200;  // large, never sign-extended
        StoreElem<T>(idx.data() + i * sizeof(T), static_cast<T>(v));
      }
      return 0;
    });
    Array upd = Filled<double>(DType::kFloat64, upd_shape, rng, -5, 5);
    r.indices = idx.view();
    r.updates = {upd.view()};
    SCOPED_TRACE("trial " + std::to_string(trial));
    CheckAllPlans(r, op);
  }
}

TEST(Scatter, ConstraintErrorsLeaveOperandUnchanged) {
  Array op(DType::kFloat32, {4, 5});
  std::fill(op.typed<float>(), op.typed<float>() + 20, 1.0f);
  Array idx(DType::kInt32, {3, 1});
  for (int i = 0; i < 3; ++i) idx.typed<int32_t>()[i] = i;
  Array upd(DType::kFloat32, {3, 5});
  ScatterRequest r;
  r.operands = {op.view()};
  r.indices = idx.view();
  r.updates = {upd.view()};
  r.dims.update_window_dims = {1};
  r.dims.inserted_window_dims = {0};
  r.dims.scatter_dims_to_operand_dims = {0};
  r.dims.index_vector_dim = 1;
  r.combiner = &GetUfunc("add");
  auto expect_error = [&](ScatterRequest bad, const char* fragment) {
    try {
      Scatter(bad);
      ADD_FAILURE() << "no error for " << fragment;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
    for (int i = 0; i < 20; ++i) ASSERT_EQ(op.typed<float>()[i], 1.0f);
  };
  ScatterRequest b = r;
  b.dims.update_window_dims = {1, 1};
  expect_error(b, "C7");
  b = r;
  b.dims.inserted_window_dims = {2};
  expect_error(b, "C11");
  b = r;
  b.dims.scatter_dims_to_operand_dims = {0, 1};
  expect_error(b, "C19");
  b = r;
  b.dims.index_vector_dim = 3;
  expect_error(b, "C22");
  b = r;
  b.dims.inserted_window_dims = {};
  expect_error(b, "C2");  // rank(inputs[0]) = size(update_window_dims) + size(inserted_...) + ...
  b = r;
  b.operands = {};
  b.updates = {};
  expect_error(b, "C5");  // 0 < size(inputs) = size(updates) = N
  Array op2(DType::kFloat32, {4, 6});
  b = r;
  b.operands = {op.view(), op2.view()};
  b.updates = {upd.view(), upd.view()};
  b.combiner = nullptr;
  expect_error(b, "C1");  // same(shape(inputs...))
  Array upd2(DType::kFloat32, {3, 4});
  b = r;
  b.operands = {op.view(), op.view()};
  b.updates = {upd.view(), upd2.view()};
  b.combiner = nullptr;
  expect_error(b, "C3");  // same(shape(updates...))
  b = r;
  b.dims.update_window_dims = {};
  b.dims.inserted_window_dims = {0, 1};
  b.dims.scatter_dims_to_operand_dims = {0};
  expect_error(b, "C4");  // shape(updates[0]) = update scatter dims + update window dims
  b = r;
  b.combiner = &GetUfunc("divmod");
  expect_error(b, "nin");
  Array fidx(DType::kFloat32, {3, 1});
  b = r;
  b.indices = fidx.view();
  expect_error(b, "integer dtype");
  idx.typed<int32_t>()[2] = 9;
  b = r;
  b.bounds = Bounds::kRaise;
  expect_error(b, "out of bounds");
}

TEST(Scatter, UnaryCombinerInitAndMean) {
  Array op(DType::kInt64, {5});
  for (int i = 0; i < 5; ++i) op.typed<int64_t>()[i] = 10 * (i + 1);
  Array idx(DType::kInt64, {4});
  const int64_t iv[] = {1, 3, 1, 1};
  std::copy(iv, iv + 4, idx.typed<int64_t>());
  ScatterRequest r;
  r.operands = {op.view()};
  r.indices = idx.view();
  r.dims.inserted_window_dims = {0};
  r.dims.scatter_dims_to_operand_dims = {0};
  r.dims.index_vector_dim = 1;
  r.combiner = &GetUfunc("negative");  // negative.at(a, [1, 3, 1, 1])
  Scatter(r);
  const int64_t want[] = {10, -20, 30, -40, 50};
  for (int i = 0; i < 5; ++i) EXPECT_EQ(op.typed<int64_t>()[i], want[i]);
  // mean with include_self=False: sum / count; ints floor-divide.
  Array upd(DType::kInt64, {4});
  const int64_t uv[] = {1, 7, -4, 2};
  std::copy(uv, uv + 4, upd.typed<int64_t>());
  Array zero(DType::kInt64, {});
  *zero.typed<int64_t>() = 0;
  r.combiner = &GetUfunc("add");
  r.updates = {upd.view()};
  r.init = Init::kValueAtHits;
  r.init_values = {zero.view()};
  r.finalize = Finalize::kMean;
  Scatter(r);
  EXPECT_EQ(op.typed<int64_t>()[1], -1);  // (1 - 4 + 2) / 3 = -1/3 -> floor -1
  EXPECT_EQ(op.typed<int64_t>()[3], 7);
  EXPECT_EQ(op.typed<int64_t>()[0], 10);
}

}  // namespace
}  // namespace ufuncx

namespace ufuncx {
namespace {

// Found by the fuzz target: clipping into an operand dim of size 0 must
// write nothing (there is no position to clamp to), and raise must raise.
TEST(Scatter, ClipIntoZeroSizeDimWritesNothing) {
  Array op(DType::kInt32, {0, 3});
  Array idx(DType::kInt64, {2, 1});
  idx.typed<int64_t>()[0] = 0;
  idx.typed<int64_t>()[1] = -1;
  Array upd(DType::kInt32, {2, 3});
  ScatterRequest r;
  r.operands = {op.view()};
  r.indices = idx.view();
  r.updates = {upd.view()};
  r.dims.update_window_dims = {1};
  r.dims.inserted_window_dims = {0};
  r.dims.scatter_dims_to_operand_dims = {0};
  r.dims.index_vector_dim = 1;
  r.combiner = &GetUfunc("add");
  for (Bounds b : {Bounds::kClip, Bounds::kSkipElement, Bounds::kSkipWindow}) {
    r.bounds = b;
    const ScatterReport rep = Scatter(r);
    EXPECT_EQ(rep.updates_applied, 0);
  }
  r.bounds = Bounds::kRaise;
  EXPECT_THROW(Scatter(r), IndexError);
}

}  // namespace
}  // namespace ufuncx

#include "ufuncx/frontends.h"

namespace ufuncx {
namespace {

TEST(FrontEnds, SmallAtCallsEqualThePlanners) {
  // At's small-call path (up to 256 indices) against the planner's element
  // plan on the same update sequence split in two calls of 257 (planner)
  // and one of 256 (small path): int32 indices with repeats and negatives.
  std::mt19937 gen(7);
  std::uniform_int_distribution<int> pick(-50, 49);
  Array idx(DType::kInt32, {256});
  Array upd(DType::kFloat64, {256});
  for (int i = 0; i < 256; ++i) {
    idx.typed<int32_t>()[i] = pick(gen);
    upd.typed<double>()[i] = 0.1 * pick(gen);
  }
  Array small = Array::Zeros(DType::kFloat64, {50});
  const ArrayView ix[] = {idx.view()};
  At(GetUfunc("add"), small.view(), ix, &upd.view());
  Array planned = Array::Zeros(DType::kFloat64, {50});
  ScatterRequest r;
  r.operands = {planned.view()};
  ArrayView column = idx.view();
  column.shape = {256, 1};
  column.strides = {4, 4};
  r.indices = column;
  r.updates = {upd.view()};
  r.dims.inserted_window_dims = {0};
  r.dims.scatter_dims_to_operand_dims = {0};
  r.dims.index_vector_dim = 1;
  r.combiner = &GetUfunc("add");
  r.bounds = Bounds::kWrapThenRaise;
  Scatter(r);
  for (int i = 0; i < 50; ++i) EXPECT_EQ(small.typed<double>()[i], planned.typed<double>()[i]) << i;
  idx.typed<int32_t>()[255] = 50;  // the last index out of bounds: nothing written
  Array before = Array::CopyOf(small.view());
  EXPECT_THROW(At(GetUfunc("add"), small.view(), ix, &upd.view()), IndexError);
  EXPECT_EQ(std::memcmp(before.data(), small.data(), 50 * sizeof(double)), 0);
}

TEST(FrontEnds, AtTorchlikeAsctile) {
  // add.at(a, [0, 2, 2, -1], 1.5)
  Array a = Array::Zeros(DType::kFloat64, {4});
  Array idx(DType::kInt64, {4});
  const int64_t iv[] = {0, 2, 2, -1};
  std::copy(iv, iv + 4, idx.typed<int64_t>());
  Array b(DType::kFloat64, {});
  *b.typed<double>() = 1.5;
  const ArrayView ix[] = {idx.view()};
  At(GetUfunc("add"), a.view(), ix, &b.view());
  const double want[] = {1.5, 0, 3.0, 1.5};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(a.typed<double>()[i], want[i]);
  idx.typed<int64_t>()[1] = 9;
  EXPECT_THROW(At(GetUfunc("add"), a.view(), ix, &b.view()), IndexError);
  EXPECT_EQ(a.typed<double>()[0], 1.5);  // nothing written
  EXPECT_THROW(At(GetUfunc("add"), a.view(), ix, nullptr), ValueError);

  // torch docs: zeros(3, 5).scatter_(0, [[0, 1, 2, 0]], arange(1, 11).reshape(2, 5))
  Array self = Array::Zeros(DType::kInt64, {3, 5});
  Array src(DType::kInt64, {2, 5});
  for (int i = 0; i < 10; ++i) src.typed<int64_t>()[i] = i + 1;
  Array tidx(DType::kInt64, {1, 4});
  const int64_t tv[] = {0, 1, 2, 0};
  std::copy(tv, tv + 4, tidx.typed<int64_t>());
  torchlike::ScatterReduce(self.view(), 0, tidx.view(), src.view(), torchlike::Reduce::kNone);
  const int64_t expect[] = {1, 0, 0, 4, 0, 0, 2, 0, 0, 0, 0, 0, 3, 0, 0};
  for (int i = 0; i < 15; ++i) EXPECT_EQ(self.typed<int64_t>()[i], expect[i]);
  tidx.typed<int64_t>()[0] = -1;
  EXPECT_THROW(torchlike::ScatterReduce(self.view(), 0, tidx.view(), src.view(),
                                        torchlike::Reduce::kAdd),
               RuntimeError);

  // asctile: every other row of a [8, 2] dst
  Array dst = Array::Zeros(DType::kInt32, {8, 2});
  Array rows(DType::kInt32, {4, 2});
  for (int i = 0; i < 8; ++i) rows.typed<int32_t>()[i] = i / 2 + 1;
  Array ridx(DType::kInt16, {4});
  for (int i = 0; i < 4; ++i) ridx.typed<int16_t>()[i] = static_cast<int16_t>(2 * i);
  const int64_t off[] = {0};
  asctile::Scatter(rows.view(), 0, ridx.view(), dst.view(), off);
  for (int r = 0; r < 8; ++r) EXPECT_EQ(dst.typed<int32_t>()[2 * r], r % 2 ? 0 : r / 2 + 1);
  EXPECT_THROW(asctile::Scatter(rows.view(), 1, ridx.view(), dst.view(), std::vector<int64_t>{0, 0}),
               NotImplementedError);
}

// The Highway index pass against a scalar reference: every length around
// the vector widths, the facts at every position (a negative or
// out-of-range index last is the case a lane-count slip would miss).
template <class I>
void CheckScan(std::mt19937_64& rng) {
  for (int64_t n = 0; n <= 70; ++n) {
    for (int trial = 0; trial < 12; ++trial) {
      std::vector<I> v(static_cast<size_t>(n) + 1, I{0});  // one spare: never read
      for (int64_t i = 0; i < n; ++i) v[i] = static_cast<I>(static_cast<int64_t>(rng() % 9) - 2);
      if (n > 0 && trial % 3 == 1) v[n - 1] = static_cast<I>(-1);
      if (n > 0 && trial % 3 == 2) v[n - 1] = static_cast<I>(7);
      v[n] = static_cast<I>(100);
      for (const auto& [lo, hi] : {std::pair<int64_t, int64_t>{0, 7}, {-7, 7}, {-2, 9}, {0, 1}}) {
        internal::IndexScan want;
        for (int64_t i = 0; i < n; ++i) {
          want.in_range = want.in_range && v[i] >= lo && v[i] < hi;
          want.has_negative = want.has_negative || v[i] < 0;
          if (i + 1 < n) want.equal_neighbours += v[i] == v[i + 1];
        }
        const internal::IndexScan got = internal::ScanIndices(v.data(), n, lo, hi);
        ASSERT_EQ(got.in_range, want.in_range) << "n=" << n << " lo=" << lo;
        ASSERT_EQ(got.has_negative, want.has_negative) << "n=" << n;
        ASSERT_EQ(got.equal_neighbours, want.equal_neighbours) << "n=" << n;
      }
    }
  }
}

TEST(IndexScan, MatchesScalarReferenceOnEveryTarget) {
  std::mt19937_64 rng(7);
  for (int64_t target : internal::CompiledSimdTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    SCOPED_TRACE(hwy::TargetName(target));
    CheckScan<int64_t>(rng);
    CheckScan<int32_t>(rng);
  }
  hwy::SetSupportedTargetsForTest(0);
}

// The split scatter's writer pass keeps, in order, exactly the (wrapped)
// indices of its slice and their updates, on every target, for every count
// through a few vectors, with indices at the slice's edges, negative ones
// (wrapped or not) and the int64 extremes.
TEST(IndexScan, KeepSliceMatchesScalarReferenceOnEveryTarget) {
  std::mt19937_64 rng(11);
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  const int64_t size = 20;
  for (int64_t target : internal::CompiledSimdTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    SCOPED_TRACE(hwy::TargetName(target));
    for (int64_t n = 0; n <= 40; ++n) {
      std::vector<int64_t> idx(static_cast<size_t>(n));
      std::vector<uint64_t> upd(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) {
        const uint64_t r = rng();
        idx[i] = r % 11 == 0 ? kMin : r % 11 == 1 ? kMax : static_cast<int64_t>(r % 50) - 25;
        upd[i] = rng();
      }
      for (int64_t wrap : {int64_t{0}, size}) {
        for (const auto& [lo, span] : {std::pair<int64_t, int64_t>{0, 10}, {10, 10}, {0, 20}, {5, 1}}) {
          std::vector<int64_t> want_idx;
          std::vector<uint64_t> want_upd;
          for (int64_t i = 0; i < n; ++i) {
            const int64_t v = idx[i] < 0 && wrap ? idx[i] + wrap : idx[i];
            if (v >= lo && v - lo < span) want_idx.push_back(v), want_upd.push_back(upd[i]);
          }
          std::vector<int64_t> kept(static_cast<size_t>(n + internal::kKeepSliceSlack));
          std::vector<uint64_t> kept_upd(kept.size());
          const int64_t k = internal::KeepSlice64(idx.data(), upd.data(), n, wrap, lo, span,
                                                  kept.data(), kept_upd.data());
          ASSERT_EQ(k, static_cast<int64_t>(want_idx.size())) << "n=" << n << " lo=" << lo;
          for (int64_t j = 0; j < k; ++j) {
            ASSERT_EQ(kept[j], want_idx[j]) << "n=" << n << " j=" << j;
            ASSERT_EQ(kept_upd[j], want_upd[j]) << "n=" << n << " j=" << j;
          }
        }
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);
}

// One bounds policy: Land(), the one-index form the index column uses,
// agrees with Fit() for a window of extent 1 (the walker's form), under
// every policy, for indices in, around and far outside a dim; and both
// raise policies name the first bad index.
TEST(Scatter, BoundsPolicyLandIsFitOfExtentOne) {
  for (Bounds b : {Bounds::kSkipElement, Bounds::kSkipWindow, Bounds::kClip, Bounds::kRaise,
                   Bounds::kWrapThenRaise, Bounds::kUnchecked}) {
    const internal::BoundsPolicy policy(b);
    for (int64_t size : {0, 1, 5}) {
      for (int64_t v : {INT64_MIN, int64_t{-7}, int64_t{-5}, int64_t{-1}, int64_t{0}, int64_t{3},
                        int64_t{4}, int64_t{5}, int64_t{9}, INT64_MAX}) {
        for (bool window_dim : {false, true}) {
          const int64_t wrapped = policy.Wrap(v, size);
          int64_t start = wrapped, lo = 0, hi = 1;
          bool kept = false;
          try {
            kept = policy.Fit(&start, size, 1, window_dim, 2, &lo, &hi);
          } catch (const internal::ScatterIndexError& e) {
            ASSERT_TRUE(policy.raises());
            EXPECT_EQ(e.index, wrapped);
            EXPECT_EQ(e.dim, 2);
            EXPECT_EQ(e.size, size);
            EXPECT_EQ(policy.Land(wrapped, size), -1);  // (raise: checked before, so a race)
            continue;
          }
          EXPECT_EQ(policy.Land(wrapped, size), kept ? start : -1)
              << "bounds " << static_cast<int>(b) << " size " << size << " index " << v;
          if (kept) {
            EXPECT_EQ(lo, 0);
            EXPECT_EQ(hi, 1);
          }
        }
      }
    }
  }
}

// PartitionPoints (the partition step alone, as ufuncx.dask uses it) against
// a reference: for every block in order, the points that fall in it, in
// point order, with block-local coordinates; rows travel with their points.
TEST(PartitionPoints, StableByBlockWithLocalCoordinatesAndRows) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 60; ++trial) {
    const int64_t n = static_cast<int64_t>(rng() % 300), k = 1 + static_cast<int64_t>(rng() % 3);
    std::vector<BlockCuts> dims;
    std::vector<int64_t> extent(static_cast<size_t>(k), 0);
    for (int64_t j = 0; j < k; ++j) extent[j] = 1 + static_cast<int64_t>(rng() % 40);
    // Cut columns 0 .. k-1 in a shuffled subset; equal and unequal cuts.
    for (int64_t j = 0; j < k; ++j) {
      if (rng() % 3 == 0) continue;
      BlockCuts d;
      d.column = j;
      d.cuts = {0};
      const bool equal = rng() % 2;
      const int64_t step = 1 + static_cast<int64_t>(rng() % 9);
      while (d.cuts.back() < extent[j]) {
        d.cuts.push_back(std::min(extent[j], d.cuts.back() +
                                                 (equal ? step : 1 + static_cast<int64_t>(rng() % 9))));
      }
      dims.push_back(d);
    }
    if (rng() % 4 == 0) dims.push_back({-1, {0, 5, 10}});  // a dim no column cuts
    std::vector<int64_t> coords(static_cast<size_t>(n * k));
    for (int64_t i = 0; i < n * k; ++i) {
      const int64_t e = extent[i % k];
      coords[i] = static_cast<int64_t>(rng() % static_cast<uint64_t>(e + 6)) - 3;  // some outside
    }
    std::vector<double> rows(static_cast<size_t>(n * 2));
    for (auto& v : rows) v = static_cast<double>(rng() % 1000);
    for (bool local32 : {false, true}) {
      std::vector<int64_t> local64(static_cast<size_t>(n * k), -99);
      std::vector<int32_t> local32v(static_cast<size_t>(n * k), -99);
      std::vector<double> moved(rows.size(), -1);
      void* local = local32 ? static_cast<void*>(local32v.data()) : local64.data();
      PointBlocks got = PartitionPoints(coords.data(), n, k, dims, local, local32,
                                        {{reinterpret_cast<const char*>(rows.data()), 16,
                                          reinterpret_cast<char*>(moved.data())}});
      // Reference: the block of each point, then a stable sort by block.
      int64_t nblocks = 1;
      for (const auto& d : dims) nblocks *= static_cast<int64_t>(d.cuts.size()) - 1;
      std::vector<std::pair<int64_t, int64_t>> kept;  // (block, point)
      for (int64_t i = 0; i < n; ++i) {
        int64_t b = 0;
        bool in = true;
        for (const auto& d : dims) {
          const int64_t nb = static_cast<int64_t>(d.cuts.size()) - 1;
          int64_t pos = 0;
          if (d.column >= 0) {
            const int64_t c = coords[i * k + d.column];
            if (c < 0 || c >= d.cuts.back()) in = false;
            while (pos + 1 < nb && d.cuts[pos + 1] <= c) ++pos;
          }
          b = b * nb + pos;
        }
        if (in) kept.push_back({b, i});
      }
      std::stable_sort(kept.begin(), kept.end(),
                       [](auto& x, auto& y) { return x.first < y.first; });
      ASSERT_EQ(got.starts.size(), static_cast<size_t>(nblocks) + 1);
      ASSERT_EQ(got.order.size(), kept.size());
      for (size_t s = 0; s < kept.size(); ++s) {
        const auto [b, i] = kept[s];
        ASSERT_EQ(got.order[s], i);
        ASSERT_LE(got.starts[b], static_cast<int64_t>(s));
        ASSERT_LT(static_cast<int64_t>(s), got.starts[b + 1]);
        EXPECT_EQ(moved[2 * s], rows[2 * i]);
        EXPECT_EQ(moved[2 * s + 1], rows[2 * i + 1]);
        for (int64_t j = 0; j < k; ++j) {
          int64_t shift = 0;
          int64_t rest = b;
          for (size_t d = dims.size(); d-- > 0;) {
            const int64_t nb = static_cast<int64_t>(dims[d].cuts.size()) - 1;
            if (dims[d].column == j) shift = dims[d].cuts[rest % nb];
            rest /= nb;
          }
          const int64_t want = coords[i * k + j] - shift;
          EXPECT_EQ(local32 ? local32v[s * k + j] : local64[s * k + j], want);
        }
      }
    }
  }
}

// The bounds rules the partition step applies itself (ufunc.at's, as
// ufuncx.dask passes them): negatives wrap once, then a coordinate outside
// the extent raises NumPy's IndexError before anything is written, or is
// dropped when the column does not raise.
TEST(PartitionPoints, WrapsNegativesAndRaisesOrDropsOutOfBounds) {
  const int64_t coords[] = {3, -1, 0, -7, 5, 2, -2, 9};  // 4 points, 2 columns
  const std::vector<BlockCuts> dims = {{0, {0, 4, 7}, true, true}, {1, {0, 5, 10}, true, true}};
  int32_t local[8];
  std::fill(std::begin(local), std::end(local), -99);
  PointBlocks got = PartitionPoints(coords, 4, 2, dims, local, true);
  // wrapped: (3, 9) block (0, 1); (0, 3) block (0, 0); (5, 2) block (1, 0);
  // (5, 9) block (1, 1).
  EXPECT_EQ(got.order, (std::vector<int64_t>{1, 0, 2, 3}));
  EXPECT_EQ(got.starts, (std::vector<int64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(std::vector<int32_t>(local, local + 8), (std::vector<int32_t>{0, 3, 3, 4, 1, 2, 1, 4}));
  const int64_t bad[] = {1, 1, 2, 10, 3, 3};
  int32_t untouched[6] = {-5, -5, -5, -5, -5, -5};
  try {
    PartitionPoints(bad, 3, 2, dims, untouched, true);
    FAIL() << "no IndexError";
  } catch (const IndexError& e) {
    EXPECT_STREQ(e.what(), "index 10 is out of bounds for axis 1 with size 10");
  }
  for (int32_t v : untouched) EXPECT_EQ(v, -5);
  const int64_t neg[] = {-8, 0};
  try {
    PartitionPoints(neg, 1, 2, dims, untouched, true);
    FAIL() << "no IndexError";
  } catch (const IndexError& e) {
    EXPECT_STREQ(e.what(), "index -8 is out of bounds for axis 0 with size 7");
  }
  // Not raising: dropped (and a wrap only once: -15 stays outside).
  const std::vector<BlockCuts> drop = {{0, {0, 4, 7}, true, false}};
  const int64_t some[] = {-15, 6, 7, -7};
  int64_t local64[4];
  got = PartitionPoints(some, 4, 1, drop, local64, false);
  EXPECT_EQ(got.order, (std::vector<int64_t>{3, 1}));
  EXPECT_EQ(local64[0], 0);
  EXPECT_EQ(local64[1], 2);
}

// One column, one cut, one 8-byte row or none and no order asked: the
// passes ufuncx.dask's at() takes (their own code). They must give the
// general passes' result - same starts, coordinates and moved rows - for
// equal and unequal cuts, up to 300 blocks (16-bit block ids), wrapping,
// dropping and raising (the same message, nothing written).
TEST(PartitionPoints, OneColumnPassesAgreeWithTheGeneralOnes) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 200; ++trial) {
    const int64_t n = static_cast<int64_t>(rng() % 2000);
    const int64_t extent = 1 + static_cast<int64_t>(rng() % 3000);
    BlockCuts d;
    d.column = 0;
    d.wrap = rng() % 2;
    d.raise = rng() % 3 == 0;
    d.cuts = {0};
    const bool equal = rng() % 2;
    const int64_t step = 1 + static_cast<int64_t>(rng() % (trial % 4 == 0 ? 10 : 400));
    while (d.cuts.back() < extent) {
      d.cuts.push_back(std::min(extent, d.cuts.back() +
                                            (equal ? step : 1 + static_cast<int64_t>(rng() % 50))));
    }
    std::vector<int64_t> coords(static_cast<size_t>(n));
    const bool outside = rng() % 2;
    for (auto& c : coords) {
      c = static_cast<int64_t>(rng() % static_cast<uint64_t>(2 * extent)) - extent;  // wraps
      if (outside && rng() % 50 == 0) c += (rng() % 2 ? 3 : -3) * extent;
    }
    std::vector<double> rows(static_cast<size_t>(n));
    for (auto& v : rows) v = static_cast<double>(rng() % 100000);
    const bool with_row = rng() % 2;
    for (bool local32 : {false, true}) {
      std::vector<int64_t> l64(static_cast<size_t>(n), -99), r64(l64);
      std::vector<int32_t> l32(static_cast<size_t>(n), -99), r32(l32);
      std::vector<double> moved(rows.size(), -1), ref_moved(rows.size(), -1);
      auto row_of = [&](std::vector<double>& out) {
        return std::vector<PointRows>{{reinterpret_cast<const char*>(rows.data()), 8,
                                       reinterpret_cast<char*>(out.data())}};
      };
      void* local = local32 ? static_cast<void*>(l32.data()) : l64.data();
      void* ref_local = local32 ? static_cast<void*>(r32.data()) : r64.data();
      std::string err, ref_err;
      PointBlocks got, ref;
      try {
        got = PartitionPoints(coords.data(), n, 1, {d}, local, local32,
                              with_row ? row_of(moved) : std::vector<PointRows>{}, false);
      } catch (const IndexError& e) {
        err = e.what();
      }
      try {  // (an order asked: the general passes)
        ref = PartitionPoints(coords.data(), n, 1, {d}, ref_local, local32,
                              with_row ? row_of(ref_moved) : std::vector<PointRows>{}, true);
      } catch (const IndexError& e) {
        ref_err = e.what();
      }
      ASSERT_EQ(err, ref_err);
      if (!err.empty()) {
        EXPECT_EQ(l64, std::vector<int64_t>(static_cast<size_t>(n), -99));
        EXPECT_EQ(l32, std::vector<int32_t>(static_cast<size_t>(n), -99));
        continue;
      }
      EXPECT_TRUE(got.order.empty());
      ASSERT_EQ(got.starts, ref.starts);
      EXPECT_EQ(l64, r64);
      EXPECT_EQ(l32, r32);
      EXPECT_EQ(moved, ref_moved);
    }
  }
}

TEST(PartitionPoints, Int32CoordinatesSaturateOutOfRangeAndBadCutsThrow) {
  const int64_t coords[] = {5, int64_t{1} << 40, 2, -(int64_t{1} << 40)};
  int32_t local[4];
  // column 0 cut into [0, 10); column 1 uncut (its values only made int32)
  PointBlocks got = PartitionPoints(coords, 2, 2, {{0, {0, 10}}}, local, true);
  ASSERT_EQ(got.order, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(local[1], std::numeric_limits<int32_t>::max());
  EXPECT_EQ(local[3], std::numeric_limits<int32_t>::min());
  EXPECT_THROW(PartitionPoints(coords, 2, 2, {{0, {1, 10}}}, local, true), ValueError);
  EXPECT_THROW(PartitionPoints(coords, 2, 2, {{0, {0, 10, 5}}}, local, true), ValueError);
  EXPECT_THROW(PartitionPoints(coords, 2, 2, {{2, {0, 10}}}, local, true), ValueError);
}

}  // namespace
}  // namespace ufuncx
