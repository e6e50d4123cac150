// The element plan: update elements in order, batched as byte offsets into
// the combiner's indexed slot (equal neighbours combine in a register), from
// either index source; and local_target, the same plan on a private dense
// copy of a small strided target.
#include <algorithm>
#include <atomic>
#include <cfenv>
#include <cstring>
#include <vector>
#include <optional>

#include "scatter/index_scan.h"
#include "scatter/plans.h"
#include "ufuncx/memory.h"
#include "ufuncx/ufunc.h"
#include "workers.h"

namespace ufuncx::internal {
namespace {

// Updates per batch of the element plan (8 KiB of offsets, in L1). The
// slot prefetches destinations 32 updates ahead within a batch, so longer
// batches leave fewer of their updates unprefetched: int32 indices, 1.56e6
// random float64 updates into a 100 MB target on one thread, 11 ns per
// update in batches of 256, 7.7-8.1 in 1024, 8.6-9.6 in 2048.
constexpr int64_t kElementBatch = 1024;

// Batches of (operand byte offset, update pointer) for the indexed slot:
// one batch holds updates at a fixed stride, so a batch ends when it is
// full or when the stride breaks. Replacing copies the bytes instead.
class ElementBatch {
 public:
  explicit ElementBatch(const PlanInputs& in)
      : in_(in), op_(in.r.operands[0]), item_(op_.itemsize()) {}

  void Add(int64_t off, char* upd) {
    if (count_ == 1) {
      ustep_ = upd - first_;
    } else if (count_ > 1 && upd != first_ + count_ * ustep_) {
      Flush();
    }
    if (count_ == 0) first_ = upd;
    offs_[count_++] = off;
    if (count_ == kElementBatch) Flush();
  }

  // A whole batch at once: offsets()[0, count), updates at first + j * ustep.
  int64_t* offsets() { return offs_; }
  void FlushBatch(int64_t count, char* first, int64_t ustep) {
    count_ = count;
    first_ = first;
    ustep_ = ustep;
    Flush();
  }

  // A whole batch of landed indices (offsets()[0, count), each in [0,
  // size)) as raw int64 indices for the combiner's slot, whose dense bodies
  // prefetch destinations in targets beyond the caches (byte offsets take
  // the plain body). The slot checks each index again: a racing writer
  // makes it stop, never write outside. Returns whether it finished.
  bool FlushIndices(int64_t count, char* first, int64_t ustep, int64_t size, int64_t stride,
                    bool runs) {
    int64_t m = count, stop = 0;
    IndexedIndices ix{size, stride, false, runs, &stop};
    char* args[3] = {op_.data, reinterpret_cast<char*>(offs_), first};
    const int64_t steps[3] = {0, 8, ustep};
    CheckStatus(in_.loop->slots.indexed(in_.ctx, args, &m, steps, &ix), in_.ctx.ufunc_name);
    return stop == count;
  }

  void Flush() {
    if (count_ == 0) return;
    if (!in_.r.combiner) {
      for (int64_t i = 0; i < count_; ++i) {
        std::memcpy(op_.data + offs_[i], first_ + i * ustep_, item_);
      }
    } else {
      char* args[3] = {op_.data, reinterpret_cast<char*>(offs_), first_};
      const int64_t steps[3] = {0, 8, ustep_};
      CheckStatus(in_.loop->slots.indexed(in_.ctx, args, &count_, steps, nullptr), in_.ctx.ufunc_name);
    }
    count_ = 0;
  }

