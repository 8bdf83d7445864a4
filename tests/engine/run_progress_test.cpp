// RunOptions::progress: a long run reports how many tasks have finished, every kProgressEvery.
#include <gtest/gtest.h>

#include <cstddef>
#include <utility>
#include <vector>

#include "sim/engine/simulation.hpp"

namespace linksim::engine {
namespace {

TEST(RunProgress, CalledEveryBlockOfFinishedTasksWithTheTotal) {
  // 2 x 65,536 + 5 = 131,077 one-microsecond computes in a chain on one GPU: two calls, at
  // 65,536 and 131,072 finished, each with the total; the last 5 tasks make no call.
  const std::size_t total = 2 * RunOptions::kProgressEvery + 5;
  Simulation sim({1e9}, 1);
  TaskId last = sim.add_compute(0, 1e-6, {});
  for (std::size_t i = 1; i < total; ++i) {
    const TaskId deps[] = {last};
    last = sim.add_compute(0, 1e-6, deps);
  }
  std::vector<std::pair<std::size_t, std::size_t>> calls;
  RunOptions options;
  options.record_intervals = false;
  options.progress = [&](std::size_t finished, std::size_t all) {
    calls.emplace_back(finished, all);
  };
  const Timeline t = sim.run(options);
  EXPECT_EQ(calls,
            (std::vector<std::pair<std::size_t, std::size_t>>{
                {RunOptions::kProgressEvery, total}, {2 * RunOptions::kProgressEvery, total}}));
  EXPECT_NEAR(t.makespan_s, total * 1e-6, 1e-9);
}

}  // namespace
}  // namespace linksim::engine
