// The scatter plans and the one place that chooses among them (internal).
//
// planner.cc canonicalises a request, asks ChoosePlan() for a plan and its
// index source, and runs it. Each plan has its own file:
//   plan_element.cc      element updates in order, batched into the loop's
//                        indexed slot (and local_target: the same on a copy)
//   plan_rows.cc         one index per row of one run: the rows slot
//   plan_window_runs.cc  any window: the loop over each innermost run
//   plan_reordered.cc    partitioned / sorted by destination block
//   plan_generic.cc      element by element with casts (and the init and
//                        mean passes of scatter_reduce)
// A plan reads indices from an IndexColumn (typed, one index per update
// row) or a Walker (any request); index_source.h has both, bounds.h the one
// bounds policy they share. Every plan gives the sequential result bit for
// bit.
#pragma once

#include <cstdint>

#include "loop_calls.h"
#include "scatter/canonical.h"
#include "scatter/index_source.h"
#include "ufuncx/loop.h"
#include "ufuncx/scatter.h"

namespace ufuncx::internal {

constexpr int64_t kL2Bytes = int64_t{1} << 20;
constexpr int64_t kChunk = 256;  // offsets per batch: stays in L1 beside the target
constexpr int64_t kParallelMinUpdates = int64_t{1} << 16;  // below: one thread

// What a plan works with: the request, its canonical form, and the loop
// whose dtypes the operand and updates already have (nullptr: replace).
struct PlanInputs {
  const ScatterRequest& r;
  const CanonicalScatter& c;
  const Loop* loop;
  LoopContext ctx;
};

// The one run of a row scatter's window, in operand and update bytes.
struct RowRun {
  int64_t len = 0, op_step = 0, upd_step = 0;
};

struct PlanChoice {
  ScatterPlan plan = ScatterPlan::kGeneric;
  IndexSource source = IndexSource::kWalker;
  RowRun rows;      // kRows
  int threads = 1;  // kPartitioned, kSortedParallel
};

// The loop a request combines with when operands and updates already have
// its dtypes (then every plan but generic applies); nullptr otherwise.
const Loop* ExactLoop(const ScatterRequest& r);
// The loop NumPy's at would use: resolved from (operand, update) dtypes.
const Loop& ResolvedLoop(const ScatterRequest& r);

// The plan for a request (r.force_plan when it applies, else the nearest
// that does), from its shape, dtypes and sizes.
PlanChoice ChoosePlan(const ScatterRequest& r, const CanonicalScatter& c, const Loop* exact);

// The plans. Column variants check indices under the raise policies first
// and return the updates they dropped; walker variants run after the
// walker's check pass, and the walker counts what it drops.
// ufunc.at's smallest calls, before any request is built: one 1-D index
// array of at most kTinyAtUpdates int64 or int32 indices into a contiguous
// 1-D target, updates of the target's dtype (one value or one per index),
// a loop of exactly those types with an indexed slot that cannot fail, and
// no operand sharing memory with the target. Every index is checked (and
// negatives wrapped) into a local buffer before the slot writes, so an
// IndexError leaves the target as it was. Returns false, having done
// nothing, for any other call (the planner then takes it). Building and
// canonicalizing a request cost about 2 us, where NumPy's whole add.at of
// 3 updates takes 0.7.
constexpr int64_t kTinyAtUpdates = 256;
bool TinyAt(const Ufunc& u, const ArrayView& a, const ArrayView& idx, const ArrayView& b);

int64_t RunElement(const PlanInputs& in);
void RunElement(const PlanInputs& in, Walker& walker);
int64_t RunLocalTarget(const PlanInputs& in);
int64_t RunRows(const PlanInputs& in, const RowRun& run);
void RunWindowRuns(const PlanInputs& in, Walker& walker);
int64_t RunReordered(const PlanInputs& in, bool sort, int threads);
void RunReordered(const PlanInputs& in, Walker& walker, bool sort, int threads);
void RunGeneric(const ScatterRequest& r, Walker& walker);
void ApplyInit(const ScatterRequest& r, Walker& walker);
void ApplyMean(const ScatterRequest& r, const CanonicalScatter& c, Walker& walker);

// Reordering keys are destination << bits | slot in 64 bits.
bool ReorderKeysFit(int64_t updates, int64_t destinations);

// An index that was valid when every index was checked and is out of
// bounds when it is read again for its write: another thread rewrote the
// index array during the call. Its updates are unspecified (a data race);
// no write leaves the target.
[[noreturn]] void ThrowIndexChanged();

}  // namespace ufuncx::internal
