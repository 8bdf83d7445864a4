#include "sim/work/sm_contention.hpp"

#include <algorithm>

#include "sim/engine/summary.hpp"

namespace linksim::work {

double comm_sm_share(std::optional<double> given, int max_channels, const topo::GpuModel& gpu) {
  return given.value_or(
      gpu.sm_count > 0 ? std::min(0.5, static_cast<double>(max_channels) / gpu.sm_count) : 0.0);
}

std::vector<double> overlap_fractions(const engine::Simulation& sim, const engine::Timeline& tl,
                                      const std::vector<CommRecord>& records,
                                      const std::vector<std::pair<engine::TaskId, int>>& tasks,
                                      const std::vector<int>& gpu_of_rank) {
  const auto comm = engine::comm_intervals(sim, tl, comm_ops(records));
  std::vector<double> out;
  out.reserve(tasks.size());
  for (const auto& [task, rank] : tasks) {
    const double a = tl.task_start_s[task];
    const double b = tl.task_end_s[task];
    if (b <= a) {
      out.push_back(0);
      continue;
    }
    const auto g = static_cast<std::size_t>(gpu_of_rank[static_cast<std::size_t>(rank)]);
    out.push_back(std::min(1.0, engine::covered_length(comm[g], a, b) / (b - a)));
  }
  return out;
}

std::vector<double> compute_slowdowns(const std::vector<double>& overlap_fractions, double share) {
  std::vector<double> scale;
  scale.reserve(overlap_fractions.size());
  for (double f : overlap_fractions)
    scale.push_back((1 - f) + f / (1 - share));
  return scale;
}

}  // namespace linksim::work
