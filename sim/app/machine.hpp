#pragma once
// The machine every simulation runs on: a topology or cluster file (or a shipped name), scaled to
// N nodes joined by its NICs' fabric (topo/cluster_loader.hpp's scale_out).

#include <optional>
#include <string>

#include "sim/topo/topology.hpp"

namespace linksim::app {

// Loads `name_or_path`, then scales it to `nodes` nodes when `nodes` > 0 (1 on a machine file
// keeps it as it is), then with `price_per_node_hour_usd` prices it at that many dollars per
// node-hour (set_price_per_hour). Throws InputError for bad input.
topo::Topology load_machine(const std::string& name_or_path, int nodes,
                            std::optional<double> price_per_node_hour_usd = std::nullopt);

// A price the user gives (--price-per-hour: negotiated, reserved, spot) instead of the file's
// list price: per node, so a cluster of N nodes costs N times it. A machine that is no cloud
// instance becomes one ("user" provider) to carry it.
void set_price_per_hour(topo::Topology& machine, double usd_per_node_hour);

}  // namespace linksim::app
