// The scatter front ends of the C++ API. Each builds one ScatterRequest and
// calls the planner; none loops over elements. The Python module calls these
// same functions.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "ufuncx/scatter.h"

namespace ufuncx {

// NumPy's checks of a ufunc.at call's ufunc and operand count, in its
// order (a gufunc, several outputs, a second operand given or missing,
// more than two inputs); every form of at makes them first.
void CheckAt(const Ufunc& u, bool second_operand);

// NumPy's ufunc.at with integer-array indices on the leading dims:
// a[idx_0, ..., idx_k-1] (op)= b, the index arrays broadcast together,
// negative indices wrapped once, IndexError before any write, b broadcast
// to the indexed shape, unsafe casting. b is null for unary ufuncs.
ScatterReport At(const Ufunc& u, const ArrayView& a, std::span<const ArrayView> indices,
                 const ArrayView* b);

namespace torchlike {

enum class Reduce : uint8_t { kNone, kAdd, kMultiply, kSum, kProd, kMean, kAmax, kAmin };

// scatter_ (kNone, kAdd, kMultiply), scatter_add_ (kAdd) and scatter_reduce_
// (kSum..kAmin): self[..index[i][j][k]..] (op)= src[i][j][k] along dim.
// RuntimeError for torch's shape/dtype/range errors, before any write.
void ScatterReduce(const ArrayView& self, int64_t dim, const ArrayView& index,
                   const ArrayView& src, Reduce reduce, bool include_self = true);

// index_add_ (alpha already applied to source by the caller). torch's CPU
// kernel hands self of two or more dims, dim first or last, int64 indices
// and alpha 1 to scatter_add_ (`scatter_kernel`: its RuntimeError "index
// ... is out of bounds"); every other call adds slice by slice (IndexError
// "index out of range in self"). The wording is all that differs here.
void IndexAdd(const ArrayView& self, int64_t dim, const ArrayView& index,
              const ArrayView& source, bool scatter_kernel);

// index_put_ with integer index arrays on the leading dims (negatives wrap).
void IndexPut(const ArrayView& self, std::span<const ArrayView> indices, const ArrayView& values,
              bool accumulate);

}  // namespace torchlike

namespace asctile {

// Row src[i] goes to dst[offsets[0], ..., offsets[dim-1], offsets[dim] + index[i], ...].
// check_bounds skips rows out of bounds; without it an out-of-bounds row
// raises IndexError (nothing is ever written outside dst).
void Scatter(const ArrayView& src, int64_t dim, const ArrayView& index, const ArrayView& dst,
             std::span<const int64_t> offsets, bool check_bounds = true,
             std::optional<int64_t> num_indices = std::nullopt);

}  // namespace asctile
}  // namespace ufuncx
