#include "sim/topo/cluster_builder.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <vector>

#include "sim/topo/routing.hpp"

namespace linksim::topo {
namespace {

// A leaf of 64 downlink ports: hosts per leaf of a fat-tree when the file does not say.
constexpr int kLeafDownlinkPorts = 64;
// Hosts per scalable unit of a rail-optimised fabric (NVIDIA DGX SuperPOD: 32 nodes per SU).
constexpr int kHostsPerScalableUnit = 32;
// Leaves per pod of a three-tier fabric when the file does not say.
constexpr int kLeavesPerPod = 8;

std::vector<NodeId> compute_nics(const Topology& host) {
  std::vector<NodeId> out;
  for (NodeId n : host.nodes_of(NodeKind::nic)) {
    if (host.node(n).nic->scale_out) out.push_back(n);
  }
  return out;
}

int ceil_div(int a, int b) {
  return (a + b - 1) / b;
}

// Adds the fabric links of one tier: every lower switch to every upper switch, carrying
// `down_Bps` (the lower switch's downlink total) / oversubscription, split over the uppers.
struct FabricWiring {
  Topology& topo;
  const FabricFigures& figures;
  double switch_latency_s;

  NodeId add_switch(const std::string& id, const std::string& model) {
    Node n;
    n.id = id;
    n.kind = NodeKind::net_switch;
    n.model = model;
    n.host = kFabricHost;
    return topo.add_node(std::move(n));
  }

  void add(NodeId a, NodeId b, double line_Bps, double latency_s, const std::string& source) {
    Link l;
    l.a = a;
    l.b = b;
    l.kind = figures.link_kind;
    l.bandwidth_Bps = line_Bps * figures.payload_efficiency;
    l.latency_s = latency_s;
    l.provenance = {"effective", source};
    topo.add_link(l);
  }

