// A generic ufunc: metadata plus an ordered set of typed loops, and the
// elementwise call with NumPy 2.x semantics (loop selection, broadcasting,
// out=, where=, casting=, dtype=, signature=, overlap handling).
#pragma once

#include <array>
#include <atomic>
#include <complex>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ufuncx/array.h"
#include "ufuncx/loop.h"

namespace ufuncx {

struct Identity {
  enum class Kind : uint8_t { kNone, kInt, kBool, kFloat } kind = Kind::kNone;
  double value = 0;
  bool has() const { return kind != Kind::kNone; }
};

// A number whose dtype the call decides, as NEP 50 treats Python's int,
// float and complex: it takes the other operands' type when that is of its
// kind or wider (uint8 array + 3 -> uint8), and int64/float64/complex128
// when it stands alone. An int must fit the type it takes (NumPy 2 raises
// OverflowError), except in a comparison, which compares by value.
struct WeakScalar {
  enum class Kind : uint8_t { kInt, kFloat, kComplex };
  Kind kind = Kind::kInt;
  // kInt: the exact value as sign and magnitude when it lies in
  // [-2^63, 2^64); `huge` marks one outside (only `real` is known then).
  bool negative = false;
  uint64_t magnitude = 0;
  bool huge = false;
  // kFloat and kComplex: the value; kInt: the value rounded to double
  // (+-inf when it overflows a double), as a float loop sees it.
  double real = 0, imag = 0;

