// `linksim nvbandwidth`: NVIDIA nvbandwidth's output for a simulated machine, taking the tool's
// own options (v0.8's nvbandwidth.cpp main(), its long forms included).
#include <fmt/format.h>

#include <charconv>
#include <iostream>
#include <limits>

#include "sim/cli/command_outputs.hpp"
#include "sim/cli/commands.hpp"
#include "sim/core/error.hpp"
#include "sim/report/nvbandwidth_csv.hpp"
#include "sim/report/nvbandwidth_table.hpp"
#include "sim/topo/loader.hpp"

namespace linksim::cli {
namespace {

constexpr const char* kListHint = " (linksim nvbandwidth -l lists the testcases)";

// A whole number from `min` to `max`, as the tool's unsigned options (strict: no sign, no
// suffix, no fraction).
std::uint64_t parse_whole(const std::string& text, const std::string& what, std::uint64_t min,
                          std::uint64_t max) {
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < min || v > max) {
    throw InputError(
        "", "",
        fmt::format("{}: expected a whole number from {} to {}, got \"{}\"", what, min, max, text));
  }
  return v;
}

// The testcases to run, in order: the named or indexed ones, those with one of the prefixes
// (in the tool's order), or all.
std::vector<std::size_t> select_testcases(const std::vector<std::string>& ids,
                                          const std::vector<std::string>& prefixes) {
  const auto all = coll::nvbandwidth_testcases();
  std::vector<std::size_t> out;
  if (!ids.empty() && !prefixes.empty()) {
    throw InputError(
        "", "", "You cannot specify both testcase and testcasePrefix options at the same time");
  }
  for (const auto& id : ids) {
    const auto found = coll::find_nvbandwidth_testcase(id);
    if (!found.found) {
      throw InputError("", "",
                       (found.by_index ? fmt::format("Testcase index {} out of bound!", id)
                                       : fmt::format("Testcase {} not found!", id)) +
                           kListHint);
    }
    out.push_back(*found.found);
  }
  if (!prefixes.empty()) {
    for (std::size_t i = 0; i < all.size(); ++i) {
      for (const auto& p : prefixes) {
        if (all[i].key.substr(0, p.size()) == p) {
          out.push_back(i);
          break;
        }
      }
    }
    if (out.empty()) {
      throw InputError("", "",
                       std::string("Specified list of testcase prefixes did not match any "
                                   "testcases") +
                           kListHint);
    }
  }
  if (ids.empty() && prefixes.empty()) {
    for (std::size_t i = 0; i < all.size(); ++i)
      out.push_back(i);
  }
  return out;
}

// The run's sizes, bounded by what the machine holds and what the tool's integer arithmetic
// (bytes x copies x 10^6 in 64 bits) can count.
coll::NvbOptions run_options(const topo::Topology& machine, const std::string& buffer_mib,
                             const std::string& samples, const std::string& loops, bool use_mean) {
  coll::NvbOptions o;
  o.use_mean = use_mean;
  o.samples = static_cast<unsigned>(parse_whole(samples, "testSamples", 1, 10000));
  o.loop_count = parse_whole(loops, "loopCount", 1, 1000);
  const std::uint64_t mib = parse_whole(buffer_mib, "bufferSize", 1, 1ull << 30);
  o.buffer_bytes = mib * 1024 * 1024;
  double smallest_gpu_bytes = std::numeric_limits<double>::infinity();
  for (auto g : machine.nodes_of(topo::NodeKind::gpu)) {
    const double m = machine.node(g).gpu->memory_bytes;
    if (m > 0) smallest_gpu_bytes = std::min(smallest_gpu_bytes, m);
  }
  // The bidirectional testcases put two buffers (one of twice the size) on one GPU.
  if (3.0 * static_cast<double>(o.buffer_bytes) > smallest_gpu_bytes) {
    throw InputError(machine.file, "",
                     fmt::format("bufferSize {} MiB: three buffers of it must fit in the "
                                 "smallest GPU's memory, {:.0f} MiB",
                                 mib, smallest_gpu_bytes / (1024 * 1024)));
  }
  if (static_cast<double>(o.buffer_bytes) * static_cast<double>(o.loop_count) * 1e6 >= 1.8e19) {
    throw InputError("", "",
                     fmt::format("bufferSize {} MiB x loopCount {}: more bytes than the tool's "
                                 "64-bit arithmetic counts",
                                 mib, o.loop_count));
  }
  return o;
}

}  // namespace

