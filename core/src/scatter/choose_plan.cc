// ChoosePlan: the one place that picks a scatter plan and its index source.
#include <optional>

#include "scatter/plans.h"
#include "ufuncx/ufunc.h"

namespace ufuncx::internal {

const Loop* ExactLoop(const ScatterRequest& r) {
  if (!r.combiner) return nullptr;
  const int n = static_cast<int>(r.operands.size());
  for (const Loop& l : r.combiner->loops()) {
    bool ok = true;
    for (int k = 0; k < n && ok; ++k) {
      ok = l.types[k] == r.operands[k].dtype && l.types[r.combiner->nin() + k] == r.operands[k].dtype;
      if (r.combiner->nin() == 2 * n) ok = ok && l.types[n + k] == r.updates[k].dtype;
    }
    if (ok) return &l;
  }
  return nullptr;
}

const Loop& ResolvedLoop(const ScatterRequest& r) {
  std::vector<DType> in;
  for (const ArrayView& o : r.operands) in.push_back(o.dtype);
  if (r.combiner->nin() == 2 * static_cast<int>(r.operands.size())) {
    for (const ArrayView& u : r.updates) in.push_back(u.dtype);
  }
  return r.combiner->ResolveLoop(in, CallOptions{});
}

bool ReorderKeysFit(int64_t updates, int64_t destinations) {
  int slot_bits = 1, dest_bits = 1;
  while ((int64_t{1} << slot_bits) < updates) ++slot_bits;
  while ((int64_t{1} << dest_bits) < destinations) ++dest_bits;
  return slot_bits + dest_bits <= 63;
}

namespace {

// The one run of a row scatter's window (a window that is one run in both
// the operand and the updates), or nullopt when the request has another
// shape.
std::optional<RowRun> RowScatterRun(const ScatterRequest& r, const CanonicalScatter& c,
                                    const Loop* loop) {
  if (!IsIndexColumn(r, c) || c.window_size <= 1 || c.window_extent[c.start_operand_dim[0]] != 1) {
    return std::nullopt;
  }
  if (r.combiner && (!loop || r.combiner->nin() != 2)) return std::nullopt;
  // Coalesce the window dims (size-1 dims aside) into one run, inner first.
  RowRun run{1, 0, 0};
  bool first = true;
  for (int i = static_cast<int>(c.window_shape.size()) - 1; i >= 0; --i) {
    const int64_t extent = c.window_shape[i];
    if (extent == 1) continue;
    const int64_t os = r.operands[0].strides[c.window_operand_dim[i]];
    const int64_t us = c.window_update_strides[0][i];
    if (first) {
      run = RowRun{extent, os, us};
      first = false;
    } else if (os == run.len * run.op_step && us == run.len * run.upd_step) {
      run.len *= extent;
    } else {
      return std::nullopt;
    }
  }
  if (run.op_step == 0) return std::nullopt;  // a repeated destination within the row
  return run;
}

bool IsElementPlan(ScatterPlan p) {
  return p == ScatterPlan::kElement || p == ScatterPlan::kPartitioned ||
         p == ScatterPlan::kSortedParallel || p == ScatterPlan::kLocalTarget;
}

}  // namespace

PlanChoice ChoosePlan(const ScatterRequest& r, const CanonicalScatter& c, const Loop* exact) {
  const ScatterPlan p = r.force_plan;
  const int n = c.num_operands;
  const bool unary = r.combiner && r.combiner->nin() == n;
  // Replacing with updates of the operand's dtype, or combining with a loop
  // of exactly the arrays' dtypes: no casts, so every plan but generic fits.
  const bool same_replace = !r.combiner && n == 1 && r.updates.size() == 1 &&
                            r.updates[0].dtype == r.operands[0].dtype;
  const bool fast = n == 1 && (same_replace || exact != nullptr);
  const bool indexed = same_replace || (exact && exact->slots.indexed);
  const bool element_ok = fast && indexed && !unary && c.window_size <= 1;
  const int sort_threads = r.max_threads;

  // The index column: one index per update, or per row of one run, read as
  // its own type, when nothing else (init values, mean) needs the walker.
  if (fast && !unary && r.init == Init::kIncludeTarget && r.finalize == Finalize::kNone &&
      IsIndexColumn(r, c)) {
    const bool element_shape = element_ok && c.window_size == 1;
    // Measured (benchmarks/scatter.py): the element plan beats the
    // partitioned and sorted plans at every target size up to 1e7 elements
    // on the 2-core development machine, so auto takes it.
    if ((p == ScatterPlan::kAuto || p == ScatterPlan::kElement) && element_shape &&
        r.bounds != Bounds::kUnchecked) {
      return {ScatterPlan::kElement, IndexSource::kColumn, {}, 1};
    }
    if ((p == ScatterPlan::kPartitioned || p == ScatterPlan::kSortedParallel) && element_shape &&
        ReorderKeysFit(c.num_rows, c.operand_shape[c.start_operand_dim[0]])) {
      return {p, IndexSource::kColumn, {}, p == ScatterPlan::kSortedParallel ? sort_threads : 1};
    }
    if (p == ScatterPlan::kAuto || p == ScatterPlan::kRows) {
      if (const std::optional<RowRun> run = RowScatterRun(r, c, exact)) {
        return {ScatterPlan::kRows, IndexSource::kColumn, *run, 1};
      }
    }
  }

  // torch's scatter along a dim: batching dims, one index per update, the
  // element plan with destinations computed from strides, not walked.
  if ((p == ScatterPlan::kAuto || p == ScatterPlan::kElement) && element_ok &&
      r.init == Init::kIncludeTarget && r.finalize == Finalize::kNone && IsBatchedColumn(r, c)) {
    return {ScatterPlan::kElement, IndexSource::kColumn, {}, 1};
  }

  // The walker: any request.
  const int64_t num_updates = c.num_rows * c.window_size;
  const int64_t target_elems = ShapeSize(c.operand_shape);
  const int64_t target_bytes = target_elems * static_cast<int64_t>(r.operands[0].itemsize());
  ScatterPlan plan = p;
  if (plan == ScatterPlan::kAuto) {
    if (!fast) {
      plan = ScatterPlan::kGeneric;
    } else if (!element_ok) {
      plan = ScatterPlan::kWindowRuns;
    } else if (target_bytes > kL2Bytes && num_updates >= kParallelMinUpdates) {
      plan = num_updates >= (int64_t{1} << 20) && r.max_threads >= 2 ? ScatterPlan::kSortedParallel
                                                                     : ScatterPlan::kPartitioned;
    } else if (!r.operands[0].IsCContiguous() && target_bytes <= kL2Bytes / 4 &&
               num_updates * 4 >= target_elems) {
      plan = ScatterPlan::kLocalTarget;
    } else {
      plan = ScatterPlan::kElement;
    }
  }
  // A forced plan that does not apply falls back to the nearest that does
  // (tests force every plan on every request).
  if ((IsElementPlan(plan) && !element_ok) || plan == ScatterPlan::kRows) {
    plan = fast ? ScatterPlan::kWindowRuns : ScatterPlan::kGeneric;
  }
  if (plan == ScatterPlan::kWindowRuns && !fast) plan = ScatterPlan::kGeneric;
  if ((plan == ScatterPlan::kPartitioned || plan == ScatterPlan::kSortedParallel) &&
      !ReorderKeysFit(num_updates, target_elems)) {
    plan = ScatterPlan::kElement;
  }
  const int threads = plan == ScatterPlan::kSortedParallel ? sort_threads : 1;
  return {plan, IndexSource::kWalker, {}, threads};
}

}  // namespace ufuncx::internal