  static WeakScalar Int(int64_t v);
  static WeakScalar UInt(uint64_t v);
  // An int outside [-2^63, 2^64), known as a double (inf if it overflows).
  static WeakScalar HugeInt(double rounded);
  static WeakScalar Float(double v);
  static WeakScalar Complex(std::complex<double> v);
  // Does the int fit integer type t? (floats and complex always do)
  bool FitsInteger(DType t) const;
};

// One input of a call: an array, or a weak scalar.
struct CallInput {
  CallInput(const ArrayView& a) : array(a) {}  // NOLINT: implicit by design
  CallInput(ArrayView&& a) : array(std::move(a)) {}  // NOLINT
  CallInput(const Array& a) : array(a.view()) {}  // NOLINT
  CallInput(const WeakScalar& w) : weak(w) {}  // NOLINT
  ArrayView array;
  std::optional<WeakScalar> weak;
};

// NumPy's order= for new results: K follows the inputs' memory order.
enum class Order : uint8_t { kK, kA, kC, kF };

struct CallOptions {
  Casting casting = Casting::kSameKind;
  // NumPy's signature=: one optional dtype per argument (inputs then
  // outputs). dtype= is the same as fixing every output.
  std::vector<std::optional<DType>> signature;
  std::optional<DType> dtype;
  const ArrayView* where = nullptr;  // bool mask, broadcast to the result
  Order order = Order::kK;           // of results the call allocates
  // Generalized ufuncs (NumPy's gufunc keywords): axes= gives, per operand,
  // the axes its core dims lie on (outputs may be left out when none has
  // core dims); axis= is one shared core dim on every input; keepdims=
  // keeps the reduced core dim as size 1 in outputs without core dims.
  std::optional<std::vector<std::vector<int64_t>>> axes;
  std::optional<int64_t> axis;
  bool keepdims = false;
};

// Keywords of reduce (numpy.ufunc.reduce).
struct ReduceOptions {
  // The axes to reduce (negative counts from the end); nullopt reduces
  // every axis (axis=None).
  std::optional<std::vector<int64_t>> axis = std::vector<int64_t>{0};
  std::optional<DType> dtype;
  bool keepdims = false;
  // initial=: one value, cast unsafely to the accumulator type. When null
  // the ufunc's identity is used, unless no_initial (initial=None) is set.
  const ArrayView* initial = nullptr;
  bool no_initial = false;
  const ArrayView* where = nullptr;  // bool, broadcast to the operand
};

// The core dimensions of a generalized ufunc, from NumPy's signature
// grammar: "(n?,k),(k,m?)->(n?,m?)".
struct CoreSignature {
  std::string text;
  std::vector<std::string> names;             // core dims in order of first use
  std::vector<std::vector<int>> dims;         // per operand: index into names
  std::vector<std::vector<bool>> optional;    // per operand: marked '?'
};

// The resolved loop and result shape of one call.
struct CallPlan {
  const Loop* loop = nullptr;
  Shape shape;  // the broadcast result (gufuncs: the loop dims only)
  // Generalized ufuncs: the size of every core dim (1 when an optional dim
  // is missing), which core dims each operand lacks, and output shapes.
  std::vector<int64_t> core_sizes;
  std::vector<std::vector<bool>> missing;
  std::vector<Shape> out_shapes;
  const Shape& OutShape(int i) const {
    return out_shapes.empty() ? shape : out_shapes[static_cast<size_t>(i)];
  }
};

// A call made concrete: its plan, the inputs as arrays (weak scalars as
// 0-d arrays of the type the loop takes them in), and what every output
// not given must be. Outputs are given back to Run in the caller's layout;
// gufunc axes= are applied there.
struct PreparedCall {
  CallPlan plan;
  std::vector<ArrayView> inputs;
  // Storage of the weak inputs' values (one element each; reserved for
  // every input up front, so views into it stay valid when this moves).
  struct ScalarBox {
    alignas(16) char bytes[32];
  };
  std::vector<ScalarBox> scalars;
  // A result the caller allocates: its dtype and shape, and the order of
  // its axes in memory from the innermost out (ResultAxisOrder; empty for
  // C order).
  struct NewOutput {
    DType dtype;
    Shape shape;
    std::vector<int> inner_first;
  };
  std::vector<std::optional<NewOutput>> new_outputs;  // nullopt: given
  // gufunc axes=: output k as the loop sees it is the caller's array with
  // axis squeeze[k] (keepdims; -1 for none) dropped, then axes permuted so
  // that loop axis j is axis perm[k][j] (empty for the identity).
  std::vector<std::vector<int>> perm;
  std::vector<int> squeeze;
  ArrayView LoopView(int output, const ArrayView& given) const;
};

// NumPy's order= for a new result of `shape`: the order of its axes in
// memory from the innermost out (C: the last axis innermost). K follows
// the operands' strides as NumPy's iterator does: an operand that does not
// broadcast along two axes votes for the one with the smaller stride to be
// inner, and any vote for C order between them wins. A: F when every
// operand of rank 2 or more is F- and not C-contiguous.
std::vector<int> ResultAxisOrder(Order order, const Shape& shape,
                                 std::span<const ArrayView* const> operands);

// Runs an elementwise loop slot (contig or strided) over n elements of
// nargs operands, in pieces over two threads when they span several MiB:
// every element is computed by the same instructions either way, so the
// result does not change. Returns the loop's status (the first failing
// piece's).
int RunElementwise(LoopFn fn, const LoopContext& ctx, char* const* args, int64_t n,
                   const int64_t* steps, int nargs);

// The per-ufunc rules NumPy keeps in each ufunc's type resolver and
// reduction code. They come from the table's keys (docs/table-format.md),
// for built-ins and plugins alike; core reads these, never a ufunc's name.
struct UfuncTraits {
  // What a call whose inputs are all bool does (no type fixed):
  enum class BoolInputs : uint8_t {
    kCast,     // the first loop they cast to safely (NumPy's default resolver)
    kUniform,  // their own type or nothing: no bool loop is a TypeError
    kRefuse,   // TypeError with bool_error (NumPy's subtract, negative)
  };
  BoolInputs bool_inputs = BoolInputs::kCast;
  std::string bool_error;
  // Operands of different dtypes, and reductions, meet in the bool loop
  // (logical_and, logical_or, logical_xor).
  bool logical = false;
  // A comparison: NEP 50 weak Python scalars compare by value, out of
  // range of the array's type included.
  bool comparison = false;
  // reduce/accumulate of bool and integers narrower than 64 bits
  // accumulate in int64/uint64 unless dtype= or out= says otherwise.
  bool reduce_widen = false;
  // Which loop types reduce to the same bits when split into pieces whose
  // partial results are combined in order (threaded reductions).
  enum class ExactSplit : uint8_t { kNever, kIntegers, kAll };
  ExactSplit exact_split = ExactSplit::kNever;
  // Float types (DType bits, 1 << DType) whose reductions are NumPy's
  // pairwise sum, which two threads may split at NumPy's first split point.
  uint32_t pairwise_types = 0;
  // Whether the floating-point flags its loops raise are reported
  // (np.errstate). NumPy's comparisons, min/max and sign never report.
  bool fp_errors = true;
};

// What a reduce-family method will do, decided once before anything is
// written: the loop (its types[0] is the accumulator's and the result's
// dtype), the result's shape and the axes.
struct ReducePlan {
  const Loop* loop = nullptr;
  Shape shape;                // of the result
  std::vector<bool> reduced;  // reduce: the operand dims it removes
  int axis = 0;               // accumulate and reduceat: the axis, normalised
  DType dtype() const { return loop->types[0]; }
};

class Ufunc {
 public:
  Ufunc(std::string name, int nin, int nout, Identity identity,
        bool reorderable, std::string doc, UfuncTraits traits = {});
  Ufunc(Ufunc&&) = delete;

