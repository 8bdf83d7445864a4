#include "sim/topo/cluster_prefix.hpp"

#include <limits>
#include <stdexcept>
#include <vector>

#include "sim/topo/fabric.hpp"

namespace linksim::topo {

int hosts_for_gpus(const Topology& cluster, int gpus) {
  const int per = cluster.cluster->gpus_per_host;
  return (gpus + per - 1) / per;
}

Topology cluster_prefix(const Topology& cluster, int hosts) {
  if (!cluster.is_cluster() || hosts < 1 || hosts > cluster.cluster->hosts) {
    throw std::logic_error("cluster_prefix: not a cluster, or a host count outside it");
  }
  Topology out = cluster.without_graph();
  constexpr NodeId kDropped = std::numeric_limits<NodeId>::max();
  std::vector<NodeId> kept(cluster.nodes().size(), kDropped);
  for (NodeId id = 0; id < cluster.nodes().size(); ++id) {
    const Node& n = cluster.node(id);
    if (n.host == kFabricHost || n.host < hosts) kept[id] = out.add_node(n);
  }
  for (const Link& l : cluster.links()) {
    if (kept[l.a] == kDropped || kept[l.b] == kDropped) continue;
    Link copy = l;
    copy.a = kept[l.a];
    copy.b = kept[l.b];
    out.add_link(copy);
  }
  return out;
}

}  // namespace linksim::topo
