// The scatter planner: validates a request, resolves every index under the
// bounds policy before any write, picks a plan from the data, and runs it.
// Every plan applies updates to each destination in update order, so all of
// them give the sequential (StableHLO interpreter) result bit for bit.
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>

#include "cast.h"
#include "scatter/canonical.h"
#include "scatter/index_scan.h"
#include "simd/hwy_shim-inl.h"
#include "ufuncx/error.h"
#include "ufuncx/memory.h"
#include "ufuncx/scalar.h"
#include "ufuncx/scatter.h"
#include "workers.h"

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
  }
  return "?";
}

namespace {

using internal::CanonicalScatter;

constexpr int64_t kL2Bytes = int64_t{1} << 20;
constexpr int64_t kChunk = 256;  // offsets per batch: stays in L1 beside the target
constexpr int64_t kParallelMinUpdates = int64_t{1} << 16;  // below: one thread
constexpr int64_t kParallelMinRowBytes = int64_t{1} << 22;  // row scatter: below, one thread
constexpr int64_t kSortBlocks = 16;  // destination blocks of the sorted plan

// One update element, resolved: where it lands and where it comes from.
struct Element {
  int64_t elem;               // C-order element index in the operand
  const int64_t* op_off;      // byte offset per operand
  char* const* upd;           // update pointer per operand (unused if unary)
};

// Walks rows in order, resolving start indices under the bounds policy, and
// hands every surviving element to f. With validate_only it only checks (and
// throws IndexError for the raise policies).
class Walker {
 public:
  Walker(const ScatterRequest& r, const CanonicalScatter& c) : r_(r), c_(c) {
    n_ = c.num_operands;
    rank_ = c.operand_rank;
    nw_ = static_cast<int>(c.window_shape.size());
  }

  int64_t skipped() const { return skipped_; }

  // A run: `len` consecutive positions of the innermost window dim.
  struct Span {
    int64_t elem, elem_step, len;
    const int64_t* op_off;   // per operand
    const int64_t* op_step;  // per operand
    char* const* upd;        // per operand (null entries when unary)
    const int64_t* upd_step;
  };

  // Hands every surviving run of the window box, rows in order, to f.
  template <class F>
  void RunSpans(bool validate_only, F&& f) {
    skipped_ = 0;
    const int nr = static_cast<int>(c_.row_shape.size());
    std::vector<int64_t> row(nr, 0), fs(rank_), lo(nw_), hi(nw_), w(nw_);
    std::vector<int64_t> op_off(n_), base(n_), op_step(n_, 0), upd_step(n_, 0);
    std::vector<char*> upd(n_), ubase(n_);
    const int inner = nw_ - 1;
    int64_t elem_step = 0;
    if (inner >= 0) {
      elem_step = c_.operand_cstrides[c_.window_operand_dim[inner]];
      for (int k = 0; k < n_; ++k) {
        op_step[k] = r_.operands[k].strides[c_.window_operand_dim[inner]];
        upd_step[k] = c_.window_update_strides[k][inner];
      }
    }
    for (int64_t r = 0; r < c_.num_rows; ++r) {
      if (r > 0) {
        for (int k = nr - 1; k >= 0; --k) {
          if (++row[k] < c_.row_shape[k]) break;
          row[k] = 0;
        }
      }
      int64_t kept = c_.window_size;
      if (!Resolve(row.data(), fs.data(), lo.data(), hi.data(), &kept)) {
        skipped_ += c_.window_size;
        continue;
      }
      skipped_ += c_.window_size - kept;
      if (validate_only || kept == 0) continue;
      // Row origins.
      int64_t elem0 = 0;
      for (int d = 0; d < rank_; ++d) elem0 += fs[d] * c_.operand_cstrides[d];
      for (int k = 0; k < n_; ++k) {
        base[k] = 0;
        for (int d = 0; d < rank_; ++d) base[k] += fs[d] * r_.operands[k].strides[d];
        ubase[k] = static_cast<int>(r_.updates.size()) <= k ? nullptr : r_.updates[k].data;
        if (ubase[k]) {
          for (int j = 0; j < nr; ++j) ubase[k] += row[j] * c_.row_update_strides[k][j];
        }
      }
      // The outer window dims of the box [lo, hi) in row-major order; the
      // innermost dim is the run.
      for (int i = 0; i < nw_; ++i) w[i] = lo[i];
      const int64_t len = inner >= 0 ? hi[inner] - lo[inner] : 1;
      while (true) {
        int64_t elem = elem0;
        for (int i = 0; i < nw_; ++i) elem += w[i] * c_.operand_cstrides[c_.window_operand_dim[i]];
        for (int k = 0; k < n_; ++k) {
          op_off[k] = base[k];
          upd[k] = ubase[k];
          for (int i = 0; i < nw_; ++i) {
            op_off[k] += w[i] * r_.operands[k].strides[c_.window_operand_dim[i]];
            if (upd[k]) upd[k] += w[i] * c_.window_update_strides[k][i];
          }
        }
        f(Span{elem, elem_step, len, op_off.data(), op_step.data(), upd.data(), upd_step.data()});
        int i = inner - 1;
        for (; i >= 0; --i) {
          if (++w[i] < hi[i]) break;
          w[i] = lo[i];
        }
        if (i < 0) break;
      }
    }
  }

  // Hands every surviving element, in update order, to f.
  template <class F>
  void Run(bool validate_only, F&& f) {
    std::vector<int64_t> off(n_);
    std::vector<char*> upd(n_);
    RunSpans(validate_only, [&](const Span& s) {
      for (int64_t j = 0; j < s.len; ++j) {
        for (int k = 0; k < n_; ++k) {
          off[k] = s.op_off[k] + j * s.op_step[k];
          upd[k] = s.upd[k] ? s.upd[k] + j * s.upd_step[k] : nullptr;
        }
        f(Element{s.elem + j * s.elem_step, off.data(), upd.data()});
      }
    });
  }

