#include "sim/coll/route_paths.hpp"

namespace linksim::coll {

std::vector<engine::PathShare> add_route_paths(engine::Simulation& sim, const topo::Route& route,
                                               double extra_latency_s,
                                               std::optional<engine::ChannelId> cap,
                                               const std::vector<bool>* keep_path) {
  std::vector<engine::PathShare> out;
  for (std::size_t k = 0; k < route.paths.size(); ++k) {
    const topo::Path& p = route.paths[k];
    if (p.share <= 0 || (keep_path && !(*keep_path)[k])) continue;
    std::vector<engine::ChannelId> channels(p.channels.begin(), p.channels.end());
    if (cap) channels.push_back(*cap);
    out.push_back({sim.add_path(channels, extra_latency_s + p.latency_s), p.share});
  }
  return out;
}

}  // namespace linksim::coll
