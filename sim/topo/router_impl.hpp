#pragma once
// Private to the Router (routing.cpp, network_route.cpp): its search classes, its caches and
// the path arithmetic both files use. Not for other includers: routing.hpp is the interface.

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "sim/topo/route_search.hpp"
#include "sim/topo/routing.hpp"

namespace linksim::topo {
namespace routing_detail {

inline constexpr std::size_t kMaxEqualPaths = 64;

inline bool is_nvlink(LinkKind k) {
  return k == LinkKind::nvlink;
}
// The host fabric: PCIe plus socket interconnects and C2C.
inline bool is_fabric(LinkKind k) {
  return k == LinkKind::pcie || k == LinkKind::upi || k == LinkKind::qpi || k == LinkKind::xgmi ||
         k == LinkKind::soc || k == LinkKind::c2c;
}
inline bool is_socket_link(LinkKind k) {
  return k == LinkKind::upi || k == LinkKind::qpi || k == LinkKind::xgmi || k == LinkKind::soc;
}

// The nodes of `node`'s host, as a range of ids: a cluster's host is a contiguous block.
inline std::pair<NodeId, NodeId> host_range(const Topology& t, NodeId node) {
  if (!t.is_cluster() || t.host_of(node) < 0) {
    return {0, static_cast<NodeId>(t.nodes().size())};
  }
  const auto per = static_cast<NodeId>(t.cluster->nodes_per_host);
  const auto first = static_cast<NodeId>(t.host_of(node)) * per;
  return {first, first + per};
}

// The link classes a route search may follow, each with the nodes it may pass through.
enum class Search {
  nvlink_direct,  // NVLink, through NVSwitches only (NV#)
  fabric,         // the host fabric, through PCIe switches and CPUs
  to_socket,      // the host fabric, through PCIe switches only (a device's own socket)
};

}  // namespace routing_detail

// The Router's state, shared by its copies: the route cache and the caches it fills lazily.
struct Router::Impl {
  using Search = routing_detail::Search;

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
  // GPUDirect RDMA decisions by (gpu, nic, read), for network_route.cpp: the socket whose
  // memory stages that leg, or nullopt where the NIC moves the GPU's memory directly.
  mutable std::mutex gdr_mutex;
  mutable std::map<std::tuple<NodeId, NodeId, bool>, std::optional<NodeId>> gdr_staging;
  // Shortest paths between two network switches through switches only (network_route.cpp), by
  // (from, to): many NIC pairs hang off the same two switches (a ring's neighbours on one leaf).
  mutable std::mutex switch_paths_mutex;
  mutable std::map<std::pair<NodeId, NodeId>, std::vector<std::vector<ChannelId>>> switch_paths;
  // Per-source search trees, built on first use.
  mutable std::mutex tree_mutex;
  mutable std::map<std::pair<NodeId, Search>, std::shared_ptr<const SearchTree>> trees;

  ChannelFilter use_of(Search s) const {
    if (s == Search::nvlink_direct) return kind_filter(routing_detail::is_nvlink);
    return kind_filter(routing_detail::is_fabric);
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
      return shortest_paths(*topo, src, dst, use_of(s), via_of(s), routing_detail::kMaxEqualPaths);
    }
    return paths_in(*topo, *tree(src, s), src, dst, routing_detail::kMaxEqualPaths);
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

}  // namespace linksim::topo
