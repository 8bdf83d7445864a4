#include "sim/coll/point_to_point.hpp"

#include "sim/coll/algorithm_registry.hpp"
#include "sim/coll/protocol.hpp"
#include "sim/coll/route_paths.hpp"

namespace linksim::coll {

std::vector<engine::PathShare> add_send_paths(engine::Simulation& sim, const Communicator& pair,
                                              const std::vector<bool>* keep_path) {
  const double hop_s = hop_latency_s(Algorithm::pairwise, Protocol::simple, pair.intra_class());
  return add_route_paths(sim, pair.route(0, 1), hop_s, std::nullopt, keep_path);
}

double send_wire_bytes(double bytes) {
  return bytes / wire_efficiency(Protocol::simple);
}

}  // namespace linksim::coll
