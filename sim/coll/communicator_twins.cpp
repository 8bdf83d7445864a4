#include "sim/coll/communicator_twins.hpp"

#include <unordered_map>

namespace linksim::coll {
namespace {

// The channel renaming found so far, both ways, so that it stays one to one.
class ChannelRenaming {
 public:
  ChannelRenaming(const std::vector<double>& a_capacity_Bps,
                  const std::vector<double>& b_capacity_Bps)
      : a_capacity_Bps_(a_capacity_Bps), b_capacity_Bps_(b_capacity_Bps) {}

  bool pair(topo::ChannelId a, topo::ChannelId b) {
    if (a_capacity_Bps_[a] != b_capacity_Bps_[b]) return false;
    const auto [ia, new_a] = a_to_b_.try_emplace(a, b);
    const auto [ib, new_b] = b_to_a_.try_emplace(b, a);
    return ia->second == b && ib->second == a && new_a == new_b;
  }

 private:
  const std::vector<double>& a_capacity_Bps_;
  const std::vector<double>& b_capacity_Bps_;
  std::unordered_map<topo::ChannelId, topo::ChannelId> a_to_b_;
  std::unordered_map<topo::ChannelId, topo::ChannelId> b_to_a_;
};

bool same_route(const topo::Route& a, const topo::Route& b, ChannelRenaming& renaming) {
  if (a.transport != b.transport || a.paths.size() != b.paths.size() ||
      a.relays.size() != b.relays.size() || a.nics.size() != b.nics.size() ||
      a.proxies.size() != b.proxies.size() || a.staging_cpus.size() != b.staging_cpus.size() ||
      a.bounce_cpu.has_value() != b.bounce_cpu.has_value()) {
    return false;
  }
  for (std::size_t p = 0; p < a.paths.size(); ++p) {
    const topo::Path& pa = a.paths[p];
    const topo::Path& pb = b.paths[p];
    if (pa.share != pb.share || pa.latency_s != pb.latency_s ||
        pa.bottleneck_Bps != pb.bottleneck_Bps || pa.channels.size() != pb.channels.size()) {
      return false;
    }
    for (std::size_t c = 0; c < pa.channels.size(); ++c) {
      if (!renaming.pair(pa.channels[c], pb.channels[c])) return false;
    }
  }
  return true;
}

bool same_rings(const std::vector<Ring>& a, const std::vector<Ring>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].order != b[i].order) return false;
  }
  return true;
}

bool same_tuning_inputs(const Communicator& a, const Communicator& b) {
  const NcclRingSearch& sa = a.ring_search();
  const NcclRingSearch& sb = b.ring_search();
  return a.node_count() == b.node_count() && a.ranks_per_node() == b.ranks_per_node() &&
         a.amd_cpu() == b.amd_cpu() && a.intra_class() == b.intra_class() &&
         a.generation() == b.generation() && a.compute_capability() == b.compute_capability() &&
         a.ring_nccl_GBps() == b.ring_nccl_GBps() && a.nvls_capable() == b.nvls_capable() &&
         a.in_network_reduction() == b.in_network_reduction() &&
         a.ll128_enabled() == b.ll128_enabled() && a.inter_distance() == b.inter_distance() &&
         a.max_channels() == b.max_channels() &&
         a.ring_bus_bandwidth_Bps() == b.ring_bus_bandwidth_Bps() &&
         sa.search_channels == sb.search_channels && sa.channel_GBps == sb.channel_GBps &&
         sa.run_channels == sb.run_channels && a.simple_step_bytes() == b.simple_step_bytes() &&
         a.network_env_allows(Protocol::ll) == b.network_env_allows(Protocol::ll) &&
         a.network_env_allows(Protocol::ll128) == b.network_env_allows(Protocol::ll128) &&
         a.network_env_allows(Protocol::simple) == b.network_env_allows(Protocol::simple) &&
         a.plane_copies().copies == b.plane_copies().copies &&
         a.plane_copies().keep_path == b.plane_copies().keep_path;
}

}  // namespace

bool are_twins(const Communicator& a, const Communicator& b) {
  const int n = a.size();
  if (&a.topology() != &b.topology() || b.size() != n || n > kMaxTwinRanks) return false;
  if (!same_tuning_inputs(a, b) || !same_rings(a.rings(), b.rings())) return false;
  const topo::Topology& machine = a.topology();
  for (int i = 0; i < n; ++i) {
    const auto& ga = machine.node(a.gpu(i)).gpu;
    const auto& gb = machine.node(b.gpu(i)).gpu;
    if (ga.has_value() != gb.has_value() || (ga && ga->name != gb->name)) return false;
  }
  ChannelRenaming renaming(a.capacities_Bps(), b.capacities_Bps());
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      if (i == j) continue;
      if (a.crosses_nodes(i, j) != b.crosses_nodes(i, j)) return false;
      if (!same_route(a.route(i, j), b.route(i, j), renaming)) return false;
    }
  }
  return true;
}

}  // namespace linksim::coll
