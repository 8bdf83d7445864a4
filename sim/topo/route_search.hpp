#pragma once
// Breadth-first route searches over a topology's channels: the fewest-hop paths between two
// nodes through the nodes a link class may pass (sim/topo/routing.hpp chooses the classes).

#include <cstddef>
#include <functional>
#include <unordered_map>
#include <vector>

#include "sim/topo/topology.hpp"

namespace linksim::topo {

using ChannelFilter = std::function<bool(ChannelId)>;
using NodeFilter = std::function<bool(NodeId)>;

// A search from one node: every reached node's hop count, and the channels that arrive on a
// shortest path to it. Nodes that fail `via` are reached (as ends) but not expanded, so the paths
// read from the tree to any destination are exactly those a search aimed at that destination
// finds (shortest_paths below), in the same order.
struct SearchTree {
  std::unordered_map<NodeId, int> dist;
  std::unordered_map<NodeId, std::vector<ChannelId>> pred;
};

// The whole tree from `src` over channels passing `use`, expanding only nodes passing `via`.
SearchTree search_from(const Topology& topo, NodeId src, const ChannelFilter& use,
                       const NodeFilter& via);

// Every shortest path from src to dst in a tree, at most `max_paths` (the first found), sorted;
// empty when dst is src or was not reached.
std::vector<std::vector<ChannelId>> paths_in(const Topology& topo, const SearchTree& tree,
                                             NodeId src, NodeId dst, std::size_t max_paths);

// All shortest paths from src to dst, searching only as far as dst: one search per pair. Sparse:
// it touches only what it reaches (one host, or the fabric's switches), so a route in a cluster
// of thousands of hosts costs what it crosses, not the cluster's size.
std::vector<std::vector<ChannelId>> shortest_paths(const Topology& topo, NodeId src, NodeId dst,
                                                   const ChannelFilter& use, const NodeFilter& via,
                                                   std::size_t max_paths);

}  // namespace linksim::topo
