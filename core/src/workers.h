// Worker threads for the few passes that split over cores (scatter plans,
// large reductions): f(w) for w = 0..workers-1, w = 0 on the calling thread.
// The first exception any worker throws is rethrown once all have finished.
#pragma once

#include <exception>
#include <thread>
#include <vector>

namespace ufuncx::internal {

template <class F>
void RunWorkers(int workers, F&& f) {
  std::vector<std::thread> pool;
  std::vector<std::exception_ptr> errors(static_cast<size_t>(workers));
  for (int w = 1; w < workers; ++w) {
    pool.emplace_back([&, w] {
      try {
        f(w);
      } catch (...) {
        errors[static_cast<size_t>(w)] = std::current_exception();
      }
    });
  }
  try {
    f(0);
  } catch (...) {
    errors[0] = std::current_exception();
  }
  for (std::thread& t : pool) t.join();
  for (const std::exception_ptr& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

}  // namespace ufuncx::internal
