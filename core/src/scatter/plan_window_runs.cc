// The window-runs plan: any window scatter with exact dtypes and one
// operand, from the walker; the combiner's loop runs over each run of the
// window's innermost dim (its Highway SIMD body when the run is contiguous).
#include "cast.h"
#include "scatter/plans.h"
#include "ufuncx/ufunc.h"

namespace ufuncx::internal {

// Runs of one row never overlap, and rows go in order.
void RunWindowRuns(const PlanInputs& in, Walker& walker) {
  const ScatterRequest& r = in.r;
  const Loop* loop = in.loop;
  const LoopContext& ctx = in.ctx;
  const ArrayView& op = r.operands[0];
  const int64_t item = static_cast<int64_t>(op.itemsize());
  const bool unary = r.combiner && r.combiner->nin() == 1;
  internal::CastFn copy = r.combiner ? nullptr : internal::GetCast(r.updates[0].dtype, op.dtype);
  walker.RunSpans(false, [&](const Walker::Span& s) {
    char* dst = op.data + s.op_off[0];
    const int64_t os = s.op_step[0], us = s.upd_step[0];
    int64_t len = s.len;
    if (!r.combiner) {
      if (os == 0) {  // one destination: the last update wins
        copy(s.upd[0] + (len - 1) * us, 0, dst, 0, 1);
      } else {
        copy(s.upd[0], us, dst, os, len);
      }
      return;
    }
    if (unary) {
      char* args[2] = {dst, dst};
      const int64_t steps[2] = {os, os};
      if (os == 0) {
        for (int64_t i = 0; i < len; ++i) {
          const int64_t one = 1;
          CheckStatus(loop->slots.strided(ctx, args, &one, steps, nullptr), ctx.ufunc_name);
        }
        return;
      }
      const LoopFn fn = ElementwiseSlot(loop->slots, os == item);
      CheckStatus(fn(ctx, args, &len, steps, nullptr), ctx.ufunc_name);
      return;
    }
    if (os == 0) {
      // A repeated destination must take its updates one at a time.
      const int64_t one = 1, steps[3] = {0, us, 0};
      for (int64_t i = 0; i < len; ++i) {
        char* args[3] = {dst, s.upd[0] + i * us, dst};
        CheckStatus(loop->slots.strided(ctx, args, &one, steps, nullptr), ctx.ufunc_name);
      }
      return;
    }
    char* args[3] = {dst, s.upd[0], dst};
    const int64_t steps[3] = {os, us, os};
    const bool contig = os == item && (us == item || us == 0);
    CheckStatus(ElementwiseSlot(loop->slots, contig)(ctx, args, &len, steps, nullptr), ctx.ufunc_name);
  });
}

}  // namespace ufuncx::internal