 private:
  const PlanInputs& in_;
  const ArrayView& op_;
  const size_t item_;
  int64_t offs_[kElementBatch];
  int64_t count_ = 0;
  char* first_ = nullptr;
  int64_t ustep_ = 0;
};

// Validated int64 indices straight into the indexed slot, no offsets
// buffer. The slot checks each index again as it reads it for its write:
// a racing writer thread can make it stop, never write outside.
bool DirectInt64(const PlanInputs& in, const IndexColumn<int64_t>& col, bool has_negative,
                 bool runs) {
  const ArrayView& op = in.r.operands[0];
  int64_t m = col.n, stop = 0;
  IndexedIndices ix{col.size, op.strides[col.dim], col.policy.wraps() && has_negative, runs, &stop};
  char* args[3] = {op.data, const_cast<char*>(col.ip), in.r.updates[0].data};
  const int64_t steps[3] = {0, col.istep, in.c.row_update_strides[0][0]};
  CheckStatus(in.loop->slots.indexed(in.ctx, args, &m, steps, &ix), in.ctx.ufunc_name);
  return stop == m;
}

// Sorted indices split between writers: the updates are cut at run
// boundaries near n * w / workers, and writer w owns the target positions
// from its first index up to the next writer's first index. Each writer
// checks every index against its own range as it writes
// (IndexedIndices::lo), so on sorted data each destination has one writer,
// which applies its updates in order: the one-thread result bit for bit.
// On other data a writer stops early, and the caller restores the target.
// Returns whether every writer finished. Each run is combined in a
// register, so one thread waits on the combiner's latency and two halve
// the wait: 1e6 sorted float64 updates into 1e5, 1.7-2.9 ms on one thread,
// 0.9-1.5 ms on two; into 1e3, 0.8-1.2 -> 0.4-0.7 ms (noisy VM).
bool SplitRuns(const PlanInputs& in, const IndexColumn<int64_t>& col, int workers) {
  const ArrayView& op = in.r.operands[0];
  const int64_t n = col.n, size = col.size;
  auto index_at = [&](int64_t i) {
    int64_t v;
    std::memcpy(&v, col.ip + i * col.istep, 8);
    return v;
  };
  std::vector<int64_t> cut(static_cast<size_t>(workers) + 1), first(cut.size());
  cut[0] = 0;
  first[0] = 0;
  cut[workers] = n;
  first[workers] = size;
  for (int w = 1; w < workers; ++w) {
    int64_t c = std::max(n * w / workers, cut[w - 1] + 1);
    const int64_t v = index_at(c - 1);
    if (index_at(n - 1) == v) return false;  // (sorted: one run to the end, nothing to cut)
    while (c < n && index_at(c) == v) ++c;
    cut[w] = c;
    first[w] = c < n ? index_at(c) : size;
    // Each writer's range must be a non-empty slice of [0, size).
    if (c >= n || first[w] <= first[w - 1] || first[w] >= size) return false;
  }
  const int64_t stride = op.strides[col.dim], ustep = in.c.row_update_strides[0][0];
  std::vector<char> finished(static_cast<size_t>(workers), 0);
  RunWorkers(workers, [&](int w) {
    int64_t m = cut[w + 1] - cut[w], stop = 0;
    IndexedIndices ix{first[w + 1] - first[w], stride, false, true, &stop, first[w]};
    char* args[3] = {op.data, const_cast<char*>(col.ip) + cut[w] * col.istep,
                     in.r.updates[0].data + cut[w] * ustep};
    const int64_t steps[3] = {0, col.istep, ustep};
    CheckStatus(in.loop->slots.indexed(in.ctx, args, &m, steps, &ix), in.ctx.ufunc_name);
    finished[static_cast<size_t>(w)] = stop == m;
  });
  return std::all_of(finished.begin(), finished.end(), [](char f) { return f != 0; });
}

// Targets from this many bytes split their random updates between two
// writers (SplitByDestination). Below it the one-thread loop's writes hit
// L1 and L2, and every writer's reading of all the updates costs what the
// second core saves. Measured (1e6 random float64 add.at, 6 alternating
// rounds, 2-thread speedup over 1 thread): target 1e3 0.55x, 1e4 0.69x,
// 3e4 1.03x, 6e4 1.11x, 1e5 1.03-1.22x (0.85x in one benchmark run), 2e5
// 1.16-1.68x, 1e6 1.37-1.57x, 1e7 1.36-1.51x (before the Highway compress
// pass and the prefetching body: 1e7 0.87x). Held to AVX2, 1e6 1.43x and
// 1e7 1.81x, since the keep pass compresses in registers (CompressPair64;
// through Highway 1.0.3's CompressStore they were 0.31x and 0.49x). From
// 512 KiB since stop 44 (was 1 MiB): 1e5 float64 1.07-1.11x natively and
// held to AVX2 (1.19-1.22 ms against 1.33-1.37; torch's scatter_add_ 1.23).
constexpr int64_t kSplitMinTargetBytes = int64_t{1} << 19;

bool SplitByDestination(const PlanInputs& in, const IndexColumn<int64_t>& col, bool wrap,
                        int workers);

// A target saved before a pass that checks its indices as it writes, to be
// put back, with the floating-point flags it began with, when one is bad.
// A C-contiguous target is saved in reused scratch.
class SavedTarget {
 public:
  explicit SavedTarget(const ArrayView& op)
      : op_(op),
        flat_(op.IsCContiguous()),
        bytes_(ShapeSize(op.shape) * static_cast<int64_t>(op.itemsize())),
        scratch_(flat_ ? bytes_ : 0),
        flags_(std::fetestexcept(FE_ALL_EXCEPT)) {
    if (flat_) {
      std::memcpy(scratch_.get(), op.data, static_cast<size_t>(bytes_));
    } else {
      copy_ = Array::CopyOf(op);
    }
  }
  int64_t bytes() const { return bytes_; }
  void Restore() {
    if (flat_) {
      std::memcpy(op_.data, scratch_.get(), static_cast<size_t>(bytes_));
    } else {
      CopyInto(op_, copy_->view());
    }
  }
  void RestoreFlags() const {
    std::feclearexcept(FE_ALL_EXCEPT);
    if (flags_) std::feraiseexcept(flags_);
  }

