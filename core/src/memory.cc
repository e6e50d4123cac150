// AllocateBlock / FreeBlock (ufuncx/memory.h).
//
// glibc returns blocks over 32 MiB to the kernel at once (and smaller ones
// too, depending on what the process allocated before), so a loop making a
// large result each time faults every page in afresh, and zeroing them
// costs as much as the work (an 80 MB int64 add.accumulate: 13-16 ms with
// a fresh result, 7.4-8 ms into a reused one). Like jemalloc's decay of
// dirty pages, a freed block waits at most kRetain (checked whenever a
// block comes or goes), and no more than kRetainMaxBytes wait in all. A
// block is reused for a request at most 1/8 smaller than it.
#include "ufuncx/memory.h"

#include <malloc.h>
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <mutex>

namespace ufuncx {
namespace {

constexpr size_t kHugeMinBytes = size_t{4} << 20;
constexpr size_t kRetainMinBytes = size_t{1} << 20;
constexpr size_t kRetainMaxBytes = size_t{256} << 20;
constexpr std::chrono::milliseconds kRetain{1000};

// Blocks from 4 MiB are aligned to the 2 MiB huge page and ask for huge
// pages, as NumPy's allocator does; smaller ones to a cache line (NumPy's
// own are 16 bytes past one, so every vector straddles two lines).
size_t Alignment(size_t bytes) { return bytes >= kHugeMinBytes ? size_t{2} << 20 : 64; }
size_t Rounded(size_t bytes) {
  const size_t align = Alignment(bytes);
  return (std::max<size_t>(bytes, 1) + align - 1) / align * align;
}

void* Fresh(size_t bytes) {
  const size_t size = Rounded(bytes);
  if (size < bytes) return nullptr;  // (wrapped around)
  void* p = std::aligned_alloc(Alignment(bytes), size);
#ifdef MADV_HUGEPAGE
  if (p && bytes >= kHugeMinBytes) madvise(p, size, MADV_HUGEPAGE);
#endif
  return p;
}

class RetainedBlocks {
 public:
  void* Take(size_t size) {
    size = Rounded(size);
    std::lock_guard<std::mutex> lock(mu_);
    ReleaseOld(Clock::now());
    Slot* best = nullptr;
    for (Slot& s : slots_) {
      if (s.p && s.size >= size && s.size - s.size / 8 <= size && (!best || s.size < best->size)) {
        best = &s;
      }
    }
    if (!best) return nullptr;
    void* p = best->p;
    held_ -= best->size;
    *best = Slot{};
    return p;
  }
  // Keeps p (returns true) or leaves it to the caller to free.
  bool Keep(void* p, size_t size) {
    if (size < kRetainMinBytes || size > kRetainMaxBytes) return false;
    std::lock_guard<std::mutex> lock(mu_);
    const auto now = Clock::now();
    ReleaseOld(now);
    Slot* oldest = &slots_[0];
    for (Slot& s : slots_) {
      if (!s.p) {
        oldest = &s;
        break;
      }
      if (s.when < oldest->when) oldest = &s;
    }
    Release(*oldest);
    while (held_ + size > kRetainMaxBytes) Release(Largest());
    *oldest = Slot{p, size, now};
    held_ += size;
    return true;
  }

 private:
  using Clock = std::chrono::steady_clock;
  struct Slot {
    void* p = nullptr;
    size_t size = 0;  // bytes it can hold
    Clock::time_point when{};
  };
  void Release(Slot& s) {
    if (!s.p) return;
    std::free(s.p);
    held_ -= s.size;
    s = Slot{};
  }
  Slot& Largest() {
    Slot* l = &slots_[0];
    for (Slot& s : slots_) {
      if (s.size > l->size) l = &s;
    }
    return *l;
  }
  void ReleaseOld(Clock::time_point now) {
    for (Slot& s : slots_) {
      if (s.p && now - s.when > kRetain) Release(s);
    }
  }
  std::mutex mu_;
  Slot slots_[2];
  size_t held_ = 0;
};

RetainedBlocks& Retained() {
  static RetainedBlocks* const r = new RetainedBlocks;  // outlives every array
  return *r;
}

}  // namespace

// (The alignment is a speed hint: a kept block serves any request it fits.)
void* AllocateBlock(size_t bytes) {
  if (bytes >= kRetainMinBytes) {
    if (void* p = Retained().Take(bytes)) return p;
  }
  return Fresh(bytes);
}

// A block is kept at its rounded size, or at the size glibc says it has if
// that is less: one the Python module resized (NumPy's realloc hook) is
// never taken for more than it holds.
void FreeBlock(void* p, size_t bytes) {
  if (!p) return;
  if (bytes >= kRetainMinBytes &&
      Retained().Keep(p, std::min(Rounded(bytes), malloc_usable_size(p)))) {
    return;
  }
  std::free(p);
}

}  // namespace ufuncx
