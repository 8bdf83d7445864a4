#include "sim/topo/smi_matrix.hpp"

#include <fmt/format.h>

namespace linksim::topo {
namespace {

std::string cell_for(const Router& router, NodeId a, NodeId b) {
  const PathClass c = router.path_class(a, b);
  if (c == PathClass::nvlink) return fmt::format("NV{}", router.nvlink_count(a, b));
  return std::string(to_string(c));
}

}  // namespace

SmiMatrix smi_matrix(const Topology& topo, const Router& router) {
  SmiMatrix m;
  const auto gpus = topo.nodes_of(NodeKind::gpu);
  const auto nics = topo.nodes_of(NodeKind::nic);
  std::vector<NodeId> devices(gpus);
  devices.insert(devices.end(), nics.begin(), nics.end());
  for (NodeId g : gpus)
    m.columns.push_back(fmt::format("GPU{}", topo.node(g).ordinal));
  for (NodeId n : nics) {
    m.columns.push_back(fmt::format("NIC{}", topo.node(n).ordinal));
    m.nic_names.push_back(topo.node(n).id);
  }
  for (NodeId r : devices) {
    SmiRow row;
    row.label = topo.node(r).kind == NodeKind::gpu ? fmt::format("GPU{}", topo.node(r).ordinal)
                                                   : fmt::format("NIC{}", topo.node(r).ordinal);
    for (NodeId c : devices)
      row.cells.push_back(cell_for(router, r, c));
    if (topo.node(r).kind == NodeKind::gpu) {
      auto cpu = router.host_socket(r);
      if (cpu) {
        const CpuInfo& info = *topo.node(*cpu).cpu;
        row.cpu_affinity = info.cores.empty() ? "N/A" : info.cores;
        row.numa_affinity = std::to_string(info.numa_node);
      } else {
        row.cpu_affinity = "N/A";
        row.numa_affinity = "N/A";
      }
      row.gpu_numa_id = "N/A";
    }
    m.rows.push_back(std::move(row));
  }
  return m;
}
}  // namespace linksim::topo
