// The two index sources of the scatter plans (internal). A plan asks one of
// them where each update lands, under the request's bounds policy:
// - IndexColumn<I>: one start index per update row, all into one operand dim,
//   read straight from the index array as type I (the common shapes:
//   np.add.at(a, idx, v), index_add_, rows of a window scatter);
// - Walker: any canonical request (index vectors, batching dims, windows),
//   rows in update order, one run of the innermost window dim at a time.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "scatter/bounds.h"
#include "scatter/canonical.h"
#include "scatter/index_scan.h"
#include "ufuncx/scalar.h"

namespace ufuncx::internal {

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

// An index of type I as int64; unsigned values above INT64_MAX read as
// INT64_MAX (out of bounds, never negative).
template <class I>
int64_t ReadIndex(const char* p) {
  const I v = LoadElem<I>(p);
  if constexpr (std::is_same_v<I, uint64_t>) {
    return v > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(v);
  } else {
    return static_cast<int64_t>(v);
  }
}

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

// One update element, resolved: where it lands and where it comes from.
struct Element {
  int64_t elem;               // C-order element index in the operand
  const int64_t* op_off;      // byte offset per operand
  char* const* upd;           // update pointer per operand (null when unary)
};

// Per row dim of a request whose rows take one start index each, with
// batching dims and no window (torch's scatter along a dim): how a row
// coordinate moves the index (bytes), each operand (bytes; [k * rows + j])
// and each updates array (bytes; 0 for operands without one), and the
// operand's C-order element. A row's destination is these dotted with its
// coordinates, plus its index times the indexed dim's stride.
struct BatchedRowStrides {
  int rows;
  std::vector<int64_t> index, elem, operand, update;
  BatchedRowStrides(const ScatterRequest& r, const CanonicalScatter& c)
      : rows(static_cast<int>(c.row_shape.size())),
        index(static_cast<size_t>(rows)),
        elem(static_cast<size_t>(rows), 0),
        operand(static_cast<size_t>(c.num_operands * rows), 0),
        update(static_cast<size_t>(c.num_operands * rows), 0) {
    for (int j = 0; j < rows; ++j) index[j] = r.indices.strides[c.row_index_dims[j]];
    for (size_t i = 0; i < c.batch_operand_dim.size(); ++i) {
      const int od = c.batch_operand_dim[i], rd = c.batch_row_dim[i];
      elem[rd] = c.operand_cstrides[od];
      for (int k = 0; k < c.num_operands; ++k) operand[k * rows + rd] = r.operands[k].strides[od];
    }
    for (int k = 0; k < c.num_operands && k < static_cast<int>(r.updates.size()); ++k) {
      for (int j = 0; j < rows; ++j) update[k * rows + j] = c.row_update_strides[k][j];
    }
  }
};

// Walks rows in order, resolving start indices under the bounds policy, and
// hands every surviving run (RunSpans) or element (Run) to f. With
// validate_only it only checks (and throws for the raise policies).
class Walker {
 public:
  Walker(const ScatterRequest& r, const CanonicalScatter& c)
      : r_(r), c_(c), policy_(r.bounds) {
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

  template <class F>
  void RunSpans(bool validate_only, F&& f) {
    if (Batched()) {
      WithIndexType(r_.indices.dtype, [&](auto tag) {
        RunBatched<decltype(tag)>(validate_only, f);
        return true;
      });
      return;
    }
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
  // One start index per row into one operand dim, every other dim batched,
  // no window (torch's scatter along a dim): each row's element and offsets
  // are its coordinates dotted with fixed strides plus its index times the
  // indexed dim's stride, without Resolve's pass over every dim; an index
  // out of range takes Resolve (the policy's raise, drop or clip). Resolve
  // on every row took 33 ns an update there: torch scatter_reduce_ "mean"
  // into [1000, 64] from a [20000, 64] index 68 -> 17.5 ms (torch 5.2),
  // include_self=False "sum" 17.5 ms (torch 5.5).
  // (an operand with a zero-size dim, even one no index or batch reads,
  // has no element to land on: Resolve drops or refuses every row)
  bool Batched() const {
    return c_.start_operand_dim.size() == 1 && c_.index_vector_len == 1 &&
           !c_.batch_operand_dim.empty() && c_.window_shape.empty() && !c_.row_shape.empty() &&
           ShapeSize(c_.operand_shape) > 0;
  }

  template <class I, class F>
  void RunBatched(bool validate_only, F& f) {
    skipped_ = 0;
    const int nr = static_cast<int>(c_.row_shape.size());
    const int dim = c_.start_operand_dim[0];
    const int64_t size = c_.operand_shape[dim];
    const BatchedRowStrides st(r_, c_);
    const std::vector<int64_t>&idx_row = st.index, &elem_row = st.elem, &op_row = st.operand,
                              &upd_row = st.update;
    std::vector<char*> ubase(n_, nullptr), upd(n_);
    for (int k = 0; k < n_ && k < static_cast<int>(r_.updates.size()); ++k) {
      ubase[k] = r_.updates[k].data;
    }
    std::vector<int64_t> row(nr, 0), fs(rank_), op_off(n_), zero(n_, 0);
    for (int64_t r = 0; r < c_.num_rows; ++r) {
      if (r > 0) {
        for (int k = nr - 1; k >= 0; --k) {
          if (++row[k] < c_.row_shape[k]) break;
          row[k] = 0;
        }
      }
      const char* ip = r_.indices.data;
      for (int j = 0; j < nr; ++j) ip += row[j] * idx_row[j];
      int64_t v = policy_.Wrap(ReadIndex<I>(ip), size);
      if (static_cast<uint64_t>(v) >= static_cast<uint64_t>(size)) {
        int64_t kept = 1, lo = 0, hi = 1;
        if (!Resolve(row.data(), fs.data(), &lo, &hi, &kept)) {
          ++skipped_;
          continue;
        }
        v = fs[dim];  // (clipped)
      }
      if (validate_only) continue;
      int64_t elem = v * c_.operand_cstrides[dim];
      for (int j = 0; j < nr; ++j) elem += row[j] * elem_row[j];
      for (int k = 0; k < n_; ++k) {
        op_off[k] = v * r_.operands[k].strides[dim];
        upd[k] = ubase[k];
        for (int j = 0; j < nr; ++j) {
          op_off[k] += row[j] * op_row[k * nr + j];
          if (upd[k]) upd[k] += row[j] * upd_row[k * nr + j];
        }
      }
      f(Span{elem, 0, 1, op_off.data(), zero.data(), upd.data(), zero.data()});
    }
  }

  // Full start index of a row under the policy. Returns false when the whole
  // row is dropped; fills the kept window box [lo, hi).
  bool Resolve(const int64_t* row, int64_t* fs, int64_t* lo, int64_t* hi, int64_t* kept) {
    std::fill(fs, fs + rank_, 0);
    for (size_t j = 0; j < c_.start_operand_dim.size(); ++j) {
      const int d = c_.start_operand_dim[j];
      fs[d] = policy_.Wrap(ReadStartIndex(r_, c_, row, static_cast<int64_t>(j)), c_.operand_shape[d]);
    }
    for (size_t i = 0; i < c_.batch_operand_dim.size(); ++i) {
      fs[c_.batch_operand_dim[i]] = row[c_.batch_row_dim[i]];
    }
    for (int i = 0; i < nw_; ++i) {
      lo[i] = 0;
      hi[i] = c_.window_shape[i];
    }
    if (c_.window_size == 0) {
      // Nothing to write; a raising policy still checks the start index of
      // every dim outside the window (NumPy's at checks an index array
      // beside an empty slice).
      for (int d = 0; policy_.raises() && d < rank_; ++d) {
        const bool window_dim = std::find(c_.window_operand_dim.begin(),
                                          c_.window_operand_dim.end(), d) !=
                                c_.window_operand_dim.end();
        if (window_dim || (fs[d] >= 0 && fs[d] <= c_.operand_shape[d] - c_.window_extent[d])) {
          continue;
        }
        // (the index as given: a wrapped one still negative was size lower)
        int64_t given = fs[d] < 0 && policy_.wraps() ? fs[d] - c_.operand_shape[d] : fs[d];
        int64_t unused_lo = 0, unused_hi = 1;
        (void)policy_.Fit(&given, c_.operand_shape[d], c_.window_extent[d], false, d,
                          &unused_lo, &unused_hi);
      }
      *kept = 0;
      return true;
    }
    for (int d = 0; d < rank_; ++d) {
      if (fs[d] >= 0 && fs[d] <= c_.operand_shape[d] - c_.window_extent[d]) continue;
      const auto it = std::find(c_.window_operand_dim.begin(), c_.window_operand_dim.end(), d);
      const int i = static_cast<int>(it - c_.window_operand_dim.begin());
      const bool window_dim = it != c_.window_operand_dim.end();
      int64_t unused_lo = 0, unused_hi = 1;
      if (!policy_.Fit(&fs[d], c_.operand_shape[d], c_.window_extent[d], window_dim, d,
                       window_dim ? &lo[i] : &unused_lo, window_dim ? &hi[i] : &unused_hi)) {
        return false;
      }
    }
    int64_t k = 1;
    for (int i = 0; i < nw_; ++i) k *= hi[i] - lo[i];
    *kept = k;
    return k > 0;
  }

  const ScatterRequest& r_;
  const CanonicalScatter& c_;
  BoundsPolicy policy_;
  int n_, rank_, nw_;
  int64_t skipped_ = 0;
};

// The index column fits a request when every operand dim but the indexed
// one holds the window's extent (they all start at 0). A zero-size dim (an
// empty operand) fails this: then the walker drops or refuses every update.
inline bool OtherDimsFit(const CanonicalScatter& c) {
  for (int d = 0; d < c.operand_rank; ++d) {
    if (d != c.start_operand_dim[0] && c.window_extent[d] > c.operand_shape[d]) return false;
  }
  return true;
}

// One start index per row, all into operand dim `dim`, read as type I.
inline bool IsIndexColumn(const ScatterRequest& r, const CanonicalScatter& c) {
  return c.num_operands == 1 && c.start_operand_dim.size() == 1 && c.batch_operand_dim.empty() &&
         c.row_shape.size() == 1 && c.operand_shape[c.start_operand_dim[0]] > 0 &&
         !r.updates.empty() && OtherDimsFit(c);
}

// One start index per row into one operand dim, every other operand dim
// following a row dim (batching dims), no window, and a raising policy:
// torch's scatter_ / scatter_reduce_ along a dim. Each row's destination
// is then a dot product of its coordinates with fixed strides.
inline bool IsBatchedColumn(const ScatterRequest& r, const CanonicalScatter& c) {
  return c.num_operands == 1 && c.start_operand_dim.size() == 1 && c.index_vector_len == 1 &&
         !c.batch_operand_dim.empty() && c.window_shape.empty() && !c.row_shape.empty() &&
         ShapeSize(c.operand_shape) > 0 && !r.updates.empty() && BoundsPolicy(r.bounds).raises();
}

template <class I>
struct IndexColumn {
  const char* ip;
  int64_t istep, n, size;
  int dim;
  BoundsPolicy policy;

  IndexColumn(const ScatterRequest& r, const CanonicalScatter& c)
      : ip(r.indices.data),
        istep(r.indices.strides[c.row_index_dims[0]]),
        n(c.num_rows),
        size(c.operand_shape[c.start_operand_dim[0]]),
        dim(c.start_operand_dim[0]),
        policy(r.bounds) {}

  int64_t Read(int64_t i) const { return ReadIndex<I>(ip + i * istep); }
  // After wrapping, validity is one unsigned compare (branch-free, so the
  // check pass vectorises).
  bool Bad(int64_t v) const {
    return static_cast<uint64_t>(policy.Wrap(v, size)) >= static_cast<uint64_t>(size);
  }
  int64_t Resolved(int64_t i) const { return policy.Wrap(Read(i), size); }
  // Where index i lands under the policy, or -1 when it is dropped.
  int64_t Land(int64_t i) const { return policy.Land(Resolved(i), size); }

  // Contiguous and aligned int64/int32: the Highway pass applies.
  bool Dense() const {
    return (std::is_same_v<I, int64_t> || std::is_same_v<I, int32_t>) && istep == sizeof(I) &&
           reinterpret_cast<uintptr_t>(ip) % sizeof(I) == 0;
  }

  // ScatterIndexError naming the first bad index of [from, to), if any.
  void ThrowFirstBad(int64_t from, int64_t to) const {
    for (int64_t i = from; i < to; ++i) {
      const int64_t v = Read(i);
      if (Bad(v)) throw ScatterIndexError(v, dim, size);
    }
  }

  // Every index of [from, to) checked before the first write; returns what
  // the pass learns (negative indices and runs come from the Highway pass
  // only; otherwise has_negative is conservatively true).
  IndexScan CheckAll(int64_t from, int64_t to) const {
    IndexScan scan;
    if constexpr (std::is_same_v<I, int64_t> || std::is_same_v<I, int32_t>) {
      if (Dense()) {
        scan = ScanIndices(reinterpret_cast<const I*>(ip) + from, to - from,
                           policy.wraps() ? -size : 0, size);
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

}  // namespace ufuncx::internal
