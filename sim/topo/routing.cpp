#include "sim/topo/routing.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <mutex>
#include <stdexcept>
#include <tuple>

#include "sim/topo/route_search.hpp"

namespace linksim::topo {
namespace {

constexpr std::size_t kMaxEqualPaths = 64;

bool is_nvlink(LinkKind k) {
  return k == LinkKind::nvlink;
}
// The host fabric: PCIe plus socket interconnects and C2C.
bool is_fabric(LinkKind k) {
  return k == LinkKind::pcie || k == LinkKind::upi || k == LinkKind::qpi || k == LinkKind::xgmi ||
         k == LinkKind::soc || k == LinkKind::c2c;
}
bool is_socket_link(LinkKind k) {
  return k == LinkKind::upi || k == LinkKind::qpi || k == LinkKind::xgmi || k == LinkKind::soc;
}

// The nodes of `node`'s host, as a range of ids: a cluster's host is a contiguous block.
std::pair<NodeId, NodeId> host_range(const Topology& t, NodeId node) {
  if (!t.is_cluster() || t.host_of(node) < 0) {
    return {0, static_cast<NodeId>(t.nodes().size())};
  }
  const auto per = static_cast<NodeId>(t.cluster->nodes_per_host);
  const auto first = static_cast<NodeId>(t.host_of(node)) * per;
  return {first, first + per};
}

}  // namespace

std::string_view to_string(PathClass c) {
  switch (c) {
    case PathClass::self:
      return "X";
    case PathClass::nvlink:
      return "NV";
    case PathClass::pix:
      return "PIX";
    case PathClass::pxb:
      return "PXB";
    case PathClass::phb:
      return "PHB";
    case PathClass::node:
      return "NODE";
    case PathClass::sys:
      return "SYS";
  }
  return "?";
}

std::string_view to_string(Transport t) {
  switch (t) {
    case Transport::local:
      return "local";
    case Transport::nvlink:
      return "nvlink";
    case Transport::nvlink_relay:
      return "nvlink-relay";
    case Transport::pcie_p2p:
      return "pcie-p2p";
    case Transport::host_bounce:
      return "host-bounce";
    case Transport::pcie:
      return "pcie";
    case Transport::network:
      return "network";
  }
  return "?";
}

double Route::bandwidth_Bps() const {
  // Each path carries `share` of the bytes at up to its bottleneck: the transfer finishes when
  // the slowest path does, so the aggregate is min over paths of bottleneck / share.
  double bw = 0;
  bool first = true;
  for (const auto& p : paths) {
    if (p.share <= 0) continue;
    const double implied = p.bottleneck_Bps / p.share;
    bw = first ? implied : std::min(bw, implied);
    first = false;
  }
  return bw;
}

double Route::latency_s() const {
  double lat = 0;
  for (const auto& p : paths)
    lat = std::max(lat, p.latency_s);
  return lat;
}

// The link classes a route search may follow, each with the nodes it may pass through.
enum class Search {
  nvlink_direct,  // NVLink, through NVSwitches only (NV#)
  fabric,         // the host fabric, through PCIe switches and CPUs
  to_socket,      // the host fabric, through PCIe switches only (a device's own socket)
};

struct Router::Impl {
  const Topology* topo = nullptr;
  SearchSharing sharing = SearchSharing::per_source;

  // Routes asked for so far, by (src, dst, allow_p2p, allow_nvlink, allow_nvlink_relay); nullopt
  // for unreachable.
  using RouteKey = std::tuple<NodeId, NodeId, bool, bool, bool>;
  mutable std::mutex cache_mutex;
  mutable std::map<RouteKey, std::optional<Route>> cache;
  mutable std::size_t routes_computed = 0;
  mutable std::mutex nic_mutex;
  mutable std::map<NodeId, std::vector<NodeId>> nearest_nics;
  mutable std::mutex socket_mutex;
  mutable std::map<NodeId, std::optional<NodeId>> host_sockets;
  // Per-source search trees, built on first use.
  mutable std::mutex tree_mutex;
  mutable std::map<std::pair<NodeId, Search>, std::shared_ptr<const SearchTree>> trees;

