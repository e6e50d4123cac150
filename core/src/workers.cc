// The helper-thread pool behind RunWorkers. Starting a thread costs about
// 30 us on the development machine, as much as a whole 4 MB reduction; the
// helpers are started once and, after a job, spin for a short while before
// they sleep, so back-to-back calls find them awake.
#include "workers.h"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <chrono>
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
  int needed = 0;  // helpers taking part in the current job
  std::atomic<int> remaining{0};
  std::atomic<bool> busy{false};  // a caller owns the pool
  int size = -1;                  // helpers started; -1 before the first job

  void Helper(int index) {
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
      if (index < needed) {
        (*job)(index + 1);
        remaining.fetch_sub(1, std::memory_order_acq_rel);
      }
    }
  }
};

Pool* pool = new Pool;  // never destroyed: helpers may outlive static destructors

void ForgetPoolInChild() { pool = new Pool; }  // a forked child has no helpers

}  // namespace

bool PoolStart(int helpers, const std::function<void(int)>& job) {
  static const bool registered = pthread_atfork(nullptr, nullptr, ForgetPoolInChild) == 0;
  (void)registered;
  Pool& p = *pool;
  if (p.busy.exchange(true, std::memory_order_acquire)) return false;
  if (p.size < 0) {
    const int want = std::max(1, static_cast<int>(std::thread::hardware_concurrency()) - 1);
    for (p.size = 0; p.size < want; ++p.size) {
      try {
        std::thread([&p, i = p.size] { p.Helper(i); }).detach();
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
  p.needed = helpers;
  p.remaining.store(helpers, std::memory_order_relaxed);
  {
    std::lock_guard<std::mutex> lock(p.m);
    p.generation.fetch_add(1, std::memory_order_release);
  }
  p.cv.notify_all();
  return true;
}

void PoolWait() {
  Pool& p = *pool;
  while (p.remaining.load(std::memory_order_acquire) > 0) std::this_thread::yield();
  p.busy.store(false, std::memory_order_release);
}

}  // namespace ufuncx::internal
