#include "sim/topo/route_search.hpp"

#include <algorithm>
#include <deque>

namespace linksim::topo {

SearchTree search_from(const Topology& topo, NodeId src, const ChannelFilter& use,
                       const NodeFilter& via) {
  SearchTree tree;
  std::deque<NodeId> queue{src};
  tree.dist[src] = 0;
  while (!queue.empty()) {
    const NodeId u = queue.front();
    queue.pop_front();
    const int du = tree.dist[u];
    // Out-channels come in channel order, for determinism.
    for (ChannelId c : topo.out_channels(u)) {
      if (!use(c)) continue;
      const NodeId t = topo.channel_to(c);
      auto [it, fresh] = tree.dist.emplace(t, du + 1);
      if (fresh) {
        tree.pred[t].push_back(c);
        if (via(t)) queue.push_back(t);
      } else if (it->second == du + 1) {
        tree.pred[t].push_back(c);
      }
    }
  }
  return tree;
}

std::vector<std::vector<ChannelId>> paths_in(const Topology& topo, const SearchTree& tree,
                                             NodeId src, NodeId dst, std::size_t max_paths) {
  std::vector<std::vector<ChannelId>> out;
  if (dst == src || tree.dist.count(dst) == 0) return out;
  std::vector<ChannelId> suffix;
  std::function<void(NodeId)> walk = [&](NodeId v) {
    if (out.size() >= max_paths) return;
    if (v == src) {
      out.emplace_back(suffix.rbegin(), suffix.rend());
      return;
    }
    for (ChannelId c : tree.pred.at(v)) {
      suffix.push_back(c);
      walk(topo.channel_from(c));
      suffix.pop_back();
    }
  };
  walk(dst);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::vector<ChannelId>> shortest_paths(const Topology& topo, NodeId src, NodeId dst,
                                                   const ChannelFilter& use, const NodeFilter& via,
                                                   std::size_t max_paths) {
  SearchTree tree;
  std::deque<NodeId> queue{src};
  tree.dist[src] = 0;
  int dst_dist = -1;
  while (!queue.empty()) {
    const NodeId u = queue.front();
    queue.pop_front();
    if (u == dst) continue;
    const int du = tree.dist[u];
    if (dst_dist >= 0 && du >= dst_dist) continue;
    for (ChannelId c : topo.out_channels(u)) {
      if (!use(c)) continue;
      const NodeId t = topo.channel_to(c);
      if (t != dst && !via(t)) continue;  // could not carry the path on
      auto [it, fresh] = tree.dist.emplace(t, du + 1);
      if (fresh) {
        tree.pred[t].push_back(c);
        if (t == dst) dst_dist = du + 1;
        queue.push_back(t);
      } else if (it->second == du + 1) {
        tree.pred[t].push_back(c);
      }
    }
  }
  if (dst_dist < 0) return {};
  return paths_in(topo, tree, src, dst, max_paths);
}

}  // namespace linksim::topo
