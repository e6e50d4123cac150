// The rows plan: one start index per row into one operand dim, and a
// window that is one run in both the operand and the updates (index_add_
// and index_put_ of rows, the common StableHLO window scatter).
#include <algorithm>
#include <atomic>

#include "cast.h"
#include "scatter/plans.h"
#include "ufuncx/ufunc.h"
#include "workers.h"

namespace ufuncx::internal {
namespace {

constexpr int64_t kParallelMinRowBytes = int64_t{1} << 22;  // below, one thread

// Indices are checked first under the raise policies. Contiguous rows then go to the combiner's rows slot (its Highway body) in
// batches of byte offsets; other rows are one call of its loop each. Rows
// land at random places, so the destinations of the next rows are
// prefetched while the current one is combined.
template <class I>
int64_t RowsFromColumn(const PlanInputs& in, const RowRun& run) {
  const ScatterRequest& r = in.r;
  const CanonicalScatter& c = in.c;
  const Loop* loop = in.loop;
  const LoopContext& ctx = in.ctx;
  int64_t skipped = 0;
  const ArrayView& op = r.operands[0];
  const IndexColumn<I> col(r, c);
  const int64_t n = col.n, row_stride = op.strides[col.dim];
  const int64_t ustep = c.row_update_strides[0][0];
  const int64_t item = static_cast<int64_t>(op.itemsize());
  char* const up = r.updates[0].data;
  if (col.policy.raises()) col.CheckAll(0, n);
  const bool contig = run.op_step == item && (run.upd_step == item || run.upd_step == 0);
  const LoopFn fn = r.combiner ? ElementwiseSlot(loop->slots, contig) : nullptr;
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
                          ? std::clamp(std::min(r.max_threads, internal::Cores()), 1, 2) : 1;
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
      auto apply = [&](int h, int64_t k) {
        const int64_t lo = cw.size * h / parts, hi = cw.size * (h + 1) / parts;
        const int64_t end = std::min(n, (k + 1) * kChunk);
        int64_t m = 0, lost = 0;
        for (int64_t i = k * kChunk; i < end; ++i) {
          const int64_t v = cw.Land(i);
          lost += v < 0;
          dst[m] = v * rs;
          src[m] = i * us;
          m += v >= lo && v < hi;  // branch-free: the halves interleave at random
        }
        const int64_t dims[2] = {m, run.len};
        if (m > 0) CheckStatus(loop->slots.rows(ctx, args, dims, steps, aux), ctx.ufunc_name);
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
    return dropped.load() * run.len;
  }
  int64_t len = run.len;
  for (int64_t i = 0; i < n; ++i) {
    if (ahead && i + ahead < n) {
      const int64_t next = col.Land(i + ahead);
      if (next >= 0) {
        const char* p = op.data + next * row_stride;
        for (int64_t b = 0; b < row_bytes; b += 64) __builtin_prefetch(p + b, 1);
      }
    }
    const int64_t v = col.Land(i);
    if (v < 0) {
      skipped += run.len;
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
    CheckStatus(fn(ctx, args, &len, steps, nullptr), ctx.ufunc_name);
  }
  return skipped;
}

}  // namespace

int64_t RunRows(const PlanInputs& in, const RowRun& run) {
  int64_t skipped = 0;
  WithIndexType(in.r.indices.dtype, [&](auto tag) {
    skipped = RowsFromColumn<decltype(tag)>(in, run);
    return true;
  });
  return skipped;
}

}  // namespace ufuncx::internal
