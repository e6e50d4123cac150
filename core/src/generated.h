// Entry points of the generated registry TU (internal; used by the registry
// and by the per-target loop tests).
#pragma once

#include <cstdint>
#include <vector>

#include "ufuncx/loop.h"

namespace ufuncx {
struct PluginSpec;
}

namespace ufuncx::internal {

// Every built-in ufunc and its loops, as a plugin describes its own.
void DescribeBuiltins(PluginSpec* spec);

int NumGeneratedLoops();
// Fills t, r, w and g (contiguous, reduce, rows and strided slots, indexed by Loop::id)
// with each SIMD shard's loops for the best target Highway currently allows;
// returns the target chosen per shard.
std::vector<int64_t> FillGeneratedSimdLoops(LoopFn* t, LoopFn* r, LoopFn* w, LoopFn* g);
// The Highway targets compiled into the shards that this CPU supports.
std::vector<int64_t> CompiledSimdTargets();

}  // namespace ufuncx::internal