void register_nvbandwidth(CLI::App& app) {
  struct Args {
    std::string topology;
    std::string buffer_mib = "512";
    std::string samples = "3";
    std::string loops = "16";
    std::vector<std::string> testcases;
    std::vector<std::string> prefixes;
    bool list = false;
    bool verbose = false;
    bool skip_verification = false;
    bool disable_affinity = false;
    bool use_mean = false;
    bool json = false;
    bool perf_formatter = false;
    std::string format = "text";
    TextOutput output;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("nvbandwidth",
                                 "nvbandwidth's printout (CE and SM copies, host and peer "
                                 "matrices), with the tool's options");
  cmd->add_option("--topology", a->topology, "Machine: a topology file or shipped name");
  cmd->add_option("-b,--bufferSize", a->buffer_mib, "Memcpy buffer size in MiB (default 512)");
  cmd->add_flag("-l,--list", a->list, "List available testcases");
  cmd->add_option("-t,--testcase", a->testcases, "Testcase(s) to run (by name or index)");
  cmd->add_option("-p,--testcasePrefixes", a->prefixes, "Testcase(s) to run (by prefix)");
  cmd->add_flag("-v,--verbose", a->verbose, "Verbose output: each sample, MIN, MAX, AVG");
  cmd->add_flag("-s,--skipVerification", a->skip_verification,
                "Accepted; a simulation has no data to verify");
  cmd->add_flag("-d,--disableAffinity", a->disable_affinity,
                "Accepted; host buffers stay on the GPU's own socket");
  cmd->add_option("-i,--testSamples", a->samples, "Iterations of the benchmark (default 3)");
  cmd->add_flag("-m,--useMean", a->use_mean, "Use mean instead of median for results");
  cmd->add_flag("-j,--json", a->json, "Print output in json format instead of plain text");
  cmd->add_option("--loopCount", a->loops,
                  "Iterations of memcpy to be performed within a test sample (default 16)");
  cmd->add_flag("--perfFormatter", a->perf_formatter,
                "Use perf formatter prefix (&&&& PERF) in output");
  cmd->add_option("--format", a->format,
                  "text (the tool's printout), json (as -j) or csv (one row per matrix cell, "
                  "linksim's layout)")
      ->check(CLI::IsMember({"text", "json", "csv"}));
  add_text_output(cmd, a->output);
  cmd->callback([a] {
    if (a->format == "json") a->json = true;
    if (a->json && a->format == "csv") {
      throw InputError("", "--format", "-j asks for JSON and --format csv for CSV; give one");
    }
    write_text(a->output, [&] {
      if (a->list) return report::format_nvbandwidth_list(a->json);
      if (a->topology.empty()) {
        throw InputError("", "", "nvbandwidth needs a machine: --topology NAME");
      }
      const auto selected = select_testcases(a->testcases, a->prefixes);
      const topo::Topology machine = topo::load_topology(a->topology);
      report::NvbandwidthPrintOptions o;
      o.run = run_options(machine, a->buffer_mib, a->samples, a->loops, a->use_mean);
      if (a->format == "csv") return report::nvbandwidth_csv(machine, selected, o.run);
      o.json = a->json;
      o.verbose = a->verbose;
      o.perf_formatter = a->perf_formatter;
      return report::format_nvbandwidth(machine, selected, o);
    });
  });
}

}  // namespace linksim::cli
