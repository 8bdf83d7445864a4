// Checks on a whole machine once its nodes and links are read: what no single entry shows.
#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/topo/loader_sections.hpp"

namespace linksim::topo {

void check_connected(const Topology& topo, const JsonView& root) {
  const auto gpus = topo.nodes_of(NodeKind::gpu);
  if (gpus.empty()) root.fail("a machine needs at least one node of kind \"gpu\"");
  std::vector<int> seen(topo.nodes().size(), 0);
  std::vector<NodeId> stack{gpus.front()};
  seen[gpus.front()] = 1;
  while (!stack.empty()) {
    const NodeId n = stack.back();
    stack.pop_back();
    for (ChannelId c : topo.out_channels(n)) {
      const NodeId t = topo.channel_to(c);
      if (!seen[t]) {
        seen[t] = 1;
        stack.push_back(t);
      }
    }
  }
  for (NodeId g : gpus) {
    if (!seen[g]) {
      throw InputError(root.file(), "/links",
                       fmt::format("GPUs cannot reach each other: no path of links joins {} and "
                                   "{}; expected every GPU to be connected",
                                   topo.node(gpus.front()).id, topo.node(g).id));
    }
  }
}

void check_nvlink_budget(const Topology& topo, const JsonView& root) {
  std::vector<int> used(topo.nodes().size(), 0);
  for (const auto& l : topo.links()) {
    if (l.kind != LinkKind::nvlink) continue;
    used[l.a] += l.lanes;
    used[l.b] += l.lanes;
  }
  for (NodeId g : topo.nodes_of(NodeKind::gpu)) {
    const auto& gpu = *topo.node(g).gpu;
    if (used[g] > 0 && used[g] > gpu.nvlink_links) {
      throw InputError(
          root.file(), "/links",
          fmt::format("{} uses {} NVLinks but a {} has {}; expected at most {}", topo.node(g).id,
                      used[g], gpu.name, gpu.nvlink_links, gpu.nvlink_links));
    }
  }
}

}  // namespace linksim::topo
