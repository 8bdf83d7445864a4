#include "sim/work/rank_layout.hpp"

#include <algorithm>

namespace linksim::work {

std::vector<int> RankLayout::tp_group(int s, int d) const {
  std::vector<int> g;
  for (int t = 0; t < plan.tensor; ++t)
    g.push_back(rank(s, d, t));
  return g;
}

std::vector<int> RankLayout::dp_group(int s, int t) const {
  std::vector<int> g;
  for (int d = 0; d < plan.dp_ranks(); ++d)
    g.push_back(rank(s, d, t));
  return g;
}

std::vector<int> RankLayout::shard_group(int s, int d, int t) const {
  std::vector<int> g;
  const int h = plan.shard_size();
  const int base = d / h * h;
  for (int k = 0; k < h; ++k)
    g.push_back(rank(s, base + k, t));
  return g;
}

std::vector<int> RankLayout::replica_group(int s, int d, int t) const {
  std::vector<int> g;
  const int h = plan.shard_size();
  for (int j = 0; j < plan.shard_replicas(); ++j)
    g.push_back(rank(s, d % h + j * h, t));
  return g;
}

std::vector<int> RankLayout::cp_group(int s, int d, int t) const {
  std::vector<int> g;
  const int base = d / plan.context * plan.context;
  for (int k = 0; k < plan.context; ++k)
    g.push_back(rank(s, base + k, t));
  return g;
}

std::vector<int> RankLayout::ep_group(int s, int d, int t) const {
  std::vector<int> g;
  const int ep = plan.expert;
  const int base = d / ep * ep;
  for (int k = 0; k < ep; ++k)
    g.push_back(rank(s, base + k, t));
  return g;
}

std::vector<topo::NodeId> plan_gpus(const topo::Topology& machine, const ParallelPlan& plan) {
  auto gpus = machine.nodes_of(topo::NodeKind::gpu);
  gpus.resize(std::min(gpus.size(), static_cast<std::size_t>(std::max(plan.gpus(), 1))));
  return gpus;
}

}  // namespace linksim::work
