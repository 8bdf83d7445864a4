// `linksim p2p` and `linksim bandwidth`: the CUDA samples' printouts for a simulated machine,
// taking the samples' own options.
#include <fmt/format.h>

#include <iostream>

#include "sim/app/copy_bench_options.hpp"
#include "sim/cli/command_outputs.hpp"
#include "sim/cli/commands.hpp"
#include "sim/report/copy_bench_data.hpp"
#include "sim/report/copy_bench_table.hpp"
#include "sim/topo/loader.hpp"

namespace linksim::cli {
namespace {

// The CUDA samples see the GPUs of the node they run on: on a cluster, one host (the rest are
// not CUDA devices there, let alone peers). Said on stderr, as the machine named is not the one
// measured.
const topo::Topology& one_host(const topo::Topology& machine) {
  if (!machine.is_cluster()) return machine;
  std::cerr << fmt::format(
      "linksim: note: {} is a cluster; a CUDA sample sees the GPUs of the host it runs on, so "
      "this is one {} host\n",
      machine.name, machine.cluster->host->name);
  return *machine.cluster->host;
}

// --format: the sample's printout (table), or its figures for programs (copy_bench_data.hpp).
void add_format_option(CLI::App* cmd, std::string& format) {
  cmd->add_option("--format", format,
                  "table (the sample's printout), json or csv (its figures in SI units)")
      ->check(CLI::IsMember({"table", "json", "csv"}));
}

void register_p2p(CLI::App& app) {
  struct Args {
    std::string topology;
    app::P2pTestArguments sample;
    std::string format = "table";
    TextOutput output;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(
      "p2p", "p2pBandwidthLatencyTest's printout (P2P on and off, one and both ways, latency)");
  cmd->add_option("-t,--topology", a->topology, "Machine: a topology file or shipped name")
      ->required();
  cmd->add_flag("--p2p_read", a->sample.p2p_read,
                "Also the P2P Reads matrices (modelled like writes: same links and rates)");
  cmd->add_flag("--sm_copy", a->sample.sm_copy,
                "SM-initiated copies (accepted; modelled like copy-engine copies)");
  cmd->add_option("--numElems", a->sample.num_elems,
                  "4-byte integers per bandwidth copy (default 40000000: 160 MB)");
  add_format_option(cmd, a->format);
  add_text_output(cmd, a->output);
  cmd->callback([a] {
    write_text(a->output, [&] {
      const report::P2pTestOptions o = app::p2p_test_options(a->sample);
      const topo::Topology loaded = topo::load_topology(a->topology);
      const topo::Topology& machine = one_host(loaded);
      app::check_p2p_test_machine(machine);
      return a->format == "json"  ? report::p2p_test_json(machine, o)
             : a->format == "csv" ? report::p2p_test_csv(machine, o)
                                  : report::format_p2p_test(machine, o);
    });
  });
}

void register_bandwidth(CLI::App& app) {
  struct Args {
    std::string topology;
    app::BandwidthTestArguments sample;
    bool cputiming = false;
    std::string format = "table";
    TextOutput output;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("bandwidth", "bandwidthTest's host<->device printout");
  cmd->add_option("-t,--topology", a->topology, "Machine: a topology file or shipped name")
      ->required();
  cmd->add_flag("--csv", a->sample.csv, "Print results as a CSV");
  cmd->add_option("--memory", a->sample.memory, "Memory mode: pinned (pageable is not modelled)");
  cmd->add_option("--mode", a->sample.mode, "quick, range or shmoo")
      ->check(CLI::IsMember({"quick", "range", "shmoo"}));
  cmd->add_flag("--htod", a->sample.htod, "Measure host to device transfers");
  cmd->add_flag("--dtoh", a->sample.dtoh, "Measure device to host transfers");
  cmd->add_flag("--dtod", a->sample.dtod, "Measure device to device transfers");
  cmd->add_option("--device", a->sample.device, "Device number, or all for the cumulative figure");
  cmd->add_option("--start", a->sample.start, "Range mode: starting transfer size in bytes");
  cmd->add_option("--end", a->sample.end, "Range mode: ending transfer size in bytes");
  cmd->add_option("--increment", a->sample.increment, "Range mode: increment size in bytes");
  cmd->add_flag("--wc", a->sample.write_combined, "Write-combined pinned memory (same DMA rates)");
  cmd->add_flag("--cputiming", a->cputiming, "Accepted; a simulation has one clock");
  add_format_option(cmd, a->format);
  add_text_output(cmd, a->output);
  cmd->callback([a] {
    write_text(a->output, [&] {
      const topo::Topology loaded = topo::load_topology(a->topology);
      const topo::Topology& machine = one_host(loaded);
      const report::BandwidthTestOptions o = app::bandwidth_test_options(a->sample, machine);
      return a->format == "json"  ? report::bandwidth_test_json(machine, o)
             : a->format == "csv" ? report::bandwidth_test_csv(machine, o)
                                  : report::format_bandwidth_test(machine, o);
    });
  });
}

}  // namespace

void register_copy_bench(CLI::App& app) {
  register_p2p(app);
  register_bandwidth(app);
}

}  // namespace linksim::cli
