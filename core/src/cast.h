// Strided element conversion between any two dtypes (internal).
#pragma once

#include <cstdint>

#include "ufuncx/dtype.h"

namespace ufuncx::internal {

using CastFn = void (*)(const char* src, int64_t src_step, char* dst,
                        int64_t dst_step, int64_t n);

// Unsafe (C-style, NumPy's) conversion from `from` to `to`.
CastFn GetCast(DType from, DType to);

}  // namespace ufuncx::internal
