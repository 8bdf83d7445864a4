#pragma once
// The machine every simulation runs on: a topology or cluster file (or a shipped name), scaled to
// N nodes joined by its NICs' fabric (topo/cluster_loader.hpp's scale_out).

#include <string>

#include "sim/topo/topology.hpp"

namespace linksim::app {

// Loads `name_or_path`, then scales it to `nodes` nodes when `nodes` > 0 (1 on a machine file
// keeps it as it is). Throws InputError for bad input.
topo::Topology load_machine(const std::string& name_or_path, int nodes);

}  // namespace linksim::app