 private:
  const ArrayView& op_;
  bool flat_;
  int64_t bytes_;
  ScratchBlock scratch_;
  std::optional<Array> copy_;
  int flags_;
};

// Small target, many updates: one pass instead of two. The slot checks
// each index as it goes (where a run starts, when it combines runs) and
// stops before the first one outside [0, size); the target is saved first.
// After a stop - an index out of range, or a negative one to wrap (wrapping
// in this pass costs 15% on 1e7 updates into 1000 bins) - the target is
// restored and the two-pass path runs: it raises, or wraps. Either way a
// failed call changes nothing.
void FusedInt64(const PlanInputs& in, const IndexColumn<int64_t>& col) {
  SavedTarget saved(in.r.operands[0]);
  const auto restore = [&] { saved.Restore(); };
  const int64_t target_bytes = saved.bytes();
  bool done = false;
  try {
    // Runs, judged from the first indices, pick the body that combines
    // them in a register; without runs the plain body is faster.
    const IndexScan prefix = ScanIndices(reinterpret_cast<const int64_t*>(col.ip),
                                         std::min<int64_t>(col.n, 256), 0, col.size);
    IndexColumn<int64_t> unwrapped = col;
    unwrapped.policy = BoundsPolicy(Bounds::kRaise);
    const int workers = std::min({in.r.max_threads, 2, Cores()});
    const bool sorted_runs = prefix.runs() && prefix.sorted_prefix();
    const bool split_random =
        !prefix.runs() && static_cast<int64_t>(target_bytes) >= kSplitMinTargetBytes;
    if (workers >= 2 && col.n >= kParallelMinUpdates && (sorted_runs || split_random)) {
      // Two writers: sorted runs cut at a run boundary, other data kept by
      // the writer whose slice of the target it lands in. Data that is not
      // sorted after all stops a SplitRuns writer, and an index outside the
      // target is kept by no writer: then the work is undone, flags included.
      const int flags = std::fetestexcept(FE_ALL_EXCEPT);
      done = sorted_runs ? SplitRuns(in, unwrapped, workers)
                         : SplitByDestination(in, col, col.policy.wraps(), workers);
      if (!done) {
        restore();
        std::feclearexcept(FE_ALL_EXCEPT);
        if (flags) std::feraiseexcept(flags);
      }
    }
    if (!done) done = DirectInt64(in, unwrapped, false, prefix.runs());
  } catch (...) {
    restore();
    throw;
  }
  if (done) return;
  restore();
  const IndexScan scan = col.CheckAll(0, col.n);
  if (!DirectInt64(in, col, scan.has_negative, scan.runs())) ThrowIndexChanged();
}

// One writer's pass: the updates of `n` whose index lands in [lo, lo +
// span), in order, into the indexed slot. Locals only inside the loop (no
// captured references: the byte stores would make the compiler reload
// them every element).
constexpr int64_t kWriterBatch = 1024;  // updates a writer keeps before applying them

template <bool kWrap, size_t kBytes>
int64_t SplitWriter(const PlanInputs& in, const char* ip, int64_t istep, int64_t n, int64_t size,
                    int64_t stride, const char* up, int64_t ustep, int64_t item, int64_t lo,
                    int64_t span, char* vbuf) {
  const size_t bytes = kBytes ? kBytes : static_cast<size_t>(item);
  const uint64_t uspan = static_cast<uint64_t>(span);
  char* const op = in.r.operands[0].data;
  int64_t kept[kWriterBatch + kKeepSliceSlack];
  // Contiguous int64 indices and 8-byte updates: a Highway pass keeps them.
  const bool vector_pass = istep == 8 && ustep == 8 && item == 8;
  int64_t mine = 0;
  for (int64_t start = 0; start < n; start += kWriterBatch) {
    const int64_t m = std::min(kWriterBatch, n - start);
    const char* ipp = ip + start * istep;
    const char* upp = up + start * ustep;
    int64_t k = 0;
    if (vector_pass) {
      k = KeepSlice64(reinterpret_cast<const int64_t*>(ipp), reinterpret_cast<const uint64_t*>(upp),
                      m, kWrap ? size : 0, lo, span, kept, reinterpret_cast<uint64_t*>(vbuf));
    } else {
      for (int64_t j = 0; j < m; ++j) {
        int64_t v;
        std::memcpy(&v, ipp + j * istep, 8);
        if constexpr (kWrap) v += (v >> 63) & size;
        kept[k] = v;
        std::memcpy(vbuf + k * item, upp + j * ustep, bytes);
        k += static_cast<uint64_t>(v) - static_cast<uint64_t>(lo) < uspan;
      }
    }
    mine += k;
    if (k == 0) continue;
    // The kept indices go to the slot as raw indices of this writer's slice
    // (IndexedIndices::lo), so a contiguous target takes its dense bodies,
    // which prefetch destinations in targets beyond the caches.
    int64_t applied = k, stop = 0;
    IndexedIndices ix{span, stride, false, false, &stop, lo};
    char* args[3] = {op, reinterpret_cast<char*>(kept), vbuf};
    const int64_t steps[3] = {0, 8, item};
    CheckStatus(in.loop->slots.indexed(in.ctx, args, &applied, steps, &ix), in.ctx.ufunc_name);
    if (stop != k) return -1;  // (cannot happen: every kept index is in the slice)
  }
  return mine;
}

// Two (or more) writers, each owning a contiguous slice of the target's
// positions: every writer reads every index and keeps, in update order,
// those that land in its slice - a Highway compress pass (contiguous int64
// indices, 8-byte updates) or a branch-free scalar one - then hands the
// batch to the indexed slot as raw indices of its slice. No two writers
// share a destination and each applies its updates in order, so the result
// is the one-thread result bit for bit. Returns false when some index was
// kept by no writer - outside the target (the fused path, which checks
// nothing first, then restores the target), or changed since the check
// pass (a racing writer): it was dropped, never written outside.
bool SplitByDestination(const PlanInputs& in, const IndexColumn<int64_t>& col, bool wrap,
                        int workers) {
  const ArrayView& op = in.r.operands[0];
  const int64_t n = col.n, size = col.size, stride = op.strides[col.dim];
  const int64_t item = static_cast<int64_t>(op.itemsize());
  const int64_t ustep = in.c.row_update_strides[0][0];
  const char* up = in.r.updates[0].data;
  std::atomic<int64_t> kept{0};
  RunWorkers(workers, [&](int w) {
    const int64_t lo = size * w / workers, span = size * (w + 1) / workers - lo;
    std::vector<char> vbuf(static_cast<size_t>((kWriterBatch + kKeepSliceSlack) * item));
    int64_t mine = 0;
    WithItemSize(item, [&](auto size_tag) {
      constexpr size_t kBytes = decltype(size_tag)::value;
      mine = wrap ? SplitWriter<true, kBytes>(in, col.ip, col.istep, n, size, stride, up, ustep,
                                             item, lo, span, vbuf.data())
                  : SplitWriter<false, kBytes>(in, col.ip, col.istep, n, size, stride, up, ustep,
                                              item, lo, span, vbuf.data());
    });
    kept.fetch_add(mine, std::memory_order_relaxed);
  });
  return kept.load() == n;
}

template <class I>
int64_t ElementFromColumn(const PlanInputs& in) {
  const ScatterRequest& r = in.r;
  const ArrayView& op = r.operands[0];
  const IndexColumn<I> col(r, in.c);
  const int64_t n = col.n, stride = op.strides[col.dim];
  const int64_t ustep = in.c.row_update_strides[0][0];
  char* const up = r.updates[0].data;
  const bool raise = col.policy.raises();
  if constexpr (std::is_same_v<I, int64_t>) {
    if (raise && r.combiner) {
      // A target much smaller than the index array is cheaper to save than
      // the index array is to read twice: then the check and the writes
      // share a pass.
      if (col.Dense() && ShapeSize(op.shape) * static_cast<int64_t>(op.itemsize()) * 4 <=
                             n * static_cast<int64_t>(sizeof(I))) {
        FusedInt64(in, col);
        return 0;
      }
      // What the check pass learns: negative indices (when none, the slot
      // skips wrapping) and equal neighbours (runs: sorted data).
      const IndexScan scan = col.CheckAll(0, n);
      const int workers = std::min({in.r.max_threads, 2, Cores()});
      const int64_t target_bytes = ShapeSize(op.shape) * static_cast<int64_t>(op.itemsize());
      if (workers >= 2 && !scan.runs() && n >= kParallelMinUpdates &&
          target_bytes >= kSplitMinTargetBytes) {
        if (!SplitByDestination(in, col, col.policy.wraps() && scan.has_negative, workers)) {
          ThrowIndexChanged();
        }
        return 0;
      }
      if (!DirectInt64(in, col, scan.has_negative, scan.runs())) ThrowIndexChanged();
      return 0;
    }
  }
  ElementBatch batch(in);
  if (raise || col.policy.clips()) {
    // Every index checked before the first write (what the pass learns:
    // runs of equal neighbours).
    const IndexScan scan = raise ? col.CheckAll(0, n) : IndexScan{};
    // Every index lands: whole batches without branches, as raw indices
    // when a combiner takes them (int32 indices, 1.25e7 random float64
    // updates into 1.25e7 in 8 calls: 0.17-0.22 -> 0.15-0.16 s; int64 indices
    // 0.10-0.13 s), else as byte offsets.
    const bool raw = r.combiner != nullptr;
    int64_t* offs = batch.offsets();
    for (int64_t start = 0; start < n; start += kElementBatch) {
      const int64_t m = std::min(kElementBatch, n - start);
      int64_t lost = 0;  // (after the check pass: only a racing writer)
      for (int64_t j = 0; j < m; ++j) {
        const int64_t v = col.Land(start + j);
        lost |= v;
        offs[j] = std::max<int64_t>(v, 0) * (raw ? 1 : stride);
      }
      if (lost < 0) ThrowIndexChanged();
      if (!raw) {
        batch.FlushBatch(m, up + start * ustep, ustep);
      } else if (!batch.FlushIndices(m, up + start * ustep, ustep, col.size, stride, scan.runs())) {
        ThrowIndexChanged();
      }
    }
    return 0;
  }
  int64_t skipped = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t v = col.Land(i);
    if (v < 0) {  // the skip policies drop it
      ++skipped;
      continue;
    }
    batch.Add(v * stride, up + i * ustep);
  }
  batch.Flush();
  return skipped;
}

// IsBatchedColumn's requests (torch's scatter_ and scatter_reduce_ along a
// dim): rows in update order, a run along the last row dim at a time; each
// row's destination is its coordinates dotted with the operand strides of
// the dims they batch, plus its index times the indexed dim's stride. Every
// index is checked first; the apply pass reads each one again and stops
// before writing a batch holding one that changed (a racing writer). The
// walker took 33 ns an update here (torch 2.2 ms, ufuncx 43 ms for a
// [1000, 64] scatter_add_ of 20000 rows).
template <class I>
void BatchedFromColumn(const PlanInputs& in) {
  const ScatterRequest& r = in.r;
  const CanonicalScatter& c = in.c;
  const ArrayView& op = r.operands[0];
  const int nr = static_cast<int>(c.row_shape.size()), last = nr - 1;
  const int dim = c.start_operand_dim[0];
  const int64_t size = c.operand_shape[dim], stride = op.strides[dim];
  if (c.num_rows == 0) return;
  const BatchedRowStrides st(r, c);  // (one operand: its strides are the first nr)
  const std::vector<int64_t>&op_row = st.operand, &idx_row = st.index, &upd_row = st.update;
  const BoundsPolicy policy(r.bounds);
  const int64_t len = c.row_shape[static_cast<size_t>(last)], runs = c.num_rows / len;
  const int64_t istep = idx_row[static_cast<size_t>(last)], ostep = op_row[static_cast<size_t>(last)],
                ustep = upd_row[static_cast<size_t>(last)];
  // f(index pointer, operand byte offset, update pointer) at each run's start.
  const auto each_run = [&](auto&& f) {
    std::vector<int64_t> at(static_cast<size_t>(nr), 0);
    for (int64_t k = 0; k < runs; ++k) {
      for (int d = last - 1; k > 0 && d >= 0; --d) {
        if (++at[static_cast<size_t>(d)] < c.row_shape[static_cast<size_t>(d)]) break;
        at[static_cast<size_t>(d)] = 0;
      }
      const char* ip = r.indices.data;
      int64_t off = 0;
      char* up = r.updates[0].data;
      for (int d = 0; d < last; ++d) {
        const int64_t x = at[static_cast<size_t>(d)];
        ip += x * idx_row[static_cast<size_t>(d)];
        off += x * op_row[static_cast<size_t>(d)];
        up += x * upd_row[static_cast<size_t>(d)];
      }
      f(ip, off, up);
    }
  };
  const auto bad = [&](int64_t v) {
    return static_cast<uint64_t>(policy.Wrap(v, size)) >= static_cast<uint64_t>(size);
  };
  const auto check_all = [&] {
    each_run([&](const char* ip, int64_t, char*) {
      uint64_t any = 0;
      for (int64_t j = 0; j < len; ++j) any |= bad(ReadIndex<I>(ip + j * istep));
      if (!any) return;
      for (int64_t j = 0; j < len; ++j) {
        const int64_t v = ReadIndex<I>(ip + j * istep);
        if (bad(v)) throw ScatterIndexError(v, dim, size);
      }
    });
  };
  // Every index read again as it is applied; returns false, before writing
  // the batch, at one out of range.
  const auto apply = [&] {
    ElementBatch batch(in);
    int64_t* offs = batch.offsets();
    bool ok = true;
    each_run([&](const char* ip, int64_t off, char* up) {
      for (int64_t s = 0; ok && s < len; s += kElementBatch) {
        const int64_t m = std::min(kElementBatch, len - s);
        uint64_t lost = 0;
        for (int64_t j = 0; j < m; ++j) {
          const int64_t v = policy.Wrap(ReadIndex<I>(ip + (s + j) * istep), size);
          const bool out = static_cast<uint64_t>(v) >= static_cast<uint64_t>(size);
          lost |= out;
          offs[j] = off + (s + j) * ostep + (out ? 0 : v) * stride;  // (no overflow)
        }
        if (lost) {
          ok = false;
        } else {
          batch.FlushBatch(m, up + s * ustep, ustep);
        }
      }
    });
    return ok;
  };
  // A target much smaller than the index is cheaper to save than the index
  // is to read twice (as FusedInt64): then the apply pass is the check, and
  // a bad index puts the target back before the check pass names it.
  // [20000, 64] into [1000, 64]: 2.9-3.0 ms with a check pass first, 2.6-2.9
  // fused (torch 2.1-2.3).
  const int64_t index_bytes = c.num_rows * static_cast<int64_t>(sizeof(I));
  if (ShapeSize(op.shape) * static_cast<int64_t>(op.itemsize()) * 4 <= index_bytes) {
    SavedTarget saved(op);
    bool ok = false;
    try {
      ok = apply();
    } catch (...) {
      saved.Restore();
      throw;
    }
    if (ok) return;
    saved.Restore();
    saved.RestoreFlags();
    check_all();
    ThrowIndexChanged();
  }
  check_all();
  if (!apply()) ThrowIndexChanged();
}

}  // namespace