  void uplinks(const std::vector<NodeId>& lower, const std::vector<double>& down_Bps,
               const std::vector<NodeId>& upper, double oversubscription) {
    for (std::size_t i = 0; i < lower.size(); ++i) {
      const double each = down_Bps[i] / oversubscription / static_cast<double>(upper.size());
      for (NodeId u : upper)
        add(lower[i], u, each, switch_latency_s,
            fmt::format("uplinks: downlinks / oversubscription {} over {} switches",
                        oversubscription, upper.size()));
    }
  }
};

// Host h's nodes and links, its nodes renamed "node{h}/<id>" and tagged with h, its compute
// NICs numbered as rails in node order.
void add_host_copies(Topology& topo, const Topology& host, int hosts) {
  const auto per_host = static_cast<NodeId>(host.nodes().size());
  for (int h = 0; h < hosts; ++h) {
    int rail = 0;
    for (const Node& src : host.nodes()) {
      Node n = src;
      n.id = fmt::format("node{}/{}", h, src.id);
      n.host = h;
      if (n.nic && n.nic->scale_out) n.nic->rail = rail++;
      topo.add_node(std::move(n));
    }
    const NodeId offset = per_host * static_cast<NodeId>(h);
    for (Link l : host.links()) {
      l.a += offset;
      l.b += offset;
      topo.add_link(l);
    }
  }
}

// The leaf that host h's NIC of rail r plugs into.
std::size_t leaf_of(const FabricSpec& fabric, int hosts, int rails, int h, int r) {
  switch (fabric.shape) {
    case FabricShape::single_switch:
      return 0;
    case FabricShape::rail_optimized: {
      const int unit = fabric.hosts_per_leaf > 0 ? fabric.hosts_per_leaf
                                                 : std::min(hosts, kHostsPerScalableUnit);
      return static_cast<std::size_t>((h / unit) * rails + r);
    }
    case FabricShape::fat_tree:
    case FabricShape::three_tier: {
      const int per = fabric.hosts_per_leaf > 0 ? fabric.hosts_per_leaf
                                                : std::max(1, kLeafDownlinkPorts / rails);
      return static_cast<std::size_t>(h / per);
    }
  }
  return 0;
}

// The leaf switches, and the NIC bandwidth each one carries down.
struct LeafTier {
  std::vector<NodeId> leaves;
  std::vector<double> down_Bps;
};

// The leaves, and every host's compute NICs wired to theirs.
LeafTier add_leaves(FabricWiring& wire, const Topology& host, int hosts, const FabricSpec& fabric,
                    double nic_latency_s, const std::string& model) {
  const auto host_nics = compute_nics(host);
  const int rails = static_cast<int>(host_nics.size());
  const auto per_host = static_cast<NodeId>(host.nodes().size());
  LeafTier tier;
  const std::size_t leaf_count = leaf_of(fabric, hosts, rails, hosts - 1, rails - 1) + 1;
  for (std::size_t i = 0; i < leaf_count; ++i) {
    tier.leaves.push_back(wire.add_switch(fabric.shape == FabricShape::single_switch
                                              ? std::string("switch0")
                                              : fmt::format("leaf{}", i),
                                          model));
    tier.down_Bps.push_back(0);
  }
  for (int h = 0; h < hosts; ++h) {
    for (int r = 0; r < rails; ++r) {
      const NodeId nic = per_host * static_cast<NodeId>(h) + host_nics[static_cast<std::size_t>(r)];
      const std::size_t leaf = leaf_of(fabric, hosts, rails, h, r);
      const double port_Bps = wire.topo.node(nic).nic->port_bandwidth_Bps;
      wire.add(nic, tier.leaves[leaf], port_Bps, nic_latency_s + wire.switch_latency_s / 2,
               wire.figures.efficiency_source);
      tier.down_Bps[leaf] += port_Bps;
    }
  }
  return tier;
}

// Spines a tier above the leaves gets: as the file says, else one per rail.
int spines_wanted(const FabricSpec& fabric, const ClusterInfo& info) {
  return fabric.spines > 0 ? fabric.spines : std::max(1, info.rails);
}

// Two tiers: every leaf reaches every spine.
void add_spines(FabricWiring& wire, const LeafTier& tier, const FabricSpec& fabric,
                const std::string& model, ClusterInfo& info) {
  const int wanted = spines_wanted(fabric, info);
  std::vector<NodeId> spines;
  for (int s = 0; s < wanted; ++s)
    spines.push_back(wire.add_switch(fmt::format("spine{}", s), model));
  wire.uplinks(tier.leaves, tier.down_Bps, spines, fabric.oversubscription);
  info.spines = wanted;
}

// Three tiers: pods of leaves, each with its own spines; every pod spine reaches every core.
void add_pods_and_cores(FabricWiring& wire, const LeafTier& tier, const FabricSpec& fabric,
                        const std::string& model, ClusterInfo& info) {
  const int wanted = spines_wanted(fabric, info);
  const int per_pod = fabric.leaves_per_pod > 0 ? fabric.leaves_per_pod : kLeavesPerPod;
  const int pods = ceil_div(static_cast<int>(tier.leaves.size()), per_pod);
  std::vector<NodeId> pod_spines;
  std::vector<double> pod_spine_down_Bps;
  for (int p = 0; p < pods; ++p) {
    const auto lo = static_cast<std::ptrdiff_t>(p * per_pod);
    const auto hi = std::min(static_cast<std::ptrdiff_t>(tier.leaves.size()),
                             lo + static_cast<std::ptrdiff_t>(per_pod));
    std::vector<NodeId> spines;
    for (int s = 0; s < wanted; ++s)
      spines.push_back(wire.add_switch(fmt::format("spine{}", p * wanted + s), model));
    const std::vector<NodeId> pod_leaves(tier.leaves.begin() + lo, tier.leaves.begin() + hi);
    const std::vector<double> pod_down(tier.down_Bps.begin() + lo, tier.down_Bps.begin() + hi);
    wire.uplinks(pod_leaves, pod_down, spines, fabric.oversubscription);
    double up = 0;
    for (double d : pod_down)
      up += d / fabric.oversubscription;
    for (NodeId s : spines) {
      pod_spines.push_back(s);
      pod_spine_down_Bps.push_back(up / wanted);
    }
  }
  info.spines = static_cast<int>(pod_spines.size());
  if (pods <= 1) return;
  std::vector<NodeId> cores;
  for (int c = 0; c < wanted; ++c)
    cores.push_back(wire.add_switch(fmt::format("core{}", c), model));
  wire.uplinks(pod_spines, pod_spine_down_Bps, cores, fabric.oversubscription);
  info.cores = wanted;
}

}  // namespace

FabricSpec default_fabric(const Topology& host) {
  FabricSpec spec;
  if (host.instance && host.instance->network_kind) {
    spec.kind = *host.instance->network_kind;
  } else {
    for (NodeId n : compute_nics(host)) {
      if (host.node(n).nic->network) {
        spec.kind = *host.node(n).nic->network;
        break;
      }
    }
  }
  return spec;
}

std::optional<std::string> cluster_problem(const Topology& host, int hosts,
                                           const FabricSpec& fabric) {
  if (host.is_cluster()) {
    return fmt::format("the host \"{}\" is itself a cluster; a cluster's host must be one machine",
                       host.name);
  }
  if (hosts < 1) return fmt::format("a cluster needs at least 1 node, got {}", hosts);
  const auto gpus = static_cast<long long>(host.count(NodeKind::gpu));
  if (hosts > kMaxClusterHosts || gpus * hosts > kMaxClusterGpus) {
    return fmt::format(
        "{} nodes of {} GPUs is {} GPUs; linksim builds at most {} nodes and {} GPUs", hosts, gpus,
        gpus * hosts, kMaxClusterHosts, kMaxClusterGpus);
  }
  const auto nics = compute_nics(host);
  if (nics.empty()) {
    return fmt::format("the machine \"{}\" has no compute NICs to join a fabric", host.name);
  }
  for (NodeId n : nics) {
    if (!(host.node(n).nic->port_bandwidth_Bps > 0)) {
      return fmt::format("NIC {} of \"{}\" has no port_bandwidth; a fabric needs its rate",
                         host.node(n).id, host.name);
    }
  }
  if (!(fabric.oversubscription > 0) || !std::isfinite(fabric.oversubscription)) {
    return fmt::format("oversubscription must be positive, got {}", fabric.oversubscription);
  }
  const Router router(host);
  for (NodeId g : host.nodes_of(NodeKind::gpu)) {
    if (router.nearest_nics(g).empty()) {
      return fmt::format(
          "GPU {} of \"{}\" reaches no compute NIC over PCIe, so the fabric cannot reach it",
          host.node(g).id, host.name);
    }
  }
  return std::nullopt;
}

Topology copies_header(const Topology& host, int copies) {
  Topology out = host.without_graph();
  out.name = fmt::format("{}-x{}", host.name, copies);
  out.base = host.name;
  out.host_count = copies;
  out.cluster.reset();  // the caller describes the copies' cluster
  if (host.instance) {
    Instance inst = *host.instance;
    inst.name = fmt::format("{}x {}", copies, inst.name);
    if (inst.price_per_hour_usd) inst.price_per_hour_usd = *inst.price_per_hour_usd * copies;
    inst.network_bandwidth_Bps *= copies;
    out.instance = inst;
  }
  return out;
}

Topology build_cluster(const Topology& host, int hosts, const FabricSpec& fabric) {
  if (auto why = cluster_problem(host, hosts, fabric)) throw std::logic_error(*why);
  const FabricFigures& figures = fabric_figures(fabric.kind);
  const double switch_latency_s = fabric.switch_latency_s.value_or(figures.switch_latency_s);
  const double nic_latency_s = fabric.nic_latency_s.value_or(figures.nic_latency_s);
  const auto host_nics = compute_nics(host);

  Topology topo = copies_header(host, hosts);
  topo.title = fmt::format("{} nodes of {}, {} {}", hosts, host.title, to_string(fabric.kind),
                           to_string(fabric.shape));
  add_host_copies(topo, host, hosts);

  FabricWiring wire{topo, figures, switch_latency_s};
  const std::string model = fmt::format("{} switch", to_string(fabric.kind));
  const LeafTier leaf_tier = add_leaves(wire, host, hosts, fabric, nic_latency_s, model);

  auto info = std::make_shared<ClusterInfo>();
  info->host = std::make_shared<const Topology>(host);
  info->host_machine = host.name;
  info->host_title = host.title;
  info->hosts = hosts;
  info->gpus_per_host = static_cast<int>(host.count(NodeKind::gpu));
  info->nodes_per_host = static_cast<int>(host.nodes().size());
  info->rails = static_cast<int>(host_nics.size());
  info->fabric = fabric;
  info->leaves = static_cast<int>(leaf_tier.leaves.size());
  info->nic_bandwidth_Bps = host.node(host_nics.front()).nic->port_bandwidth_Bps;
  if (leaf_tier.leaves.size() > 1) {
    if (fabric.shape != FabricShape::three_tier) {
      add_spines(wire, leaf_tier, fabric, model, *info);
    } else {
      add_pods_and_cores(wire, leaf_tier, fabric, model, *info);
    }
  }
  topo.cluster = std::move(info);
  return topo;
}

}  // namespace linksim::topo
