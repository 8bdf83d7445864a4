#pragma once
// The machine every command that simulates one takes: a topology or cluster file (or a shipped
// name), and `--nodes N` to run it on N nodes (topo/cluster_loader.hpp's scale_out).

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "sim/topo/topology.hpp"

namespace linksim::cli {

// Adds `--nodes N` to `cmd`, writing into `nodes` (0: as the file says).
void add_nodes_option(CLI::App* cmd, int& nodes);

// Adds `--price-per-hour X` to `cmd` (dollars per node-hour, app::set_price_per_hour).
void add_price_option(CLI::App* cmd, std::optional<double>& price);

// Loads `name_or_path`, then scales it to `nodes` nodes when `nodes` > 0, and prices it.
topo::Topology load_machine(const std::string& name_or_path, int nodes,
                            std::optional<double> price_per_node_hour_usd = std::nullopt);

}  // namespace linksim::cli
