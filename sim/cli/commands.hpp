#pragma once
// Each subcommand family registers itself on the root app. Subcommands parse arguments, call
// the library, and format what it returns; they hold no simulation logic.

#include <CLI/CLI.hpp>

namespace linksim::cli {

void register_topo(CLI::App& app);
void register_run_graph(CLI::App& app);
// calibrate/: `linksim calibrate` (measure this node) and `linksim fit` (fit logs).
void register_calibrate(CLI::App& app);
void register_fit(CLI::App& app);

}  // namespace linksim::cli
