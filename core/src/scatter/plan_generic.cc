// The generic plan - any dtypes, any arity, element by element with casts -
// and the two other element-by-element passes of a request: init values at
// the hit positions before the plan, the mean after it.
#include "cast.h"
#include "scatter/plans.h"
#include "ufuncx/scalar.h"
#include "ufuncx/ufunc.h"

namespace ufuncx::internal {

void ThrowIndexChanged() {
  throw IndexError("a scatter index changed while the call ran (another thread wrote the "
                   "index array); it is out of bounds now and was not applied");
}

// Any dtypes, any arity: one element at a time through the strided loop,
// converting operands and updates to the loop's types and back.
void RunGeneric(const ScatterRequest& r, Walker& walker) {
  const int n = static_cast<int>(r.operands.size());
  if (!r.combiner) {
    std::vector<internal::CastFn> cast(n);
    for (int k = 0; k < n; ++k) cast[k] = internal::GetCast(r.updates[k].dtype, r.operands[k].dtype);
    walker.Run(false, [&](const Element& e) {
      for (int k = 0; k < n; ++k) cast[k](e.upd[k], 0, r.operands[k].data + e.op_off[k], 0, 1);
    });
    return;
  }
  const Loop& loop = ResolvedLoop(r);
  const int nin = r.combiner->nin(), nargs = r.combiner->nargs();
  std::vector<std::vector<char>> buf(nargs);
  std::vector<char*> args(nargs);
  std::vector<int64_t> steps(nargs, 0);
  std::vector<internal::CastFn> to(nin), back(n);
  for (int a = 0; a < nargs; ++a) {
    buf[a].resize(ItemSize(loop.types[a]));
    args[a] = buf[a].data();
  }
  for (int k = 0; k < n; ++k) {
    to[k] = internal::GetCast(r.operands[k].dtype, loop.types[k]);
    if (nin == 2 * n) to[n + k] = internal::GetCast(r.updates[k].dtype, loop.types[n + k]);
    back[k] = internal::GetCast(loop.types[nin + k], r.operands[k].dtype);
  }
  const LoopContext ctx{r.combiner->name().c_str()};
  const int64_t one = 1;
  walker.Run(false, [&](const Element& e) {
    for (int k = 0; k < n; ++k) {
      to[k](r.operands[k].data + e.op_off[k], 0, args[k], 0, 1);
      if (nin == 2 * n) to[n + k](e.upd[k], 0, args[n + k], 0, 1);
    }
    CheckStatus(loop.slots.strided(ctx, args.data(), &one, steps.data(), nullptr), ctx.ufunc_name);
    for (int k = 0; k < n; ++k) back[k](args[nin + k], 0, r.operands[k].data + e.op_off[k], 0, 1);
  });
}

void ApplyInit(const ScatterRequest& r, Walker& walker) {
  const int n = static_cast<int>(r.operands.size());
  if (static_cast<int>(r.init_values.size()) != n) {
    throw ValueError("scatter: init=value-at-hits needs one init value per operand");
  }
  std::vector<internal::CastFn> cast(n);
  for (int k = 0; k < n; ++k) cast[k] = internal::GetCast(r.init_values[k].dtype, r.operands[k].dtype);
  walker.Run(false, [&](const Element& e) {
    for (int k = 0; k < n; ++k) {
      cast[k](r.init_values[k].data, 0, r.operands[k].data + e.op_off[k], 0, 1);
    }
  });
}

// mean: value / (hits + include_self) at every hit position.
void ApplyMean(const ScatterRequest& r, const CanonicalScatter& c, Walker& walker) {
  std::vector<int64_t> hits(static_cast<size_t>(ShapeSize(c.operand_shape)), 0);
  std::vector<int64_t> where(hits.size(), 0);
  walker.Run(false, [&](const Element& e) {
    ++hits[e.elem];
    where[e.elem] = e.op_off[0];
  });
  const int64_t extra = r.init == Init::kIncludeTarget ? 1 : 0;
  for (size_t k = 0; k < r.operands.size(); ++k) {
    const ArrayView& op = r.operands[k];
    VisitDType(op.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      for (size_t i = 0; i < hits.size(); ++i) {
        if (hits[i] == 0) continue;
        char* p = op.data + (k == 0 ? where[i] : 0);
        if (k != 0) {
          int64_t rem = static_cast<int64_t>(i);
          for (int d = 0; d < c.operand_rank; ++d) {
            p += (rem / c.operand_cstrides[d]) * op.strides[d];
            rem %= c.operand_cstrides[d];
          }
        }
        const int64_t count = hits[i] + extra;
        T v = LoadElem<T>(p);
        if constexpr (std::is_same_v<T, bool>) {
          // bool mean: nonzero stays true
        } else if constexpr (kIsInt<T>) {
          const T q = static_cast<T>(v / static_cast<T>(count));
          v = (v % static_cast<T>(count) != 0 && v < 0) ? static_cast<T>(q - 1) : q;
        } else if constexpr (kIsHalf<T>) {
          v = T(static_cast<float>(v) / static_cast<float>(count));
        } else if constexpr (kIsComplex<T>) {
          v = v / static_cast<typename T::value_type>(count);
        } else {
          v = v / static_cast<T>(count);
        }
        StoreElem(p, v);
      }
      return 0;
    });
  }
}

}  // namespace ufuncx::internal
