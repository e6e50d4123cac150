// The helper-thread pool behind RunWorkers. Starting a thread costs about
// 30 us on the development machine, as much as a whole 4 MB reduction; the
// helpers are started once and, after a job, spin for a short while before
// they sleep, so back-to-back calls find them awake. Jobs are claimed, not
// assigned: a caller that finishes its own share runs the jobs no helper
// has started, so a helper whose core is busy (another tenant, or
// OpenBLAS's threads spinning for 0.1 s after a NumPy matmul) costs at most
// the one-thread time. (A 1e6 int64 add.accumulate right after np.matmul:
// 3.97 ms waiting for the helper, against 0.22 ms on idle cores.)
#include "workers.h"

#include "ufuncx/memory.h"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <system_error>
#include <condition_variable>
#include <mutex>

namespace ufuncx::internal {
namespace {

constexpr auto kSpin = std::chrono::microseconds(200);

struct Pool {
  std::mutex m;
  std::condition_variable cv;
  std::atomic<uint64_t> generation{0};  // one more per job
  const std::function<void(int)>* job = nullptr;
  // The job's generation (bits 32-63), its helper jobs 1..n (n in bits
  // 16-31) and the next one to claim (bits 0-15), in one word: a helper
  // that wakes late for an earlier job claims nothing.
  std::atomic<uint64_t> claims{0};
  std::atomic<int> remaining{0};  // helper jobs not finished
  std::atomic<bool> busy{false};  // a caller owns the pool
  int size = -1;                  // helpers started; -1 before the first job

  // Runs unclaimed jobs of generation gen until there are none.
  void Claim(uint64_t gen) {
    uint64_t c = claims.load(std::memory_order_acquire);
    while ((c >> 32) == (gen & 0xffffffff) && (c & 0xffff) <= ((c >> 16) & 0xffff)) {
      if (!claims.compare_exchange_weak(c, c + 1, std::memory_order_acq_rel)) continue;
      (*job)(static_cast<int>(c & 0xffff));
      remaining.fetch_sub(1, std::memory_order_acq_rel);
      c = claims.load(std::memory_order_acquire);
    }
  }

  void Helper() {
    uint64_t seen = 0;
    for (;;) {
      uint64_t g = generation.load(std::memory_order_acquire);
      const auto spin_end = std::chrono::steady_clock::now() + kSpin;
      for (int k = 0; g == seen; ++k) {
        if ((k & 255) == 255 && std::chrono::steady_clock::now() > spin_end) {
          std::unique_lock<std::mutex> lock(m);
          cv.wait(lock, [&] { return generation.load(std::memory_order_acquire) != seen; });
        }
        std::this_thread::yield();
        g = generation.load(std::memory_order_acquire);
      }
      seen = g;
      Claim(g);
    }
  }
};

Pool* pool = new Pool;  // never destroyed: helpers may outlive static destructors

void ForgetPoolInChild() { pool = new Pool; }  // a forked child has no helpers

}  // namespace

namespace {
int HardwareCores() {
  static const int cores = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  return cores;
}

// The thread limit: 0 for none, -1 until first read from the environment
// (UFUNCX_NUM_THREADS, else OMP_NUM_THREADS, which dask's workers set to 1).
std::atomic<int> thread_limit{-1};

int LimitFromEnvironment() {
  for (const char* name : {"UFUNCX_NUM_THREADS", "OMP_NUM_THREADS"}) {
    const char* v = std::getenv(name);
    if (v == nullptr || *v == '\0') continue;
    char* end = nullptr;
    const long n = std::strtol(v, &end, 10);
    if (*end == '\0' && n > 0) return static_cast<int>(std::min<long>(n, 1 << 16));
  }
  return 0;
}
}  // namespace

int Cores() {
  int limit = thread_limit.load(std::memory_order_relaxed);
  if (limit < 0) {
    limit = LimitFromEnvironment();
    int unset = -1;
    if (!thread_limit.compare_exchange_strong(unset, limit)) limit = unset;
  }
  return limit > 0 ? std::min(limit, HardwareCores()) : HardwareCores();
}

}  // namespace ufuncx::internal

namespace ufuncx {
void SetNumThreads(int n) { internal::thread_limit.store(n > 0 ? n : 0); }
int NumThreads() { return internal::Cores(); }
}  // namespace ufuncx

namespace ufuncx::internal {

bool PoolStart(int helpers, const std::function<void(int)>& job) {
  static const bool registered = pthread_atfork(nullptr, nullptr, ForgetPoolInChild) == 0;
  (void)registered;
  Pool& p = *pool;
  if (p.busy.exchange(true, std::memory_order_acquire)) return false;
  if (p.size < 0) {
    const int want = std::max(1, HardwareCores() - 1);
    for (p.size = 0; p.size < want; ++p.size) {
      try {
        std::thread([&p] { p.Helper(); }).detach();
      } catch (const std::system_error&) {
        break;  // fewer helpers; callers that need more spawn their own
      }
    }
  }
  if (helpers > p.size) {
    p.busy.store(false, std::memory_order_release);
    return false;
  }
  p.job = &job;
  p.remaining.store(helpers, std::memory_order_relaxed);
  const uint64_t gen = p.generation.load(std::memory_order_relaxed) + 1;
  p.claims.store(((gen & 0xffffffff) << 32) | (static_cast<uint64_t>(helpers) << 16) | 1,
                 std::memory_order_release);
  {
    std::lock_guard<std::mutex> lock(p.m);
    p.generation.fetch_add(1, std::memory_order_release);
  }
  p.cv.notify_all();
  return true;
}

void PoolWait() {
  Pool& p = *pool;
  p.Claim(p.generation.load(std::memory_order_relaxed));
  while (p.remaining.load(std::memory_order_acquire) > 0) std::this_thread::yield();
  p.busy.store(false, std::memory_order_release);
}

}  // namespace ufuncx::internal
