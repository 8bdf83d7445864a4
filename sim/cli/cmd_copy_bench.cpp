// `linksim p2p` and `linksim bandwidth`: the CUDA samples' printouts for a simulated machine.
#include <iostream>

#include "sim/cli/commands.hpp"
#include "sim/report/copy_bench_table.hpp"
#include "sim/topo/loader.hpp"

namespace linksim::cli {

void register_copy_bench(CLI::App& app) {
  {
    auto file = std::make_shared<std::string>();
    auto* cmd = app.add_subcommand(
        "p2p", "p2pBandwidthLatencyTest's matrices (P2P on and off, one and both ways, latency)");
    cmd->add_option("-t,--topology", *file, "Machine: a topology file or shipped name")->required();
    cmd->callback([file] { std::cout << report::format_p2p_test(topo::load_topology(*file)); });
  }
  {
    auto file = std::make_shared<std::string>();
    auto* cmd = app.add_subcommand("bandwidth", "bandwidthTest's host<->device figures per GPU");
    cmd->add_option("-t,--topology", *file, "Machine: a topology file or shipped name")->required();
    cmd->callback(
        [file] { std::cout << report::format_bandwidth_test(topo::load_topology(*file)); });
  }
}

}  // namespace linksim::cli
