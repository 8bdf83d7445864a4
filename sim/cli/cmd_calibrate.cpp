// `linksim fit` (fit logs to a machine) and `linksim calibrate` (measure this node, then fit).
// Both parse arguments, call calibrate/, write files atomically and print the report.
#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "calibrate/cuda_module.hpp"
#include "calibrate/fit_machine.hpp"
#include "calibrate/measured_node.hpp"
#include "calibrate/measurements_json.hpp"
#include "calibrate/probe.hpp"
#include "calibrate/smi_discovery.hpp"
#include "sim/cli/command_outputs.hpp"
#include "sim/cli/commands.hpp"
#include "sim/cli/progress.hpp"
#include "sim/core/error.hpp"

namespace linksim::cli {
namespace {

// --date, else $LINKSIM_CALIBRATION_DATE, else empty ("date not recorded"): never the clock,
// so the same inputs give the same bytes.
std::string resolve_date(const std::string& option) {
  if (!option.empty()) return option;
  if (const char* env = std::getenv("LINKSIM_CALIBRATION_DATE")) return env;
  return "";
}

struct FitArgs {
  std::string topology;
  std::vector<std::string> nccl, p2p, bandwidth, nvbandwidth;
  std::string output;
  std::string date;
  bool force = false;
};

}  // namespace

void register_fit(CLI::App& app) {
  auto args = std::make_shared<FitArgs>();
  auto* cmd = app.add_subcommand(
      "fit", "Fit link latency and bandwidth from measurement logs and write a calibrated machine");
  cmd->add_option("--topology", args->topology,
                  "Machine to calibrate (file or shipped name; one with \"base\" is written "
                  "self-contained)")
      ->required();
  cmd->add_option("--nccl-tests", args->nccl,
                  "nccl-tests output (the printout or its -J JSON, any file name; FILE:BINARY "
                  "names the binary): fits per-operation latency and efficiency scales and the "
                  "host launch cost");
  cmd->add_option("--p2p", args->p2p, "p2pBandwidthLatencyTest output");
  cmd->add_option("--bandwidth-test", args->bandwidth, "bandwidthTest output");
  cmd->add_option("--nvbandwidth", args->nvbandwidth, "nvbandwidth output");
  cmd->add_option("-o,--output", args->output, "Calibrated machine to write")
      ->required()
      ->check(output_file_name());
  cmd->add_option("--date", args->date,
                  "Date recorded in the file (default: $LINKSIM_CALIBRATION_DATE, else none)");
  cmd->add_flag("--force", args->force, "Overwrite the output file");
  add_quiet_flag(cmd);
  cmd->callback([args]() {
    calibrate::FitMachineOptions o;
    o.topology = args->topology;
    o.date = resolve_date(args->date);
    for (const auto& p : args->nccl)
      o.logs.push_back({calibrate::LogFormat::nccl_tests, p});
    for (const auto& p : args->p2p)
      o.logs.push_back({calibrate::LogFormat::p2p_matrix, p});
    for (const auto& p : args->bandwidth)
      o.logs.push_back({calibrate::LogFormat::bandwidth_test, p});
    for (const auto& p : args->nvbandwidth)
      o.logs.push_back({calibrate::LogFormat::nvbandwidth, p});
    if (o.logs.empty()) {
      throw InputError(
          "", "", "no logs given: pass --nccl-tests, --p2p, --bandwidth-test or --nvbandwidth");
    }
    CommandOutputs outputs(args->force);
    outputs.claim(args->output);
    // fit_machine's steps: one per log, the links, then the collectives (the long one).
    const std::size_t logs = o.logs.size();
    Progress progress("fit", "steps", logs + 2);
    progress.update(0, "reading the logs");
    o.progress = [&progress, logs](std::size_t done, std::size_t) {
      progress.update(done, done < logs    ? "reading the logs"
                            : done == logs ? "fitting the links"
                                           : "fitting the collectives through the simulator");
    };
    const auto result = calibrate::fit_machine(o);
    progress.finish();
    outputs.put(args->output, calibrate::serialize_document(result.document));
    outputs.write();
    // With the machine on stdout, the report goes to stderr so that stdout stays one JSON file.
    if (is_stdout(args->output)) {
      std::cerr << calibrate::format_fit_report(result);
    } else {
      std::cout << calibrate::format_fit_report(result);
      std::cout << fmt::format("\nwrote {}\n", args->output);
    }
  });
}

namespace {
struct CalibrateArgs {
  std::string output;
  std::string smi_topo;
  std::string date;
  bool force = false;
  bool quick = false;
};
}  // namespace

void register_calibrate(CLI::App& app) {
  auto args = std::make_shared<CalibrateArgs>();
  auto* cmd = app.add_subcommand(
      "calibrate", "Measure this node's GPUs (CUDA) and write a calibrated machine + measurements");
  cmd->add_option("-o,--output", args->output, "Machine file to write")
      ->required()
      ->check(output_file_name());
  cmd->add_option("--date", args->date,
                  "Date recorded in the files (default: $LINKSIM_CALIBRATION_DATE, else none)");
  cmd->add_flag("--force", args->force, "Overwrite existing output files");
  cmd->add_flag("--quick", args->quick, "Fewer sizes and repeats (seconds instead of minutes)");
  cmd->add_option("--smi-topo", args->smi_topo,
                  "A saved `nvidia-smi topo -m` printout for NVLink discovery (default: run "
                  "nvidia-smi)");
  cmd->callback([args]() {
    // Every destination is checked before minutes of measuring.
    if (is_stdout(args->output)) {
      throw InputError("-", "",
                       "calibrate writes a machine file and its measurements; name a file");
    }
    const std::filesystem::path out(args->output);
    const std::string measurements_path =
        (out.parent_path() / (out.stem().string() + ".measurements.json")).string();
    CommandOutputs outputs(args->force);
    outputs.claim(measurements_path);
    outputs.claim(args->output);
    std::string why_not;
    auto probe = calibrate::load_cuda_probe(why_not);
    if (!probe) {
      fmt::print(stderr, "linksim: calibrate: {}\n", why_not);
      std::exit(kInputErrorExitCode);
    }
    const std::string date = resolve_date(args->date);
    // Before measuring, so that a bad saved printout fails in a second, not after minutes.
    const calibrate::SmiDiscovery discovered = calibrate::discover_smi_matrix(args->smi_topo);
    if (!discovered.note.empty()) std::cout << "note: " << discovered.note << "\n";
    const auto plan = calibrate::default_plan(args->quick);
    const auto measured = probe->run(plan);
    for (const auto& n : measured.notes)
      std::cout << "note: " << n << "\n";

    const auto result = calibrate::fit_measured_node(measured, discovered.matrix,
                                                     {args->output, measurements_path, date});
    outputs.put(measurements_path, calibrate::measurements_to_json(measured, date).dump(2) + "\n");
    outputs.put(args->output, calibrate::serialize_document(result.document));
    outputs.write();
    std::cout << calibrate::format_fit_report(result);
    std::cout << fmt::format("\nwrote {} and {}\n", args->output, measurements_path);
  });
}

}  // namespace linksim::cli
