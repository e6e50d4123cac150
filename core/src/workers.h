// Worker threads for the few passes that split over cores (scatter plans,
// large reductions, large matrix products): f(w) for w = 0..workers-1, w = 0
// on the calling thread, the others on a pool of helper threads that stay
// alive between calls. The first exception any worker throws is rethrown
// once all have finished, and the workers' floating-point flags are raised
// on the calling thread.
#pragma once

#include <algorithm>
#include <atomic>
#include <cfenv>
#include <exception>
#include <functional>
#include <thread>
#include <vector>

namespace ufuncx::internal {

// Hands job(1) .. job(helpers) to the pool's helper threads and returns
// true, or returns false (running nothing) when the pool is serving another
// caller or has fewer helpers. PoolWait runs on the caller the jobs no
// helper has claimed yet, then blocks until the others are done.
bool PoolStart(int helpers, const std::function<void(int)>& job);
void PoolWait();

// The threads a call may use: the machine's hardware threads (at least 1),
// capped by ufuncx::SetNumThreads or the environment (workers.cc).
int Cores();

template <class F>
void RunWorkers(int workers, F&& f) {
  if (workers <= 1) {
    f(0);
    return;
  }
  std::vector<std::exception_ptr> errors(static_cast<size_t>(workers));
  // Floating-point flags are per thread: each worker's are collected and
  // raised on the calling thread at the end, as if it had done all the work
  // (a thread that runs a worker keeps the flags it had before).
  std::atomic<int> fp_flags{0};
  const std::function<void(int)> guarded = [&](int w) {
    const int before = std::fetestexcept(FE_ALL_EXCEPT);
    std::feclearexcept(FE_ALL_EXCEPT);
    try {
      f(w);
    } catch (...) {
      errors[static_cast<size_t>(w)] = std::current_exception();
    }
    fp_flags.fetch_or(std::fetestexcept(FE_ALL_EXCEPT), std::memory_order_relaxed);
    std::feclearexcept(FE_ALL_EXCEPT);
    if (before) std::feraiseexcept(before);
  };
  std::vector<std::thread> spawned;
  const bool pooled = PoolStart(workers - 1, guarded);
  if (!pooled) {  // another caller holds the pool: threads of our own
    for (int w = 1; w < workers; ++w) spawned.emplace_back(guarded, w);
  }
  guarded(0);
  if (pooled) PoolWait();
  for (std::thread& t : spawned) t.join();
  if (const int flags = fp_flags.load(std::memory_order_relaxed)) std::feraiseexcept(flags);
  for (const std::exception_ptr& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

}  // namespace ufuncx::internal