 private:
  // Full start index of a row under the policy. Returns false when the whole
  // row is dropped; fills the kept window box [lo, hi).
  bool Resolve(const int64_t* row, int64_t* fs, int64_t* lo, int64_t* hi, int64_t* kept) {
    std::fill(fs, fs + rank_, 0);
    for (size_t j = 0; j < c_.start_operand_dim.size(); ++j) {
      const int d = c_.start_operand_dim[j];
      int64_t v = internal::ReadStartIndex(r_, c_, row, static_cast<int64_t>(j));
      if (r_.bounds == Bounds::kWrapThenRaise && v < 0 && v >= -c_.operand_shape[d]) {
        v += c_.operand_shape[d];
      }
      fs[d] = v;
    }
    for (size_t i = 0; i < c_.batch_operand_dim.size(); ++i) {
      fs[c_.batch_operand_dim[i]] = row[c_.batch_row_dim[i]];
    }
    for (int i = 0; i < nw_; ++i) {
      lo[i] = 0;
      hi[i] = c_.window_shape[i];
    }
    if (c_.window_size == 0) {
      *kept = 0;
      return true;
    }
    for (int d = 0; d < rank_; ++d) {
      const int64_t size = c_.operand_shape[d], ext = c_.window_extent[d];
      const bool in = fs[d] >= 0 && fs[d] <= size - ext;
      if (in) continue;
      // A zero-size dim has no position at all: nothing to clip to.
      if (size < ext && r_.bounds != Bounds::kRaise && r_.bounds != Bounds::kWrapThenRaise) {
        return false;
      }
      switch (r_.bounds) {
        case Bounds::kSkipWindow:
          return false;
        case Bounds::kClip:
          fs[d] = std::clamp<int64_t>(fs[d], 0, size - ext);
          break;
        case Bounds::kRaise:
        case Bounds::kWrapThenRaise: {
          // The first out-of-range position (no overflow for huge starts).
          const int64_t bad = fs[d] < 0 || fs[d] >= size ? fs[d] : fs[d] + ext - 1;
          throw IndexError("index " + std::to_string(bad) + " is out of bounds for axis " +
                           std::to_string(d) + " with size " + std::to_string(size));
        }
        case Bounds::kUnchecked:  // (a broken promise is dropped, never written)
        case Bounds::kSkipElement: {
          const auto it = std::find(c_.window_operand_dim.begin(), c_.window_operand_dim.end(), d);
          if (it == c_.window_operand_dim.end()) return false;
          const int i = static_cast<int>(it - c_.window_operand_dim.begin());
          // Window offsets w with 0 <= fs + w < size, computed without overflow.
          if (fs[d] >= size || fs[d] <= -ext) return false;
          lo[i] = fs[d] < 0 ? -fs[d] : 0;
          hi[i] = std::min(ext, size - fs[d]);
          break;
        }
      }
    }
    int64_t k = 1;
    for (int i = 0; i < nw_; ++i) k *= hi[i] - lo[i];
    *kept = k;
    return k > 0 || c_.window_size == 0;
  }

  const ScatterRequest& r_;
  const CanonicalScatter& c_;
  int n_, rank_, nw_;
  int64_t skipped_ = 0;
};

// The loop a request combines with, when operands and updates already have
// its dtypes (then the fast plans apply); nullptr otherwise.
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

// The loop NumPy's at would use: resolved from (operand, update) dtypes.
const Loop& ResolvedLoop(const ScatterRequest& r) {
  std::vector<DType> in;
  for (const ArrayView& o : r.operands) in.push_back(o.dtype);
  if (r.combiner->nin() == 2 * static_cast<int>(r.operands.size())) {
    for (const ArrayView& u : r.updates) in.push_back(u.dtype);
  }
  return r.combiner->ResolveLoop(in, CallOptions{});
}

// An index that was valid when every index was checked and is out of
// bounds when it is read again for its write: another thread rewrote the
// index array during the call. Its updates are unspecified (a data race);
// no write leaves the target.
[[noreturn]] void ThrowIndexChanged() {
  throw IndexError("a scatter index changed while the call ran (another thread wrote the "
                   "index array); it is out of bounds now and was not applied");
}

void CheckStatus(int status) {
  if (status == kLoopNegativeIntPower) {
    throw ValueError("Integers to negative integer powers are not allowed.");
  }
  if (status != 0) throw ValueError("scatter combiner failed with status " + std::to_string(status));
}

// ---------------------------------------------------------------- plans

// Any dtypes, any arity: one element at a time through the strided loop,
// converting operands and updates to the loop's types and back.
void RunGeneric(const ScatterRequest& r, Walker& walker) {
  const int n = static_cast<int>(r.operands.size());
  if (!r.combiner) {
    std::vector<internal::CastFn> cast(n);
    for (int k = 0; k < n; ++k) cast[k] = internal::GetCast(r.updates[k].dtype, r.operands[k].dtype);
    walker.Run(false, [&](const Element& e) {
      for (int k = 0; k < n; ++k) cast[k](e.upd[k], 0, r.operands[k].data + e.op_off[k], 0, 1);
    });
    return;
  }
  const Loop& loop = ResolvedLoop(r);
  const int nin = r.combiner->nin(), nargs = r.combiner->nargs();
  std::vector<std::vector<char>> buf(nargs);
  std::vector<char*> args(nargs);
  std::vector<int64_t> steps(nargs, 0);
  std::vector<internal::CastFn> to(nin), back(n);
  for (int a = 0; a < nargs; ++a) {
    buf[a].resize(ItemSize(loop.types[a]));
    args[a] = buf[a].data();
  }
  for (int k = 0; k < n; ++k) {
    to[k] = internal::GetCast(r.operands[k].dtype, loop.types[k]);
    if (nin == 2 * n) to[n + k] = internal::GetCast(r.updates[k].dtype, loop.types[n + k]);
    back[k] = internal::GetCast(loop.types[nin + k], r.operands[k].dtype);
  }
  const LoopContext ctx{r.combiner->name().c_str()};
  const int64_t one = 1;
  walker.Run(false, [&](const Element& e) {
    for (int k = 0; k < n; ++k) {
      to[k](r.operands[k].data + e.op_off[k], 0, args[k], 0, 1);
      if (nin == 2 * n) to[n + k](e.upd[k], 0, args[n + k], 0, 1);
    }
    CheckStatus(loop.slots.strided(ctx, args.data(), &one, steps.data(), nullptr));
    for (int k = 0; k < n; ++k) back[k](args[nin + k], 0, r.operands[k].data + e.op_off[k], 0, 1);
  });
}

// Window scatter with exact dtypes and one operand: the combiner's loop runs
// over each run of the window's innermost dim (its Highway SIMD body when the
// run is contiguous). Runs of one row never overlap, and rows go in order.
void RunWindowRuns(const ScatterRequest& r, const Loop* loop, Walker& walker) {
  const ArrayView& op = r.operands[0];
  const int64_t item = static_cast<int64_t>(op.itemsize());
  const bool unary = r.combiner && r.combiner->nin() == 1;
  const LoopContext ctx{r.combiner ? r.combiner->name().c_str() : ""};
  internal::CastFn copy = r.combiner ? nullptr : internal::GetCast(r.updates[0].dtype, op.dtype);
  walker.RunSpans(false, [&](const Walker::Span& s) {
    char* dst = op.data + s.op_off[0];
    const int64_t os = s.op_step[0], us = s.upd_step[0];
    int64_t len = s.len;
    if (!r.combiner) {
      if (os == 0) {  // one destination: the last update wins
        copy(s.upd[0] + (len - 1) * us, 0, dst, 0, 1);
      } else {
        copy(s.upd[0], us, dst, os, len);
      }
      return;
    }
    if (unary) {
      char* args[2] = {dst, dst};
      const int64_t steps[2] = {os, os};
      if (os == 0) {
        for (int64_t i = 0; i < len; ++i) {
          const int64_t one = 1;
          CheckStatus(loop->slots.strided(ctx, args, &one, steps, nullptr));
        }
        return;
      }
      const LoopFn fn = os == item && loop->slots.contig ? loop->slots.contig : loop->slots.strided;
      CheckStatus(fn(ctx, args, &len, steps, nullptr));
      return;
    }
    if (os == 0) {
      // A repeated destination must take its updates one at a time.
      const int64_t one = 1, steps[3] = {0, us, 0};
      for (int64_t i = 0; i < len; ++i) {
        char* args[3] = {dst, s.upd[0] + i * us, dst};
        CheckStatus(loop->slots.strided(ctx, args, &one, steps, nullptr));
      }
      return;
    }
    char* args[3] = {dst, s.upd[0], dst};
    const int64_t steps[3] = {os, us, os};
    const bool contig = os == item && (us == item || us == 0) && loop->slots.contig;
    CheckStatus((contig ? loop->slots.contig : loop->slots.strided)(ctx, args, &len, steps, nullptr));
  });
}

// Element scatter with exact dtypes and one operand: batches of byte offsets
// go to the loop's indexed slot (equal neighbours combine in a register).
void RunElement(const ScatterRequest& r, const Loop* loop, Walker& walker) {
  const ArrayView& op = r.operands[0];
  const bool unary = r.combiner && r.combiner->nin() == 1;
  const size_t item = op.itemsize();
  const LoopContext ctx{r.combiner ? r.combiner->name().c_str() : ""};
  std::vector<int64_t> offs;
  offs.reserve(kChunk);
  char* first_upd = nullptr;
  int64_t ustep = 0;
  auto flush = [&] {
    if (offs.empty()) return;
    const int64_t n = static_cast<int64_t>(offs.size());
    if (!r.combiner) {
      for (int64_t i = 0; i < n; ++i) std::memcpy(op.data + offs[i], first_upd + i * ustep, item);
    } else {
      char* args[3] = {op.data, reinterpret_cast<char*>(offs.data()), first_upd};
      const int64_t steps[3] = {0, 8, ustep};
      CheckStatus(loop->slots.indexed(ctx, args, &n, steps, nullptr));
    }
    offs.clear();
  };
  walker.Run(false, [&](const Element& e) {
    if (!unary) {
      const int64_t n = static_cast<int64_t>(offs.size());
      if (n == 1) {
        ustep = e.upd[0] - first_upd;
      } else if (n > 1 && e.upd[0] != first_upd + n * ustep) {
        flush();
      }
      if (offs.empty()) first_upd = e.upd[0];
    }
    offs.push_back(e.op_off[0]);
    if (static_cast<int64_t>(offs.size()) == kChunk) flush();
  });
  flush();
}

// The common element scatter - one index per update along one operand dim
// (np.add.at(a, idx, v), index_add_ of scalars, 1-D scatter_add_) - without
// the general walker: a typed pass over the indices that validates (raise
// policies) before any write, then batches of byte offsets straight into the
// indexed loop. Returns false when the request is not of that shape.
// f(std::integral_constant<size_t, item>) for the usual item sizes, so that
// element copies compile to moves; f(integral_constant<size_t, 0>) otherwise.
template <class F>
void WithItemSize(int64_t item, F&& f) {
  switch (item) {
    case 1: f(std::integral_constant<size_t, 1>{}); return;
    case 2: f(std::integral_constant<size_t, 2>{}); return;
    case 4: f(std::integral_constant<size_t, 4>{}); return;
    case 8: f(std::integral_constant<size_t, 8>{}); return;
    case 16: f(std::integral_constant<size_t, 16>{}); return;
    default: f(std::integral_constant<size_t, 0>{}); return;
  }
}

// f(I{}) with I the C++ type of an integer index dtype; false for others.
template <class F>
bool WithIndexType(DType t, F&& f) {
  switch (t) {
    case DType::kInt8: return f(int8_t{});
    case DType::kUInt8: return f(uint8_t{});
    case DType::kInt16: return f(int16_t{});
    case DType::kUInt16: return f(uint16_t{});
    case DType::kInt32: return f(int32_t{});
    case DType::kUInt32: return f(uint32_t{});
    case DType::kInt64: return f(int64_t{});
    case DType::kUInt64: return f(uint64_t{});
    default: return false;
  }
}

// The fast paths take one start index, into operand dim `dim`; every other
// operand dim starts at 0, so the window fits there only if the dim is at
// least as long as the window's extent. A zero-size dim (an empty operand)
// fails this: then the general walker drops or refuses every update.
bool OtherDimsFit(const CanonicalScatter& c) {
  for (int d = 0; d < c.operand_rank; ++d) {
    if (d != c.start_operand_dim[0] && c.window_extent[d] > c.operand_shape[d]) return false;
  }
  return true;
}

// One index per row, all into operand dim `dim` - the shape both fast paths
// take (element scatter and row scatter): reads the column of start indices
// and checks it under the raise policies.
template <class I>
struct IndexColumn {
  const char* ip;
  int64_t istep, n, size;
  int dim;
  bool wrap;