bool TinyAt(const Ufunc& u, const ArrayView& a, const ArrayView& idx, const ArrayView& b) {
  const int64_t item = static_cast<int64_t>(a.itemsize());
  if (a.ndim() != 1 || idx.ndim() != 1 || a.strides[0] != item ||
      (idx.dtype != DType::kInt64 && idx.dtype != DType::kInt32) || b.dtype != a.dtype ||
      b.ndim() > 1 || u.nin() != 2) {
    return false;
  }
  const int64_t n = idx.shape[0], size = a.shape[0];
  if (n > kTinyAtUpdates || (b.ndim() == 1 && b.shape[0] != n && b.shape[0] != 1)) return false;
  const auto aligned = [](const ArrayView& v) {
    return reinterpret_cast<uintptr_t>(v.data) % v.itemsize() == 0;
  };
  if (!aligned(a) || !aligned(b) || !aligned(idx)) return false;
  const DType types[2] = {a.dtype, a.dtype};
  const Loop* loop = nullptr;
  try {
    loop = u.DirectLoop(types);
  } catch (const TypeError&) {
    return false;  // (no loop: the planner raises its own error, in its order)
  }
  if (!loop || loop->types[2] != a.dtype || !loop->slots.indexed || loop->slots.may_fail) {
    return false;
  }
  if (n == 0) return true;
  if (MayShareMemory(a, idx) || MayShareMemory(a, b)) return false;
  int64_t raw[kTinyAtUpdates];
  const bool wide = idx.dtype == DType::kInt64;
  for (int64_t i = 0; i < n; ++i) {
    const char* p = idx.data + i * idx.strides[0];
    const int64_t v = wide ? ReadIndex<int64_t>(p) : ReadIndex<int32_t>(p);
    const int64_t w = v < 0 ? v + size : v;
    if (w < 0 || w >= size) throw ScatterIndexError(v, 0, size);
    raw[i] = w;
  }
  int64_t m = n, stop = 0;
  IndexedIndices ix{size, item, false, false, &stop};
  char* args[3] = {a.data, reinterpret_cast<char*>(raw), b.data};
  const int64_t ustep = b.ndim() == 1 && b.shape[0] == n && n > 1 ? b.strides[0] : 0;
  const int64_t steps[3] = {0, 8, ustep};
  const LoopContext ctx{u.name().c_str()};
  CheckStatus(loop->slots.indexed(ctx, args, &m, steps, &ix), ctx.ufunc_name);
  return true;
}

