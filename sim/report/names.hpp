#pragma once
// Names for channels of a topology, for reports: "gpu0->nvswitch2 (NVLink 3 x2)".

#include <string>
#include <vector>

#include "sim/topo/topology.hpp"

namespace linksim::report {

std::vector<std::string> channel_names(const topo::Topology& topology);

}  // namespace linksim::report
