// The helpers every driver of loop slots shares (loop_calls.h).
#include "loop_calls.h"

#include "ufuncx/error.h"

namespace ufuncx::internal {

std::string DTypeRepr(DType t) { return std::string("dtype('") + Name(t) + "')"; }

void CheckStatus(int status, const char* name) {
  if (status == kLoopOk) return;
  if (status == kLoopNegativeIntPower) {
    throw ValueError("Integers to negative integer powers are not allowed.");
  }
  throw ValueError("ufunc '" + std::string(name) + "' loop failed with status " +
                   std::to_string(status));
}

bool SameLayout(const ArrayView& a, const ArrayView& b) {
  return a.data == b.data && a.dtype == b.dtype && a.shape == b.shape && a.strides == b.strides;
}

}  // namespace ufuncx::internal
