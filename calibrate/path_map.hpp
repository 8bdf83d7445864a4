#pragma once
// Where a measurement's bytes go in a machine: the routes (sim/topo/routing) that a record's
// transfer takes, and the time the machine's link figures predict for it:
//   t = sum of latencies along the path + size / bottleneck bandwidth,
// with a route's bytes split over its equal-cost paths, and a bidirectional copy run as two
// flows that share any channel they both cross.
//
//   h2d on GPU g        -> route(host socket of g, g)
//   d2h on GPU g        -> route(g, host socket of g)
//   p2p a -> b          -> route(a, b), peer-to-peer allowed only when the record says P2P was on
//                          (so P2P=Disabled measures the host bounce)
//   p2p_bidi a <-> b    -> route(a, b) and route(b, a) at once
//   p2p_latency a -> b  -> route(a, b) at the record's size (1 byte)

#include <optional>
#include <vector>

#include "calibrate/record.hpp"
#include "calibrate/series.hpp"
#include "sim/topo/routing.hpp"
#include "sim/topo/topology.hpp"

namespace linksim::calibrate {

// The flows of a record or series (one, or two for p2p_bidi); nullopt when the kind is not a
// link transfer or the machine has no route. Throws InputError (naming the record's file and
// line) for a GPU index the machine does not have.
std::optional<std::vector<topo::Route>> routes_for(const topo::Router& router, const Record& r);
std::optional<std::vector<topo::Route>> routes_for(const topo::Router& router, const SeriesKey& k);

// Time for `size_bytes` on each flow, all running at once: the slowest flow's time.
double predict_time_s(const topo::Topology& topology, const std::vector<topo::Route>& flows,
                      double size_bytes);

}  // namespace linksim::calibrate
