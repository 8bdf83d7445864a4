#pragma once
// p2pBandwidthLatencyTest's and bandwidthTest's printouts for a simulated machine.

#include <string>

#include "sim/coll/copy_bench.hpp"

namespace linksim::report {

std::string format_p2p_test(const topo::Topology& topo);
std::string format_bandwidth_test(const topo::Topology& topo);

}  // namespace linksim::report
