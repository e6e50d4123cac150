// The reduce family of binary ufuncs: reduce, accumulate and reduceat with
// NumPy 2.x semantics. Each method plans once (ReducePlan: the loop, the
// reduced axes, the result shape), checking its arguments in NumPy's order;
// running a plan checks out=, where= and initial= before anything is
// written, sets up the accumulator (identities, initial=, out= of another
// dtype) and hands the dims to the loop machinery in reduce_loops.cc.
#include <algorithm>
#include <cstring>

#include "cast.h"
#include "iterator.h"
#include "loop_calls.h"
#include "reduce_loops.h"
#include "ufuncx/error.h"
#include "ufuncx/ufunc.h"

namespace ufuncx {
namespace {

using internal::DTypeRepr;
using internal::Slice;
using internal::SpreadOver;

// A view of `r` (the result, reduced dims removed unless keepdims) shaped
// like the operand with size-1 reduced dims: the accumulator, which
// SpreadOver then shows over the operand's shape.
ArrayView KeptDims(const ArrayView& r, const std::vector<bool>& reduced, bool keepdims) {
  if (keepdims) return r;
  ArrayView k = r;
  k.shape.clear();
  k.strides.clear();
  size_t j = 0;
  for (bool red : reduced) {
    if (red) {
      k.shape.push_back(1);
      k.strides.push_back(0);
    } else {
      k.shape.push_back(r.shape[j]);
      k.strides.push_back(r.strides[j]);
      ++j;
    }
  }
  return k;
}

// Writes a ufunc's identity, converted to `acc`'s dtype, into every
// element of acc.
void FillIdentity(const ArrayView& acc, const Identity& id) {
  Array v;
  if (id.kind == Identity::Kind::kFloat) {
    v = Array(DType::kFloat64, {});
    *v.typed<double>() = id.value;
  } else if (id.kind == Identity::Kind::kBool) {
    v = Array(DType::kBool, {});
    *v.typed<bool>() = id.value != 0;
  } else {
    // Integer identities cast like C: -1 is all ones in unsigned types.
    v = Array(DType::kInt64, {});
    *v.typed<int64_t>() = static_cast<int64_t>(id.value);
  }
  CopyInto(acc, v.view());
}

// Which dims a reduction removes; NumPy's axis errors.
std::vector<bool> ReducedAxes(int nd, const std::optional<std::vector<int64_t>>& axis) {
  std::vector<bool> reduced(static_cast<size_t>(nd), !axis.has_value());
  if (!axis) return reduced;
  // NumPy accepts axis 0 (or -1) for a 0-d operand.
  const bool scalar_axis = nd == 0 && axis->size() == 1 && ((*axis)[0] == 0 || (*axis)[0] == -1);
  for (int64_t ax : scalar_axis ? std::vector<int64_t>{} : *axis) {
    const int k = internal::NormalizeAxis(ax, nd);
    if (reduced[static_cast<size_t>(k)]) throw ValueError("duplicate value in 'axis'");
    reduced[static_cast<size_t>(k)] = true;
  }
  return reduced;
}

// The loop a reduce-like method uses: NumPy's rules for dtype=, out= and
// the add/multiply integer widening (reduce_widen). Its types[0] is the
// accumulator type.
const Loop& ResolveReduceLoop(const Ufunc& u, const char* method, DType in,
                              std::optional<DType> dtype, std::optional<DType> out) {
  const bool same_operands = std::string(method) != "reduce";
  std::optional<DType> sig0 = dtype;
  // NumPy: add and multiply over bool and narrow ints accumulate in the
  // platform integer unless dtype= or out= says otherwise (reduce_widen).
  if (!sig0 && !out && u.traits().reduce_widen &&
      (in == DType::kBool || IsInteger(in)) && ItemSize(in) < 8) {
    sig0 = KindOf(in) == Kind::kUnsigned ? DType::kUInt64 : DType::kInt64;
  }
  CallOptions opt;
  opt.casting = Casting::kUnsafe;
  // NumPy's logical ufuncs promote every operand to bool.
  const bool logical = u.IsLogical();
  if (logical && !sig0) {
    opt.signature.assign(3, DType::kBool);
  } else if (sig0) {
    // dtype= (or the widened add/multiply type) is every operand's when the
    // ufunc has that loop (NumPy's uniform resolver, and its bool loops for
    // comparisons and logic with dtype=bool). Otherwise (ldexp) it fixes the
    // accumulator only, and the operand must cast to its slot safely.
    const bool uniform = std::any_of(u.loops().begin(), u.loops().end(), [&](const Loop& l) {
      return std::all_of(l.types.begin(), l.types.end(), [&](DType t) { return t == *sig0; });
    });
    if (uniform) {
      opt.signature = {sig0, sig0, sig0};
    } else {
      opt.signature = {sig0, std::nullopt, sig0};
      opt.casting = Casting::kSafe;
    }
  }
  // The first operand is the accumulator: a fixed type stands for it.
  DType ins[2] = {sig0.value_or(out.value_or(in)), in};
  const Loop* loop = &u.ResolveLoop(ins, opt);
  if (loop->types[0] != loop->types[2] && !sig0) {
    // The loop found is not reduce-compatible: NumPy forces its output type
    // on the first operand and searches again (comparisons fail here).
    CallOptions again;
    again.casting = Casting::kSafe;
    again.signature = {loop->types[2], std::nullopt, std::nullopt};
    ins[0] = loop->types[2];
    try {
      loop = &u.ResolveLoop(ins, again);
    } catch (const TypeError&) {
      throw TypeError("No loop matching the specified signature and casting was found for ufunc " +
                      u.name());
    }
  }
  if (loop->types[0] != loop->types[2] || (same_operands && loop->types[0] != loop->types[1])) {
    throw TypeError("the resolved dtypes are not compatible with " + u.name() + "." + method +
                    ". Resolved (" + DTypeRepr(loop->types[0]) + ", " +
                    DTypeRepr(loop->types[1]) + ", " + DTypeRepr(loop->types[2]) + ")");
  }
  return *loop;
}

// Accumulate and reduceat run on the operand in the loop's type, into out
// itself when it has that type and the loop may write it (no overlap, or
// exactly in place when `inplace_ok`), else into a new array copied into
// out at the end. A loop that can fail part-way always writes a new array,
// so that a failed call leaves out as it was.
struct LoopOperands {
  ArrayView in, res;
  Array in_copy, res_own;
};

LoopOperands InLoopType(const Loop& loop, const ArrayView& a, const ArrayView& out,
                        bool inplace_ok) {
  LoopOperands p;
  const DType t = loop.types[0];
  p.in = a;
  if (a.dtype != t) {
    p.in_copy = Array(t, a.shape);
    CopyInto(p.in_copy.view(), a);
    p.in = p.in_copy.view();
  }
  if (out.dtype == t && !loop.slots.may_fail &&
      (!MayShareMemory(out, p.in) ||
       (inplace_ok && internal::SameLayout(out, p.in) && internal::ElementsApart(out)))) {
    p.res = out;
  } else {
    p.res_own = Array(t, out.shape);
    p.res = p.res_own.view();
  }
  return p;
}

}  // namespace

void Ufunc::CheckBinaryMethod(const char* method) const {
  const std::string m = method;
  if (core_) {
    if (m == "outer") throw TypeError("method outer is not allowed in ufunc with non-trivial signature");
    if (m == "at") {
      throw TypeError(name_ + ".at does not support ufunc with non-trivial signature: " + name_ +
                      " has signature " + core_->text + ".");
    }
    throw RuntimeError("Reduction not defined on ufunc with signature");
  }
  if (nin_ != 2) {
    if (m == "outer") throw ValueError("outer product only supported for binary functions");
    throw ValueError(m + " only supported for binary functions");
  }
  if (nout_ != 1 && m != "outer") {  // NumPy's outer allows several outputs
    throw ValueError(std::string(method) + " only supported for functions returning a single value");
  }
}

// ------------------------------------------------------------------ reduce

ReducePlan Ufunc::PlanReduce(const ArrayView& a, const ReduceOptions& opt,
                             std::optional<DType> out) const {
  CheckBinaryMethod("reduce");
  ReducePlan plan;
  plan.reduced = ReducedAxes(a.ndim(), opt.axis);
  for (int d = 0; d < a.ndim(); ++d) {
    if (!plan.reduced[static_cast<size_t>(d)]) plan.shape.push_back(a.shape[static_cast<size_t>(d)]);
    else if (opt.keepdims) plan.shape.push_back(1);
  }
  plan.loop = &ResolveReduceLoop(*this, "reduce", a.dtype, opt.dtype, out);
  // (here, as NumPy checks it: after the loop, before initial is read)
  if (std::count(plan.reduced.begin(), plan.reduced.end(), true) > 1 && !reorderable_) {
    throw ValueError("reduction operation '" + name_ +
                     "' is not reorderable, so at most one axis may be specified");
  }
  return plan;
}

Array Ufunc::Reduce(const ArrayView& a, const ReduceOptions& opt) const {
  const ReducePlan plan = PlanReduce(a, opt);
  Array result(plan.dtype(), plan.shape);
  RunReduce(plan, a, result.view(), opt);
  return result;
}

void Ufunc::ReduceInto(const ArrayView& a, const ArrayView& out, const ReduceOptions& opt) const {
  RunReduce(PlanReduce(a, opt, out.dtype), a, out, opt);
}

void Ufunc::RunReduce(const ReducePlan& plan, const ArrayView& a, const ArrayView& out_view,
                      const ReduceOptions& opt) const {
  const int nd = a.ndim();
  const std::vector<bool>& reduced = plan.reduced;
  if (static_cast<int>(reduced.size()) != nd) {
    throw ValueError("a reduce plan of " + std::to_string(reduced.size()) +
                     " dims run on an operand of " + std::to_string(nd));
  }
  const Loop& loop = *plan.loop;
  const ArrayView* out = &out_view;
  const int nreduced = static_cast<int>(std::count(reduced.begin(), reduced.end(), true));
  int64_t count = 1;
  for (int d = 0; d < nd; ++d) {
    if (reduced[static_cast<size_t>(d)]) count *= a.shape[static_cast<size_t>(d)];
  }
  bool use_identity = identity_.has() && !opt.no_initial;
  if (use_identity && IsMlDType(loop.types[0])) {
    // NumPy runs ml_dtypes' (user-dtype) loops from the first element of a
    // non-empty reduction, and an identity the type cannot hold (-inf in
    // float8_e4m3fn) is none.
    const bool unrepresentable = identity_.kind == Identity::Kind::kFloat &&
                                 std::isinf(identity_.value) &&
                                 loop.types[0] == DType::kFloat8E4M3FN;
    if (unrepresentable || (count > 0 && !opt.where)) use_identity = false;
  }
  const bool has_initial = opt.initial || use_identity;
  if (opt.where && !has_initial) {
    throw ValueError("reduction operation '" + name_ +
                     "' does not have an identity, so to use a where mask one has to specify "
                     "'initial'");
  }
  const Shape& rshape = plan.shape;
  if (count == 0 && !has_initial) {
    throw ValueError("zero-size array to reduction operation " + name_ +
                     " which has no identity");
  }
  {
    if (out->ndim() != static_cast<int>(rshape.size())) {
      throw ValueError("output parameter for reduction operation " + name_ +
                       " has the wrong number of dimensions: Found " +
                       std::to_string(out->ndim()) + " but expected " +
                       std::to_string(rshape.size()) +
                       (opt.keepdims ? " (must match the operand's when keepdims=True)" : ""));
    }
    if (out->shape != rshape) {
      throw ValueError("output parameter for reduction operation " + name_ + " has shape " +
                       internal::ShapeString(out->shape) + " but the reduction gives " +
                       internal::ShapeString(rshape));
    }
  }
  const ArrayView* where = opt.where;
  if (where) {
    if (where->dtype != DType::kBool) {
      throw TypeError("Cannot cast array data from " + DTypeRepr(where->dtype) +
                      " to dtype('bool') according to the rule 'safe'");
    }
    internal::BroadcastStrides(*where, a.shape);  // throws when it does not fit
  }
  if (opt.initial && opt.initial->size() != 1) {
    throw ValueError("initial must be a single value");
  }

  // The accumulator: out itself when it does not overlap the operand and
  // the loop cannot fail part-way, else a fresh array copied into out at
  // the end (so a failed call leaves out as it was).
  const DType t = loop.types[0];
  Array own;
  ArrayView r;
  if (!loop.slots.may_fail && !MayShareMemory(*out, a) &&
      !(where && MayShareMemory(*out, *where))) {
    r = *out;
  } else {
    own = Array(out->dtype, rshape);
    r = own.view();
  }
  if (ShapeSize(rshape) > 0) {
    const ArrayView kept = KeptDims(r, reduced, opt.keepdims);
    // As in NumPy, the starting values are written into out (in its
    // dtype); the loop then runs on them in the loop's type, and the result
    // is cast back once.
    Array acc_own;
    ArrayView acc = kept;
    auto to_loop_type = [&] {
      if (r.dtype == t) return;
      acc_own = Array(t, kept.shape);
      CopyInto(acc_own.view(), kept);
      acc = acc_own.view();
    };
    if (has_initial) {
      if (opt.initial) CopyInto(r, *opt.initial);
      else FillIdentity(r, identity_);
      to_loop_type();
      if (where) {
        internal::ReduceLoops(*this, loop, SpreadOver(acc, a.shape), a, where);
      } else {
        internal::ReduceLoopsThreaded(*this, loop, SpreadOver(acc, a.shape), a);
      }
    } else if (nreduced <= 1) {
      // No initial value: start from the first element along the axis.
      const int ax = static_cast<int>(std::find(reduced.begin(), reduced.end(), true) - reduced.begin());
      if (ax == nd) {
        CopyInto(kept, a);
      } else {
        CopyInto(kept, Slice(a, ax, 0, 1));
        to_loop_type();
        const ArrayView rest = Slice(a, ax, 1, a.shape[static_cast<size_t>(ax)] - 1);
        internal::ReduceLoopsThreaded(*this, loop, SpreadOver(acc, rest.shape), rest);
      }
    } else {
      // Several axes, no initial (reorderable ufuncs only): as NumPy, start
      // from the first element of each reduced block and combine the rest
      // in iteration order; a mask leaves that first element out.
      ArrayView first = a;
      Shape mshape(static_cast<size_t>(nd), 1);
      for (int d = 0; d < nd; ++d) {
        if (!reduced[static_cast<size_t>(d)]) continue;
        first = Slice(first, d, 0, 1);
        mshape[static_cast<size_t>(d)] = a.shape[static_cast<size_t>(d)];
      }
      CopyInto(kept, first);
      to_loop_type();
      Array mask_buf(DType::kBool, {ShapeSize(mshape)});
      std::memset(mask_buf.data(), 1, static_cast<size_t>(mask_buf.size()));
      mask_buf.data()[0] = 0;
      // The mask's layout follows the operand's, so the iteration order
      // (by stride) is the operand's memory order, as in NumPy.
      ArrayView mask = mask_buf.view();
      mask.shape = mshape;
      mask.strides.assign(static_cast<size_t>(nd), 0);
      std::vector<int> dims;
      for (int d = 0; d < nd; ++d) {
        if (reduced[static_cast<size_t>(d)]) dims.push_back(d);
      }
      std::stable_sort(dims.begin(), dims.end(), [&](int x, int y) {
        return std::llabs(a.strides[static_cast<size_t>(x)]) > std::llabs(a.strides[static_cast<size_t>(y)]);
      });
      int64_t stride = 1;
      for (auto it = dims.rbegin(); it != dims.rend(); ++it) {
        mask.strides[static_cast<size_t>(*it)] = stride;
        stride *= mshape[static_cast<size_t>(*it)];
      }
      internal::ReduceLoops(*this, loop, SpreadOver(acc, a.shape), a, &mask);
    }
    if (acc_own.data()) CopyInto(kept, acc);
  }
  if (r.data != out->data) CopyInto(*out, r);
}

// -------------------------------------------------------------- accumulate

ReducePlan Ufunc::PlanAccumulate(const ArrayView& a, int64_t axis, std::optional<DType> dtype,
                                 std::optional<DType> out) const {
  CheckBinaryMethod("accumulate");
  if (a.ndim() == 0) throw TypeError("cannot accumulate on a scalar");
  ReducePlan plan;
  plan.axis = internal::NormalizeAxis(axis, a.ndim());
  plan.shape = a.shape;
  plan.loop = &ResolveReduceLoop(*this, "accumulate", a.dtype, dtype, out);
  return plan;
}

void Ufunc::RunAccumulate(const ReducePlan& plan, const ArrayView& a, const ArrayView& out) const {
  if (out.shape != a.shape) throw ValueError("provided out is the wrong size for the accumulation.");
  if (plan.axis >= a.ndim()) throw ValueError("an accumulate plan run on an operand of fewer dims");
  LoopOperands p = InLoopType(*plan.loop, a, out, /*inplace_ok=*/true);
  internal::AccumulateLoops(*this, *plan.loop, p.in, p.res, plan.axis);
  if (p.res.data != out.data) CopyInto(out, p.res);
}

Array Ufunc::Accumulate(const ArrayView& a, int64_t axis, std::optional<DType> dtype) const {
  const ReducePlan plan = PlanAccumulate(a, axis, dtype);
  Array result(plan.dtype(), plan.shape);
  RunAccumulate(plan, a, result.view());
  return result;
}

void Ufunc::AccumulateInto(const ArrayView& a, const ArrayView& out, int64_t axis,
                           std::optional<DType> dtype) const {
  RunAccumulate(PlanAccumulate(a, axis, dtype, out.dtype), a, out);
}

// ---------------------------------------------------------------- reduceat

ReducePlan Ufunc::PlanReduceat(const ArrayView& a, std::span<const int64_t> indices, int64_t axis,
                               std::optional<DType> dtype, std::optional<DType> out) const {
  CheckBinaryMethod("reduceat");
  if (a.ndim() == 0) throw TypeError("cannot reduceat on a scalar");
  ReducePlan plan;
  plan.axis = internal::NormalizeAxis(axis, a.ndim());
  const int64_t n = a.shape[static_cast<size_t>(plan.axis)];
  for (int64_t v : indices) {
    if (v < 0 || v >= n) {
      throw IndexError("index " + std::to_string(v) + " out-of-bounds in " + name_ +
                       ".reduceat [0, " + std::to_string(n) + ")");
    }
  }
  plan.shape = a.shape;
  plan.shape[static_cast<size_t>(plan.axis)] = static_cast<int64_t>(indices.size());
  plan.loop = &ResolveReduceLoop(*this, "reduceat", a.dtype, dtype, out);
  return plan;
}

void Ufunc::RunReduceat(const ReducePlan& plan, const ArrayView& a,
                        std::span<const int64_t> indices, const ArrayView& out) const {
  // The plan checked the indices against a; a different operand or index
  // list must not reach the loops unchecked.
  const int ax = plan.axis;
  Shape expect = a.shape;
  if (ax < a.ndim()) expect[static_cast<size_t>(ax)] = static_cast<int64_t>(indices.size());
  const int64_t n = ax < a.ndim() ? a.shape[static_cast<size_t>(ax)] : 0;
  if (ax >= a.ndim() || expect != plan.shape ||
      std::any_of(indices.begin(), indices.end(), [&](int64_t v) { return v < 0 || v >= n; })) {
    throw ValueError("a reduceat plan run on other operands or indices than it was made for");
  }
  if (out.shape != plan.shape) {
    throw ValueError("output parameter for " + name_ + ".reduceat has shape " +
                     internal::ShapeString(out.shape) + " but expected " +
                     internal::ShapeString(plan.shape));
  }
  LoopOperands p = InLoopType(*plan.loop, a, out, /*inplace_ok=*/false);
  internal::ReduceatLoops(*this, *plan.loop, p.in, indices, ax, p.res);
  if (p.res.data != out.data) CopyInto(out, p.res);
}

Array Ufunc::Reduceat(const ArrayView& a, std::span<const int64_t> indices, int64_t axis,
                      std::optional<DType> dtype) const {
  const ReducePlan plan = PlanReduceat(a, indices, axis, dtype);
  Array result(plan.dtype(), plan.shape);
  RunReduceat(plan, a, indices, result.view());
  return result;
}

void Ufunc::ReduceatInto(const ArrayView& a, std::span<const int64_t> indices,
                         const ArrayView& out, int64_t axis, std::optional<DType> dtype) const {
  RunReduceat(PlanReduceat(a, indices, axis, dtype, out.dtype), a, indices, out);
}

}  // namespace ufuncx
