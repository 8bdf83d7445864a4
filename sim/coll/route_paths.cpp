#include "sim/coll/route_paths.hpp"

namespace linksim::coll {

std::vector<engine::PathShare> add_route_paths(engine::Simulation& sim, const topo::Route& route,
                                               double extra_latency_s,
                                               std::optional<engine::ChannelId> cap) {
  std::vector<engine::PathShare> out;
  for (const auto& p : route.paths) {
    if (p.share <= 0) continue;
    std::vector<engine::ChannelId> channels(p.channels.begin(), p.channels.end());
    if (cap) channels.push_back(*cap);
    out.push_back({sim.add_path(channels, extra_latency_s + p.latency_s), p.share});
  }
  return out;
}

}  // namespace linksim::coll
