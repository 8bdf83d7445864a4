#pragma once
// Each subcommand family registers itself on the root app. Subcommands parse arguments, call
// the library, and format what it returns; they hold no simulation logic.

#include <CLI/CLI.hpp>

namespace linksim::cli {

// Thrown by a command whose outputs are all written but which must still fail, as the tool it
// stands for would (nccl-tests under a failed NCCL_TESTS_MIN_BW check): main returns
// `exit_code` and prints nothing more.
struct CommandFailed {
  int exit_code = 1;
};

void register_topo(CLI::App& app);
// `linksim topo graphs` (cmd_topo_graphs.cpp), added to the `topo` command by register_topo.
void add_topo_graphs(CLI::App* topo_cmd);
void register_run_graph(CLI::App& app);
// sim/coll: `linksim nccl-tests`, `linksim p2p`, `linksim bandwidth`.
void register_nccl_tests(CLI::App& app);
void register_copy_bench(CLI::App& app);
void register_nvbandwidth(CLI::App& app);  // `linksim nvbandwidth`
void register_accuracy(CLI::App& app);
// sim/work: `linksim run`, `linksim compare`.
void register_run(CLI::App& app);
void register_compare(CLI::App& app);
void register_plan(CLI::App& app);   // `linksim plan`
void register_sweep(CLI::App& app);  // `linksim sweep` (cmd_sweep.cpp)
// calibrate/: `linksim calibrate` (measure this node) and `linksim fit` (fit logs).
void register_calibrate(CLI::App& app);
void register_fit(CLI::App& app);
void register_tune(CLI::App& app);  // `linksim tune`: NCCL tuner plugin file (cmd_tune.cpp)
// `linksim completion bash`: made from the registered commands, so it is registered last.
void register_completion(CLI::App& app);

}  // namespace linksim::cli
