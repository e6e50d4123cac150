// The scatter planner: validates a request, chooses a plan and its index
// source (choose_plan.cc), and runs it. Every index is resolved under the
// bounds policy before any write, and every plan applies updates to each
// destination in update order, so all of them give the sequential
// (StableHLO interpreter) result bit for bit. plans.h maps the plan files.
#include <vector>

#include "scatter/plans.h"
#include "ufuncx/error.h"
#include "ufuncx/scatter.h"

namespace ufuncx {

const char* PlanName(ScatterPlan p) {
  switch (p) {
    case ScatterPlan::kAuto: return "auto";
    case ScatterPlan::kWindowRuns: return "window_runs";
    case ScatterPlan::kElement: return "element";
    case ScatterPlan::kLocalTarget: return "local_target";
    case ScatterPlan::kPartitioned: return "partitioned";
    case ScatterPlan::kSortedParallel: return "sorted_parallel";
    case ScatterPlan::kGeneric: return "generic";
    case ScatterPlan::kRows: return "rows";
  }
  return "?";
}

const char* IndexSourceName(IndexSource s) {
  return s == IndexSource::kColumn ? "column" : "walker";
}

namespace {

using namespace internal;  // NOLINT: the plans

ScatterReport ScatterUnguarded(const ScatterRequest& r) {
  const CanonicalScatter c = Canonicalize(r);
  const Loop* exact = ExactLoop(r);
  // NumPy's at resolves the loop before it looks at an index: a missing
  // loop is a TypeError even when an index is out of bounds.
  if (r.combiner && !exact) (void)ResolvedLoop(r);
  const PlanChoice choice = ChoosePlan(r, c, exact);
  const PlanInputs in{r, c, exact, LoopContext{r.combiner ? r.combiner->name().c_str() : ""}};
  const int64_t num_updates = c.num_rows * c.window_size;
  ScatterReport report;
  report.plan = choice.plan;
  report.source = choice.source;
  if (num_updates == 0 && c.num_rows > 0 &&
      (r.bounds == Bounds::kRaise || r.bounds == Bounds::kWrapThenRaise)) {
    // Empty windows: nothing to write, but every index is still checked
    // (NumPy's at checks an index array beside an empty slice).
    Walker(r, c).Run(true, [](const Element&) {});
    return report;
  }
  if (choice.source == IndexSource::kColumn) {
    switch (choice.plan) {
      case ScatterPlan::kElement: report.updates_skipped = RunElement(in); break;
      case ScatterPlan::kRows: report.updates_skipped = RunRows(in, choice.rows); break;
      default:  // kPartitioned, kSortedParallel
        report.updates_skipped = RunReordered(in, choice.plan == ScatterPlan::kSortedParallel,
                                              choice.threads);
        break;
    }
    report.updates_applied = num_updates - report.updates_skipped;
    return report;
  }
  Walker walker(r, c);
  // Every index is checked before the first write.
  if (r.bounds == Bounds::kRaise || r.bounds == Bounds::kWrapThenRaise) {
    walker.Run(true, [](const Element&) {});
  }
  if (!r.combiner && static_cast<int>(r.updates.size()) != c.num_operands) {
    throw ValueError("scatter: replacing needs one updates array per operand");
  }
  if (r.init == Init::kValueAtHits) ApplyInit(r, walker);
  int64_t skipped = -1;
  switch (choice.plan) {
    case ScatterPlan::kGeneric: RunGeneric(r, walker); break;
    case ScatterPlan::kWindowRuns: RunWindowRuns(in, walker); break;
    case ScatterPlan::kElement: RunElement(in, walker); break;
    case ScatterPlan::kLocalTarget: skipped = RunLocalTarget(in); break;
    default:  // kPartitioned, kSortedParallel
      RunReordered(in, walker, choice.plan == ScatterPlan::kSortedParallel, choice.threads);
      break;
  }
  if (r.finalize == Finalize::kMean) ApplyMean(r, c, walker);
  report.updates_skipped = skipped >= 0 ? skipped : walker.skipped();
  report.updates_applied = num_updates - report.updates_skipped;
  return report;
}

}  // namespace

// A combiner loop that can fail part-way (integer power of a negative
// exponent) would leave the updates before the failure applied, as NumPy's
// at does. Bad input loses nothing here: the operands are saved first and
// restored when the loop fails.
ScatterReport Scatter(const ScatterRequest& request) {
  // Indices, updates and init values that share memory with an operand are
  // read as they were when the call began: copied first, since the plans
  // read them while they write (and would otherwise follow indices that
  // their own writes change).
  ScatterRequest detached;
  std::vector<Array> copies;
  auto overlaps = [&](const ArrayView& v) {
    for (const ArrayView& o : request.operands) {
      if (MayShareMemory(v, o)) return true;
    }
    return false;
  };
  auto detach = [&](ArrayView& v) {
    if (!overlaps(v)) return;
    copies.push_back(Array::CopyOf(v));
    v = copies.back().view();
  };
  bool any = overlaps(request.indices);
  for (const ArrayView& u : request.updates) any = any || overlaps(u);
  for (const ArrayView& u : request.init_values) any = any || overlaps(u);
  if (any) {
    detached = request;
    copies.reserve(1 + detached.updates.size() + detached.init_values.size());
    detach(detached.indices);
    for (ArrayView& u : detached.updates) detach(u);
    for (ArrayView& u : detached.init_values) detach(u);
  }
  const ScatterRequest& r = any ? detached : request;
  const Loop* exact = r.combiner ? internal::ExactLoop(r) : nullptr;
  const Loop* loop = exact ? exact : r.combiner ? &internal::ResolvedLoop(r) : nullptr;
  if (!loop || !loop->slots.may_fail) return ScatterUnguarded(r);
  std::vector<Array> saved;
  for (const ArrayView& o : r.operands) saved.push_back(Array::CopyOf(o));
  try {
    return ScatterUnguarded(r);
  } catch (...) {
    for (size_t k = 0; k < saved.size(); ++k) CopyInto(r.operands[k], saved[k].view());
    throw;
  }
}

}  // namespace ufuncx
