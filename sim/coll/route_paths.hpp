#pragma once
// A topology route as engine paths: one engine path per route path, carrying its share of the
// bytes, paying the route's latency plus `extra_latency_s` (a protocol's hop cost), and
// optionally crossing one more channel (a per-sender throughput cap). With `keep_path`, only the
// paths it marks (by index) are added: the planes a lone run keeps (route_planes.hpp).

#include <optional>
#include <vector>

#include "sim/engine/simulation.hpp"
#include "sim/topo/routing.hpp"

namespace linksim::coll {

std::vector<engine::PathShare> add_route_paths(engine::Simulation& sim, const topo::Route& route,
                                               double extra_latency_s = 0,
                                               std::optional<engine::ChannelId> cap = {},
                                               const std::vector<bool>* keep_path = nullptr);

}  // namespace linksim::coll
