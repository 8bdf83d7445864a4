#include "sim/work/sm_contention.hpp"

#include <algorithm>

#include "sim/engine/summary.hpp"
#include "sim/work/graph_copy.hpp"

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

namespace {

// Per task, its factor: `scale[k]` for `tasks[k]` (the last entry wins), else 1.
std::vector<double> factors(const engine::Simulation& sim,
                            const std::vector<std::pair<engine::TaskId, int>>& tasks,
                            const std::vector<double>& scale) {
  std::vector<double> factor(sim.task_count(), 1.0);
  for (std::size_t k = 0; k < tasks.size() && k < scale.size(); ++k)
    factor[tasks[k].first] = scale[k];
  return factor;
}

}  // namespace

engine::Simulation with_compute_scaled(const engine::Simulation& sim,
                                       const std::vector<std::pair<engine::TaskId, int>>& tasks,
                                       const std::vector<double>& scale) {
  const std::vector<double> factor = factors(sim, tasks, scale);
  return copy_graph(sim, [&](engine::TaskId t) { return sim.amount(t) * factor[t]; });
}

void scale_compute_in_place(engine::Simulation& sim,
                            const std::vector<std::pair<engine::TaskId, int>>& tasks,
                            const std::vector<double>& scale) {
  const std::vector<double> factor = factors(sim, tasks, scale);
  for (engine::TaskId t = 0; t < sim.task_count(); ++t) {
    if (factor[t] != 1.0) sim.set_duration(t, sim.amount(t) * factor[t]);
  }
}

}  // namespace linksim::work