  const std::string& name() const { return name_; }
  int nin() const { return nin_; }
  int nout() const { return nout_; }
  int nargs() const { return nin_ + nout_; }
  const Identity& identity() const { return identity_; }
  bool reorderable() const { return reorderable_; }
  const UfuncTraits& traits() const { return traits_; }
  // NumPy's logical promoter takes the operands to bool (mixed dtypes,
  // Python ints, reductions).
  bool IsLogical() const { return traits_.logical; }
  const std::string& doc() const { return doc_; }
  // The current loop list; safe to use while plugins add loops.
  const std::vector<Loop>& loops() const { return *loops_.load(std::memory_order_acquire); }
  // Every loop as a type string ("ff->f"), in resolution order; 64-bit
  // integers are 'l'/'L' and bfloat16 is 'E'.
  std::vector<std::string> TypeStrings() const;
  // NumPy's ufunc.types: the loops over NumPy dtypes only, listed as NumPy
  // lists them (its 64-bit integer loops appear twice, as long 'l' and as
  // long long 'q'; loops mixing int64 and uint64 only as 'q'/'Q').
  std::vector<std::string> NumpyTypes() const;
  // The loops NumPy has no type character for (bfloat16), as TypeStrings().
  std::vector<std::string> ExtraTypes() const;

  void AddLoop(Loop loop);
  // Appends loops in order as one new version of the list (one copy).
  void AddLoops(std::vector<Loop> loops);
  // Makes this a generalized ufunc; throws ValueError for a malformed
  // signature or one whose operand count differs from nin + nout.
  void SetCoreSignature(const std::string& signature);
  // Null for elementwise ufuncs.
  const CoreSignature* core() const { return core_.get(); }
  // NumPy's true-division rule: when every input is bool or integer (and no
  // type is fixed), use loops()[index] whatever the table order says.
  void SetIntInputsLoop(int index) { int_inputs_loop_ = index; }

  // NumPy's loop selection: the first loop (in table order) that every input
  // casts to safely, honouring fixed types from signature=/dtype=. Throws
  // TypeError naming the ufunc and the dtypes when there is none.
  const Loop& ResolveLoop(std::span<const DType> inputs,
                          const CallOptions& options) const;

  // Resolves the loop and the broadcast shape, and checks every given output
  // (shape and casting). Outputs may be null: the caller allocates them with
  // plan.loop->types[nin + i] and plan.shape. `packed` (one flag per input,
  // or empty) marks Python scalars the caller packs into the loop's input
  // type itself (NumPy's own check for them): no casting rule is applied.
  CallPlan Plan(std::span<const ArrayView> inputs,
                std::span<const ArrayView* const> outputs,
                const CallOptions& options, std::span<const char> packed = {}) const;

  // The whole front half of a call, NumPy's rules included: NEP 50 weak
  // scalars, loop selection, broadcasting, output checks, the layout of
  // new results (order=) and gufunc axes=/axis=/keepdims=. The caller
  // allocates each new_outputs entry, then calls Run.
  PreparedCall Prepare(std::span<const CallInput> inputs,
                       std::span<const ArrayView* const> outputs,
                       const CallOptions& options) const;
  // The same, taking the inputs' views instead of copying them.
  PreparedCall Prepare(std::vector<CallInput>&& inputs, std::span<const ArrayView* const> outputs,
                       const CallOptions& options) const;
  // Runs a prepared call into every output (given or allocated), each in
  // the caller's layout.
  void Run(const PreparedCall& call, std::span<const ArrayView> outputs,
           const CallOptions& options) const;

  // The direct path of a call: inputs of exactly these types need no cast,
  // and the loop runs once over n elements (an input with step 0 is one
  // element repeated; the output is contiguous). DirectLoop is the loop
  // the inputs select, or null when an input would need a cast.
  const Loop* DirectLoop(std::span<const DType> inputs) const;
  void RunDirect(const Loop& loop, char* const* args, const int64_t* steps, int64_t n) const;

  // Runs a plan. Every output must be given. Copies inputs that overlap an
  // output (other than exact in-place aliasing) first.
  void Execute(const CallPlan& plan, std::span<const ArrayView> inputs,
               std::span<const ArrayView> outputs,
               const CallOptions& options) const;

  // Allocating convenience: numpy.<ufunc>(*inputs), weak scalars allowed.
  std::vector<Array> operator()(std::span<const CallInput> inputs,
                                const CallOptions& options = {}) const;
  std::vector<Array> operator()(std::span<const ArrayView> inputs,
                                const CallOptions& options = {}) const;
  Array operator()(const ArrayView& a) const;
  Array operator()(const ArrayView& a, const ArrayView& b) const;
  // In place into given outputs: numpy.<ufunc>(*inputs, out=outputs).
  void CallInto(std::span<const CallInput> inputs,
                std::span<const ArrayView> outputs,
                const CallOptions& options = {}) const;
  void CallInto(std::span<const ArrayView> inputs,
                std::span<const ArrayView> outputs,
                const CallOptions& options = {}) const;

