// PartitionPoints: the partitioned plans' two passes (count per destination
// block, then move each point to its block's next slot) for callers that
// apply the blocks themselves. Pass 1 finds every point's block once and
// keeps it; pass 2 writes the order and the block-local coordinates.
#include <algorithm>
#include <cstring>
#include <limits>

#include "ufuncx/error.h"
#include "ufuncx/scatter.h"

namespace ufuncx {
namespace {


// Which block of one cut dim a coordinate falls in: a division when the
// blocks are equal (the last may be shorter), else a binary search.
class CutFinder {
 public:
  explicit CutFinder(const std::vector<int64_t>& cuts) : cuts_(cuts) {
    const int64_t nb = blocks();
    size_ = nb > 0 ? cuts[1] - cuts[0] : 0;
    equal_ = nb > 0 && size_ > 0;
    for (int64_t i = 1; equal_ && i + 1 < nb; ++i) equal_ = cuts[i + 1] - cuts[i] == size_;
    if (equal_) equal_ = cuts[nb] - cuts[nb - 1] <= size_;
    // A quotient by multiplication: exact after one correction while
    // coordinates are below 2^52 (larger extents divide).
    reciprocal_ = equal_ && extent() < (int64_t{1} << 52);
    inv_ = equal_ ? 1.0 / static_cast<double>(size_) : 0.0;
  }
  int64_t blocks() const { return static_cast<int64_t>(cuts_.size()) - 1; }
  int64_t extent() const { return cuts_.back(); }
  int64_t Block(int64_t c) const {  // c in [0, extent)
    if (reciprocal_) {
      int64_t q = static_cast<int64_t>(static_cast<double>(c) * inv_);
      q -= q * size_ > c;
      q += (q + 1) * size_ <= c;
      return q;
    }
    if (equal_) return c / size_;
    return std::upper_bound(cuts_.begin(), cuts_.end(), c) - cuts_.begin() - 1;
  }
  int64_t First(int64_t b) const { return cuts_[static_cast<size_t>(b)]; }

 private:
  const std::vector<int64_t>& cuts_;
  int64_t size_ = 0;
  double inv_ = 0.0;
  bool equal_ = false, reciprocal_ = false;
};

}  // namespace

namespace {

// One row of `bytes` bytes; the common sizes as one move.
inline void CopyRow(char* dst, const char* src, int64_t bytes) {
  switch (bytes) {
    case 4: std::memcpy(dst, src, 4); break;
    case 8: std::memcpy(dst, src, 8); break;
    case 16: std::memcpy(dst, src, 16); break;
    default: std::memcpy(dst, src, static_cast<size_t>(bytes));
  }
}

// The two passes. Pass 2 finds each point's block again rather than reading
// it from pass 1: a few instructions against an n-entry array's memory.
void Passes(const int64_t* coords, int64_t n, int64_t k, const std::vector<BlockCuts>& dims,
            const std::vector<CutFinder>& finders, const std::vector<int64_t>& bstride,
            int64_t nblocks, void* local, bool local32, const std::vector<PointRows>& rows,
            bool want_order, PointBlocks& out) {
  auto block_of = [&](int64_t i) -> int64_t {  // -1: dropped
    const int64_t* row = coords + i * k;
    int64_t b = 0;
    for (size_t d = 0; d < dims.size(); ++d) {
      if (dims[d].column < 0) continue;
      const int64_t c = row[dims[d].column];
      if (c < 0 || c >= finders[d].extent()) return -1;
      b += finders[d].Block(c) * bstride[d];
    }
    return b;
  };
  // Pass 1: the count per block.
  out.starts.assign(static_cast<size_t>(nblocks) + 1, 0);
  int64_t* count = out.starts.data() + 1;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t b = block_of(i);
    if (b >= 0) ++count[b];
  }
  for (int64_t b = 0; b < nblocks; ++b) out.starts[b + 1] += out.starts[b];
  // Pass 2: each kept point to its block's next slot with its rows,
  // coordinates made local (minus its block's first cut in each cut column:
  // a table per block).
  if (want_order) out.order.resize(static_cast<size_t>(out.starts[nblocks]));
  std::vector<int64_t> at(out.starts.begin(), out.starts.end() - 1);
  std::vector<int64_t> shift(static_cast<size_t>(nblocks * k), 0);
  for (int64_t b = 0; b < nblocks; ++b) {
    for (size_t d = 0; d < dims.size(); ++d) {
      if (dims[d].column >= 0) {
        shift[b * k + dims[d].column] = finders[d].First(b / bstride[d] % finders[d].blocks());
      }
    }
  }
  // int32 output saturates: a coordinate out of int32's range stays out of
  // bounds of any block (the caller picks int32 only for extents that fit).
  auto narrow = [](int64_t v) {
    return static_cast<int32_t>(std::clamp<int64_t>(v, std::numeric_limits<int32_t>::min(),
                                                    std::numeric_limits<int32_t>::max()));
  };
  for (int64_t i = 0; i < n; ++i) {
    const int64_t b = block_of(i);
    if (b < 0) continue;
    const int64_t slot = at[b]++;
    if (want_order) out.order[static_cast<size_t>(slot)] = i;
    const int64_t* row = coords + i * k;
    const int64_t* sh = shift.data() + b * k;
    if (local32) {
      int32_t* dst = static_cast<int32_t*>(local) + slot * k;
      for (int64_t j = 0; j < k; ++j) dst[j] = narrow(row[j] - sh[j]);
    } else {
      int64_t* dst = static_cast<int64_t*>(local) + slot * k;
      for (int64_t j = 0; j < k; ++j) dst[j] = row[j] - sh[j];
    }
    for (const PointRows& r : rows) CopyRow(r.out + slot * r.bytes, r.data + i * r.bytes, r.bytes);
  }
}

}  // namespace

PointBlocks PartitionPoints(const int64_t* coords, int64_t n, int64_t k,
                            const std::vector<BlockCuts>& dims, void* local, bool local32,
                            const std::vector<PointRows>& rows, bool want_order) {
  if (n < 0 || k < 0) throw ValueError("PartitionPoints: negative point count or width");
  std::vector<CutFinder> finders;
  int64_t nblocks = 1;
  for (const BlockCuts& d : dims) {
    if (d.cuts.size() < 2 || d.cuts.front() != 0 ||
        !std::is_sorted(d.cuts.begin(), d.cuts.end())) {
      throw ValueError("PartitionPoints: cuts must rise from 0 to the extent, with a block at least");
    }
    if (d.column < -1 || d.column >= k) {
      throw ValueError("PartitionPoints: cut column " + std::to_string(d.column) +
                       " is not a coordinate column");
    }
    finders.emplace_back(d.cuts);
    nblocks *= finders.back().blocks();
    if (nblocks > (int64_t{1} << 40)) throw ValueError("PartitionPoints: too many blocks");
  }
  // Block strides, row-major over the cut dims.
  std::vector<int64_t> bstride(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) bstride[i - 1] = bstride[i] * finders[i].blocks();
  PointBlocks out;
  Passes(coords, n, k, dims, finders, bstride, nblocks, local, local32, rows, want_order, out);
  return out;
}

}  // namespace ufuncx