int64_t RunElement(const PlanInputs& in) {
  if (!in.c.batch_operand_dim.empty()) {  // (IsBatchedColumn)
    WithIndexType(in.r.indices.dtype, [&](auto tag) {
      BatchedFromColumn<decltype(tag)>(in);
      return true;
    });
    return 0;
  }
  int64_t skipped = 0;
  WithIndexType(in.r.indices.dtype, [&](auto tag) {
    skipped = ElementFromColumn<decltype(tag)>(in);
    return true;
  });
  return skipped;
}

void RunElement(const PlanInputs& in, Walker& walker) {
  if (IsBatchedColumn(in.r, in.c)) {  // (scatter_reduce_'s mean, include_self=False)
    WithIndexType(in.r.indices.dtype, [&](auto tag) {
      BatchedFromColumn<decltype(tag)>(in);
      return true;
    });
    return;
  }
  ElementBatch batch(in);
  walker.Run(false, [&](const Element& e) { batch.Add(e.op_off[0], e.upd[0]); });
  batch.Flush();
}

int64_t RunLocalTarget(const PlanInputs& in) {
  // A private dense copy of the target takes the updates, then merges back.
  const ScatterRequest& r = in.r;
  Array local = Array::CopyOf(r.operands[0]);
  ScatterRequest lr = r;
  lr.operands = {local.view()};
  lr.init = Init::kIncludeTarget;
  lr.finalize = Finalize::kNone;
  const CanonicalScatter lc = Canonicalize(lr);
  Walker lw(lr, lc);
  RunElement(PlanInputs{lr, lc, in.loop, in.ctx}, lw);
  CopyInto(r.operands[0], local.view());
  return lw.skipped();
}

}  // namespace ufuncx::internal