  // The reduce family (binary ufuncs; others throw ValueError as NumPy
  // does). *Into forms write into `out` (cast unsafely), the others return
  // a new array of the accumulator type. Each is Plan* then Run*: callers
  // that allocate the result themselves (the Python module) plan, allocate
  // plan.shape of plan.dtype() (or take out=), and run the plan.
  Array Reduce(const ArrayView& a, const ReduceOptions& options = {}) const;
  void ReduceInto(const ArrayView& a, const ArrayView& out, const ReduceOptions& options) const;
  Array Accumulate(const ArrayView& a, int64_t axis = 0, std::optional<DType> dtype = {}) const;
  void AccumulateInto(const ArrayView& a, const ArrayView& out, int64_t axis = 0,
                      std::optional<DType> dtype = {}) const;
  Array Reduceat(const ArrayView& a, std::span<const int64_t> indices, int64_t axis = 0,
                 std::optional<DType> dtype = {}) const;
  void ReduceatInto(const ArrayView& a, std::span<const int64_t> indices, const ArrayView& out,
                    int64_t axis = 0, std::optional<DType> dtype = {}) const;

  // Planning checks the arguments in NumPy's order (the method applies to
  // this ufunc, a scalar operand, the axes, reduceat's indices) and then
  // resolves the loop with NumPy's rules for dtype=, out= (its dtype, when
  // given) and the integer widening of add and multiply, so an argument
  // error wins over a missing loop, as in NumPy.
  ReducePlan PlanReduce(const ArrayView& a, const ReduceOptions& options,
                        std::optional<DType> out = {}) const;
  ReducePlan PlanAccumulate(const ArrayView& a, int64_t axis, std::optional<DType> dtype,
                            std::optional<DType> out = {}) const;
  ReducePlan PlanReduceat(const ArrayView& a, std::span<const int64_t> indices, int64_t axis,
                          std::optional<DType> dtype, std::optional<DType> out = {}) const;
  // Running a plan checks what planning did not (out='s shape, where=,
  // initial=, identities) before writing anything, then writes `out`.
  void RunReduce(const ReducePlan& plan, const ArrayView& a, const ArrayView& out,
                 const ReduceOptions& options) const;
  void RunAccumulate(const ReducePlan& plan, const ArrayView& a, const ArrayView& out) const;
  void RunReduceat(const ReducePlan& plan, const ArrayView& a, std::span<const int64_t> indices,
                   const ArrayView& out) const;

  // numpy.ufunc.outer: the call on a seen with b.ndim() trailing length-1
  // dims and b, so the result has shape a.shape + b.shape.
  std::vector<Array> Outer(const ArrayView& a, const ArrayView& b,
                           const CallOptions& options = {}) const;
  void OuterInto(const ArrayView& a, const ArrayView& b, std::span<const ArrayView> outputs,
                 const CallOptions& options = {}) const;
  // The two inputs of outer (after CheckBinaryMethod("outer")), for callers
  // that make the call themselves.
  std::array<ArrayView, 2> OuterInputs(const ArrayView& a, const ArrayView& b) const;

  // Throws NumPy's error unless the method ("reduce", "accumulate",
  // "reduceat", "outer", "at") applies to this ufunc.
  void CheckBinaryMethod(const char* method) const;

 private:
  // Run's work once the outputs it writes are settled.
  void RunStaged(const PreparedCall& call, std::span<const ArrayView> outputs,
                 const CallOptions& options) const;
  PreparedCall PrepareFrom(std::span<const CallInput> inputs, CallInput* movable,
                           std::span<const ArrayView* const> outputs,
                           const CallOptions& options) const;
  const Loop& ResolveUncached(const std::vector<Loop>& loops, std::span<const DType> inputs,
                              const CallOptions& options) const;
  bool TryDirect(const CallPlan& plan, std::span<const ArrayView> inputs,
                 std::span<const ArrayView> outputs, const CallOptions& options) const;

  CallPlan PlanGufunc(CallPlan plan, std::span<const ArrayView> inputs,
                      std::span<const ArrayView* const> outputs) const;
  void ExecuteGufunc(const CallPlan& plan, std::span<const ArrayView> inputs,
                     std::span<const ArrayView> outputs) const;

  std::string name_;
  int nin_, nout_;
  std::shared_ptr<const CoreSignature> core_;
  Identity identity_;
  bool reorderable_;
  std::string doc_;
  UfuncTraits traits_;
  std::atomic<const std::vector<Loop>*> loops_;
  std::vector<std::unique_ptr<const std::vector<Loop>>> loop_versions_;
  std::mutex loops_mu_;
  int int_inputs_loop_ = -1;
  // Loop chosen per input dtypes (nin <= 2, no fixed types): index + 1, or
  // 0 when not resolved yet. Lock-free; cleared when loops are added.
  std::unique_ptr<std::atomic<int16_t>[]> cache_;
};

}  // namespace ufuncx
