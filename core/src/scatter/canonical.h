// Validation and normalisation of a ScatterRequest (internal).
//
// The canonical form is symbolic: no index or update data is copied. An
// update element is (row, window position): rows are the update scatter
// dims in row-major order, the window is a box whose dims map to operand
// dims. For each row the planner computes a full start index in the operand;
// the element's operand address is base + start + window offset.
#pragma once

#include <cstdint>
#include <vector>

#include "ufuncx/scatter.h"

namespace ufuncx::internal {

struct CanonicalScatter {
  int num_operands = 1;
  int operand_rank = 0;
  Shape operand_shape;
  Strides operand_cstrides;  // element strides of a C-ordered operand

  // Rows: the update scatter dims (row-major), with the matching indices
  // dims and update strides.
  Shape row_shape;
  std::vector<int> row_index_dims;     // indices dim per row dim
  std::vector<Strides> row_update_strides;  // per update array, per row dim
  int64_t num_rows = 0;

  // Where each entry of the index vector goes, and how to read it.
  bool has_index_vector = false;
  int64_t index_vector_len = 1;
  int64_t index_vector_stride = 0;
  std::vector<int> start_operand_dim;  // per index vector entry
  // Batching: operand dim <- row dim.
  std::vector<int> batch_operand_dim, batch_row_dim;

  // Window: box shape, its operand dims, and update strides.
  Shape window_shape;
  std::vector<int> window_operand_dim;
  std::vector<Strides> window_update_strides;  // per update array
  int64_t window_size = 1;
  // Extent of the window along each operand dim (1 for inserted/batching).
  Shape window_extent;
};

// Checks every StableHLO constraint and the front-end requirements (dtypes,
// combiner arity); throws ValueError / TypeError naming the constraint.
CanonicalScatter Canonicalize(const ScatterRequest& r);

// Reads entry `j` of the index vector of row `row_multi` as int64. Unsigned
// values above INT64_MAX read as INT64_MAX (out of bounds, never negative).
int64_t ReadStartIndex(const ScatterRequest& r, const CanonicalScatter& c,
                       const int64_t* row_multi, int64_t j);

}  // namespace ufuncx::internal
