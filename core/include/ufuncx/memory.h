// The allocator behind every Array ufuncx makes (and the Python module's
// large results): 64-byte aligned blocks, transparent huge pages from
// 4 MiB, and the last two freed blocks of 1 MiB or more kept for a second
// so a loop that makes a large result each time does not fault its pages
// in afresh.
#pragma once

#include <cstddef>

namespace ufuncx {

// A block of at least `bytes` (nullptr when the system has none). Give it
// back with FreeBlock and the same size.
void* AllocateBlock(size_t bytes);
void FreeBlock(void* p, size_t bytes);

}  // namespace ufuncx
