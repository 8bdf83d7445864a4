#include "sim/core/parallel_cases.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace linksim {

int threads_for(int requested) {
  if (requested > 0) return requested;
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

void run_cases(std::size_t count, int threads, const std::function<void(std::size_t)>& run_case,
               const CaseProgress& progress) {
  std::vector<std::exception_ptr> failures(count);
  // The lowest index that failed so far (count: none). Indices are claimed in increasing order,
  // so every case before a failure has already been claimed and runs to its end.
  std::atomic<std::size_t> first_failure{count};
  std::atomic<std::size_t> next{0};
  std::mutex progress_mutex;
  std::size_t finished = 0;
  auto work = [&] {
    for (std::size_t i = next++; i < count && i < first_failure; i = next++) {
      if (progress.started) {
        const std::lock_guard<std::mutex> lock(progress_mutex);
        progress.started(i, finished);
      }
      try {
        run_case(i);
      } catch (...) {
        failures[i] = std::current_exception();
        std::size_t seen = first_failure;
        while (i < seen && !first_failure.compare_exchange_weak(seen, i)) {
        }
      }
      const std::lock_guard<std::mutex> lock(progress_mutex);
      ++finished;
      if (progress.finished) progress.finished(finished);
    }
  };
  const auto helpers = static_cast<std::size_t>(threads_for(threads)) - 1;
  std::vector<std::thread> pool;
  for (std::size_t t = 0; t < std::min(helpers, count > 0 ? count - 1 : 0); ++t) {
    try {
      pool.emplace_back(work);
    } catch (const std::system_error&) {
      break;  // no more threads to be had: the ones running (and this one) do the rest
    }
  }
  work();
  for (auto& t : pool)
    t.join();
  if (first_failure < count) std::rethrow_exception(failures[first_failure]);
}

}  // namespace linksim
