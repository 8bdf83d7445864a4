#pragma once
// From one step to the whole run: a training job's token budget (job.train_tokens) over its
// simulated throughput gives the wall-clock time, the GPU-hours and, where the machine has a
// price, the cost. `job.goodput` (default 1) is the share of wall-clock time spent in useful
// steps: failures, restarts and checkpoints take the rest (docs/scenario-format.md gives public
// figures for it).

#include <optional>

namespace linksim::work {

struct TimeToTrain {
  double tokens = 0;
  double goodput = 1;
  double time_s = 0;
  double gpu_hours = 0;
  std::optional<double> cost_usd;  // with a price per hour only
};

// REQUIRES: tokens > 0, 0 < goodput <= 1. nullopt when nothing was trained (no throughput).
std::optional<TimeToTrain> time_to_train(double tokens, double goodput, double tokens_per_s,
                                         int gpus, std::optional<double> price_per_hour_usd);

}  // namespace linksim::work
