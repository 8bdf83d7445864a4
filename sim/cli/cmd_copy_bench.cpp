// `linksim p2p` and `linksim bandwidth`: the CUDA samples' printouts for a simulated machine,
// taking the samples' own options.
#include <fmt/format.h>

#include <charconv>
#include <iostream>

#include "sim/cli/commands.hpp"
#include "sim/core/error.hpp"
#include "sim/report/copy_bench_data.hpp"
#include "sim/report/copy_bench_table.hpp"
#include "sim/topo/loader.hpp"

namespace linksim::cli {
namespace {

// A whole number from `min` to 4e9, as the samples read their counts (atoi-like, but strict).
double parse_count(const std::string& text, const std::string& what, long long min = 1) {
  long long v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < min || v > 4'000'000'000LL) {
    throw InputError("", "",
                     fmt::format("{}: expected a whole number from {} to 4000000000, got \"{}\"",
                                 what, min, text));
  }
  return static_cast<double>(v);
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
    bool p2p_read = false;
    bool sm_copy = false;
    std::string num_elems;
    std::string format = "table";
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(
      "p2p", "p2pBandwidthLatencyTest's printout (P2P on and off, one and both ways, latency)");
  cmd->add_option("-t,--topology", a->topology, "Machine: a topology file or shipped name")
      ->required();
  cmd->add_flag("--p2p_read", a->p2p_read,
                "Also the P2P Reads matrices (modelled like writes: same links and rates)");
  cmd->add_flag("--sm_copy", a->sm_copy,
                "SM-initiated copies (accepted; modelled like copy-engine copies)");
  cmd->add_option("--numElems", a->num_elems,
                  "4-byte integers per bandwidth copy (default 40000000: 160 MB)");
  add_format_option(cmd, a->format);
  cmd->callback([a] {
    report::P2pTestOptions o;
    o.p2p_read = a->p2p_read;
    o.sm_copy = a->sm_copy;
    if (!a->num_elems.empty()) o.copy_bytes = 4 * parse_count(a->num_elems, "numElems");
    const topo::Topology machine = topo::load_topology(a->topology);
    std::cout << (a->format == "json"  ? report::p2p_test_json(machine, o)
                  : a->format == "csv" ? report::p2p_test_csv(machine, o)
                                       : report::format_p2p_test(machine, o));
  });
}

void register_bandwidth(CLI::App& app) {
  struct Args {
    std::string topology;
    bool csv = false;
    std::string memory = "pinned";
    std::string mode = "quick";
    bool htod = false;
    bool dtoh = false;
    bool dtod = false;
    std::string device = "0";
    std::string start, end, increment;
    bool wc = false;
    bool cputiming = false;
    std::string format = "table";
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("bandwidth", "bandwidthTest's host<->device printout");
  cmd->add_option("-t,--topology", a->topology, "Machine: a topology file or shipped name")
      ->required();
  cmd->add_flag("--csv", a->csv, "Print results as a CSV");
  cmd->add_option("--memory", a->memory, "Memory mode: pinned (pageable is not modelled)");
  cmd->add_option("--mode", a->mode, "quick, range or shmoo")
      ->check(CLI::IsMember({"quick", "range", "shmoo"}));
  cmd->add_flag("--htod", a->htod, "Measure host to device transfers");
  cmd->add_flag("--dtoh", a->dtoh, "Measure device to host transfers");
  cmd->add_flag("--dtod", a->dtod, "Measure device to device transfers");
  cmd->add_option("--device", a->device, "Device number, or all for the cumulative figure");
  cmd->add_option("--start", a->start, "Range mode: starting transfer size in bytes");
  cmd->add_option("--end", a->end, "Range mode: ending transfer size in bytes");
  cmd->add_option("--increment", a->increment, "Range mode: increment size in bytes");
  cmd->add_flag("--wc", a->wc, "Write-combined pinned memory (same DMA rates)");
  cmd->add_flag("--cputiming", a->cputiming, "Accepted; a simulation has one clock");
  add_format_option(cmd, a->format);
  cmd->callback([a] {
    const topo::Topology machine = topo::load_topology(a->topology);
    report::BandwidthTestOptions o;
    if (a->memory == "pageable") {
      throw InputError("", "", "pageable memory transfers are not modelled; use pinned memory");
    }
    if (a->memory != "pinned") {
      throw InputError("", "", fmt::format("memory mode \"{}\": expected pinned", a->memory));
    }
    o.csv = a->csv;
    o.write_combined = a->wc;
    o.mode = a->mode == "range"   ? report::BandwidthTestMode::range
             : a->mode == "shmoo" ? report::BandwidthTestMode::shmoo
                                  : report::BandwidthTestMode::quick;
    // None of the three named: all three, as the sample does.
    const bool any = a->htod || a->dtoh || a->dtod;
    o.htod = !any || a->htod;
    o.dtoh = !any || a->dtoh;
    o.dtod = !any || a->dtod;
    const int gpus = static_cast<int>(machine.count(topo::NodeKind::gpu));
    if (a->device != "all") {
      const double d = parse_count(a->device, "device", 0);
      if (d >= gpus) {
        throw InputError(machine.file, "",
                         fmt::format("device {} does not exist: the machine has GPUs 0 to {}",
                                     a->device, gpus - 1));
      }
      o.device = static_cast<int>(d);
    }
    if (o.mode == report::BandwidthTestMode::range) {
      if (a->start.empty() || a->end.empty() || a->increment.empty()) {
        throw InputError("", "", "range mode needs a start, an end and an increment size");
      }
      o.start_bytes = parse_count(a->start, "start");
      o.end_bytes = parse_count(a->end, "end");
      o.increment_bytes = parse_count(a->increment, "increment");
      if (o.start_bytes > o.end_bytes) {
        throw InputError("", "", "range mode: the start size is greater than the end size");
      }
      if ((o.end_bytes - o.start_bytes) / o.increment_bytes > 100000) {
        throw InputError("", "", "range mode: more than 100000 sizes; take a larger increment");
      }
    }
    std::cout << (a->format == "json"  ? report::bandwidth_test_json(machine, o)
                  : a->format == "csv" ? report::bandwidth_test_csv(machine, o)
                                       : report::format_bandwidth_test(machine, o));
  });
}

}  // namespace

void register_copy_bench(CLI::App& app) {
  register_p2p(app);
  register_bandwidth(app);
}

}  // namespace linksim::cli
