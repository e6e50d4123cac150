// A generic ufunc: metadata plus an ordered set of typed loops, and the
// elementwise call with NumPy 2.x semantics (loop selection, broadcasting,
// out=, where=, casting=, dtype=, signature=, overlap handling).
#pragma once

#include <atomic>
#include <memory>
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

struct CallOptions {
  Casting casting = Casting::kSameKind;
  // NumPy's signature=: one optional dtype per argument (inputs then
  // outputs). dtype= is the same as fixing every output.
  std::vector<std::optional<DType>> signature;
  std::optional<DType> dtype;
  const ArrayView* where = nullptr;  // bool mask, broadcast to the result
};

// The resolved loop and result shape of one call.
struct CallPlan {
  const Loop* loop = nullptr;
  Shape shape;
};

class Ufunc {
 public:
  Ufunc(std::string name, int nin, int nout, Identity identity,
        bool reorderable, std::string doc);
  Ufunc(Ufunc&&) = delete;

  const std::string& name() const { return name_; }
  int nin() const { return nin_; }
  int nout() const { return nout_; }
  int nargs() const { return nin_ + nout_; }
  const Identity& identity() const { return identity_; }
  bool reorderable() const { return reorderable_; }
  const std::string& doc() const { return doc_; }
  const std::vector<Loop>& loops() const { return loops_; }
  // NumPy's ufunc.types strings: "ff->f".
  std::vector<std::string> TypeStrings() const;

  void AddLoop(Loop loop);
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
  // plan.loop->types[nin + i] and plan.shape.
  CallPlan Plan(std::span<const ArrayView> inputs,
                std::span<const ArrayView* const> outputs,
                const CallOptions& options) const;

  // Runs a plan. Every output must be given. Copies inputs that overlap an
  // output (other than exact in-place aliasing) first.
  void Execute(const CallPlan& plan, std::span<const ArrayView> inputs,
               std::span<const ArrayView> outputs,
               const CallOptions& options) const;

  // Allocating convenience: numpy.<ufunc>(*inputs).
  std::vector<Array> operator()(std::span<const ArrayView> inputs,
                                const CallOptions& options = {}) const;
  Array operator()(const ArrayView& a) const;
  Array operator()(const ArrayView& a, const ArrayView& b) const;
  // In place into given outputs: numpy.<ufunc>(*inputs, out=outputs).
  void CallInto(std::span<const ArrayView> inputs,
                std::span<const ArrayView> outputs,
                const CallOptions& options = {}) const;

 private:
  const Loop& ResolveUncached(std::span<const DType> inputs, const CallOptions& options) const;
  bool TryDirect(const CallPlan& plan, std::span<const ArrayView> inputs,
                 std::span<const ArrayView> outputs, const CallOptions& options) const;

  std::string name_;
  int nin_, nout_;
  Identity identity_;
  bool reorderable_;
  std::string doc_;
  std::vector<Loop> loops_;
  int int_inputs_loop_ = -1;
  // Loop chosen per input dtypes (nin <= 2, no fixed types): index + 1, or
  // 0 when not resolved yet. Lock-free; cleared when loops are added.
  std::unique_ptr<std::atomic<int16_t>[]> cache_;
};

}  // namespace ufuncx
