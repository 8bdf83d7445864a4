#include "sim/topo/cluster_domain.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "sim/topo/cluster_builder.hpp"

namespace linksim::topo {

std::optional<std::string> nvlink_domain_problem(const Topology& machine, int machines) {
  if (machine.is_cluster()) {
    return fmt::format("the host \"{}\" is itself a cluster; an NVLink domain is made of machines",
                       machine.name);
  }
  if (machines < 1) {
    return fmt::format("an NVLink domain needs at least 1 host, got {}", machines);
  }
  if (machine.count(NodeKind::nvswitch) == 0) {
    return fmt::format(
        "the host \"{}\" has no NVSwitch node; an NVLink domain shares its hosts' NVSwitches",
        machine.name);
  }
  const auto gpus = static_cast<long long>(machine.count(NodeKind::gpu));
  if (machines > kMaxClusterHosts || gpus * machines > kMaxClusterGpus) {
    return fmt::format("{} hosts of {} GPUs in one NVLink domain is absurd; at most {} GPUs",
                       machines, gpus, kMaxClusterGpus);
  }
  return std::nullopt;
}

Topology build_nvlink_domain(const Topology& machine, int machines) {
  if (auto why = nvlink_domain_problem(machine, machines)) throw std::logic_error(*why);
  Topology out = copies_header(machine, machines);
  out.title = fmt::format("{}x {}, one NVLink domain", machines, machine.title);
  // Sockets and NUMA nodes number on across machines, as the domain has one of each per Grace.
  int sockets = 0;
  int numa_nodes = 0;
  for (NodeId c : machine.nodes_of(NodeKind::cpu)) {
    sockets = std::max(sockets, machine.node(c).cpu->socket + 1);
    numa_nodes = std::max(numa_nodes, machine.node(c).cpu->numa_node + 1);
  }
  // Machine 0's NVSwitches are the domain's; every machine's nodes map onto them.
  std::vector<NodeId> shared(machine.nodes().size(), 0);
  for (int m = 0; m < machines; ++m) {
    std::vector<NodeId> id_of(machine.nodes().size(), 0);
    for (NodeId n = 0; n < machine.nodes().size(); ++n) {
      const Node& src = machine.node(n);
      if (src.kind == NodeKind::nvswitch && m > 0) {
        id_of[n] = shared[n];
        continue;
      }
      Node copy = src;
      copy.host = src.kind == NodeKind::nvswitch ? 0 : m;
      if (src.kind != NodeKind::nvswitch) copy.id = fmt::format("tray{}/{}", m, src.id);
      if (copy.cpu) {
        copy.cpu->socket += m * sockets;
        copy.cpu->numa_node += m * numa_nodes;
      }
      id_of[n] = out.add_node(std::move(copy));
      if (m == 0) shared[n] = id_of[n];
    }
    for (Link l : machine.links()) {
      l.a = id_of[l.a];
      l.b = id_of[l.b];
      out.add_link(l);
    }
  }
  return out;
}

}  // namespace linksim::topo
