// The front half of a call, where NumPy's call rules live for every caller
// (C++ and the bindings alike): NEP 50 weak scalars, the layout of new
// results (order=), and the gufunc keywords axes=, axis= and keepdims=.
// Ufunc::Plan then does loop selection, broadcasting and output checks.
#include <algorithm>
#include <cmath>
#include <functional>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <limits>

#include "cast.h"
#include "iterator.h"
#include "loop_calls.h"
#include "ufuncx/error.h"
#include "ufuncx/ufunc.h"

namespace ufuncx {

// ---- Weak scalars (NEP 50) ----

WeakScalar WeakScalar::Int(int64_t v) {
  WeakScalar w;
  w.negative = v < 0;
  w.magnitude = w.negative ? uint64_t{0} - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  w.real = static_cast<double>(v);
  return w;
}

WeakScalar WeakScalar::UInt(uint64_t v) {
  WeakScalar w;
  w.magnitude = v;
  w.real = static_cast<double>(v);
  return w;
}

WeakScalar WeakScalar::HugeInt(double rounded) {
  WeakScalar w;
  w.huge = true;
  w.negative = rounded < 0;
  w.real = rounded;
  return w;
}

WeakScalar WeakScalar::Float(double v) {
  WeakScalar w;
  w.kind = Kind::kFloat;
  w.real = v;
  return w;
}

WeakScalar WeakScalar::Complex(std::complex<double> v) {
  WeakScalar w;
  w.kind = Kind::kComplex;
  w.real = v.real();
  w.imag = v.imag();
  return w;
}

bool WeakScalar::FitsInteger(DType t) const {
  if (!IsInteger(t)) return true;
  if (huge) return false;
  const int bits = static_cast<int>(ItemSize(t)) * 8;
  if (negative) return (KindOf(t) == ufuncx::Kind::kSigned) && magnitude <= (uint64_t{1} << (bits - 1));
  const uint64_t max = (KindOf(t) == ufuncx::Kind::kSigned) ? (uint64_t{1} << (bits - 1)) - 1
                                   : bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  return magnitude <= max;
}

namespace {

std::string IntText(const WeakScalar& w) {
  return (w.negative ? "-" : "") + std::to_string(w.magnitude);
}

// NumPy 2 raises when a Python int does not fit the integer type it takes.
void CheckIntFits(const WeakScalar& w, DType t) {
  if (w.FitsInteger(t)) return;
  if (!w.huge && ((t != DType::kInt64 && t != DType::kUInt64) ||
                  (t == DType::kUInt64 && w.negative))) {
    throw OverflowError("Python integer " + IntText(w) + " out of bounds for " + Name(t));
  }
  throw OverflowError("Python int too large to convert to C long");
}

// A 0-d array of type t holding the scalar, converted as NumPy converts a
// Python number (an int into a float type through double, as Python's
// float() does). `truth`: the scalar's truth value instead (logical loops).
void Materialize(const WeakScalar& w, DType t, char* dst, bool truth = false) {
  auto from = [&](DType src, const void* value) {
    internal::GetCast(src, t)(static_cast<const char*>(value), 0, dst, 0, 1);
  };
  if (truth) {
    const bool b = w.kind == WeakScalar::Kind::kInt ? (w.huge || w.magnitude != 0)
                                                    : (w.real != 0 || w.imag != 0);
    from(DType::kBool, &b);
  } else if (w.kind == WeakScalar::Kind::kComplex) {
    const std::complex<double> c(w.real, w.imag);
    from(DType::kComplex128, &c);
  } else if (w.kind == WeakScalar::Kind::kInt && IsInteger(t)) {
    CheckIntFits(w, t);
    if (w.negative) {
      const int64_t v = static_cast<int64_t>(uint64_t{0} - w.magnitude);
      from(DType::kInt64, &v);
    } else {
      from(DType::kUInt64, &w.magnitude);
    }
  } else {
    if (w.kind == WeakScalar::Kind::kInt && w.huge && std::isinf(w.real)) {
      throw OverflowError("int too large to convert to float");
    }
    from(DType::kFloat64, &w.real);
  }
}

// A 0-d view of one element at p.
ArrayView Scalar(DType t, char* p) {
  ArrayView v;
  v.data = p;
  v.dtype = t;
  return v;
}

// The type NumPy gives a Python scalar on its own (int64, float64,
// complex128), which its casting checks start from.
DType DefaultType(const WeakScalar& w) {
  using K = WeakScalar::Kind;
  return w.kind == K::kInt ? DType::kInt64 : w.kind == K::kFloat ? DType::kFloat64 : DType::kComplex128;
}

const char* PythonName(const WeakScalar& w) {
  using K = WeakScalar::Kind;
  return w.kind == K::kInt ? "int" : w.kind == K::kFloat ? "float" : "complex";
}

[[noreturn]] void RefuseUnderEquiv(const WeakScalar& w, DType t) {
  throw TypeError(std::string("cannot cast Python ") + PythonName(w) + " to " + Name(t) +
                  " under the casting rule 'equiv'");
}

// Whether a Python scalar goes into a loop input of type t under the rule
// (NumPy's check for Python literals): an int into any integer, float or
// complex type (its value is checked when it is packed), a float into any
// float or complex type, a complex into complex types; anything else as its
// default type casts.
bool PythonScalarCasts(const WeakScalar& w, DType t, Casting casting) {
  if (casting == Casting::kUnsafe) return true;
  const Kind k = KindOf(t);
  if (!IsMlDType(t)) {
    if (k == Kind::kComplex) return true;
    if (k == Kind::kFloat) return w.kind != WeakScalar::Kind::kComplex;
    if (IsInteger(t)) return w.kind == WeakScalar::Kind::kInt;
  }
  return CanCast(DefaultType(w), t, casting);
}

// Whether some loop takes inputs of different types (ldexp's "ei->e").
bool MixedInputLoops(const std::vector<Loop>& loops, int nin) {
  return std::any_of(loops.begin(), loops.end(), [nin](const Loop& l) {
    return std::any_of(l.types.begin() + 1, l.types.begin() + nin,
                       [&](DType t) { return t != l.types[0]; });
  });
}

// The dtype NEP 50 gives a weak scalar beside the strong operands' type.
// Sets *deferred when an int does not fit the type it takes: NumPy then
// checks it against the loop's input type instead, once a loop is chosen.
// `ints_only`: every input is a weak int and there are several; NumPy then
// promotes them as Python ints, to int64 (2**63 + 1 overflows).
DType WeakType(const WeakScalar& w, std::optional<DType> strong, bool comparison,
               bool ints_only, bool* deferred) {
  const Kind k = strong ? KindOf(*strong) : Kind::kBool;
  switch (w.kind) {
    case WeakScalar::Kind::kInt: {
      DType t = strong && k != Kind::kBool ? *strong : DType::kInt64;

      if (!IsInteger(t) && strong) return t;
      // Beyond every integer type, a comparison's answer is the sign's:
      // the int compares as +-inf (Materialized so), exactly by value.
      if (comparison && w.huge) return DType::kFloat64;
      if (comparison && !w.FitsInteger(t)) {
        t = w.FitsInteger(DType::kInt64) ? DType::kInt64 : DType::kUInt64;
      } else if (!strong && !ints_only && !w.FitsInteger(DType::kInt64) &&
                 w.FitsInteger(DType::kUInt64)) {
        t = DType::kUInt64;
      }
      if (strong && !comparison && !w.FitsInteger(t)) {
        *deferred = true;
        return t;
      }
      CheckIntFits(w, t);
      return t;
    }
    case WeakScalar::Kind::kFloat:
      return strong && (k == Kind::kFloat || k == Kind::kComplex) ? *strong : DType::kFloat64;
    case WeakScalar::Kind::kComplex:
      return !strong ? DType::kComplex128
             : k == Kind::kComplex ? *strong
             : k == Kind::kFloat ? ComplexOf(*strong)
                                 : DType::kComplex128;
  }
  return DType::kFloat64;
}

// ---- gufunc axes= ----

ArrayView Permuted(const ArrayView& v, const std::vector<int>& perm) {
  if (perm.empty()) return v;
  ArrayView r = v;
  for (size_t j = 0; j < perm.size(); ++j) {
    r.shape[j] = v.shape[static_cast<size_t>(perm[j])];
    r.strides[j] = v.strides[static_cast<size_t>(perm[j])];
  }
  return r;
}

// The permutation that moves `core` (axes of an ndim array, in the order
// of the core dims) to the end: loop axis j is axis perm[j].
std::vector<int> MoveToEnd(const std::vector<int64_t>& core, int ndim, int item) {
  std::vector<int> axes;
  for (const int64_t a : core) {
    const int n = internal::NormalizeAxis(a, ndim);
    if (std::find(axes.begin(), axes.end(), n) != axes.end()) {
      throw ValueError("axes item " + std::to_string(item) + " has value " + std::to_string(a) +
                       " repeated");
    }
    axes.push_back(n);
  }
  std::vector<int> perm;
  for (int d = 0; d < ndim; ++d) {
    if (std::find(axes.begin(), axes.end(), d) == axes.end()) perm.push_back(d);
  }
  perm.insert(perm.end(), axes.begin(), axes.end());
  return perm;
}

// The core dims an operand of this rank has (optional ones it lacks do not
// count), as axes= must name them.
int PresentCoreDims(const CoreSignature& sig, size_t k, int ndim) {
  const int ncore = static_cast<int>(sig.dims[k].size());
  const int nopt = static_cast<int>(std::count(sig.optional[k].begin(), sig.optional[k].end(), true));
  return ncore - std::min(nopt, std::max(0, ncore - ndim));
}

// axes= per operand after NumPy's checks of axes=, axis= and keepdims=.
std::vector<std::vector<int64_t>> GufuncAxes(const Ufunc& u, const CallOptions& opt) {
  const CoreSignature& sig = *u.core();
  const int nin = u.nin(), nout = u.nout(), nargs = u.nargs();
  std::vector<int> in_core, out_core;
  for (int k = 0; k < nargs; ++k) {
    (k < nin ? in_core : out_core).push_back(static_cast<int>(sig.dims[static_cast<size_t>(k)].size()));
  }
  const bool any_out_core = std::any_of(out_core.begin(), out_core.end(), [](int c) { return c > 0; });
  if (opt.axis && opt.axes) throw TypeError("cannot specify both 'axis' and 'axes'");
  if (opt.keepdims &&
      (std::adjacent_find(in_core.begin(), in_core.end(), std::not_equal_to<>()) != in_core.end() ||
       any_out_core)) {
    throw TypeError(u.name() + " does not support keepdims: its signature " + sig.text +
                    " requires output 0 to have " + std::to_string(out_core[0]) +
                    " core dimensions, but keepdims can only be used when all inputs have the "
                    "same number of core dimensions and all outputs have no core dimensions.");
  }
  std::vector<std::vector<int64_t>> axes;
  if (opt.axis) {
    if (std::any_of(in_core.begin(), in_core.end(), [](int c) { return c != 1; }) || any_out_core) {
      throw TypeError(u.name() + ": axis can only be used with a single shared core dimension, "
                      "not with signature " + sig.text);
    }
    axes.assign(static_cast<size_t>(nin), {*opt.axis});
  } else if (opt.axes) {
    axes = *opt.axes;
    const std::string all = "axes should be a list with an entry for all " +
                            std::to_string(nargs) + " inputs and outputs";
    if (static_cast<int>(axes.size()) == nin && any_out_core) {
      throw ValueError(all + "; entries for outputs can only be omitted if none of them has "
                       "core axes.");
    }
    if (static_cast<int>(axes.size()) != nin && static_cast<int>(axes.size()) != nargs) {
      throw ValueError(all);
    }
  } else {
    for (int c : in_core) {
      std::vector<int64_t> last;
      for (int j = -c; j < 0; ++j) last.push_back(j);
      axes.push_back(std::move(last));
    }
  }
  axes.resize(static_cast<size_t>(nin + nout));
  return axes;
}

}  // namespace

// ---- Result layout (order=) ----

std::vector<int> ResultAxisOrder(Order order, const Shape& shape,
                                 std::span<const ArrayView* const> operands) {
  const int nd = static_cast<int>(shape.size());
  std::vector<int> r(static_cast<size_t>(nd));  // r[0] is the innermost axis
  for (int k = 0; k < nd; ++k) r[static_cast<size_t>(k)] = nd - 1 - k;
  if (nd < 2 || order == Order::kC) return r;
  auto fortran = [&] {
    for (int k = 0; k < nd; ++k) r[static_cast<size_t>(k)] = k;
    return r;
  };
  if (order == Order::kF) return fortran();
  if (order == Order::kA) {
    bool any = false;
    for (const ArrayView* v : operands) {
      if (v->shape.size() < 2) continue;
      if (!v->IsFContiguous() || v->IsCContiguous()) return r;
      any = true;
    }
    return any ? fortran() : r;
  }
  // K: each operand's stride along each result axis, 0 where it broadcasts
  // or the axis has length 1 (those do not vote).
  auto stride = [&](const ArrayView& v, int axis) -> int64_t {
    const int lead = nd - static_cast<int>(v.shape.size());
    if (axis < lead || shape[static_cast<size_t>(axis)] == 1) return 0;
    const size_t a = static_cast<size_t>(axis - lead);
    return v.shape[a] == 1 ? 0 : v.strides[a];
  };
  for (int i0 = 1; i0 < nd; ++i0) {
    const int ax0 = r[static_cast<size_t>(i0)];
    int ipos = i0;
    for (int i1 = i0 - 1; i1 >= 0; --i1) {
      const int ax1 = r[static_cast<size_t>(i1)];
      bool ambiguous = true, swap = false;
      for (const ArrayView* v : operands) {
        const int64_t s0 = stride(*v, ax0), s1 = stride(*v, ax1);
        if (s0 == 0 || s1 == 0) continue;
        if (std::llabs(s1) <= std::llabs(s0)) {
          swap = false;
        } else if (ambiguous) {
          swap = true;
        }
        ambiguous = false;
      }
      if (ambiguous) continue;
      if (!swap) break;
      ipos = i1;
    }
    if (ipos != i0) std::rotate(r.begin() + ipos, r.begin() + i0, r.begin() + i0 + 1);
  }
  return r;
}

// ---- The prepared call ----

ArrayView PreparedCall::LoopView(int output, const ArrayView& given) const {
  const size_t o = static_cast<size_t>(output);
  if (squeeze.empty()) return given;
  ArrayView v = given;
  if (squeeze[o] >= 0) {
    const size_t a = static_cast<size_t>(squeeze[o]);
    if (v.shape[a] != 1) {
      throw ValueError("cannot select an axis to squeeze out which has size not equal to one");
    }
    v.shape.erase(v.shape.begin() + static_cast<std::ptrdiff_t>(a));
    v.strides.erase(v.strides.begin() + static_cast<std::ptrdiff_t>(a));
  }
  return Permuted(v, perm[o]);
}

PreparedCall Ufunc::Prepare(std::span<const CallInput> inputs,
                            std::span<const ArrayView* const> outputs,
                            const CallOptions& opt) const {
  return PrepareFrom(inputs, nullptr, outputs, opt);
}

PreparedCall Ufunc::Prepare(std::vector<CallInput>&& inputs,
                            std::span<const ArrayView* const> outputs,
                            const CallOptions& opt) const {
  return PrepareFrom(inputs, inputs.data(), outputs, opt);
}

// `movable`, when set, is inputs.data(): their views may be taken.
PreparedCall Ufunc::PrepareFrom(std::span<const CallInput> inputs, CallInput* movable,
                                std::span<const ArrayView* const> outputs,
                                const CallOptions& opt) const {
  if (static_cast<int>(inputs.size()) != nin_) {
    throw TypeError(name_ + "() takes " + std::to_string(nin_) + " input arguments, got " +
                    std::to_string(inputs.size()));
  }
  if (!core_ && (opt.axes || opt.axis || opt.keepdims)) {
    const char* key = opt.axes ? "axes" : opt.axis ? "axis" : "keepdims";
    throw TypeError(name_ + "() got an unexpected keyword argument '" + key + "'");
  }
  PreparedCall call;
  // Weak scalars: a type from the strong operands, a 0-d array of it.
  const bool any_weak =
      std::any_of(inputs.begin(), inputs.end(), [](const CallInput& in) { return in.weak; });
  std::optional<DType> strong;  // (only weak scalars need it)
  for (size_t i = 0; any_weak && i < inputs.size(); ++i) {
    if (inputs[i].weak) continue;
    const DType t = inputs[i].array.dtype;
    strong = strong ? PromoteTypes(*strong, t) : t;
  }
  const bool ints_only = nin_ > 1 && std::all_of(inputs.begin(), inputs.end(), [](const CallInput& in) {
    return in.weak && in.weak->kind == WeakScalar::Kind::kInt;
  });
  // (small per-operand flags on the stack: a call allocates little)
  internal::SmallBuffer<char, 8> deferred(inputs.size(), 0);
  call.inputs.reserve(inputs.size());
  if (any_weak) call.scalars.resize(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].weak) {
      if (movable) call.inputs.push_back(std::move(movable[i].array));
      else call.inputs.push_back(inputs[i].array);
      continue;
    }
    // NumPy's logical promoter reads an int as a C long.
    // So does a comparison beside bool (the int64 it takes there).
    if ((traits_.logical || (traits_.comparison && strong && *strong == DType::kBool)) &&
        (!opt.dtype || *opt.dtype == DType::kBool) &&
        inputs[i].weak->kind == WeakScalar::Kind::kInt &&
        !inputs[i].weak->FitsInteger(DType::kInt64)) {
      throw OverflowError("Python int too large to convert to C long");
    }
    bool def = false;
    DType t = WeakType(*inputs[i].weak, strong, traits_.comparison, ints_only, &def);
    // A ufunc whose loops take inputs of different types (ldexp) is NumPy's
    // legacy linear search: beside integer arrays a weak int matches any
    // integer or float input of a loop (ldexp(3, int32 array) is float16).
    // Typed as the narrowest int, it is checked against the loop's type.
    if (inputs[i].weak->kind == WeakScalar::Kind::kInt && strong && IsInteger(*strong) &&
        !traits_.comparison && MixedInputLoops(loops(), nin_)) {
      t = DType::kInt8;
      def = true;
    }
    deferred[i] = def;
    // A deferred int plans as a zero of its type; its value comes later.
    char* box = call.scalars[i].bytes;
    if (def) {
      std::memset(box, 0, sizeof(call.scalars[i].bytes));
    } else if (traits_.comparison && inputs[i].weak->huge && t == DType::kFloat64) {
      const double inf = inputs[i].weak->negative ? -HUGE_VAL : HUGE_VAL;
      std::memcpy(box, &inf, sizeof inf);
    } else {
      Materialize(*inputs[i].weak, t, box);
    }
    call.inputs.push_back(Scalar(t, box));
  }
  // gufunc axes=: the core dims moved to the end, as views.
  std::vector<std::vector<int64_t>> axes;
  const bool moved = core_ && (opt.axes || opt.axis || opt.keepdims);
  if (moved) {
    axes = GufuncAxes(*this, opt);
    call.perm.assign(static_cast<size_t>(nout_), {});
    call.squeeze.assign(static_cast<size_t>(nout_), -1);
    for (int i = 0; i < nin_; ++i) {
      ArrayView& v = call.inputs[static_cast<size_t>(i)];
      const auto& ax = axes[static_cast<size_t>(i)];
      const int present = PresentCoreDims(*core_, static_cast<size_t>(i), v.ndim());
      if (static_cast<int>(ax.size()) != present) {
        throw AxisError(name_ + ": operand " + std::to_string(i) + " has " +
                        std::to_string(present) + " core dimensions, but " +
                        std::to_string(ax.size()) + " dimensions are specified by axes tuple.");
      }
      v = Permuted(v, MoveToEnd(ax, v.ndim(), i));
    }
  }
  // keepdims: the reduced core dim stays in each output as size 1, where
  // axis= says, else where the output's axes= entry says, else last (NumPy).
  const bool keep = moved && opt.keepdims && !axes[0].empty();
  std::vector<int64_t> keep_axes(keep ? static_cast<size_t>(nout_) : 0, -1);
  for (int o = 0; keep && o < nout_; ++o) {
    auto& entry = axes[static_cast<size_t>(nin_ + o)];
    if (opt.axis) {
      keep_axes[static_cast<size_t>(o)] = *opt.axis;
    } else if (!entry.empty()) {
      if (entry.size() != axes[0].size() || entry.size() != 1) {
        throw AxisError(name_ + ": operand " + std::to_string(nin_ + o) + " keeps " +
                        std::to_string(axes[0].size()) + " dimensions, but " +
                        std::to_string(entry.size()) + " are specified by axes tuple.");
      }
      keep_axes[static_cast<size_t>(o)] = entry[0];
    }
    entry.clear();  // the output has no core dims of its own
  }
  std::vector<ArrayView> given(moved ? static_cast<size_t>(nout_) : 0);
  internal::SmallBuffer<const ArrayView*, 8> given_ptrs(static_cast<size_t>(nout_), nullptr);
  for (size_t o = 0; o < given_ptrs.size() && o < outputs.size(); ++o) {
    if (!outputs[o]) continue;
    if (!moved) {  // the caller's array is the loop's
      given_ptrs[o] = outputs[o];
      continue;
    }
    int nd = outputs[o]->ndim();
    if (keep) call.squeeze[o] = internal::NormalizeAxis(keep_axes[o], nd--);
    const auto& ax = axes[static_cast<size_t>(nin_) + o];
    if (!ax.empty()) call.perm[o] = MoveToEnd(ax, nd, nin_ + static_cast<int>(o));
    given[o] = call.LoopView(static_cast<int>(o), *outputs[o]);
    given_ptrs[o] = &given[o];
  }
  // Beside a comparison's integer operands a weak int compares by value
  // (NumPy's Python-int comparison loops): no casting rule applies to it.
  const auto by_value = [&](size_t i) {
    return traits_.comparison && inputs[i].weak->kind == WeakScalar::Kind::kInt && strong &&
           IsInteger(*strong);
  };
  // dtype= or signature= fix the loop, whatever the weak scalars are: NumPy
  // packs each into its loop input's type (an int out of that type's range
  // is OverflowError, under any casting rule) before the arrays' casts are
  // checked; under 'equiv' it refuses them first.
  if (any_weak && !core_ && (opt.dtype || !opt.signature.empty()) && !traits_.logical) {
    std::vector<DType> trial;
    for (const ArrayView& v : call.inputs) trial.push_back(v.dtype);
    const Loop* fixed = nullptr;
    try {
      fixed = &ResolveLoop(trial, opt);
    } catch (const TypeError&) {
    }
    for (size_t i = 0; fixed && i < inputs.size(); ++i) {
      const auto& w = inputs[i].weak;
      const DType t = fixed->types[i];
      if (!w || by_value(i) || (t == call.inputs[i].dtype && !deferred[i])) continue;
      if (opt.casting == Casting::kEquiv) RefuseUnderEquiv(*w, t);
      if (!PythonScalarCasts(*w, t, opt.casting)) continue;  // (Plan names it)
      if (t == DType::kBool && w->kind == WeakScalar::Kind::kInt && !w->FitsInteger(DType::kInt64)) {
        throw OverflowError("Python int too large to convert to C long");
      }
      Materialize(*w, t, call.scalars[i].bytes);
      call.inputs[i] = Scalar(t, call.scalars[i].bytes);
      deferred[i] = 0;
    }
  }
  try {
    call.plan = Plan(call.inputs, given_ptrs.span(), opt, deferred.span());
  } catch (const TypeError&) {
    // No loop for a weak int typed as the float operands' type (ldexp(x, 3):
    // every loop takes an integer there). NumPy then lets the int match any
    // integer input of a loop and checks its value against the loop's type:
    // plan it as the narrowest int, deferred to that check below.
    bool retyped = false;
    for (size_t i = 0; i < inputs.size(); ++i) {
      const auto& w = inputs[i].weak;
      if (!w || w->kind != WeakScalar::Kind::kInt || deferred[i] ||
          IsInteger(call.inputs[i].dtype) || call.inputs[i].dtype == DType::kBool) {
        continue;
      }
      std::memset(call.scalars[i].bytes, 0, sizeof(call.scalars[i].bytes));
      call.inputs[i] = Scalar(DType::kInt8, call.scalars[i].bytes);
      deferred[i] = 1;
      retyped = true;
    }
    if (!retyped) throw;
    const std::exception_ptr first = std::current_exception();
    try {
      call.plan = Plan(call.inputs, given_ptrs.span(), opt, deferred.span());
    } catch (const TypeError&) {
      std::rethrow_exception(first);  // NumPy's message names the original types
    }
  }
  // NumPy casts a weak scalar from its default type (int64, float64,
  // complex128) to the loop's under the casting rule: 'equiv' refuses any
  // other loop type ('no' lets it pass, as NumPy does).
  // (The logical promoter makes them bool without the rule.)
  if (opt.casting == Casting::kEquiv && call.plan.loop && !traits_.logical) {
    for (size_t i = 0; i < inputs.size() && i < static_cast<size_t>(nin_); ++i) {
      const auto& w = inputs[i].weak;
      if (!w || by_value(i)) continue;
      const DType lt = call.plan.loop->types[i];
      if (lt != DefaultType(*w)) RefuseUnderEquiv(*w, lt);
    }
  }
  for (int o = 0; moved && o < nout_; ++o) {
    const auto& miss = call.plan.missing[static_cast<size_t>(nin_ + o)];
    const size_t present = static_cast<size_t>(std::count(miss.begin(), miss.end(), false));
    const size_t named = axes[static_cast<size_t>(nin_ + o)].size();
    if (named != present) {
      throw AxisError(name_ + ": operand " + std::to_string(nin_ + o) + " has " +
                      std::to_string(present) + " core dimensions, but " + std::to_string(named) +
                      " dimensions are specified by axes tuple.");
    }
  }
  // Deferred weak ints take the loop's input type (NumPy's check).
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!deferred[i]) continue;
    const DType t = call.plan.loop->types[i];
    if (!traits_.logical && !PythonScalarCasts(*inputs[i].weak, t, opt.casting)) {
      throw TypeError("Cannot cast ufunc '" + name_ + "' input " + std::to_string(i) + " from " +
                      internal::DTypeRepr(DefaultType(*inputs[i].weak)) + " to " + internal::DTypeRepr(t) +
                      " with casting rule '" + CastingName(opt.casting) + "'");
    }
    Materialize(*inputs[i].weak, t, call.scalars[i].bytes, traits_.logical);
    call.inputs[i] = Scalar(t, call.scalars[i].bytes);
  }
  // New results: C order, order= for elementwise ones, the caller's axes
  // for gufunc outputs (their loop view is C-ordered).
  call.new_outputs.assign(static_cast<size_t>(nout_), std::nullopt);
  std::vector<int> order;
  for (int o = 0; o < nout_; ++o) {
    if (given_ptrs[static_cast<size_t>(o)]) continue;
    PreparedCall::NewOutput out{call.plan.loop->types[static_cast<size_t>(nin_ + o)],
                                call.plan.OutShape(o), {}};
    const int nd = static_cast<int>(out.shape.size());
    if (moved) {
      out.inner_first.resize(static_cast<size_t>(nd));
      const auto& ax = axes[static_cast<size_t>(nin_ + o)];
      auto& perm = call.perm[static_cast<size_t>(o)];
      if (!ax.empty()) perm = MoveToEnd(ax, nd, nin_ + o);
      Shape final_shape(out.shape.size());
      for (int j = 0; j < nd; ++j) {
        final_shape[static_cast<size_t>(perm.empty() ? j : perm[static_cast<size_t>(j)])] =
            out.shape[static_cast<size_t>(j)];
      }
      for (int j = 0; j < nd; ++j) {
        out.inner_first[static_cast<size_t>(j)] = perm.empty() ? nd - 1 - j : perm[static_cast<size_t>(nd - 1 - j)];
      }
      if (keep) {
        const int64_t keep_axis = keep_axes[static_cast<size_t>(o)];
        const int64_t pos = keep_axis >= 0 ? keep_axis : nd + 1 + keep_axis;
        const int at = internal::NormalizeAxis(pos, nd + 1);
        call.squeeze[static_cast<size_t>(o)] = at;
        final_shape.insert(final_shape.begin() + at, 1);
        for (int& a : out.inner_first) a += a >= at ? 1 : 0;
        out.inner_first.push_back(at);
      }
      out.shape = std::move(final_shape);
    } else if (!core_ && nd > 1) {
      if (order.empty()) {
        std::vector<const ArrayView*> voters;  // every operand NumPy's iterator sees
        for (const ArrayView& v : call.inputs) voters.push_back(&v);
        if (opt.where) voters.push_back(opt.where);
        for (const ArrayView* g : given_ptrs) {
          if (g) voters.push_back(g);
        }
        order = ResultAxisOrder(opt.order, out.shape, voters);
      }
      out.inner_first = order;
    }
    call.new_outputs[static_cast<size_t>(o)] = std::move(out);
  }
  return call;
}

