#include "scatter/canonical.h"

#include <algorithm>
#include <string>

#include "iterator.h"
#include "scatter/index_source.h"
#include "ufuncx/error.h"
#include "ufuncx/scalar.h"

namespace ufuncx::internal {
namespace {

[[noreturn]] void Fail(const char* constraint, const std::string& msg) {
  throw ValueError("scatter: " + msg + " (StableHLO scatter " + constraint + ")");
}

bool SortedUnique(const std::vector<int64_t>& v) {
  return std::adjacent_find(v.begin(), v.end(), std::greater_equal<>()) == v.end();
}
bool Unique(std::vector<int64_t> v) {
  std::sort(v.begin(), v.end());
  return std::adjacent_find(v.begin(), v.end()) == v.end();
}
bool InRange(const std::vector<int64_t>& v, int64_t lo, int64_t hi) {
  return std::all_of(v.begin(), v.end(), [&](int64_t x) { return x >= lo && x < hi; });
}
bool Contains(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

}  // namespace

CanonicalScatter Canonicalize(const ScatterRequest& r) {
  const ScatterDims& d = r.dims;
  CanonicalScatter c;
  const int n = static_cast<int>(r.operands.size());
  if (n == 0) Fail("C5", "at least one operand is required");
  c.num_operands = n;
  const bool unary = r.combiner && r.combiner->nin() == n;
  if (!unary && static_cast<int>(r.updates.size()) != n) {
    Fail("C5", "got " + std::to_string(n) + " operands but " +
                   std::to_string(r.updates.size()) + " updates; they must match");
  }
  const ArrayView& op0 = r.operands[0];
  for (const ArrayView& o : r.operands) {
    if (o.shape != op0.shape) Fail("C1", "all operands must have the same shape");
  }
  if (!IsInteger(r.indices.dtype)) {
    throw TypeError("scatter: scatter_indices must have an integer dtype, got " +
                    std::string(Name(r.indices.dtype)));
  }
  if (r.combiner) {
    if (r.combiner->nout() != n || (r.combiner->nin() != 2 * n && r.combiner->nin() != n)) {
      throw TypeError("scatter: combiner '" + r.combiner->name() + "' has nin=" +
                      std::to_string(r.combiner->nin()) + ", nout=" +
                      std::to_string(r.combiner->nout()) + "; " + std::to_string(n) +
                      " operand(s) need nin=" + std::to_string(2 * n) + " and nout=" +
                      std::to_string(n) + " (StableHLO scatter C23)");
    }
  }
  for (const ArrayView& u : r.updates) {
    if (unary) break;
    if (!CanCast(u.dtype, r.operands[&u - r.updates.data()].dtype, r.casting)) {
      throw TypeError("scatter: cannot cast updates from " + std::string(Name(u.dtype)) +
                      " to " + Name(r.operands[&u - r.updates.data()].dtype) +
                      " with casting rule '" + CastingName(r.casting) +
                      "' (StableHLO scatter C6)");
    }
  }
  const int64_t op_rank = op0.ndim();
  const int64_t idx_rank = r.indices.ndim();
  // Unary combiners take no updates; when given (front ends pass a
  // broadcast dummy) they still define the window shape.
  const ArrayView* upd0 = r.updates.empty() ? nullptr : &r.updates[0];
  const int64_t upd_rank = upd0 ? upd0->ndim()
                                : static_cast<int64_t>(d.update_window_dims.size()) +
                                      idx_rank - (d.index_vector_dim < idx_rank ? 1 : 0);
  if (upd0) {
    for (const ArrayView& u : r.updates) {
      if (u.shape != upd0->shape) Fail("C3", "all updates must have the same shape");
    }
  }

  if (!SortedUnique(d.update_window_dims)) {
    Fail("C7", "update_window_dims " + ListString(d.update_window_dims) + " must be sorted and unique");
  }
  if (!InRange(d.update_window_dims, 0, upd_rank)) {
    Fail("C8", "update_window_dims " + ListString(d.update_window_dims) + " must be in [0, " +
                   std::to_string(upd_rank) + ")");
  }
  std::vector<int64_t> inserted_and_batching = d.inserted_window_dims;
  inserted_and_batching.insert(inserted_and_batching.end(), d.input_batching_dims.begin(),
                               d.input_batching_dims.end());
  if (!Unique(inserted_and_batching)) {
    Fail("C9", "inserted_window_dims and input_batching_dims must not share a dim");
  }
  if (!SortedUnique(d.inserted_window_dims)) {
    Fail("C10", "inserted_window_dims " + ListString(d.inserted_window_dims) + " must be sorted");
  }
  if (!InRange(d.inserted_window_dims, 0, op_rank)) {
    Fail("C11", "inserted_window_dims must be in [0, " + std::to_string(op_rank) + ")");
  }
  if (!SortedUnique(d.input_batching_dims)) {
    Fail("C12", "input_batching_dims " + ListString(d.input_batching_dims) + " must be sorted");
  }
  if (!InRange(d.input_batching_dims, 0, op_rank)) {
    Fail("C13", "input_batching_dims must be in [0, " + std::to_string(op_rank) + ")");
  }
  if (!Unique(d.scatter_indices_batching_dims)) {
    Fail("C14", "scatter_indices_batching_dims must be unique");
  }
  if (!InRange(d.scatter_indices_batching_dims, 0, idx_rank)) {
    Fail("C15", "scatter_indices_batching_dims must be in [0, " + std::to_string(idx_rank) + ")");
  }
  if (Contains(d.scatter_indices_batching_dims, d.index_vector_dim)) {
    Fail("C16", "index_vector_dim must not be a scatter_indices_batching_dim");
  }
  if (d.input_batching_dims.size() != d.scatter_indices_batching_dims.size()) {
    Fail("C17", "input_batching_dims and scatter_indices_batching_dims must have the same size");
  }
  for (size_t i = 0; i < d.input_batching_dims.size(); ++i) {
    if (op0.shape[d.input_batching_dims[i]] !=
        r.indices.shape[d.scatter_indices_batching_dims[i]]) {
      Fail("C18", "operand batching dim " + std::to_string(d.input_batching_dims[i]) +
                      " and scatter_indices batching dim " +
                      std::to_string(d.scatter_indices_batching_dims[i]) + " differ in size");
    }
  }
  if (d.index_vector_dim < 0 || d.index_vector_dim > idx_rank) {
    Fail("C22", "index_vector_dim " + std::to_string(d.index_vector_dim) + " must be in [0, " +
                    std::to_string(idx_rank) + "]");
  }
  c.has_index_vector = d.index_vector_dim < idx_rank;
  c.index_vector_len = c.has_index_vector ? r.indices.shape[d.index_vector_dim] : 1;
  if (static_cast<int64_t>(d.scatter_dims_to_operand_dims.size()) != c.index_vector_len) {
    Fail("C19", "scatter_dims_to_operand_dims has " +
                    std::to_string(d.scatter_dims_to_operand_dims.size()) +
                    " entries but the index vector has " + std::to_string(c.index_vector_len));
  }
  std::vector<int64_t> sdod_and_batching = d.scatter_dims_to_operand_dims;
  sdod_and_batching.insert(sdod_and_batching.end(), d.input_batching_dims.begin(),
                           d.input_batching_dims.end());
  if (!Unique(sdod_and_batching)) {
    Fail("C20", "scatter_dims_to_operand_dims must be unique and not input_batching_dims");
  }
  if (!InRange(d.scatter_dims_to_operand_dims, 0, op_rank)) {
    Fail("C21", "scatter_dims_to_operand_dims must be in [0, " + std::to_string(op_rank) + ")");
  }
  const int64_t num_window = static_cast<int64_t>(d.update_window_dims.size());
  if (num_window + static_cast<int64_t>(inserted_and_batching.size()) != op_rank) {
    Fail("C2", "operand rank " + std::to_string(op_rank) +
                   " must equal size(update_window_dims) + size(inserted_window_dims) + "
                   "size(input_batching_dims) = " +
                   std::to_string(num_window + static_cast<int64_t>(inserted_and_batching.size())));
  }
  // Update scatter dims <-> indices dims other than index_vector_dim.
  std::vector<int> idx_dims;
  for (int i = 0; i < idx_rank; ++i) {
    if (i != d.index_vector_dim) idx_dims.push_back(i);
  }
  std::vector<int> upd_scatter;
  for (int i = 0; i < upd_rank; ++i) {
    if (!Contains(d.update_window_dims, i)) upd_scatter.push_back(i);
  }
  if (upd_scatter.size() != idx_dims.size()) {
    Fail("C4", "updates rank " + std::to_string(upd_rank) + " must equal size(update_window_dims) + " +
                   "rank(scatter_indices) - " + (c.has_index_vector ? "1" : "0"));
  }
  c.operand_rank = static_cast<int>(op_rank);
  c.operand_shape = op0.shape;
  c.operand_cstrides = ContiguousStrides(op0.shape, 1);
  for (size_t k = 0; k < idx_dims.size(); ++k) {
    const int64_t size = r.indices.shape[idx_dims[k]];
    if (upd0 && upd0->shape[upd_scatter[k]] != size) {
      Fail("C4", "updates dim " + std::to_string(upd_scatter[k]) + " has size " +
                     std::to_string(upd0->shape[upd_scatter[k]]) + " but scatter_indices dim " +
                     std::to_string(idx_dims[k]) + " has size " + std::to_string(size));
    }
    c.row_shape.push_back(size);
    c.row_index_dims.push_back(idx_dims[k]);
  }
  c.num_rows = ShapeSize(c.row_shape);
  for (const ArrayView& u : r.updates) {
    Strides s;
    for (int k : upd_scatter) s.push_back(u.strides[k]);
    c.row_update_strides.push_back(s);
  }
  c.row_update_strides.resize(n, Strides(upd_scatter.size(), 0));
  c.index_vector_stride = c.has_index_vector ? r.indices.strides[d.index_vector_dim] : 0;
  for (int64_t dim : d.scatter_dims_to_operand_dims) c.start_operand_dim.push_back(static_cast<int>(dim));
  for (size_t i = 0; i < d.input_batching_dims.size(); ++i) {
    c.batch_operand_dim.push_back(static_cast<int>(d.input_batching_dims[i]));
    const int64_t idim = d.scatter_indices_batching_dims[i];
    c.batch_row_dim.push_back(static_cast<int>(idim - (idim > d.index_vector_dim ? 1 : 0)));
  }
  // Window dims in operand order.
  c.window_extent.assign(op_rank, 1);
  size_t w = 0;
  for (int dim = 0; dim < op_rank; ++dim) {
    if (Contains(inserted_and_batching, dim)) continue;
    const int64_t ud = d.update_window_dims[w++];
    const int64_t size = upd0 ? upd0->shape[ud] : 1;
    if (size > op0.shape[dim]) {
      Fail("C4", "update window dim " + std::to_string(ud) + " has size " + std::to_string(size) +
                     " larger than operand dim " + std::to_string(dim) + " (" +
                     std::to_string(op0.shape[dim]) + ")");
    }
    c.window_shape.push_back(size);
    c.window_operand_dim.push_back(dim);
    c.window_extent[dim] = size;
  }
  c.window_size = ShapeSize(c.window_shape);
  c.window_update_strides.assign(n, Strides(c.window_shape.size(), 0));
  if (upd0) {
    for (int k = 0; k < static_cast<int>(r.updates.size()) && k < n; ++k) {
      for (size_t i = 0; i < c.window_shape.size(); ++i) {
        c.window_update_strides[k][i] = r.updates[k].strides[d.update_window_dims[i]];
      }
    }
  }
  return c;
}

int64_t ReadStartIndex(const ScatterRequest& r, const CanonicalScatter& c,
                       const int64_t* row_multi, int64_t j) {
  const char* p = r.indices.data + j * c.index_vector_stride;
  for (size_t k = 0; k < c.row_index_dims.size(); ++k) {
    p += row_multi[k] * r.indices.strides[c.row_index_dims[k]];
  }
  int64_t v = 0;
  WithIndexType(r.indices.dtype, [&](auto tag) {
    v = ReadIndex<decltype(tag)>(p);
    return true;
  });
  return v;
}

}  // namespace ufuncx::internal
