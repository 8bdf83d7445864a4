#include "sim/topo/fabric_summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "sim/topo/link_payload.hpp"

namespace linksim::topo {

FabricSummary summarize_fabric(const Topology& topo) {
  if (!topo.is_cluster()) throw std::logic_error("summarize_fabric: not a cluster");
  const ClusterInfo& c = *topo.cluster;
  FabricSummary s;
  s.hosts = c.hosts;
  s.gpus = c.hosts * c.gpus_per_host;
  s.rails = c.rails;
  s.leaves = c.leaves;
  s.spines = c.spines;
  s.cores = c.cores;
  s.oversubscription = c.fabric.oversubscription;
  // Leaves are the switches NICs plug into; their links to other switches are the uplinks.
  const auto is_switch = [&](NodeId n) { return topo.node(n).kind == NodeKind::net_switch; };
  std::vector<bool> leaf(topo.nodes().size(), false);
  double host0_Bps = 0;
  for (const Link& l : topo.links()) {
    if (is_switch(l.a) == is_switch(l.b)) continue;
    const NodeId nic = is_switch(l.a) ? l.b : l.a;
    leaf[is_switch(l.a) ? l.a : l.b] = true;
    if (topo.host_of(nic) == 0) host0_Bps += payload_bandwidth_Bps(l);
  }
  double uplink_Bps = 0;
  for (const Link& l : topo.links()) {
    if (is_switch(l.a) && is_switch(l.b) && leaf[l.a] != leaf[l.b]) {
      uplink_Bps += payload_bandwidth_Bps(l);
    }
  }
  s.per_host_scale_out_Bps = host0_Bps;
  s.per_gpu_scale_out_Bps = c.gpus_per_host > 0 ? host0_Bps / c.gpus_per_host : 0;
  const double hosts_half_Bps = (c.hosts / 2) * host0_Bps;
  s.bisection_Bps = hosts_half_Bps;
  if (c.leaves > 1 && uplink_Bps > 0) s.bisection_Bps = std::min(hosts_half_Bps, uplink_Bps / 2);
  if (c.hosts < 2) s.bisection_Bps = 0;
  s.hops_same_leaf = 1;
  s.hops_worst = c.leaves <= 1 ? 1 : (c.cores > 0 ? 5 : 3);
  return s;
}

std::string describe_fabric(const Topology& topo, const FabricSummary& s) {
  const ClusterInfo& c = *topo.cluster;
  const auto gbps = [](double Bps) { return fmt::format("{:.1f} GB/s", Bps / 1e9); };
  std::string out;
  if (c.host->host_count > 1) {
    // Each host is an NVLink domain of machines (cluster_domain.hpp): say what it is made of.
    const Topology& domain = *c.host;
    out += fmt::format("Cluster: {} NVLink domain{} of {}x {} ({} GPUs), {} rails\n", s.hosts,
                       s.hosts == 1 ? "" : "s", domain.host_count, domain.base, s.gpus, s.rails);
    out += fmt::format(
        "NVLink domain: {} GPUs on {} shared NVSwitches; GPUs of one domain talk over NVLink, "
        "and NCCL counts each domain as one node\n",
        c.gpus_per_host, domain.count(NodeKind::nvswitch));
  } else {
    out += fmt::format("Cluster: {} nodes of {} ({} GPUs), {} rails\n", s.hosts, c.host_machine,
                       s.gpus, s.rails);
  }
  out += fmt::format("Fabric: {} {}, oversubscription {}:1, {} leaves", to_string(c.fabric.kind),
                     to_string(c.fabric.shape), s.oversubscription, s.leaves);
  if (s.spines > 0) out += fmt::format(", {} spines", s.spines);
  if (s.cores > 0) out += fmt::format(", {} cores", s.cores);
  out += "\n";
  out += fmt::format("Scale-out per GPU: {} per direction ({} per node, {} NICs of {:.0f} Gb/s)\n",
                     gbps(s.per_gpu_scale_out_Bps), gbps(s.per_host_scale_out_Bps), s.rails,
                     c.nic_bandwidth_Bps * 8 / 1e9);
  out += fmt::format("Bisection: {} per direction\n", gbps(s.bisection_Bps));
  out += fmt::format("Switch hops between nodes: {} on one leaf, {} at worst\n", s.hops_same_leaf,
                     s.hops_worst);
  out += fmt::format("Routing: NIC choice {}, spine choice {}{}\n", to_string(c.fabric.nic_choice),
                     to_string(c.fabric.spine_choice),
                     c.fabric.gpudirect_rdma == GdrLevel::automatic
                         ? std::string()
                         : fmt::format(", GPUDirect RDMA {}", to_string(c.fabric.gpudirect_rdma)));
  if (!c.fabric.nccl_env.empty()) {
    out += fmt::format(
        "NCCL environment from the network plugin: {}{}\n", env_text(c.fabric.nccl_env),
        c.fabric.nccl_env.source.empty() ? std::string()
                                         : fmt::format(" ({})", c.fabric.nccl_env.source));
  }
  return out;
}

}  // namespace linksim::topo
