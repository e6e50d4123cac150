// The allocator behind every Array ufuncx makes (and the Python module's
// large results, and the planner's scratch space): 64-byte aligned blocks,
// transparent huge pages from 4 MiB, and the last two freed blocks of 1 MiB
// or more (and, apart, the last two from 64 KiB) kept for a second so a
// loop that makes a large result each time does not fault its pages in
// afresh, nor write a cache-sized one to memory that left the caches. What is kept is capped (256 MiB, and
// no more than 1/32 of the machine's memory) and freed by a helper thread
// once it has waited a second unused, so an idle process holds nothing.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ufuncx {

// A block of at least `bytes` (nullptr when the system has none). Give it
// back with FreeBlock and the same size.
void* AllocateBlock(size_t bytes);
void FreeBlock(void* p, size_t bytes);

// Frees every kept block now and returns the heap's free pages to the
// system (ux.release_memory()). Returns the bytes the kept blocks held.
size_t ReleaseRetainedMemory();

// Uninitialised scratch space from the same blocks, for the life of a scope.
class ScratchBlock {
 public:
  explicit ScratchBlock(int64_t bytes);
  ~ScratchBlock() { FreeBlock(data_, bytes_); }
  ScratchBlock(const ScratchBlock&) = delete;
  ScratchBlock& operator=(const ScratchBlock&) = delete;
  char* get() const { return data_; }

 private:
  size_t bytes_;
  char* data_;
};

// The most threads one ufuncx call uses (large elementwise calls, reductions,
// the scatter planner): the machine's hardware threads, capped by
// SetNumThreads(n) (n <= 0 lifts the cap) or, until it is called, by the
// environment's UFUNCX_NUM_THREADS, else OMP_NUM_THREADS (which dask's
// workers set to 1, so tasks do not oversubscribe the cores).
void SetNumThreads(int n);
int NumThreads();

}  // namespace ufuncx
