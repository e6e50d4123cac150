// The reordered plans, partitioned and sorted_parallel, for element
// updates into large targets. Updates are stably partitioned into
// destination blocks, carrying their values along (pass 1 counts, pass 2
// moves; each worker takes a slice of the updates, in order). The sorted
// plan then sorts each block by destination with VQSort on keys
// destination << bits | slot (slots rise in update order, so equal
// destinations keep update order) and gathers the values inside the block;
// the partitioned plan applies each block in update order. Blocks are split
// among the workers, one writer per block, so the result is the sequential
// one bit for bit whatever the thread count.
//
// One engine serves both index sources; a source says how many updates
// there are, where update i lands (or -1: dropped), where its value is, and
// the byte offset of a destination.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <utility>

#include "scatter/plans.h"
#include "simd/hwy_shim-inl.h"
#include "ufuncx/memory.h"
#include "ufuncx/ufunc.h"
#include "workers.h"

namespace ufuncx::internal {
namespace {

constexpr int64_t kSortBlocks = 16;  // destination blocks of the sorted plan

template <class I>
struct ColumnUpdates {
  IndexColumn<I> col;
  const char* up;
  int64_t ustep, stride;
  int64_t count() const { return col.n; }
  int64_t destinations() const { return col.size; }
  int64_t Land(int64_t i) const { return col.Land(i); }
  const char* Update(int64_t i) const { return up + i * ustep; }
  int64_t Offset(int64_t v) const { return v * stride; }
};

// The walker's elements, gathered in update order; destinations are C-order
// element numbers of the operand.
struct WalkedUpdates {
  std::vector<int64_t> elems;
  std::vector<const char*> upds;
  const ArrayView* op;
  const CanonicalScatter* c;
  bool dense;  // C-contiguous operand: the offset is elem * itemsize
  int64_t count() const { return static_cast<int64_t>(elems.size()); }
  int64_t destinations() const { return ShapeSize(c->operand_shape); }
  int64_t Land(int64_t i) const { return elems[i]; }
  const char* Update(int64_t i) const { return upds[i]; }
  int64_t Offset(int64_t v) const {
    if (dense) return v * static_cast<int64_t>(op->itemsize());
    int64_t off = 0;
    for (int d = 0; d < c->operand_rank; ++d) {
      off += (v / c->operand_cstrides[d]) % c->operand_shape[d] * op->strides[d];
    }
    return off;
  }
};

// Returns the updates the source dropped.
template <class Source>
int64_t Reorder(const PlanInputs& in, const Source& src, bool sort, int threads) {
  const ArrayView& op = in.r.operands[0];
  const int64_t n = src.count(), size = src.destinations();
  const int64_t item = static_cast<int64_t>(op.itemsize());
  int slot_bits = 1;
  while ((int64_t{1} << slot_bits) < n) ++slot_bits;
  const int workers = n >= kParallelMinUpdates ? std::max(1, std::min({threads, 2, internal::Cores()})) : 1;
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
  auto parallel = [&](auto&& f) { RunWorkers(workers, f); };
  auto slice = [&](int w) { return std::pair{n * w / workers, n * (w + 1) / workers}; };
  // Pass 1: counts per block and worker; the last slot counts dropped updates.
  std::vector<std::vector<int64_t>> count(workers, std::vector<int64_t>(nblocks + 1, 0));
  parallel([&](int w) {
    // Counters local to the worker: the shared vectors could share a cache line.
    const auto [lo, hi] = slice(w);
    std::vector<int64_t> cnt(nblocks + 1, 0);
    for (int64_t i = lo; i < hi; ++i) {
      const int64_t v = src.Land(i);
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
  int64_t skipped = 0;
  for (int w = 0; w < workers; ++w) skipped += count[w][nblocks];
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
        const int64_t v = src.Land(i);
        if (v < 0) continue;
        const int64_t b = v >> shift;
        if (at[b] == end[b]) {
          overflow = true;
          continue;
        }
        const int64_t slot = at[b]++;
        keys[slot] = (static_cast<uint64_t>(v) << slot_bits) | static_cast<uint64_t>(slot);
        std::memcpy(vals + slot * item, src.Update(i), bytes);
      }
    });
    if (overflow || at != end) changed.store(true, std::memory_order_relaxed);
  });
  if (changed.load()) ThrowIndexChanged();
  // Pass 3: each worker sorts (sorted plan) and applies its blocks.
  const uint64_t mask = (uint64_t{1} << slot_bits) - 1;
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
        for (int64_t j = 0; j < m; ++j) {
          offs[j] = src.Offset(static_cast<int64_t>(keys[k + j] >> slot_bits));
        }
        if (sort) {  // values follow their keys, from inside the block
          for (int64_t j = 0; j < m; ++j) {
            std::memcpy(gathered.data() + j * item,
                        vals + static_cast<int64_t>(keys[k + j] & mask) * item, bytes);
          }
          chunk_vals = gathered.data();
        }
        if (!in.r.combiner) {
          for (int64_t j = 0; j < m; ++j) std::memcpy(op.data + offs[j], chunk_vals + j * item, bytes);
        }
      });
      if (!in.r.combiner) continue;
      char* args[3] = {op.data, reinterpret_cast<char*>(offs), const_cast<char*>(chunk_vals)};
      const int64_t steps[3] = {0, 8, item};
      CheckStatus(in.loop->slots.indexed(in.ctx, args, &m, steps, nullptr), in.ctx.ufunc_name);
    }
  });
  return skipped;
}

}  // namespace

int64_t RunReordered(const PlanInputs& in, bool sort, int threads) {
  int64_t skipped = 0;
  WithIndexType(in.r.indices.dtype, [&](auto tag) {
    using I = decltype(tag);
    const ColumnUpdates<I> src{IndexColumn<I>(in.r, in.c), in.r.updates[0].data,
                               in.c.row_update_strides[0][0],
                               in.r.operands[0].strides[in.c.start_operand_dim[0]]};
    if (src.col.policy.raises()) src.col.CheckAll(0, src.col.n);
    skipped = Reorder(in, src, sort, threads);
    return true;
  });
  return skipped;
}

void RunReordered(const PlanInputs& in, Walker& walker, bool sort, int threads) {
  WalkedUpdates src{{}, {}, &in.r.operands[0], &in.c, in.r.operands[0].IsCContiguous()};
  walker.Run(false, [&](const Element& e) {
    src.elems.push_back(e.elem);
    src.upds.push_back(e.upd[0]);
  });
  Reorder(in, src, sort, threads);
}

}  // namespace ufuncx::internal
