// The Router within one host: NVLink (direct, through NVSwitches, or relayed by one GPU), PCIe
// peer-to-peer, the host bounce and host memory, with the caches that make repeated asks cheap.
// Routes between hosts of a cluster are network_route.cpp's.
#include "sim/topo/routing.hpp"

#include <algorithm>
#include <map>
#include <mutex>
#include <stdexcept>

#include "sim/topo/route_search.hpp"
#include "sim/topo/router_impl.hpp"

namespace linksim::topo {

using routing_detail::host_range;
using routing_detail::is_socket_link;
using routing_detail::kMaxEqualPaths;
using routing_detail::Search;

Router::Router(const Topology& topology, SearchSharing sharing) : topo_(&topology) {
  auto impl = std::make_shared<Impl>();
  impl->topo = &topology;
  impl->sharing = sharing;
  impl_ = std::move(impl);
}

std::optional<NodeId> Router::host_socket(NodeId device) const {
  const Topology& t = *topo_;
  if (t.node(device).kind == NodeKind::cpu) return device;
  {
    const std::lock_guard<std::mutex> lock(impl_->socket_mutex);
    auto it = impl_->host_sockets.find(device);
    if (it != impl_->host_sockets.end()) return it->second;
  }
  // Nearest cpu of its own host over the fabric, through PCIe switches only.
  std::optional<NodeId> best;
  std::size_t best_len = 0;
  const auto [lo, hi] = host_range(t, device);
  for (NodeId cpu = lo; cpu < hi; ++cpu) {
    if (t.node(cpu).kind != NodeKind::cpu || t.host_of(cpu) != t.host_of(device)) continue;
    auto paths = impl_->shortest(device, cpu, Search::to_socket);
    if (paths.empty()) continue;
    if (!best || paths.front().size() < best_len) {
      best = cpu;
      best_len = paths.front().size();
    }
  }
  const std::lock_guard<std::mutex> lock(impl_->socket_mutex);
  impl_->host_sockets.emplace(device, best);
  return best;
}

std::vector<NodeId> Router::nearest_nics(NodeId gpu) const {
  {
    const std::lock_guard<std::mutex> lock(impl_->nic_mutex);
    auto it = impl_->nearest_nics.find(gpu);
    if (it != impl_->nearest_nics.end()) return it->second;
  }
  const Topology& t = *topo_;
  std::vector<NodeId> best;
  std::size_t best_len = 0;
  const auto [lo, hi] = host_range(t, gpu);
  for (NodeId nic = lo; nic < hi; ++nic) {
    if (t.node(nic).kind != NodeKind::nic || t.host_of(nic) != t.host_of(gpu) ||
        !t.node(nic).nic->scale_out) {
      continue;
    }
    const auto path = impl_->fabric_path(gpu, nic);
    if (path.empty()) continue;
    if (best.empty() || path.size() < best_len) {
      best = {nic};
      best_len = path.size();
    } else if (path.size() == best_len) {
      best.push_back(nic);
    }
  }
  const std::lock_guard<std::mutex> lock(impl_->nic_mutex);
  impl_->nearest_nics.emplace(gpu, best);
  return best;
}

int Router::nvlink_count(NodeId a, NodeId b) const {
  // Only the links at the two ends: O(degree), not O(links), per pair.
  const Topology& t = *topo_;
  const auto switch_lanes = [&t](NodeId self, NodeId other, int& direct) {
    std::map<NodeId, int> lanes;  // nvswitch -> lanes from `self`
    for (ChannelId c : t.out_channels(self)) {
      const Link& l = t.link(Topology::link_of(c));
      if (l.kind != LinkKind::nvlink) continue;
      const NodeId to = t.channel_to(c);
      if (to == other) direct += l.lanes;
      if (t.node(to).kind == NodeKind::nvswitch) lanes[to] += l.lanes;
    }
    return lanes;
  };
  int direct = 0;
  int ignored = 0;
  const auto a_lanes = switch_lanes(a, b, direct);
  const auto b_lanes = switch_lanes(b, a, ignored);
  int via_switch = 0;
  for (const auto& [sw, n] : a_lanes) {
    if (b_lanes.count(sw) != 0) via_switch += n;
  }
  return direct + via_switch;
}

PathClass Router::path_class(NodeId a, NodeId b) const {
  if (a == b) return PathClass::self;
  if (nvlink_count(a, b) > 0) return PathClass::nvlink;
  const auto path = impl_->fabric_path(a, b);
  if (path.empty()) return PathClass::sys;
  int switches = 0;
  int cpus = 0;
  bool crosses_sockets = false;
  std::vector<int> bridges;  // host bridges used entering/leaving a cpu
  for (std::size_t i = 0; i < path.size(); ++i) {
    const Link& l = topo_->link(Topology::link_of(path[i]));
    if (is_socket_link(l.kind)) crosses_sockets = true;
    const NodeId to = topo_->channel_to(path[i]);
    const NodeId from = topo_->channel_from(path[i]);
    if (l.kind == LinkKind::pcie &&
        (topo_->node(to).kind == NodeKind::cpu || topo_->node(from).kind == NodeKind::cpu)) {
      bridges.push_back(l.host_bridge);
    }
    if (i + 1 < path.size()) {
      const NodeKind k = topo_->node(to).kind;
      switches += k == NodeKind::pcie_switch ? 1 : 0;
      cpus += k == NodeKind::cpu ? 1 : 0;
    }
  }
  if (crosses_sockets) return PathClass::sys;
  if (cpus == 0) return switches <= 1 ? PathClass::pix : PathClass::pxb;
  if (bridges.size() == 2 && bridges[0] != bridges[1]) return PathClass::node;
  return PathClass::phb;
}

bool Router::p2p_possible(NodeId a, NodeId b) const {
  const Topology& t = *topo_;
  for (NodeId n : {a, b}) {
    if (t.node(n).gpu && !t.node(n).gpu->pcie_p2p) return false;
  }
  const auto path = impl_->fabric_path(a, b);
  if (path.empty()) return false;
  bool crosses_sockets = false;
  bool all_amd = true;
  for (std::size_t i = 0; i + 1 < path.size(); ++i) {
    const Node& via = t.node(t.channel_to(path[i]));
    if (via.kind == NodeKind::cpu) {
      if (!via.cpu->pcie_p2p) return false;
      all_amd = all_amd && via.cpu->vendor == "amd";
    }
    crosses_sockets = crosses_sockets || is_socket_link(t.link(Topology::link_of(path[i])).kind);
  }
  // CUDA reports no peer access across an Intel QPI/UPI link; AMD xGMI carries P2P.
  return !crosses_sockets || all_amd;
}

std::optional<Route> Router::route(NodeId src, NodeId dst, const RouteOptions& options) const {
  if (src >= topo_->nodes().size() || dst >= topo_->nodes().size()) {
    throw std::logic_error("Router::route: node id out of range");
  }
  const Impl::RouteKey key{src, dst, options.allow_p2p, options.allow_nvlink,
                           options.allow_nvlink_relay};
  const std::lock_guard<std::mutex> lock(impl_->cache_mutex);
  auto it = impl_->cache.find(key);
  if (it == impl_->cache.end()) {
    it = impl_->cache.emplace(key, compute_route(src, dst, options)).first;
    ++impl_->routes_computed;
  }
  return it->second;
}

std::vector<std::optional<Route>> Router::routes_from(NodeId src, const std::vector<NodeId>& dsts,
                                                      const RouteOptions& options) const {
  std::vector<std::optional<Route>> out;
  out.reserve(dsts.size());
  for (NodeId dst : dsts) {
    if (src >= topo_->nodes().size() || dst >= topo_->nodes().size()) {
      throw std::logic_error("Router::routes_from: node id out of range");
    }
    out.push_back(compute_route(src, dst, options));
  }
  return out;
}

std::optional<Route> Router::relay_route(NodeId src, NodeId dst) const {
  const Topology& t = *topo_;
  std::vector<std::vector<ChannelId>> best;
  std::size_t best_hops = 0;
  const auto has_nvlink = [&t](NodeId n) {
    const auto out = t.out_channels(n);
    return std::any_of(out.begin(), out.end(), [&t](ChannelId c) {
      return t.link(Topology::link_of(c)).kind == LinkKind::nvlink;
    });
  };
  if (!has_nvlink(src) || !has_nvlink(dst)) return std::nullopt;
  // Only the GPUs that src reaches over NVLink can relay: read them from src's one search
  // rather than trying every GPU of the host, which made a PCIe machine's all-pairs summary
  // cubic in its GPU count.
  const auto [lo, hi] = host_range(t, src);
  std::vector<NodeId> candidates;
  const auto reach =
      impl_->sharing == SearchSharing::per_pair
          ? std::make_shared<const SearchTree>(search_from(
                t, src, impl_->use_of(Search::nvlink_direct), impl_->via_of(Search::nvlink_direct)))
          : impl_->tree(src, Search::nvlink_direct);
  for (const auto& [g, hops] : reach->dist) {
    if (g >= lo && g < hi && g != src && g != dst && t.node(g).kind == NodeKind::gpu) {
      candidates.push_back(g);
    }
  }
  std::sort(candidates.begin(), candidates.end());
  for (NodeId g : candidates) {
    const auto first = impl_->shortest(src, g, Search::nvlink_direct);
    if (first.empty()) continue;
    const auto second = impl_->shortest(g, dst, Search::nvlink_direct);
    if (second.empty()) continue;
    const std::size_t hops = first.front().size() + second.front().size();
    if (!best.empty() && hops > best_hops) continue;
    if (best.empty() || hops < best_hops) {
      best.clear();
      best_hops = hops;
    }
    for (const auto& a : first) {
      for (const auto& b : second) {
        std::vector<ChannelId> both = a;
        both.insert(both.end(), b.begin(), b.end());
        best.push_back(std::move(both));
      }
    }
  }
  if (best.empty()) return std::nullopt;
  std::sort(best.begin(), best.end());
  if (best.size() > kMaxEqualPaths) best.resize(kMaxEqualPaths);
  Route r;
  r.src = src;
  r.dst = dst;
  r.transport = Transport::nvlink_relay;
  r.paths = impl_->weighted(best);
  for (const auto& p : r.paths) {
    for (std::size_t i = 0; i + 1 < p.channels.size(); ++i) {
      const NodeId v = t.channel_to(p.channels[i]);
      if (t.node(v).kind == NodeKind::gpu &&
          std::find(r.relays.begin(), r.relays.end(), v) == r.relays.end()) {
        r.relays.push_back(v);
      }
    }
  }
  std::sort(r.relays.begin(), r.relays.end());
  return r;
}

std::size_t Router::routes_computed() const {
  const std::lock_guard<std::mutex> lock(impl_->cache_mutex);
  return impl_->routes_computed;
}

std::optional<Route> Router::compute_route(NodeId src, NodeId dst,
                                           const RouteOptions& options) const {
  const Topology& t = *topo_;
  Route r;
  r.src = src;
  r.dst = dst;
  if (src == dst) return r;
  const NodeKind sk = t.node(src).kind;
  const NodeKind dk = t.node(dst).kind;
  if (t.is_cluster() && sk == NodeKind::gpu && dk == NodeKind::gpu &&
      t.host_of(src) != t.host_of(dst)) {
    return network_route(src, dst, options);
  }

  // Peer access off means no peer path of any kind: NVLink is peer-to-peer too.
  if (sk == NodeKind::gpu && dk == NodeKind::gpu && options.allow_nvlink && options.allow_p2p) {
    // Through NVSwitches only: direct NVLink (NV#).
    auto direct = impl_->shortest(src, dst, Search::nvlink_direct);
    if (!direct.empty()) {
      r.transport = Transport::nvlink;
      r.paths = impl_->weighted(direct);
      return r;
    }
    if (options.allow_nvlink_relay) {
      if (auto relay = relay_route(src, dst)) return relay;
    }
  }

  const bool src_host = sk == NodeKind::cpu;
  const bool dst_host = dk == NodeKind::cpu;
  auto fabric = impl_->fabric_path(src, dst);
  if (!fabric.empty()) {
    if (src_host || dst_host) {
      r.transport = Transport::pcie;
      r.paths.push_back(impl_->make_path(fabric));
      return r;
    }
    if (options.allow_p2p && p2p_possible(src, dst)) {
      r.transport = Transport::pcie_p2p;
      r.paths.push_back(impl_->make_path(fabric));
      return r;
    }
    // Staged through pinned host memory on the source's socket.
    auto cpu = host_socket(src);
    if (cpu) {
      auto up = impl_->fabric_path(src, *cpu);
      auto down = impl_->fabric_path(*cpu, dst);
      if (!up.empty() && !down.empty()) {
        up.insert(up.end(), down.begin(), down.end());
        r.transport = Transport::host_bounce;
        r.bounce_cpu = cpu;
        r.paths.push_back(impl_->make_path(up));
        return r;
      }
    }
  }

  // Across the network: any links, never relaying through a GPU.
  auto net = shortest_paths(
      t, src, dst, [](ChannelId) { return true; },
      [&t](NodeId n) { return t.node(n).kind != NodeKind::gpu; }, kMaxEqualPaths);
  if (net.empty()) return std::nullopt;
  r.transport = Transport::network;
  r.paths = impl_->weighted(net);
  return r;
}

}  // namespace linksim::topo
