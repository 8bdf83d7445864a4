#include "sim/work/time_to_train.hpp"

namespace linksim::work {

std::optional<TimeToTrain> time_to_train(double tokens, double goodput, double tokens_per_s,
                                         int gpus, std::optional<double> price_per_hour_usd) {
  if (!(tokens_per_s > 0)) return std::nullopt;
  TimeToTrain t;
  t.tokens = tokens;
  t.goodput = goodput;
  t.time_s = tokens / tokens_per_s / goodput;
  t.gpu_hours = t.time_s * gpus / 3600;
  // The price covers the machine the plan runs on (job_sim.cpp prices the plan's GPUs).
  if (price_per_hour_usd) t.cost_usd = *price_per_hour_usd * t.time_s / 3600;
  return t;
}

}  // namespace linksim::work
