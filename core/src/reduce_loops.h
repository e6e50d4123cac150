// The reduce family's loop machinery (internal): how reduce, accumulate
// and reduceat call the resolved Loop's slots over the dims of a planned
// call, and when they split the work over two threads without changing a
// bit of the result. reduce.cc decides what is computed (NumPy's rules:
// the plan, identities, initial=, out=); this decides how the loops run,
// as NumPy keeps its reduction loops (reduction.c) apart from the methods.
#pragma once

#include <cstdint>
#include <span>

#include "ufuncx/ufunc.h"

namespace ufuncx::internal {

// The view with dim `axis` restricted to [start, start + count).
ArrayView Slice(const ArrayView& v, int axis, int64_t start, int64_t count);
// The view without dim `axis`, at index `index` along it.
ArrayView Drop(const ArrayView& v, int axis, int64_t index);
// An accumulator `kept` (size 1 along the reduced dims) seen over the
// operand's shape `full`: stride 0 along the reduced dims.
ArrayView SpreadOver(const ArrayView& kept, const Shape& full);

// Combines every element of `in` into `acc` (in's shape, stride 0 along the
// reduced dims) in NumPy's order, masked by `where` (bool, broadcast to in)
// when given.
void ReduceLoops(const Ufunc& u, const Loop& loop, const ArrayView& acc, const ArrayView& in,
                 const ArrayView* where);
// ReduceLoops without a mask, over two threads when the operand is large
// and the split gives the one-thread result bit for bit.
void ReduceLoopsThreaded(const Ufunc& u, const Loop& loop, const ArrayView& acc,
                         const ArrayView& in);
// res = the running op of `in` along `axis` (both of the loop's type).
void AccumulateLoops(const Ufunc& u, const Loop& loop, const ArrayView& in, const ArrayView& res,
                     int axis);
// res[.., j, ..] = in[.., indices[j]:indices[j+1], ..] reduced along `axis`
// (NumPy's reduceat segments; indices checked), both of the loop's type.
void ReduceatLoops(const Ufunc& u, const Loop& loop, const ArrayView& in,
                   std::span<const int64_t> indices, int axis, const ArrayView& res);

}  // namespace ufuncx::internal