void Ufunc::Run(const PreparedCall& call, std::span<const ArrayView> outputs,
                const CallOptions& opt) const {
  // A loop that can fail part-way (integer power of a negative exponent)
  // writes the caller's outputs through copies, copied back only when the
  // whole call succeeded: a failed call leaves them as they were.
  if (call.plan.loop->slots.may_fail) {
    std::vector<std::pair<size_t, Array>> copies;
    std::vector<ArrayView> staged(outputs.begin(), outputs.end());
    for (size_t o = 0; o < staged.size(); ++o) {
      if (call.new_outputs[o] || staged[o].size() == 0) continue;
      copies.emplace_back(o, Array::CopyOf(staged[o]));
      staged[o] = copies.back().second.view();
    }
    if (!copies.empty()) {
      RunStaged(call, staged, opt);
      for (const auto& [o, copy] : copies) CopyInto(outputs[o], copy.view());
      return;
    }
  }
  RunStaged(call, outputs, opt);
}

void Ufunc::RunStaged(const PreparedCall& call, std::span<const ArrayView> outputs,
                      const CallOptions& opt) const {
  if (call.squeeze.empty()) return Execute(call.plan, call.inputs, outputs, opt);
  std::vector<ArrayView> loop_views;
  for (size_t o = 0; o < outputs.size(); ++o) {
    loop_views.push_back(call.LoopView(static_cast<int>(o), outputs[o]));
  }
  Execute(call.plan, call.inputs, loop_views, opt);
}

}  // namespace ufuncx