  IndexColumn(const ScatterRequest& r, const CanonicalScatter& c)
      : ip(r.indices.data),
        istep(r.indices.strides[c.row_index_dims[0]]),
        n(c.num_rows),
        size(c.operand_shape[c.start_operand_dim[0]]),
        dim(c.start_operand_dim[0]),
        wrap(r.bounds == Bounds::kWrapThenRaise) {}

  // Unsigned values above INT64_MAX read as INT64_MAX: out of bounds.
  int64_t Read(int64_t i) const {
    const I v = LoadElem<I>(ip + i * istep);
    if constexpr (std::is_same_v<I, uint64_t>) {
      return v > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(v);
    } else {
      return static_cast<int64_t>(v);
    }
  }
  // Wrapping adds `size` to negative indices; validity is then one unsigned
  // compare (branch-free, so the scalar pass vectorises).
  int64_t Wrapped(int64_t v) const { return wrap ? v + ((v >> 63) & size) : v; }
  bool Bad(int64_t v) const {
    return static_cast<uint64_t>(Wrapped(v)) >= static_cast<uint64_t>(size);
  }
  int64_t Resolved(int64_t i) const { return Wrapped(Read(i)); }
  // Where index i lands under a policy, or -1 when the policy drops it
  // (after CheckAll for the raise policies).
  int64_t Land(int64_t i, Bounds bounds) const {
    const int64_t v = Resolved(i);
    if (static_cast<uint64_t>(v) < static_cast<uint64_t>(size)) return v;
    return bounds == Bounds::kClip ? (v < 0 ? 0 : size - 1) : -1;
  }

  // Contiguous and aligned int64/int32: the Highway pass applies.
  bool Dense() const {
    return (std::is_same_v<I, int64_t> || std::is_same_v<I, int32_t>) && istep == sizeof(I) &&
           reinterpret_cast<uintptr_t>(ip) % sizeof(I) == 0;
  }

  // IndexError naming the first bad index of [from, to), if any.
  void ThrowFirstBad(int64_t from, int64_t to) const {
    for (int64_t i = from; i < to; ++i) {
      const int64_t v = Read(i);
      if (Bad(v)) {
        throw IndexError("index " + std::to_string(v) + " is out of bounds for axis " +
                         std::to_string(dim) + " with size " + std::to_string(size));
      }
    }
  }

