// The generalized scatter: one request in StableHLO terms that every
// scatter-like front end (ufunc.at, StableHLO/JAX scatter, the torch-style
// family, asctile.scatter) lowers to, and one planner that validates it,
// normalises it and runs it with the best plan for the data.
//
// Semantics: the result equals applying updates one at a time in row-major
// order over the updates array (StableHLO's interpreter, NumPy's unbuffered
// `at`, torch on CPU). Every plan gives that result bit for bit.
//
// A failed request (bad dims, bad dtypes, an index out of bounds under the
// raise policies) throws before any write: operands are left unchanged.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ufuncx/array.h"
#include "ufuncx/ufunc.h"

namespace ufuncx {

enum class Bounds : uint8_t {
  kSkipElement,    // StableHLO: out-of-bounds update elements are dropped
  kSkipWindow,     // XLA/JAX "drop": a window with any element out is dropped
  kClip,           // JAX "clip": start indices clamped so the window fits
  kRaise,          // IndexError (torch scatter)
  kWrapThenRaise,  // negative indices wrap once, then IndexError (NumPy, index_put_)
  kUnchecked,      // C++ only: the caller promises every index is valid, so nothing is
                   // checked up front; a broken promise drops the update (never a write
                   // outside the operand)
};

enum class Init : uint8_t {
  kIncludeTarget,   // combine with the operand's value
  kValueAtHits,     // positions hit by any update start from init_value (torch include_self=False)
};

enum class Finalize : uint8_t {
  kNone,
  kMean,  // value / (hits + (init == kIncludeTarget)); floor division for ints
};

// Which algorithm ran (tests force each one and compare with the reference).
enum class ScatterPlan : uint8_t {
  kAuto,
  kWindowRuns,      // contiguous window runs: the combiner's SIMD loop per run
  kElement,         // element updates in order, equal neighbours in a register
  kLocalTarget,     // small target copied to a private dense buffer, then merged
  kPartitioned,     // updates stably partitioned by destination block (large targets)
  kSortedParallel,  // stable sort by destination, one writer thread per segment
  kGeneric,         // element by element through the strided loop (any casts)
  kRows,            // one index per row of one contiguous run: the loop's rows slot
};
const char* PlanName(ScatterPlan p);

// Where a plan read the indices from.
enum class IndexSource : uint8_t {
  kColumn,  // one start index per update row into one operand dim, read as its own type
  kWalker,  // the general walk: index vectors, batching dims, windows, any bounds policy
};
const char* IndexSourceName(IndexSource s);

struct ScatterDims {
  std::vector<int64_t> update_window_dims;
  std::vector<int64_t> inserted_window_dims;
  std::vector<int64_t> input_batching_dims;
  std::vector<int64_t> scatter_indices_batching_dims;
  std::vector<int64_t> scatter_dims_to_operand_dims;
  int64_t index_vector_dim = 0;
};

struct ScatterRequest {
  std::vector<ArrayView> operands;  // updated in place
  ArrayView indices;                // any integer dtype
  std::vector<ArrayView> updates;   // one per operand; ignored by unary combiners
  ScatterDims dims;
  // A registry ufunc called as (current..., update...) -> new... with
  // nin = 2N (or N for unary combiners such as negative.at) and nout = N;
  // nullptr replaces (last writer wins).
  const Ufunc* combiner = nullptr;
  Bounds bounds = Bounds::kSkipElement;
  Init init = Init::kIncludeTarget;
  std::vector<ArrayView> init_values;  // 0-d, one per operand, for kValueAtHits
  Finalize finalize = Finalize::kNone;
  // Casting of updates and combiner results into operands (NumPy's at is
  // unsafe; StableHLO requires same types).
  Casting casting = Casting::kUnsafe;
  ScatterPlan force_plan = ScatterPlan::kAuto;
  int max_threads = 2;
};

struct ScatterReport {
  ScatterPlan plan = ScatterPlan::kAuto;  // the plan that ran
  IndexSource source = IndexSource::kWalker;
  int64_t updates_applied = 0;  // update elements combined into operands
  int64_t updates_skipped = 0;  // dropped by the bounds policy
};

ScatterReport Scatter(const ScatterRequest& request);

// The partition step of the partitioned plans, on its own, for callers that
// apply each destination block elsewhere (ufuncx.dask, where blocks live on
// other processes). Points are the rows of a C-contiguous n x k int64 array
// of operand coordinates. Each cut dim splits one coordinate column at its
// cuts (ascending, first 0, last the dim's extent); a point whose coordinate
// lies outside [0, extent) of any cut dim is dropped. Blocks are numbered
// row-major over the cut dims. The kept points come back block by block,
// in point order inside a block (a stable counting sort), so applying each
// block's points in that order gives the sequential result.
struct BlockCuts {
  int64_t column = -1;          // the coordinate column cut, or -1: one block
  std::vector<int64_t> cuts;    // block i holds [cuts[i], cuts[i + 1])
  bool wrap = false;   // a negative coordinate counts from the extent (NumPy's indexing)
  bool raise = false;  // outside [0, extent) (after wrapping): IndexError ("index v is out
                       // of bounds for axis <column> with size <extent>"), before any write
};

struct PointBlocks {
  std::vector<int64_t> order;   // the kept points' numbers, block by block (if asked)
  std::vector<int64_t> starts;  // block b is order[starts[b] .. starts[b + 1])
};

// Rows that travel with the points (their updates): row i of `data` is
// `bytes` bytes at data + i * bytes; the kept rows go to `out` in `order`.
struct PointRows {
  const char* data = nullptr;
  int64_t bytes = 0;
  char* out = nullptr;
};

// `local` receives the kept points' coordinates in `order`, made local to
// their block (minus the block's first cut; uncut columns as given): rows of
// k int32 (local32) or int64 values, room for n rows. Each of `rows` is
// moved likewise (room for n rows in each `out`). Without want_order,
// `order` comes back empty (the rows already carry what it would say).
PointBlocks PartitionPoints(const int64_t* coords, int64_t n, int64_t k,
                            const std::vector<BlockCuts>& dims, void* local, bool local32,
                            const std::vector<PointRows>& rows = {}, bool want_order = true);

}  // namespace ufuncx