  ChannelFilter use_of(Search s) const {
    if (s == Search::nvlink_direct) return kind_filter(is_nvlink);
    return kind_filter(is_fabric);
  }
  NodeFilter via_of(Search s) const {
    switch (s) {
      case Search::nvlink_direct:
        return [this](NodeId n) { return topo->node(n).kind == NodeKind::nvswitch; };
      case Search::fabric:
        return fabric_via();
      case Search::to_socket:
        return [this](NodeId n) { return topo->node(n).kind == NodeKind::pcie_switch; };
    }
    return fabric_via();
  }

  std::shared_ptr<const SearchTree> tree(NodeId src, Search s) const {
    const std::lock_guard<std::mutex> lock(tree_mutex);
    auto& slot = trees[{src, s}];
    if (!slot) {
      slot = std::make_shared<const SearchTree>(search_from(*topo, src, use_of(s), via_of(s)));
    }
    return slot;
  }

  // Shortest paths of one search class, from the source's shared tree or a search of its own.
  std::vector<std::vector<ChannelId>> shortest(NodeId src, NodeId dst, Search s) const {
    if (sharing == SearchSharing::per_pair) {
      return shortest_paths(*topo, src, dst, use_of(s), via_of(s), kMaxEqualPaths);
    }
    return paths_in(*topo, *tree(src, s), src, dst, kMaxEqualPaths);
  }

  Path make_path(std::vector<ChannelId> channels) const {
    Path p;
    p.bottleneck_Bps = 0;
    bool first = true;
    for (ChannelId c : channels) {
      const Link& l = topo->link(Topology::link_of(c));
      p.latency_s += l.latency_s;
      p.bottleneck_Bps = first ? l.bandwidth_Bps : std::min(p.bottleneck_Bps, l.bandwidth_Bps);
      first = false;
    }
    p.channels = std::move(channels);
    return p;
  }

  // Paths split in proportion to their bottleneck bandwidth.
  std::vector<Path> weighted(const std::vector<std::vector<ChannelId>>& raw) const {
    std::vector<Path> paths;
    double total = 0;
    for (const auto& r : raw) {
      paths.push_back(make_path(r));
      total += paths.back().bottleneck_Bps;
    }
    for (auto& p : paths)
      p.share = total > 0 ? p.bottleneck_Bps / total : 1.0 / paths.size();
    return paths;
  }

  ChannelFilter kind_filter(bool (*pred)(LinkKind)) const {
    return [this, pred](ChannelId c) { return pred(topo->link(Topology::link_of(c)).kind); };
  }

  // Host-fabric paths may pass through PCIe switches and CPUs, never through a GPU or NIC.
  NodeFilter fabric_via() const {
    return [this](NodeId n) {
      const NodeKind k = topo->node(n).kind;
      return k == NodeKind::pcie_switch || k == NodeKind::cpu;
    };
  }