  // Every index of [from, to) checked before the first write; returns what
  // the pass learns (negative indices and runs come from the Highway pass
  // only; otherwise has_negative is conservatively true).
  internal::IndexScan CheckAll(int64_t from, int64_t to) const {
    internal::IndexScan scan;
    if constexpr (std::is_same_v<I, int64_t> || std::is_same_v<I, int32_t>) {
      if (Dense()) {
        scan = internal::ScanIndices(reinterpret_cast<const I*>(ip) + from, to - from,
                                     wrap ? -size : 0, size);
        if (!scan.in_range) ThrowFirstBad(from, to);
        return scan;
      }
    }
    uint64_t bad = 0;
    for (int64_t i = from; i < to; ++i) bad |= Bad(Read(i));
    if (bad) ThrowFirstBad(from, to);
    scan.has_negative = true;
    return scan;
  }
};

template <class I>
bool ElementFastTyped(const ScatterRequest& r, const CanonicalScatter& c, const Loop* loop,
                      int64_t* skipped) {
  const ArrayView& op = r.operands[0];
  const IndexColumn<I> col(r, c);
  const int64_t size = col.size, stride = op.strides[col.dim], n = col.n, istep = col.istep;
  const char* ip = col.ip;
  const int64_t ustep = c.row_update_strides[0][0];
  char* up = r.updates[0].data;
  const bool raise = r.bounds == Bounds::kRaise || r.bounds == Bounds::kWrapThenRaise;
  const bool wrap = col.wrap;
  // A target much smaller than the index array is cheaper to save than the
  // index array is to read twice: then the check and the writes share a pass.
  const bool fused = std::is_same_v<I, int64_t> && raise && r.combiner && col.Dense() &&
                     ShapeSize(op.shape) * static_cast<int64_t>(op.itemsize()) * 4 <=
                         n * static_cast<int64_t>(sizeof(I));
  // What the bounds pass learns: negative indices (when none, the loop
  // skips wrapping) and equal neighbours (runs: sorted data).
  bool has_negative = true, runs = false;
  if (raise && !fused) {  // every index checked before the first write
    const internal::IndexScan scan = col.CheckAll(0, n);
    has_negative = scan.has_negative;
    runs = scan.runs();
  }
  const LoopContext ctx{r.combiner ? r.combiner->name().c_str() : ""};
  const size_t item = op.itemsize();
  int64_t offs[kChunk];
  int64_t count = 0;
  char* first = up;
  auto flush = [&] {
    if (count == 0) return;
    if (!r.combiner) {
      for (int64_t i = 0; i < count; ++i) std::memcpy(op.data + offs[i], first + i * ustep, item);
    } else {
      char* args[3] = {op.data, reinterpret_cast<char*>(offs), first};
      const int64_t steps[3] = {0, 8, ustep};
      CheckStatus(loop->slots.indexed(ctx, args, &count, steps, nullptr));
    }
    count = 0;
  };
  if constexpr (std::is_same_v<I, int64_t>) {
    if (raise && r.combiner) {
      // Validated int64 indices go straight to the loop: no offsets buffer.
      // The loop checks each index again as it reads it for its write: a
      // racing writer thread can make it stop, never write outside.
      auto apply = [&](const char* idx, int64_t m, char* u, bool neg, bool run) {
        int64_t stop = 0;
        IndexedIndices ix{size, stride, wrap && neg, run, &stop};
        char* args[3] = {op.data, const_cast<char*>(idx), u};
        const int64_t steps[3] = {0, istep, ustep};
        CheckStatus(loop->slots.indexed(ctx, args, &m, steps, &ix));
        if (stop != m) ThrowIndexChanged();
      };
      if (!fused) {
        apply(ip, n, up, has_negative, runs);
        return true;
      }
      // Small target, many updates: one pass instead of two. The loop checks
      // each index as it goes (where a run starts, when it combines runs) and stops
      // before the first one outside [0, size); the target is saved first.
      // After a stop - an index out of range, or a negative one to wrap
      // (wrapping in this pass costs 15% on 1e7 updates into 1000 bins) -
      // the target is restored and the two-pass path runs: it raises, or
      // wraps. Either way a failed call changes nothing.
      const bool flat = op.IsCContiguous();  // then saved in reused scratch
      const size_t target_bytes = static_cast<size_t>(ShapeSize(op.shape)) * op.itemsize();
      ScratchBlock saved_flat(flat ? static_cast<int64_t>(target_bytes) : 0);
      std::optional<Array> saved;
      if (flat) {
        std::memcpy(saved_flat.get(), op.data, target_bytes);
      } else {
        saved = Array::CopyOf(op);
      }
      auto restore = [&] {
        if (flat) {
          std::memcpy(op.data, saved_flat.get(), target_bytes);
        } else {
          CopyInto(op, saved->view());
        }
      };
      int64_t stop = 0;
      try {
        // Runs, judged from the first indices, pick the body that combines
        // them in a register; without runs the plain body is faster.
        const bool runs_sampled =
            internal::ScanIndices(reinterpret_cast<const int64_t*>(ip), std::min<int64_t>(n, 256),
                                  0, size)
                .runs();
        IndexedIndices ix{size, stride, false, runs_sampled, &stop};
        char* args[3] = {op.data, const_cast<char*>(ip), up};
        const int64_t steps[3] = {0, istep, ustep};
        int64_t count = n;
        CheckStatus(loop->slots.indexed(ctx, args, &count, steps, &ix));
      } catch (...) {
        restore();
        throw;
      }
      if (stop == n) return true;
      restore();
      const internal::IndexScan scan = col.CheckAll(0, n);
      apply(ip, n, up, scan.has_negative, scan.runs());
      return true;
    }
  }
  if (raise || r.bounds == Bounds::kClip) {
    // Every index lands: fill whole chunks of offsets without branches.
    const bool clip = r.bounds == Bounds::kClip;
    for (int64_t start = 0; start < n; start += kChunk) {
      const int64_t m = std::min(kChunk, n - start);
      uint64_t bad = 0;  // (after the check pass: only a racing writer)
      for (int64_t j = 0; j < m; ++j) {
        int64_t v = col.Resolved(start + j);
        if (clip) v = v < 0 ? 0 : v >= size ? size - 1 : v;
        const bool out = static_cast<uint64_t>(v) >= static_cast<uint64_t>(size);
        bad |= out;
        offs[j] = (out ? 0 : v) * stride;
      }
      if (bad) ThrowIndexChanged();
      first = up + start * ustep;
      count = m;
      flush();
    }
    return true;
  }
  for (int64_t i = 0; i < n; ++i) {
    const int64_t v = col.Read(i);
    if (static_cast<uint64_t>(v) >= static_cast<uint64_t>(size)) {  // skip policies: drop it
      flush();
      ++*skipped;
      continue;
    }
    if (count == 0) first = up + i * ustep;
    offs[count++] = v * stride;
    if (count == kChunk) flush();
  }
  flush();
  return true;
}

bool RunElementFast(const ScatterRequest& r, const CanonicalScatter& c, const Loop* loop,
                    int64_t* skipped) {
  const bool shape_ok = c.num_operands == 1 && c.window_size == 1 &&
                        c.start_operand_dim.size() == 1 && c.batch_operand_dim.empty() &&
                        c.row_shape.size() == 1 && c.operand_shape[c.start_operand_dim[0]] > 0 &&
                        r.bounds != Bounds::kUnchecked && !r.updates.empty() && OtherDimsFit(c);
  if (!shape_ok || (r.combiner && (!loop || !loop->slots.indexed))) return false;
  for (int64_t e : c.window_extent) {
    if (e != 1) return false;
  }
  return WithIndexType(r.indices.dtype, [&](auto tag) {
    return ElementFastTyped<decltype(tag)>(r, c, loop, skipped);
  });
}

// Row scatter with exact dtypes and one operand: one start index per row
// into operand dim `dim`, a window that is one run in both the operand and
// the updates (index_add_ and index_put_ of rows, the common StableHLO
// window scatter). Indices are checked first under the raise policies.
// Contiguous rows then go to the combiner's rows slot (its Highway body) in
// batches of byte offsets; other rows are one call of its loop each. Rows
// land at random places, so the destinations of the next rows are
// prefetched while the current one is combined.
struct RowRun {
  int64_t len, op_step, upd_step;
};

template <class I>
void RowsFastTyped(const ScatterRequest& r, const CanonicalScatter& c, const Loop* loop,
                   const RowRun& run, int64_t* skipped) {
  const ArrayView& op = r.operands[0];
  const IndexColumn<I> col(r, c);
  const int64_t n = col.n, row_stride = op.strides[col.dim];
  const int64_t ustep = c.row_update_strides[0][0];
  const int64_t item = static_cast<int64_t>(op.itemsize());
  char* const up = r.updates[0].data;
  if (r.bounds == Bounds::kRaise || r.bounds == Bounds::kWrapThenRaise) col.CheckAll(0, n);
  auto land = [&](int64_t i) { return col.Land(i, r.bounds); };
  const LoopContext ctx{r.combiner ? r.combiner->name().c_str() : ""};
  const bool contig = run.op_step == item && (run.upd_step == item || run.upd_step == 0);
  const LoopFn fn = !r.combiner ? nullptr
                    : contig && loop->slots.contig ? loop->slots.contig
                                                   : loop->slots.strided;
  const internal::CastFn copy = r.combiner ? nullptr : internal::GetCast(op.dtype, op.dtype);
  // Prefetch distance: about 4 KiB of rows ahead; only for dense rows
  // short enough that the hardware prefetcher has not caught on, in targets
  // that the update stream pushes out of L2 (0.38 -> 0.35 ms for 20000 rows
  // of 64 float64 into 1000 rows in the C harness; in L1 the prefetches only
  // cost), or when the rows slot skips the rows other workers take.
  const int64_t row_bytes = run.len * item;
  const int64_t update_bytes = n * row_bytes;
  const bool rows_slot = fn && run.op_step == item && run.upd_step == item && loop->slots.rows;
  const int workers = rows_slot && update_bytes >= kParallelMinRowBytes && col.size >= 2
                          ? std::clamp(r.max_threads, 1, 2) : 1;
  const bool prefetch = run.op_step == item && row_bytes <= 4096 &&
                        (ShapeSize(op.shape) * item > kL2Bytes / 4 || workers > 1);
  const int64_t ahead = prefetch ? std::clamp<int64_t>(4096 / std::max<int64_t>(row_bytes, 1), 1, 16) : 0;
  if (rows_slot) {
    // Batches of rows go to the rows slot. With two workers the destination
    // rows are split in halves (`parts`), and each half takes its rows in
    // update order, one chunk of kChunk updates at a time under the half's
    // lock: every destination sees its updates in order, whoever applies
    // them, so the result is the sequential one bit for bit. Each worker
    // starts with its own half, which then stays in its core's L2 while the
    // updates stream past (20000 rows of 64 float64 into 1000 rows: 0.42 ->
    // 0.30 ms in the C harness), and takes chunks of the other half when it
    // is free: a worker that starts late (its core busy) delays nothing.
    const int parts = workers;
    const int64_t chunks = (n + kChunk - 1) / kChunk;
    std::atomic<int64_t> next[2] = {0, 0};
    std::atomic<bool> busy[2] = {false, false};
    std::atomic<int64_t> dropped{0};
    // One worker: the update rows are consecutive (the hardware prefetcher
    // follows them), the destinations random. Two: each half of the
    // destination stays in an L2, and its update rows skip the other
    // half's. Measured (0.30 ms against 0.33-0.39 for the other mixes).
    const RowsPrefetch prefetch_rows{parts > 1 ? 0 : ahead, parts > 1 ? ahead : 0};
    internal::RunWorkers(workers, [&](int w) {
      int64_t dst[kChunk], src[kChunk];
      char* args[4] = {op.data, reinterpret_cast<char*>(dst), up, reinterpret_cast<char*>(src)};
      const int64_t steps[4] = {0, 8, 0, 8};
      void* aux = ahead ? const_cast<RowsPrefetch*>(&prefetch_rows) : nullptr;
      // Locals, not captures: the offset stores could alias them otherwise,
      // forcing a reload of each at every row.
      const IndexColumn<I> cw = col;
      const int64_t rs = row_stride, us = ustep;
      const Bounds bounds = r.bounds;
      auto apply = [&](int h, int64_t k) {
        const int64_t lo = cw.size * h / parts, hi = cw.size * (h + 1) / parts;
        const int64_t end = std::min(n, (k + 1) * kChunk);
        int64_t m = 0, lost = 0;
        for (int64_t i = k * kChunk; i < end; ++i) {
          const int64_t v = cw.Land(i, bounds);
          lost += v < 0;
          dst[m] = v * rs;
          src[m] = i * us;
          m += v >= lo && v < hi;  // branch-free: the halves interleave at random
        }
        const int64_t dims[2] = {m, run.len};
        if (m > 0) CheckStatus(loop->slots.rows(ctx, args, dims, steps, aux));
        if (h == 0) dropped.fetch_add(lost, std::memory_order_relaxed);
      };
      // Take the next chunk of the first free half with chunks left, own
      // half first; stop when every half is done or held by the other
      // worker (which then goes on with it).
      for (bool progressed = true; progressed;) {
        progressed = false;
        for (int j = 0; j < parts && !progressed; ++j) {
          const int h = (w + j) % parts;
          if (next[h].load(std::memory_order_acquire) >= chunks ||
              busy[h].exchange(true, std::memory_order_acquire)) {
            continue;
          }
          const int64_t k = next[h].load(std::memory_order_relaxed);
          if (k < chunks) {
            try {
              apply(h, k);
            } catch (...) {
              next[h].store(chunks, std::memory_order_release);
              busy[h].store(false, std::memory_order_release);
              throw;
            }
            next[h].store(k + 1, std::memory_order_release);
            progressed = true;
          }
          busy[h].store(false, std::memory_order_release);
        }
      }
    });
    *skipped += dropped.load() * run.len;
    return;
  }
  int64_t len = run.len;
  for (int64_t i = 0; i < n; ++i) {
    if (ahead && i + ahead < n) {
      const int64_t next = land(i + ahead);
      if (next >= 0) {
        const char* p = op.data + next * row_stride;
        for (int64_t b = 0; b < row_bytes; b += 64) __builtin_prefetch(p + b, 1);
      }
    }
    const int64_t v = land(i);
    if (v < 0) {
      *skipped += run.len;
      continue;
    }
    char* dst = op.data + v * row_stride;
    char* src = up + i * ustep;
    if (!r.combiner) {
      copy(src, run.upd_step, dst, run.op_step, run.len);
      continue;
    }
    char* args[3] = {dst, src, dst};
    const int64_t steps[3] = {run.op_step, run.upd_step, run.op_step};
    CheckStatus(fn(ctx, args, &len, steps, nullptr));
  }
}

// The one-run window of a row scatter, or nullopt when the request is not
// of that shape.
std::optional<RowRun> RowScatterRun(const ScatterRequest& r, const CanonicalScatter& c,
                                    const Loop* loop) {
  const bool shape_ok = c.num_operands == 1 && c.window_size > 1 &&
                        c.start_operand_dim.size() == 1 && c.batch_operand_dim.empty() &&
                        c.row_shape.size() == 1 && !r.updates.empty() &&
                        c.window_extent[c.start_operand_dim[0]] == 1 &&
                        c.operand_shape[c.start_operand_dim[0]] > 0 && OtherDimsFit(c);
  if (!shape_ok || (r.combiner && (!loop || r.combiner->nin() != 2))) return std::nullopt;
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

bool RunRowsFast(const ScatterRequest& r, const CanonicalScatter& c, const Loop* loop,
                 int64_t* skipped) {
  const std::optional<RowRun> run = RowScatterRun(r, c, loop);
  if (!run) return false;
  return WithIndexType(r.indices.dtype, [&](auto tag) {
    RowsFastTyped<decltype(tag)>(r, c, loop, *run, skipped);
    return true;
  });
}

// Element scatter reordered by destination, for the element shape (one
// index per update along one dim). Updates are stably partitioned into
// L2-sized destination blocks, carrying their values along (pass 1 counts,
// pass 2 moves; each worker takes a slice of the updates, in order). The
// sorted plan then sorts each block by destination with VQSort on keys
// destination << bits | slot (slots rise in update order, so equal
// destinations keep update order) and gathers the values inside the
// block; the partitioned plan applies each block in update order. Blocks
// are split among the workers, one writer per block, so the result is the
// sequential one bit for bit whatever the thread count. Returns false
// (before any write) when the keys do not fit in 64 bits.
template <class I>
bool ReorderedFastTyped(const ScatterRequest& r, const CanonicalScatter& c, const Loop* loop,
                        bool sort, int threads, int64_t* skipped) {
  const ArrayView& op = r.operands[0];
  const IndexColumn<I> col(r, c);
  const int64_t size = col.size, n = col.n, stride = op.strides[col.dim];
  const int64_t ustep = c.row_update_strides[0][0];
  const int64_t item = static_cast<int64_t>(op.itemsize());
  int slot_bits = 1, dest_bits = 1;
  while ((int64_t{1} << slot_bits) < n) ++slot_bits;
  while ((int64_t{1} << dest_bits) < size) ++dest_bits;
  if (slot_bits + dest_bits > 63) return false;
  if (r.bounds == Bounds::kRaise || r.bounds == Bounds::kWrapThenRaise) col.CheckAll(0, n);
  auto land = [&](int64_t i) { return col.Land(i, r.bounds); };
  const int workers = n >= kParallelMinUpdates ? std::max(1, std::min(threads, 2)) : 1;
  // Partitioned: blocks of target that fit in L2 while they take their
  // updates. Sorted: a few large blocks (VQSort does not need them in
  // cache), so that pass 2 writes few streams.
  // Blocks are powers of two: the block of a destination is a shift.
  int shift = 0;
  if (sort) {
    while ((int64_t{1} << shift) * kSortBlocks < size) ++shift;
  } else {
    while ((int64_t{2} << shift) * item <= kL2Bytes / 4) ++shift;
  }
  const int64_t nblocks = ((size - 1) >> shift) + 1;
  auto parallel = [&](auto&& f) { internal::RunWorkers(workers, f); };
  auto slice = [&](int w) { return std::pair{n * w / workers, n * (w + 1) / workers}; };
  // Pass 1: counts per block and worker; the last slot counts dropped updates.
  std::vector<std::vector<int64_t>> count(workers, std::vector<int64_t>(nblocks + 1, 0));
  parallel([&](int w) {
    // Counters local to the worker: the shared vectors could share a cache line.
    const auto [lo, hi] = slice(w);
    std::vector<int64_t> cnt(nblocks + 1, 0);
    for (int64_t i = lo; i < hi; ++i) {
      const int64_t v = land(i);
      ++cnt[v < 0 ? nblocks : v >> shift];
    }
    count[w] = std::move(cnt);
  });
  std::vector<int64_t> start(nblocks + 1, 0);
  std::vector<std::vector<int64_t>> pos(workers, std::vector<int64_t>(nblocks, 0));
  for (int64_t b = 0; b < nblocks; ++b) {
    int64_t at = start[b];
    for (int w = 0; w < workers; ++w) {
      pos[w][b] = at;
      at += count[w][b];
    }
    start[b + 1] = at;
  }
  for (int w = 0; w < workers; ++w) *skipped += count[w][nblocks];
  const int64_t kept = start[nblocks];
  // Pass 2: destinations and values into their blocks' slots.
  // Left uninitialised: pass 2 writes every slot.
  ScratchBlock scratch(kept * (8 + item));
  uint64_t* keys = reinterpret_cast<uint64_t*>(scratch.get());
  char* vals = scratch.get() + kept * 8;
  // Pass 2 reads every index again. A racing writer thread can move an
  // update to another block between the passes, so each worker's slots of
  // a block are bounded, and a worker that does not fill its slots exactly
  // (an unfilled slot would hold garbage) stops the call before pass 3,
  // the first write to the target.
  const char* up = r.updates[0].data;
  std::atomic<bool> changed{false};
  parallel([&](int w) {
    const auto seg = slice(w);  // (no structured binding: the lambda below uses it)
    const int64_t lo = seg.first, hi = seg.second;
    std::vector<int64_t> at = pos[w], end(nblocks);
    for (int64_t b = 0; b < nblocks; ++b) end[b] = pos[w][b] + count[w][b];
    bool overflow = false;
    WithItemSize(item, [&](auto size_tag) {
      const size_t bytes = decltype(size_tag)::value ? decltype(size_tag)::value : item;
      for (int64_t i = lo; i < hi; ++i) {
        const int64_t v = land(i);
        if (v < 0) continue;
        const int64_t b = v >> shift;
        if (at[b] == end[b]) {
          overflow = true;
          continue;
        }
        const int64_t slot = at[b]++;
        keys[slot] = (static_cast<uint64_t>(v) << slot_bits) | static_cast<uint64_t>(slot);
        std::memcpy(vals + slot * item, up + i * ustep, bytes);
      }
    });
    if (overflow || at != end) changed.store(true, std::memory_order_relaxed);
  });
  if (changed.load()) ThrowIndexChanged();
  // Pass 3: each worker sorts (sorted plan) and applies its blocks.
  const uint64_t mask = (uint64_t{1} << slot_bits) - 1;
  const LoopContext ctx{r.combiner ? r.combiner->name().c_str() : ""};
  parallel([&](int w) {
    int64_t offs[kChunk];
    std::vector<char> gathered(static_cast<size_t>(kChunk * item));
    const int64_t b_lo = nblocks * w / workers, b_hi = nblocks * (w + 1) / workers;
    for (int64_t b = b_lo; b < b_hi; ++b) {
      if (sort) simd::SortKeysAscending(keys + start[b], static_cast<size_t>(start[b + 1] - start[b]));
    }
    for (int64_t k = start[b_lo]; k < start[b_hi]; k += kChunk) {
      int64_t m = std::min(kChunk, start[b_hi] - k);
      const char* chunk_vals = vals + k * item;
      WithItemSize(item, [&](auto size_tag) {
        const size_t bytes = decltype(size_tag)::value ? decltype(size_tag)::value : item;
        for (int64_t j = 0; j < m; ++j) offs[j] = static_cast<int64_t>(keys[k + j] >> slot_bits) * stride;
        if (sort) {  // values follow their keys, from inside the block
          for (int64_t j = 0; j < m; ++j) {
            std::memcpy(gathered.data() + j * item,
                        vals + static_cast<int64_t>(keys[k + j] & mask) * item, bytes);
          }
          chunk_vals = gathered.data();
        }
        if (!r.combiner) {
          for (int64_t j = 0; j < m; ++j) std::memcpy(op.data + offs[j], chunk_vals + j * item, bytes);
        }
      });
      if (!r.combiner) continue;
      char* args[3] = {op.data, reinterpret_cast<char*>(offs), const_cast<char*>(chunk_vals)};
      const int64_t steps[3] = {0, 8, item};
      CheckStatus(loop->slots.indexed(ctx, args, &m, steps, nullptr));
    }
  });
  return true;
}

bool RunReorderedFast(const ScatterRequest& r, const CanonicalScatter& c, const Loop* loop,
                      bool sort, int threads, int64_t* skipped) {
  const bool shape_ok = c.num_operands == 1 && c.window_size == 1 &&
                        c.start_operand_dim.size() == 1 && c.batch_operand_dim.empty() &&
                        c.row_shape.size() == 1 && c.operand_shape[c.start_operand_dim[0]] > 0 &&
                        !r.updates.empty() && r.init == Init::kIncludeTarget &&
                        r.finalize == Finalize::kNone && OtherDimsFit(c);
  if (!shape_ok || (r.combiner && (!loop || !loop->slots.indexed))) return false;
  return WithIndexType(r.indices.dtype, [&](auto tag) {
    return ReorderedFastTyped<decltype(tag)>(r, c, loop, sort, threads, skipped);
  });
}

// Element scatter, reordered by destination but stable: per destination the
// update order is kept, so results equal the sequential ones bit for bit.
// With `sort`, a full sort by destination (VQSort on destination<<bits|seq
// keys) and one writer thread per segment; otherwise a stable counting
// partition into L2-sized destination blocks.
bool RunReordered(const ScatterRequest& r, const CanonicalScatter& c, const Loop* loop,
                  Walker& walker, bool sort, int threads) {
  const ArrayView& op = r.operands[0];
  const size_t item = op.itemsize();
  std::vector<int64_t> elems, offs;
  std::vector<char*> upds;
  walker.Run(false, [&](const Element& e) {
    elems.push_back(e.elem);
    offs.push_back(e.op_off[0]);
    upds.push_back(e.upd[0]);
  });
  const int64_t n = static_cast<int64_t>(elems.size());
  std::vector<int64_t> order(n);
  if (sort) {
    int seq_bits = 1, dest_bits = 1;
    while ((int64_t{1} << seq_bits) < n) ++seq_bits;
    const int64_t op_size = ShapeSize(c.operand_shape);
    while ((int64_t{1} << dest_bits) < op_size) ++dest_bits;
    if (seq_bits + dest_bits > 63) return false;
    std::vector<uint64_t> keys(n);
    for (int64_t i = 0; i < n; ++i) {
      keys[i] = (static_cast<uint64_t>(elems[i]) << seq_bits) | static_cast<uint64_t>(i);
    }
    simd::SortKeysAscending(keys.data(), keys.size());
    const uint64_t mask = (uint64_t{1} << seq_bits) - 1;
    for (int64_t i = 0; i < n; ++i) order[i] = static_cast<int64_t>(keys[i] & mask);
  } else {
    const int64_t block_elems = std::max<int64_t>(1, kL2Bytes / 4 / static_cast<int64_t>(item));
    const int64_t nblocks = ShapeSize(c.operand_shape) / block_elems + 1;
    std::vector<int64_t> start(nblocks + 1, 0);
    for (int64_t i = 0; i < n; ++i) ++start[elems[i] / block_elems + 1];
    for (int64_t b = 0; b < nblocks; ++b) start[b + 1] += start[b];
    for (int64_t i = 0; i < n; ++i) order[start[elems[i] / block_elems]++] = i;
  }
  // Gather into the new order: offsets, and update values made contiguous.
  std::vector<int64_t> soffs(n);
  std::vector<char> svals(static_cast<size_t>(n) * item);
  for (int64_t i = 0; i < n; ++i) {
    soffs[i] = offs[order[i]];
    if (upds[order[i]]) std::memcpy(svals.data() + i * item, upds[order[i]], item);
  }
  const LoopContext ctx{r.combiner ? r.combiner->name().c_str() : ""};
  auto apply = [&](int64_t lo, int64_t hi) {
    int64_t count = hi - lo;
    if (count <= 0) return 0;
    if (!r.combiner) {
      for (int64_t i = lo; i < hi; ++i) std::memcpy(op.data + soffs[i], svals.data() + i * item, item);
      return 0;
    }
    char* args[3] = {op.data, reinterpret_cast<char*>(soffs.data() + lo), svals.data() + lo * item};
    const int64_t steps[3] = {0, 8, static_cast<int64_t>(item)};
    return loop->slots.indexed(ctx, args, &count, steps, nullptr);
  };
  if (sort && threads >= 2 && n >= 2) {
    int64_t mid = n / 2;
    while (mid < n && elems[order[mid]] == elems[order[mid - 1]]) ++mid;  // segment boundary
    int status2 = 0;
    std::thread t([&] { status2 = apply(mid, n); });
    const int status1 = apply(0, mid);
    t.join();
    CheckStatus(status1);
    CheckStatus(status2);
  } else {
    CheckStatus(apply(0, n));
  }
  return true;
}

void ApplyInit(const ScatterRequest& r, Walker& walker) {
  const int n = static_cast<int>(r.operands.size());
  if (static_cast<int>(r.init_values.size()) != n) {
    throw ValueError("scatter: init=value-at-hits needs one init value per operand");
  }
  std::vector<internal::CastFn> cast(n);
  for (int k = 0; k < n; ++k) cast[k] = internal::GetCast(r.init_values[k].dtype, r.operands[k].dtype);
  walker.Run(false, [&](const Element& e) {
    for (int k = 0; k < n; ++k) {
      cast[k](r.init_values[k].data, 0, r.operands[k].data + e.op_off[k], 0, 1);
    }
  });
}

// mean: value / (hits + include_self) at every hit position.
void ApplyMean(const ScatterRequest& r, const CanonicalScatter& c, Walker& walker) {
  std::vector<int64_t> hits(static_cast<size_t>(ShapeSize(c.operand_shape)), 0);
  std::vector<int64_t> where(hits.size(), 0);
  walker.Run(false, [&](const Element& e) {
    ++hits[e.elem];
    where[e.elem] = e.op_off[0];
  });
  const int64_t extra = r.init == Init::kIncludeTarget ? 1 : 0;
  for (size_t k = 0; k < r.operands.size(); ++k) {
    const ArrayView& op = r.operands[k];
    VisitDType(op.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      for (size_t i = 0; i < hits.size(); ++i) {
        if (hits[i] == 0) continue;
        char* p = op.data + (k == 0 ? where[i] : 0);
        if (k != 0) {
          int64_t rem = static_cast<int64_t>(i);
          for (int d = 0; d < c.operand_rank; ++d) {
            p += (rem / c.operand_cstrides[d]) * op.strides[d];
            rem %= c.operand_cstrides[d];
          }
        }
        const int64_t count = hits[i] + extra;
        T v = LoadElem<T>(p);
        if constexpr (std::is_same_v<T, bool>) {
          // bool mean: nonzero stays true
        } else if constexpr (kIsInt<T>) {
          const T q = static_cast<T>(v / static_cast<T>(count));
          v = (v % static_cast<T>(count) != 0 && v < 0) ? static_cast<T>(q - 1) : q;
        } else if constexpr (kIsHalf<T>) {
          v = T(static_cast<float>(v) / static_cast<float>(count));
        } else if constexpr (kIsComplex<T>) {
          v = v / static_cast<typename T::value_type>(count);
        } else {
          v = v / static_cast<T>(count);
        }
        StoreElem(p, v);
      }
      return 0;
    });
  }
}

// The scatter itself; Scatter() below guards combiners that can fail.
ScatterReport ScatterUnguarded(const ScatterRequest& r) {
  const CanonicalScatter c = internal::Canonicalize(r);
  Walker walker(r, c);
  ScatterReport report;
  // The common shapes (one index per update, or per row of one run) skip
  // the general walker entirely when the dtypes need no casts.
  const Loop* exact = ExactLoop(r);
  // NumPy's at resolves the loop before it looks at an index: a missing
  // loop is a TypeError even when an index is out of bounds.
  if (r.combiner && !exact) (void)ResolvedLoop(r);
  const bool typed = exact || (!r.combiner && c.num_operands == 1 && r.updates.size() == 1 &&
                               r.updates[0].dtype == r.operands[0].dtype);
  if (typed && r.init == Init::kIncludeTarget && r.finalize == Finalize::kNone &&
      !(r.combiner && r.combiner->nin() == 1)) {
    const ScatterPlan p = r.force_plan;
    const bool sort = p == ScatterPlan::kSortedParallel;
    int64_t skipped = 0;
    ScatterPlan ran = ScatterPlan::kAuto;
    // Measured (benchmarks/scatter.py): the element path beats the
    // partitioned and sorted plans at every target size up to 1e7 elements
    // on the 2-core development machine, so auto always takes it.
    if ((p == ScatterPlan::kAuto || p == ScatterPlan::kElement) &&
        RunElementFast(r, c, exact, &skipped)) {
      ran = ScatterPlan::kElement;
    } else if ((p == ScatterPlan::kPartitioned || sort) &&
               RunReorderedFast(r, c, exact, sort, sort ? r.max_threads : 1, &skipped)) {
      ran = p;
    } else if ((p == ScatterPlan::kAuto || p == ScatterPlan::kWindowRuns) &&
               RunRowsFast(r, c, exact, &skipped)) {
      ran = ScatterPlan::kWindowRuns;
    }
    if (ran != ScatterPlan::kAuto) {
      report.plan = ran;
      report.updates_skipped = skipped;
      report.updates_applied = c.num_rows * c.window_size - skipped;
      return report;
    }
  }
  // Every index is checked before the first write.
  if (r.bounds == Bounds::kRaise || r.bounds == Bounds::kWrapThenRaise) {
    walker.Run(true, [](const Element&) {});
  }
  if (r.init == Init::kValueAtHits) ApplyInit(r, walker);

  const int n = c.num_operands;
  const bool unary = r.combiner && r.combiner->nin() == n;
  if (!r.combiner && static_cast<int>(r.updates.size()) != n) {
    throw ValueError("scatter: replacing needs one updates array per operand");
  }
  const bool same_replace =
      !r.combiner && n == 1 && r.updates[0].dtype == r.operands[0].dtype;
  const bool fast = n == 1 && (same_replace || exact != nullptr);
  const bool indexed = same_replace || (exact && exact->slots.indexed);
  const int64_t target_bytes = ShapeSize(c.operand_shape) * static_cast<int64_t>(r.operands[0].itemsize());
  const int64_t num_updates = c.num_rows * c.window_size;

  ScatterPlan plan = r.force_plan;
  if (plan == ScatterPlan::kAuto) {
    if (!fast) {
      plan = ScatterPlan::kGeneric;
    } else if (c.window_size > 1 || !indexed || unary) {
      plan = ScatterPlan::kWindowRuns;
    } else if (target_bytes > kL2Bytes && num_updates >= (int64_t{1} << 16)) {
      plan = num_updates >= (int64_t{1} << 20) && r.max_threads >= 2 ? ScatterPlan::kSortedParallel
                                                                     : ScatterPlan::kPartitioned;
    } else if (!r.operands[0].IsCContiguous() && target_bytes <= kL2Bytes / 4 &&
               num_updates * 4 >= ShapeSize(c.operand_shape)) {
      plan = ScatterPlan::kLocalTarget;
    } else {
      plan = ScatterPlan::kElement;
    }
  }
  // A forced plan that does not apply to this request falls back to one
  // that does (tests force every plan on every request).
  const bool element_ok = fast && indexed && !unary && c.window_size <= 1;
  if ((plan == ScatterPlan::kElement || plan == ScatterPlan::kPartitioned ||
       plan == ScatterPlan::kSortedParallel || plan == ScatterPlan::kLocalTarget) &&
      !element_ok) {
    plan = fast ? ScatterPlan::kWindowRuns : ScatterPlan::kGeneric;
  }
  if (plan == ScatterPlan::kWindowRuns && !fast) plan = ScatterPlan::kGeneric;

  switch (plan) {
    case ScatterPlan::kGeneric:
      RunGeneric(r, walker);
      break;
    case ScatterPlan::kWindowRuns:
      RunWindowRuns(r, exact, walker);
      break;
    case ScatterPlan::kElement:
      RunElement(r, exact, walker);
      break;
    case ScatterPlan::kPartitioned:
    case ScatterPlan::kSortedParallel:
      if (!RunReordered(r, c, exact, walker, plan == ScatterPlan::kSortedParallel,
                        r.max_threads)) {
        plan = ScatterPlan::kPartitioned;
        RunReordered(r, c, exact, walker, false, 1);
      }
      break;
    case ScatterPlan::kLocalTarget: {
      // A private dense copy of the target takes the updates, then merges back.
      Array local = Array::CopyOf(r.operands[0]);
      ScatterRequest lr = r;
      lr.operands = {local.view()};
      lr.init = Init::kIncludeTarget;
      lr.finalize = Finalize::kNone;
      const CanonicalScatter lc = internal::Canonicalize(lr);
      Walker lw(lr, lc);
      RunElement(lr, exact, lw);
      CopyInto(r.operands[0], local.view());
      report.updates_skipped = lw.skipped();
      break;
    }
    case ScatterPlan::kAuto:
      break;
  }
  if (r.finalize == Finalize::kMean) ApplyMean(r, c, walker);
  report.plan = plan;
  if (plan != ScatterPlan::kLocalTarget) report.updates_skipped = walker.skipped();
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
  const Loop* exact = r.combiner ? ExactLoop(r) : nullptr;
  const Loop* loop = exact ? exact : r.combiner ? &ResolvedLoop(r) : nullptr;
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
