// AllocateBlock / FreeBlock (ufuncx/memory.h).
//
// glibc returns blocks over 32 MiB to the kernel at once (and smaller ones
// too, depending on what the process allocated before), so a loop making a
// large result each time faults every page in afresh, and zeroing them
// costs as much as the work (an 80 MB int64 add.accumulate: 13-16 ms with
// a fresh result, 7.4-8 ms into a reused one). Like jemalloc's decay of
// dirty pages, a freed block waits at most kRetain (checked whenever a
// block comes or goes, and by a helper thread while any block waits, so an
// idle process gives them back too), and no more than kRetainCapBytes (at
// most 1/32 of the machine's memory) wait in all. A block is reused for a
// request at most 1/8 smaller than it.
#include "ufuncx/memory.h"

#include <malloc.h>
#include <sys/mman.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <new>
#include <thread>

namespace ufuncx {
namespace {

constexpr size_t kHugeMinBytes = size_t{4} << 20;
// Kept blocks come in two classes, two of each: from 64 KiB, where glibc's
// memalign, after a mix of allocations, can place each call's block
// elsewhere, so every store of a cache-sized result misses (1e5 int32 add
// held to AVX2, after the sweep's other calls: 17.5 us against NumPy's 14;
// reused, 17-22 against 19-25), and from 1 MiB, where the pages themselves
// cost; a loop of small temporaries does not push out a large result's
// block.
constexpr size_t kRetainMinBytes = size_t{64} << 10;
constexpr size_t kLargeBlockBytes = size_t{1} << 20;
constexpr int kSlotsPerClass = 2;
constexpr size_t kRetainCapBytes = size_t{256} << 20;
constexpr std::chrono::milliseconds kRetain{1000};

size_t RetainMaxBytes() {
  static const size_t max = [] {
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    if (pages <= 0 || page <= 0) return kRetainCapBytes;
    return std::min(kRetainCapBytes, static_cast<size_t>(pages) * static_cast<size_t>(page) / 32);
  }();
  return max;
}

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
    if (size < kRetainMinBytes || size > RetainMaxBytes()) return false;
    std::unique_lock<std::mutex> lock(mu_);
    const auto now = Clock::now();
    ReleaseOld(now);
    Slot* const first = slots_ + (size >= kLargeBlockBytes ? kSlotsPerClass : 0);
    Slot* oldest = first;
    for (Slot* s = first; s < first + kSlotsPerClass; ++s) {
      if (!s->p) {
        oldest = s;
        break;
      }
      if (s->when < oldest->when) oldest = s;
    }
    Release(*oldest);
    while (held_ + size > RetainMaxBytes()) Release(Largest());
    *oldest = Slot{p, size, now};
    held_ += size;
    StartReaper();
    // Only a helper asleep with nothing to wait for needs waking: one
    // waiting for an older block's time wakes then and plans again. (Waking
    // it on every kept block cost two thread switches per call: float32 ceil
    // at 1e5 into a new result, 13.5 us against 8.6 into a given one.)
    if (reaper_idle_) wake_.notify_one();
    return true;
  }

  size_t ReleaseAll() {
    std::lock_guard<std::mutex> lock(mu_);
    const size_t held = held_;
    for (Slot& s : slots_) Release(s);
    return held;
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
  // The helper thread sleeps while nothing waits, else until the oldest
  // block's time is up. It is started by the first kept block (mu_ held).
  void StartReaper() {
    if (reaper_started_) return;
    reaper_started_ = true;
    std::thread([this] {
      std::unique_lock<std::mutex> lock(mu_);
      while (true) {
        if (held_ == 0) {
          reaper_idle_ = true;
          wake_.wait(lock);
          reaper_idle_ = false;
          continue;
        }
        Clock::time_point due = Clock::time_point::max();
        for (const Slot& s : slots_) {
          if (s.p) due = std::min(due, s.when + kRetain);
        }
        wake_.wait_until(lock, due + std::chrono::milliseconds(1));
        ReleaseOld(Clock::now());
      }
    }).detach();
  }
  std::mutex mu_;
  std::condition_variable wake_;
  bool reaper_started_ = false;
  bool reaper_idle_ = false;  // the helper waits for a notify (mu_ guards it)
  Slot slots_[2 * kSlotsPerClass];  // [small class..., large class...]
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

size_t ReleaseRetainedMemory() {
  const size_t held = Retained().ReleaseAll();
  malloc_trim(0);
  return held;
}

ScratchBlock::ScratchBlock(int64_t bytes)
    : bytes_(static_cast<size_t>(std::max<int64_t>(bytes, 1))),
      data_(static_cast<char*>(AllocateBlock(bytes_))) {
  if (!data_) throw std::bad_alloc();
}

}  // namespace ufuncx