  std::vector<ChannelId> fabric_path(NodeId a, NodeId b) const {
    auto paths = shortest(a, b, Search::fabric);
    if (paths.empty()) return {};
    return paths.front();
  }
};

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
  const auto [lo, hi] = host_range(t, src);
  for (NodeId g = lo; g < hi; ++g) {
    if (g == src || g == dst || t.node(g).kind != NodeKind::gpu) continue;
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

std::optional<Route> Router::network_route(NodeId src, NodeId dst,
                                           const RouteOptions& options) const {
  const Topology& t = *topo_;
  const bool pxn = t.cluster->fabric.nic_choice == NicChoice::pxn && options.allow_nvlink;
  const bool spread = t.cluster->fabric.spine_choice == SpineChoice::spread;
  const auto is_net = [](LinkKind k) {
    return k == LinkKind::infiniband || k == LinkKind::ethernet;
  };
  const auto via_switch = [&t](NodeId n) { return t.node(n).kind == NodeKind::net_switch; };
  const auto dst_nics = nearest_nics(dst);
  const auto own_nics = nearest_nics(src);
  if (dst_nics.empty() || own_nics.empty()) return std::nullopt;
  // The source host's compute NIC on each rail.
  std::map<int, NodeId> src_rail_nic;
  const auto [lo, hi] = host_range(t, src);
  for (NodeId nic = lo; nic < hi; ++nic) {
    if (t.node(nic).kind == NodeKind::nic && t.node(nic).nic->scale_out) {
      src_rail_nic.emplace(t.node(nic).nic->rail, nic);
    }
  }
  Route r;
  r.src = src;
  r.dst = dst;
  r.transport = Transport::network;
  // The bytes split evenly over the destination's nearest NICs (NCCL spreads channels over
  // equally close NICs).
  const double per_dst_nic = 1.0 / static_cast<double>(dst_nics.size());
  for (NodeId dnic : dst_nics) {
    const int rail = t.node(dnic).nic->rail;
    // The source side: a list of (channels to the sending NIC, share).
    std::vector<std::pair<std::vector<ChannelId>, double>> heads;
    NodeId snic = own_nics.front();
    const auto on_rail = std::find_if(own_nics.begin(), own_nics.end(),
                                      [&](NodeId n) { return t.node(n).nic->rail == rail; });
    if (on_rail != own_nics.end()) {
      snic = *on_rail;
      heads.push_back({impl_->fabric_path(src, snic), 1.0});
    } else if (pxn && src_rail_nic.count(rail) != 0) {
      // PXN: over NVLink to the GPU nearest the rail's NIC, which sends.
      const NodeId rail_nic = src_rail_nic.at(rail);
      for (NodeId g = lo; g < hi; ++g) {
        if (t.node(g).kind != NodeKind::gpu || g == src) continue;
        const auto near = nearest_nics(g);
        if (std::find(near.begin(), near.end(), rail_nic) == near.end()) continue;
        const auto hop = compute_route(src, g, options);
        if (!hop || hop->transport != Transport::nvlink) continue;
        const auto down = impl_->fabric_path(g, rail_nic);
        for (const Path& p : hop->paths) {
          auto channels = p.channels;
          channels.insert(channels.end(), down.begin(), down.end());
          heads.push_back({std::move(channels), p.share});
        }
        snic = rail_nic;
        r.proxies.push_back(g);
        break;
      }
    }
    if (heads.empty()) heads.push_back({impl_->fabric_path(src, snic), 1.0});
    auto fabric =
        shortest_paths(t, snic, dnic, impl_->kind_filter(is_net), via_switch, kMaxEqualPaths);
    if (fabric.empty()) return std::nullopt;
    if (!spread && fabric.size() > 1) {
      // ECMP: one path per flow, by a fixed hash of its endpoints (Knuth's multiplicative).
      const std::uint64_t hash = (static_cast<std::uint64_t>(src) * 2654435761u) ^ dst;
      fabric = {fabric[hash % fabric.size()]};
    }
    const auto tail = impl_->fabric_path(dnic, dst);
    for (const auto& [head, head_share] : heads) {
      for (const auto& f : fabric) {
        std::vector<ChannelId> channels = head;
        channels.insert(channels.end(), f.begin(), f.end());
        channels.insert(channels.end(), tail.begin(), tail.end());
        Path p = impl_->make_path(std::move(channels));
        p.share = per_dst_nic * head_share / static_cast<double>(fabric.size());
        r.paths.push_back(std::move(p));
      }
    }
    r.nics.push_back(snic);
    r.nics.push_back(dnic);
  }
  for (auto* v : {&r.nics, &r.proxies}) {
    std::sort(v->begin(), v->end());
    v->erase(std::unique(v->begin(), v->end()), v->end());
  }
  return r;
}

}  // namespace linksim::topo
