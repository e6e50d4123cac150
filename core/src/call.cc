// Ufunc metadata, loop selection and the elementwise call: NumPy 2.x's
// pipeline of resolve -> broadcast -> check outputs -> copy overlapping
// inputs -> iterate, with bounded cast buffers when the loop's dtypes differ
// from the operands' or a where= mask is given.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>

#include "cast.h"
#include "iterator.h"
#include "loop_calls.h"
#include "ufuncx/error.h"
#include "ufuncx/ufunc.h"
#include "workers.h"

namespace ufuncx {
namespace {

// NumPy's promoter for the binary logical ufuncs: inputs of different
// dtypes (none of them fixed by a signature) meet in the bool loop, and
// their casts to bool are not held to the casting rule.
bool LogicalPromotion(const Ufunc& u, std::span<const DType> in, const CallOptions& opt) {
  if (!u.IsLogical()) return false;
  if (in.size() != 2 || in[0] == in[1]) return false;
  if (!opt.signature.empty()) return false;
  return !opt.dtype || *opt.dtype == DType::kBool;
}

using internal::DTypeRepr;
using internal::kBufferElems;

// Operands of the tables' loops at most (nin + nout <= 8); more take the heap.
constexpr int kMaxArgs = 8;

// An input with exactly the output's elements is safe to use in place, unless
// the output's elements overlap (a zero stride repeats one; a stride below
// the item size overlaps neighbours): then NumPy computes into a copy of the
// output and writes it back, which reading a copy of the input matches.
bool SafeInPlace(const ArrayView& a, const Strides& a_strides,
                 const ArrayView& b, const Strides& b_strides) {
  if (a.data != b.data || a.dtype != b.dtype || a_strides != b_strides) return false;
  return internal::ElementsApart(b, b_strides);
}

}  // namespace

Ufunc::Ufunc(std::string name, int nin, int nout, Identity identity,
             bool reorderable, std::string doc, UfuncTraits traits)
    : name_(std::move(name)),
      nin_(nin),
      nout_(nout),
      identity_(identity),
      reorderable_(reorderable),
      doc_(std::move(doc)),
      traits_(std::move(traits)) {
  loop_versions_.push_back(std::make_unique<std::vector<Loop>>());
  loops_.store(loop_versions_.back().get(), std::memory_order_release);
  if (nin_ <= 2) {
    const size_t n = nin_ == 1 ? kNumDTypes : kNumDTypes * kNumDTypes;
    cache_.reset(new std::atomic<int16_t>[n]);
    for (size_t i = 0; i < n; ++i) cache_[i].store(0, std::memory_order_relaxed);
  }
}

void Ufunc::AddLoop(Loop loop) {
  std::vector<Loop> one;
  one.push_back(std::move(loop));
  AddLoops(std::move(one));
}

void Ufunc::AddLoops(std::vector<Loop> loops) {
  for (const Loop& loop : loops) {
    if (static_cast<int>(loop.types.size()) != nargs()) {
      throw ValueError("loop for ufunc '" + name_ + "' has " +
                       std::to_string(loop.types.size()) + " types, expected " +
                       std::to_string(nargs()));
    }
  }
  // Copy on write: callers holding the previous list (or a Loop in it) keep
  // a valid one; every version stays alive with the ufunc.
  std::lock_guard<std::mutex> lock(loops_mu_);
  auto next = std::make_unique<std::vector<Loop>>();
  next->reserve(this->loops().size() + loops.size());
  next->insert(next->end(), this->loops().begin(), this->loops().end());
  for (Loop& l : loops) next->push_back(std::move(l));
  loops_.store(next.get(), std::memory_order_release);
  loop_versions_.push_back(std::move(next));
  if (cache_) {
    const size_t n = nin_ == 1 ? kNumDTypes : kNumDTypes * kNumDTypes;
    for (size_t i = 0; i < n; ++i) cache_[i].store(0, std::memory_order_relaxed);
  }
}

std::vector<std::string> Ufunc::TypeStrings() const {
  std::vector<std::string> out;
  for (const Loop& l : loops()) {
    std::string s;
    for (int i = 0; i < nargs(); ++i) {
      if (i == nin_) s += "->";
      s += TypeChar(l.types[i]);
    }
    out.push_back(std::move(s));
  }
  return out;
}

namespace {
bool IsExtraType(const std::string& t) {
  return t.find_first_not_of("?bBhHiIlLefdgFDG->") != std::string::npos;
}
}  // namespace

std::vector<std::string> Ufunc::NumpyTypes() const {
  // A run of loops over 64-bit integers (and no floats) is listed as NumPy
  // lists its long and long long loops: the run, its 'q'/'Q' twins, then
  // the int64/uint64 mixes as 'q'/'Q' only.
  std::vector<std::string> out, twins, mixed;
  auto flush = [&] {
    out.insert(out.end(), twins.begin(), twins.end());
    out.insert(out.end(), mixed.begin(), mixed.end());
    twins.clear();
    mixed.clear();
  };
  for (const std::string& t : TypeStrings()) {
    if (IsExtraType(t)) continue;
    const bool int64 = t.find_first_of("lL") != std::string::npos &&
                       t.find_first_of("efdgFDG") == std::string::npos;
    if (!int64) {
      flush();
      out.push_back(t);
      continue;
    }
    std::string q = t;
    for (char& c : q) c = c == 'l' ? 'q' : c == 'L' ? 'Q' : c;
    const bool mix = t.find('l') != std::string::npos && t.find('L') != std::string::npos;
    if (mix) {
      mixed.push_back(std::move(q));
    } else {
      out.push_back(t);
      twins.push_back(std::move(q));
    }
  }
  flush();
  return out;
}

std::vector<std::string> Ufunc::ExtraTypes() const {
  std::vector<std::string> out;
  for (std::string& t : TypeStrings()) {
    if (IsExtraType(t)) out.push_back(std::move(t));
  }
  return out;
}

const Loop& Ufunc::ResolveLoop(std::span<const DType> in,
                               const CallOptions& opt) const {
  const bool cacheable = cache_ && opt.signature.empty() && !opt.dtype;
  const std::vector<Loop>& loops = this->loops();
  size_t key = 0;
  if (cacheable) {
    key = static_cast<size_t>(in[0]) + (nin_ == 2 ? kNumDTypes * static_cast<size_t>(in[1]) : 0);
    const int16_t hit = cache_[key].load(std::memory_order_relaxed);
    if (hit > 0 && static_cast<size_t>(hit) <= loops.size()) return loops[static_cast<size_t>(hit - 1)];
  }
  const Loop& l = ResolveUncached(loops, in, opt);
  // Only cache what the current loop list gives (a plugin may be adding).
  if (cacheable && &loops == &this->loops()) {
    cache_[key].store(static_cast<int16_t>(&l - loops.data() + 1), std::memory_order_relaxed);
  }
  return l;
}

const Loop& Ufunc::ResolveUncached(const std::vector<Loop>& loops, std::span<const DType> in,
                                   const CallOptions& opt) const {
  std::vector<std::optional<DType>> fixed(nargs());
  if (!opt.signature.empty()) {
    if (static_cast<int>(opt.signature.size()) != nargs()) {
      throw ValueError("a type-string for " + name_ + ", " +
                       std::to_string(nin_) + " typecode(s) before and " +
                       std::to_string(nout_) + " after the -> sign");
    }
    fixed = opt.signature;
  }
  if (opt.dtype) {
    for (int i = nin_; i < nargs(); ++i) fixed[i] = opt.dtype;
  }
  // A comparison's bool output names the loop it has anyway (NumPy's
  // comparison resolver drops it).
  if (traits_.comparison &&
      std::none_of(fixed.begin(), fixed.begin() + nin_, [](auto& f) { return f.has_value(); }) &&
      std::all_of(fixed.begin() + nin_, fixed.end(),
                  [](auto& f) { return !f || *f == DType::kBool; })) {
    fixed.assign(fixed.size(), std::nullopt);
  }
  const bool any_fixed =
      std::any_of(fixed.begin(), fixed.end(), [](auto& f) { return f.has_value(); });
  auto matches_fixed = [&](const Loop& l) {
    for (int i = 0; i < nargs(); ++i) {
      if (fixed[i] && l.types[i] != *fixed[i]) return false;
    }
    return true;
  };
  if (any_fixed &&
      std::none_of(fixed.begin(), fixed.begin() + nin_, [](auto& f) { return f.has_value(); })) {
    // Only outputs fixed (dtype=, or a signature like (None, None, 'f')):
    // NumPy takes the first loop with those outputs that the inputs cast to
    // safely, else the loop of the outputs' type throughout (the inputs
    // then cast under the casting rule, checked by Plan), else none.
    for (const Loop& l : loops) {
      if (!matches_fixed(l)) continue;
      bool safe = true;
      for (int i = 0; i < nin_ && safe; ++i) safe = CanCast(in[i], l.types[i], Casting::kSafe);
      if (safe) return l;
    }
    const DType t = *fixed[static_cast<size_t>(nin_)];
    for (const Loop& l : loops) {
      if (matches_fixed(l) &&
          std::all_of(l.types.begin(), l.types.end(), [&](DType u) { return u == t; })) {
        return l;
      }
    }
    throw TypeError("No loop matching the specified signature and casting was found for ufunc " +
                    name_);
  }
  if (LogicalPromotion(*this, in, opt)) {
    for (const Loop& l : loops) {
      if (std::all_of(l.types.begin(), l.types.end(), [](DType t) { return t == DType::kBool; })) {
        return l;
      }
    }
  }
  // NumPy's subtract and negative type resolvers refuse booleans; the
  // uniform resolver (positive, sign) takes their type as it is.
  if (!any_fixed && traits_.bool_inputs != UfuncTraits::BoolInputs::kCast &&
      std::all_of(in.begin(), in.end(), [](DType t) { return t == DType::kBool; })) {
    if (traits_.bool_inputs == UfuncTraits::BoolInputs::kRefuse) throw TypeError(traits_.bool_error);
    const bool has_bool_loop = std::any_of(loops.begin(), loops.end(), [&](const Loop& l) {
      return std::all_of(l.types.begin(), l.types.begin() + nin_,
                         [](DType t) { return t == DType::kBool; });
    });
    if (!has_bool_loop) {
      std::string types;
      for (int i = 0; i < nin_; ++i) types += (i ? ", " : "") + std::string("<class 'numpy.dtypes.BoolDType'>");
      if (nin_ > 1) types = "(" + types + ")";
      throw TypeError("ufunc '" + name_ + "' did not contain a loop with signature matching types " +
                      types + " -> None");
    }
  }
  if (int_inputs_loop_ >= 0 && !any_fixed &&
      std::all_of(in.begin(), in.end(), [](DType t) {
        return IsInteger(t) || t == DType::kBool;
      })) {
    return loops[static_cast<size_t>(int_inputs_loop_)];
  }
  // As in NumPy, loops over ml_dtypes' types are candidates only when an
  // input has one of them (int8 casts safely to float8_e4m3fn, but sqrt of
  // int8 is float16).
  const bool ml_input = std::any_of(in.begin(), in.end(), IsMlDType);
  for (const Loop& l : loops) {
    if (!matches_fixed(l)) continue;
    if (!ml_input && !any_fixed &&
        std::any_of(l.types.begin(), l.types.begin() + nin_, IsMlDType)) {
      continue;
    }
    bool ok = true;
    for (int i = 0; i < nin_ && ok; ++i) ok = CanCast(in[i], l.types[i], Casting::kSafe);
    // Two ml_dtypes inputs sharing a loop type must share it through their
    // common type: float8_e4m3fn with float8_e5m2 promotes to float32
    // (ml_dtypes), though both cast safely to bfloat16. Not NumPy's own
    // types: int8 and uint8 both cast safely to float16, whose loop NumPy
    // takes (hypot of the two is float16), though they promote to int16.
    if (ok && ml_input && nin_ == 2 && l.types[0] == l.types[1]) {
      ok = CanCast(PromoteTypes(in[0], in[1]), l.types[0], Casting::kSafe);
    }
    if (ok) return l;
  }
  if (any_fixed) {
    // With fixed types NumPy casts the inputs under the casting rule.
    for (const Loop& l : loops) {
      if (!matches_fixed(l)) continue;
      bool ok = true;
      for (int i = 0; i < nin_ && ok; ++i) ok = CanCast(in[i], l.types[i], opt.casting);
      if (ok) return l;
    }
    // Every input fixed: the loop is chosen; Plan() reports the input that
    // cannot be cast, as NumPy does.
    const bool inputs_fixed = std::all_of(fixed.begin(), fixed.begin() + nin_,
                                          [](auto& f) { return f.has_value(); });
    for (const Loop& l : loops) {
      if (inputs_fixed && matches_fixed(l)) return l;
    }
    throw TypeError(
        "No loop matching the specified signature and casting was found for "
        "ufunc " + name_);
  }
  // (NumPy's words exactly: it names no types here)
  throw TypeError("ufunc '" + name_ +
                  "' not supported for the input types, and the inputs could "
                  "not be safely coerced to any supported types according to "
                  "the casting rule ''safe''");
}

CallPlan Ufunc::Plan(std::span<const ArrayView> inputs,
                     std::span<const ArrayView* const> outputs,
                     const CallOptions& opt, std::span<const char> packed) const {
  if (static_cast<int>(inputs.size()) != nin_) {
    throw TypeError(name_ + "() takes " + std::to_string(nin_) +
                    " input arguments, got " + std::to_string(inputs.size()));
  }
  std::vector<DType> in_types;
  for (const ArrayView& v : inputs) in_types.push_back(v.dtype);
  CallPlan plan;
  plan.loop = &ResolveLoop(in_types, opt);
  const bool logical = LogicalPromotion(*this, in_types, opt);
  for (int i = 0; i < nin_ && !logical; ++i) {
    if (!packed.empty() && packed[static_cast<size_t>(i)]) continue;
    if (!CanCast(in_types[i], plan.loop->types[i], opt.casting)) {
      throw TypeError("Cannot cast ufunc '" + name_ + "' input " +
                      std::to_string(i) + " from " + DTypeRepr(in_types[i]) +
                      " to " + DTypeRepr(plan.loop->types[i]) +
                      " with casting rule '" + CastingName(opt.casting) + "'");
    }
  }
  if (core_) {
    if (opt.where) throw TypeError(name_ + "() got an unexpected keyword argument 'where'");
    for (size_t i = 0; i < outputs.size(); ++i) {
      const ArrayView* o = outputs[i];
      if (o && !CanCast(plan.loop->types[nin_ + i], o->dtype, opt.casting)) {
        throw TypeError("Cannot cast ufunc '" + name_ + "' output from " +
                        DTypeRepr(plan.loop->types[nin_ + i]) + " to " + DTypeRepr(o->dtype) +
                        " with casting rule '" + CastingName(opt.casting) + "'");
      }
    }
    return PlanGufunc(std::move(plan), inputs, outputs);
  }
  std::vector<const Shape*> shapes;
  for (const ArrayView& v : inputs) shapes.push_back(&v.shape);
  const ArrayView* first_out = nullptr;
  for (const ArrayView* o : outputs) {
    if (o && !first_out) first_out = o;
  }
  if (first_out) shapes.push_back(&first_out->shape);
  // (where= broadcasts with the operands, as NumPy's iterator takes it:
  // a mask larger than the inputs makes the result larger)
  if (opt.where) shapes.push_back(&opt.where->shape);
  plan.shape = internal::BroadcastShapes(shapes);
  for (const ArrayView* o : outputs) {
    if (o && o->shape != plan.shape) {
      throw ValueError("non-broadcastable output operand with shape " +
                       internal::ShapeString(o->shape) +
                       " doesn't match the broadcast shape " +
                       internal::ShapeString(plan.shape));
    }
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    const ArrayView* o = outputs[i];
    if (!o) continue;
    const DType lt = plan.loop->types[nin_ + i];
    if (!CanCast(lt, o->dtype, opt.casting)) {
      throw TypeError("Cannot cast ufunc '" + name_ + "' output from " +
                      DTypeRepr(lt) + " to " + DTypeRepr(o->dtype) +
                      " with casting rule '" + CastingName(opt.casting) + "'");
    }
  }
  if (opt.where) {
    if (opt.where->dtype != DType::kBool) {
      throw TypeError("Cannot cast array data from " +
                      DTypeRepr(opt.where->dtype) +
                      " to dtype('bool') according to the rule 'safe'");
    }
    internal::BroadcastStrides(*opt.where, plan.shape);
  }
  return plan;
}

// Elementwise calls touching at least this many bytes split over two
// threads, in pieces of a multiple of 64 elements claimed as the threads
// free up (float64 add at 1e6 elements, 24 MB: about 0.4 ms on one thread;
// the pool's helper takes a piece within microseconds when awake).
constexpr int64_t kSplitCallBytes = int64_t{4} << 20;
constexpr int64_t kSplitCallPieces = 8;

// Smaller calls split by cost: their first kProbeElements run alone and are
// timed, and when the rest would take at least kSplitMinNanos on one thread
// (a libm loop: float64 arctanh at 1e5 elements is about 3 ms; float64 add
// at 1e5 is 20 us and never splits) it goes to two. Calls under
// kProbeMinElements never split.
constexpr int64_t kProbeElements = 512;
constexpr int64_t kProbeMinElements = 4096;
constexpr double kSplitMinNanos = 50e3;

int SplitElementwise(const LoopSlots& slots, const LoopContext& ctx, char* const* args, int64_t n,
                     const int64_t* steps, const int64_t* item, int nin, int nargs) {
  const int64_t piece = ((n + kSplitCallPieces - 1) / kSplitCallPieces + 63) / 64 * 64;
  const int64_t pieces = (n + piece - 1) / piece;
  std::atomic<int64_t> next{0};
  std::atomic<int> status{0};
  internal::RunWorkers(2, [&](int) {
    for (int64_t k; (k = next.fetch_add(1)) < pieces;) {
      const int64_t start = k * piece;
      const int64_t count = std::min(piece, n - start);
      char* at[8];
      for (int j = 0; j < nargs; ++j) at[j] = args[j] + start * steps[j];
      const int s = internal::RunElementwiseSlot(slots, ctx, at, count, steps, item, nin, nargs);
      int none = 0;
      if (s != 0) status.compare_exchange_strong(none, s);
    }
  });
  return status.load();
}

int RunElementwise(const LoopSlots& slots, const LoopContext& ctx, char* const* args, int64_t n,
                   const int64_t* steps, const int64_t* item, int nin, int nargs) {
  if (internal::Cores() < 2 || n < kProbeMinElements || nargs > 8) {
    return internal::RunElementwiseSlot(slots, ctx, args, n, steps, item, nin, nargs);
  }
  int64_t bytes = 0;
  for (int k = 0; k < nargs; ++k) bytes += n * std::llabs(steps[k]);
  if (bytes >= kSplitCallBytes) return SplitElementwise(slots, ctx, args, n, steps, item, nin, nargs);
  // Probes of kProbeElements from `done` on; a split takes two in a row
  // that call for it (the faster one counts): one probe caught by an
  // interrupt sent a 10 us float32 maximum at 1e5 to two threads now and
  // then, and the helper's spin after each, on this 2-core VM beside
  // OpenBLAS's spinning threads, took the main thread's core in turns
  // (12.6 us with one thread against 16.9 with two allowed).
  int64_t done = 0;
  double probe_ns = 0;
  char* at[8];
  for (int probe = 0; probe < 2 && n - done > kProbeElements; ++probe) {
    for (int j = 0; j < nargs; ++j) at[j] = args[j] + done * steps[j];
    const auto t0 = std::chrono::steady_clock::now();
    if (const int s = internal::RunElementwiseSlot(slots, ctx, at, kProbeElements, steps, item, nin,
                                                   nargs)) {
      return s;
    }
    const double ns =
        std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
    probe_ns = probe == 0 ? ns : std::min(probe_ns, ns);
    done += kProbeElements;
    if (probe_ns * static_cast<double>(n - done) / kProbeElements < kSplitMinNanos) break;
  }
  const int64_t rest = n - done;
  for (int j = 0; j < nargs; ++j) at[j] = args[j] + done * steps[j];
  if (probe_ns * static_cast<double>(rest) / kProbeElements < kSplitMinNanos) {
    return internal::RunElementwiseSlot(slots, ctx, at, rest, steps, item, nin, nargs);
  }
  return SplitElementwise(slots, ctx, at, rest, steps, item, nin, nargs);
}

// One loop call over the whole result when no iteration is needed: every
// output C-contiguous with the result's shape, every input either the same
// or a single element (step 0), no casts, no mask, no partial overlap. This
// is the common case and keeps small calls cheap.
bool Ufunc::TryDirect(const CallPlan& plan, std::span<const ArrayView> inputs,
                      std::span<const ArrayView> outputs, const CallOptions& opt) const {
  if (opt.where) return false;
  const Loop& loop = *plan.loop;
  const int nargs_ = nargs();
  char* args[8];
  int64_t steps[8];
  if (nargs_ > 8) return false;
  int64_t n = 1;
  for (int64_t d : plan.shape) n *= d;
  for (int k = 0; k < nargs_; ++k) {
    const ArrayView& v = k < nin_ ? inputs[k] : outputs[k - nin_];
    if (v.dtype != loop.types[k]) return false;
    const int64_t item = static_cast<int64_t>(ItemSize(v.dtype));
    if (k < nin_ && v.size() == 1) {
      steps[k] = 0;
    } else if (v.shape == plan.shape && v.IsCContiguous()) {
      steps[k] = item;
    } else {
      return false;
    }
    args[k] = v.data;
  }
  for (int i = 0; i < nin_; ++i) {
    for (const ArrayView& o : outputs) {
      if (MayShareMemory(inputs[i], o) && !(steps[i] != 0 && inputs[i].data == o.data)) {
        return false;
      }
    }
  }
  RunDirect(loop, args, steps, n);
  return true;
}

const Loop* Ufunc::DirectLoop(std::span<const DType> inputs) const {
  const Loop& loop = ResolveLoop(inputs, CallOptions{});
  for (int i = 0; i < nin_; ++i) {
    if (loop.types[static_cast<size_t>(i)] != inputs[static_cast<size_t>(i)]) return nullptr;
  }
  return &loop;
}

void Ufunc::RunDirect(const Loop& loop, char* const* args, const int64_t* steps, int64_t n) const {
  if (n == 0) return;
  internal::SmallBuffer<int64_t, kMaxArgs> item(static_cast<size_t>(nargs()), 0);
  for (int k = 0; k < nargs(); ++k) {
    item[k] = static_cast<int64_t>(ItemSize(loop.types[static_cast<size_t>(k)]));
  }
  const LoopContext ctx{name_.c_str()};
  if (const int status = RunElementwise(loop.slots, ctx, args, n, steps, item.data(), nin_,
                                        nargs())) {
    internal::CheckStatus(status, ctx.ufunc_name);
  }
}

void Ufunc::Execute(const CallPlan& plan, std::span<const ArrayView> inputs,
                    std::span<const ArrayView> outputs,
                    const CallOptions& opt) const {
  if (core_) return ExecuteGufunc(plan, inputs, outputs);
  if (TryDirect(plan, inputs, outputs, opt)) return;
  const Loop& loop = *plan.loop;
  const int nargs_ = nargs();
  // Inputs that overlap an output are copied first, unless they are the
  // very same elements (exact in-place use is safe elementwise).
  std::vector<Array> temps;
  std::vector<ArrayView> ops(inputs.begin(), inputs.end());
  for (int i = 0; i < nin_; ++i) {
    const Strides si = internal::BroadcastStrides(ops[i], plan.shape);
    for (const ArrayView& o : outputs) {
      if (!MayShareMemory(ops[i], o)) continue;
      if (SafeInPlace(ops[i], si, o, o.strides)) continue;
      temps.push_back(Array::CopyOf(ops[i]));
      ops[i] = temps.back().view();
      break;
    }
  }
  ops.insert(ops.end(), outputs.begin(), outputs.end());
  if (opt.where) {
    // A mask in an output's memory is read as it was before the call.
    const bool shared = std::any_of(outputs.begin(), outputs.end(), [&](const ArrayView& o) {
      return MayShareMemory(*opt.where, o);
    });
    if (shared) temps.push_back(Array::CopyOf(*opt.where));
    ops.push_back(shared ? temps.back().view() : *opt.where);
  }
  internal::StridedIteration it(ops, plan.shape);
  if (it.size() == 0) return;

  std::vector<int64_t> item(nargs_);
  bool buffered = opt.where != nullptr;
  std::vector<bool> cast(nargs_);
  for (int k = 0; k < nargs_; ++k) {
    item[k] = static_cast<int64_t>(ItemSize(loop.types[k]));
    cast[k] = ops[k].dtype != loop.types[k];
    buffered = buffered || cast[k];
  }
  const LoopContext ctx{name_.c_str()};
  auto run = [&](char* const* args, int64_t n, const int64_t* steps) {
    internal::CheckStatus(RunElementwise(loop.slots, ctx, args, n, steps, item.data(), nin_,
                                         nargs_),
                          ctx.ufunc_name);
  };
  if (!buffered) {
    it.ForEachInner([&](char* const* ptrs, int64_t n, const int64_t* steps) {
      run(ptrs, n, steps);
    });
    return;
  }
  // Buffered path: inputs needing a cast are converted chunk by chunk into
  // contiguous buffers; outputs needing a cast or a mask are computed into a
  // buffer and written back (only where the mask is true).
  std::vector<std::unique_ptr<char[]>> bufs(nargs_);
  std::vector<internal::CastFn> to_loop(nargs_), from_loop(nargs_);
  for (int k = 0; k < nargs_; ++k) {
    const bool need = cast[k] || (k >= nin_ && opt.where);
    if (!need) continue;
    bufs[k].reset(new char[static_cast<size_t>(kBufferElems * item[k])]);
    if (k < nin_) {
      to_loop[k] = internal::GetCast(ops[k].dtype, loop.types[k]);
    } else {
      from_loop[k] = internal::GetCast(loop.types[k], ops[k].dtype);
    }
  }
  std::vector<char*> args(nargs_);
  std::vector<int64_t> bsteps(nargs_);
  const int mask_k = opt.where ? nargs_ : -1;
  it.ForEachInner([&](char* const* ptrs, int64_t n, const int64_t* steps) {
    for (int64_t start = 0; start < n; start += kBufferElems) {
      const int64_t m = std::min(kBufferElems, n - start);
      for (int k = 0; k < nargs_; ++k) {
        char* p = ptrs[k] + start * steps[k];
        if (bufs[k]) {
          if (k < nin_) to_loop[k](p, steps[k], bufs[k].get(), item[k], m);
          args[k] = bufs[k].get();
          bsteps[k] = item[k];
        } else {
          args[k] = p;
          bsteps[k] = steps[k];
        }
      }
      run(args.data(), m, bsteps.data());
      for (int k = nin_; k < nargs_; ++k) {
        if (!bufs[k]) continue;
        char* dst = ptrs[k] + start * steps[k];
        if (mask_k < 0) {
          from_loop[k](bufs[k].get(), item[k], dst, steps[k], m);
          continue;
        }
        internal::ForEachTrueRun(ptrs[mask_k] + start * steps[mask_k], steps[mask_k], m,
                                 [&](int64_t i, int64_t j) {
                                   from_loop[k](bufs[k].get() + i * item[k], item[k],
                                                dst + i * steps[k], steps[k], j - i);
                                 });
      }
    }
  });
}

void Ufunc::CallInto(std::span<const CallInput> inputs,
                     std::span<const ArrayView> outputs,
                     const CallOptions& opt) const {
  if (static_cast<int>(outputs.size()) != nout_) {
    throw ValueError("The 'out' tuple must have exactly " +
                     std::to_string(nout_) + " entries: one per ufunc output");
  }
  std::vector<const ArrayView*> outs;
  for (const ArrayView& o : outputs) outs.push_back(&o);
  const PreparedCall call = Prepare(inputs, outs, opt);
  Run(call, outputs, opt);
}

void Ufunc::CallInto(std::span<const ArrayView> inputs,
                     std::span<const ArrayView> outputs,
                     const CallOptions& opt) const {
  const std::vector<CallInput> in(inputs.begin(), inputs.end());
  CallInto(std::span<const CallInput>(in), outputs, opt);
}

std::vector<Array> Ufunc::operator()(std::span<const CallInput> inputs,
                                     const CallOptions& opt) const {
  std::vector<const ArrayView*> none(static_cast<size_t>(nout_), nullptr);
  const PreparedCall call = Prepare(inputs, none, opt);
  std::vector<Array> result;
  std::vector<ArrayView> outs;
  for (const auto& o : call.new_outputs) {
    result.emplace_back(o->dtype, o->shape, o->inner_first);
    outs.push_back(result.back().view());
  }
  Run(call, outs, opt);
  return result;
}

std::vector<Array> Ufunc::operator()(std::span<const ArrayView> inputs,
                                     const CallOptions& opt) const {
  const std::vector<CallInput> in(inputs.begin(), inputs.end());
  return (*this)(std::span<const CallInput>(in), opt);
}

Array Ufunc::operator()(const ArrayView& a) const {
  const ArrayView in[1] = {a};
  return (*this)(std::span<const ArrayView>(in))[0];
}

Array Ufunc::operator()(const ArrayView& a, const ArrayView& b) const {
  const ArrayView in[2] = {a, b};
  return (*this)(std::span<const ArrayView>(in))[0];
}

// --------------------------------------------------------------------- outer

std::array<ArrayView, 2> Ufunc::OuterInputs(const ArrayView& a, const ArrayView& b) const {
  CheckBinaryMethod("outer");
  ArrayView left = a;
  left.shape.insert(left.shape.end(), static_cast<size_t>(b.ndim()), 1);
  left.strides.insert(left.strides.end(), static_cast<size_t>(b.ndim()), 0);
  return {left, b};
}

std::vector<Array> Ufunc::Outer(const ArrayView& a, const ArrayView& b,
                                const CallOptions& opt) const {
  const auto in = OuterInputs(a, b);
  return (*this)(std::span<const ArrayView>(in), opt);
}

void Ufunc::OuterInto(const ArrayView& a, const ArrayView& b, std::span<const ArrayView> outputs,
                      const CallOptions& opt) const {
  const auto in = OuterInputs(a, b);
  CallInto(std::span<const ArrayView>(in), outputs, opt);
}

}  // namespace ufuncx
