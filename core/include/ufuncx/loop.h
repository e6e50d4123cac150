// The loop ABI shared by generated loops, plugins and the drivers in core.
// It is NumPy's inner-loop signature plus a context and a status return, so a
// loop can report errors (an integer power with a negative exponent) without
// exceptions crossing it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ufuncx/dtype.h"

namespace ufuncx {

struct LoopContext {
  const char* ufunc_name = "";
};

// args: nin inputs then nout outputs. dims[0]: element count. steps: one byte
// step per arg. Returns 0 on success or a LoopStatus.
using LoopFn = int (*)(const LoopContext& ctx, char* const* args,
                       const int64_t* dims, const int64_t* steps,
                       void* aux) noexcept;

enum LoopStatus : int {
  kLoopOk = 0,
  kLoopNegativeIntPower = 1,  // ValueError in NumPy
};

// Slots of one (ufunc, signature). `strided` is always set; `contig` is a
// faster body valid when every step equals the item size (it must give the
// same results); `simd_target` names the Highway target `contig` came from.
//
// `indexed` (same-typed loops only) is the scatter slot: args[0] operand
// base, args[1] int64 byte offsets, args[2] updates (step steps[2]); it
// applies updates in order, as NumPy's indexed loops do for ufunc.at.
// aux of the indexed slot when args[1] holds raw int64 indices (step
// steps[1]) instead of byte offsets: offset = (wrap ? i + (i < 0) * size : i)
// * stride. The loop checks each index as it reads it for its write: it
// applies the updates before the first index outside [0, size) (after
// wrapping) and none after, and writes that index's position (n when there
// is none) to *stop when `stop` is set. So indices another thread rewrites
// during the call can stop the loop but never send a write outside the
// operand. `runs` is a hint that many neighbouring indices are equal
// (sorted data): the loop may then take a body that combines each run in a
// register. `lo` moves the accepted range to [lo, lo + size) (offsets stay
// i * stride): a writer that owns one slice of the operand stops at the
// first index outside it. Wrapping is used with lo = 0 only.
struct IndexedIndices {
  int64_t size;
  int64_t stride;
  bool wrap;
  bool runs = false;
  int64_t* stop = nullptr;
  int64_t lo = 0;
};

// `reduce` (same-typed binary loops): args[0] == args[2] is the accumulator
// (steps 0), args[1] the input; it combines every input into the
// accumulator in NumPy's order (pairwise for float add, else sequential,
// with the running value kept in a register). `reduce_contig` is the same
// for a contiguous input, from a Highway loop file when the table gives one.
//
// `accumulate`: args[0] input, args[1] output (any steps): out[0] = in[0],
// out[i] = op(out[i-1], in[i]), in order, the running value in a register.
// aux, when set, points to a start value c of the loop type, and then
// out[0] = op(c, in[0]).
//
// `rows` (same-typed binary loops with a Highway body) is the row-scatter
// slot: dims[0] rows of dims[1] elements; row r combines operand elements
// args[0] + dst[r] with update elements args[2] + src[r], op(operand,
// update) -> operand, rows in order (dst and src: int64 byte offsets at
// args[1] and args[3]; steps unused). Elements are contiguous (item-size
// steps) in both. aux, when set, points to a RowsPrefetch.
//
// How far ahead (in rows, 0: not at all) the rows slot prefetches the
// destination rows and the update rows.
struct RowsPrefetch {
  int64_t dst_ahead = 0;
  int64_t src_ahead = 0;
};

// Gufunc loops (Ufunc::core_signature() set) use `strided` only, with
// NumPy's gufunc convention: dims[0] outer count, then the core dimension
// sizes; steps: one outer step per operand, then every operand's core
// strides in order.
struct LoopSlots {
  LoopFn strided = nullptr;
  LoopFn contig = nullptr;
  const char* simd_target = nullptr;
  LoopFn indexed = nullptr;
  LoopFn reduce = nullptr;
  LoopFn reduce_contig = nullptr;
  LoopFn accumulate = nullptr;
  LoopFn rows = nullptr;
  // The loop can report a failure status part-way (integer power of a
  // negative exponent): in-place callers save what they write first.
  bool may_fail = false;
  // Strided calls copy blocks of the operands through contiguous scratch
  // and run `contig` (a SIMD body worth the copies: the table's `strided`).
  bool gather_strided = false;
  // The SIMD body for strided calls (32- and 64-bit lanes): inputs read
  // with vector gathers at any positive step that is a whole number of
  // elements (or 0: broadcast), outputs written at their steps. Chosen by
  // the elementwise driver before the copies above and the scalar loop.
  LoopFn strided_simd = nullptr;
};

struct Loop {
  std::vector<DType> types;  // nin inputs then nout outputs
  LoopSlots slots;
  int id = -1;  // index in the generated tables; -1 for plugins' loops
};

}  // namespace ufuncx
