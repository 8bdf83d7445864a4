#pragma once
// The machine the task-graph tests place their graphs on: cpu0 with gpu0, gpu1 and nic0 on
// PCIe 4.0 x16 (32 GB/s per direction, no latency); gpu2 is connected to nothing, so nothing
// reaches it.

#include "sim/topo/topology.hpp"

namespace linksim::testing {

inline topo::Topology task_graph_test_box() {
  topo::Topology t;
  t.name = "test-box";
  const auto add = [&](const char* id, topo::NodeKind kind, int ordinal) {
    topo::Node n;
    n.id = id;
    n.kind = kind;
    n.ordinal = ordinal;
    if (kind == topo::NodeKind::gpu) n.gpu = topo::GpuModel{};
    if (kind == topo::NodeKind::cpu) n.cpu = topo::CpuInfo{};
    if (kind == topo::NodeKind::nic) n.nic = topo::NicInfo{};
    return t.add_node(n);
  };
  const auto cpu = add("cpu0", topo::NodeKind::cpu, 0);
  const auto g0 = add("gpu0", topo::NodeKind::gpu, 0);
  const auto g1 = add("gpu1", topo::NodeKind::gpu, 1);
  add("gpu2", topo::NodeKind::gpu, 2);
  const auto nic = add("nic0", topo::NodeKind::nic, 0);
  for (auto dev : {g0, g1, nic}) {
    topo::Link l;
    l.a = dev;
    l.b = cpu;
    l.kind = topo::LinkKind::pcie;
    l.generation = 4;
    l.width = 16;
    l.bandwidth_Bps = 32e9;
    t.add_link(l);
  }
  return t;
}

}  // namespace linksim::testing
