// `linksim nccl-tests BINARY -t MACHINE ...`: nccl-tests' table for a simulated machine.
#include <fmt/format.h>

#include <cstdlib>
#include <iostream>

#include "sim/cli/command_outputs.hpp"
#include "sim/cli/commands.hpp"
#include "sim/cli/gnuplot.hpp"
#include "sim/cli/machine_option.hpp"
#include "sim/cli/progress.hpp"
#include "sim/coll/algorithm_registry.hpp"
#include "sim/coll/nccl_selection.hpp"
#include "sim/coll/sweep.hpp"
#include "sim/core/error.hpp"
#include "sim/report/nccl_tests_table.hpp"
#include "sim/report/plot.hpp"
#include "sim/topo/loader.hpp"
#include "validate/accuracy_report.hpp"
#include "validate/reference_measurements.hpp"

namespace linksim::cli {

void register_nccl_tests(CLI::App& app) {
  struct Args {
    std::string binary;
    std::string topology;
    std::string min_bytes = "32M";
    std::string max_bytes = "32M";
    double factor = 0;
    std::string step = "1M";
    int gpus = 0;
    int nodes = 0;
    std::string dtype = "float";
    std::string redop = "sum";
    int root = 0;
    std::string json_out;
    std::string algo;
    std::string proto;
    int gpus_per_thread = 0;
    int iterations = 20;
    bool explain = false;
    bool force = false;
    std::string plot;
    std::vector<std::string> also;
  };
  auto args = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(
      "nccl-tests", "Print what an nccl-tests binary would report on a simulated machine");
  cmd->add_option("binary", args->binary,
                  "all_reduce_perf, all_gather_perf, reduce_scatter_perf, broadcast_perf, "
                  "reduce_perf, alltoall_perf or sendrecv_perf")
      ->required();
  cmd->add_option("-t,--topology", args->topology, "Machine: a topology file or shipped name")
      ->required();
  cmd->add_option("-b,--minbytes", args->min_bytes, "Smallest size (K/M/G = 1024^n)");
  cmd->add_option("-e,--maxbytes", args->max_bytes, "Largest size");
  cmd->add_option("-f,--stepfactor", args->factor, "Multiply the size by this each step");
  cmd->add_option("-i,--stepbytes", args->step, "Add this to the size each step (without -f)");
  cmd->add_option("-g,--ngpus", args->gpus, "GPUs taking part (default: all of the machine)");
  add_nodes_option(cmd, args->nodes);
  cmd->add_option("-n,--iters", args->iterations,
                  "Timed iterations (nccl-tests -n, default 20): with a calibrated host_launch, "
                  "the launches of one iteration overlap the GPUs' work of another");
  cmd->add_option("--gpus-per-thread", args->gpus_per_thread,
                  "GPUs one host thread drives (default: all, a single-process -g N run; 1 for "
                  "mpirun -np N ... -g 1). Matters on machines with a calibrated host_launch");
  cmd->add_option("-d,--datatype", args->dtype, "Data type (float, half, bfloat16, ...)");
  cmd->add_option("-o,--op", args->redop, "Reduction: sum, prod, max, min, avg");
  cmd->add_option("-r,--root", args->root, "Root rank for broadcast and reduce");
  cmd->add_option("-J,--output_file", args->json_out, "Also write the results as JSON");
  const auto& algorithms = coll::AlgorithmRegistry::builtin();
  cmd->add_option(
      "--algo", args->algo,
      fmt::format("Algorithms NCCL may use, in NCCL_ALGO's syntax (a list, or ^list for all but): "
                  "{} (default: $NCCL_ALGO, else any; NCCL_NVLS_ENABLE=0 drops NVLS)",
                  fmt::join(algorithms.names(), ", ")));
  cmd->add_option("--proto", args->proto,
                  "Protocols, in NCCL_PROTO's syntax: LL, LL128, Simple (default: $NCCL_PROTO, "
                  "else any)");
  cmd->add_flag("--explain", args->explain,
                "After each size: the algorithm, protocol, channels and bottleneck link");
  cmd->add_flag("--force", args->force, "Overwrite the -J file and the plot");
  add_quiet_flag(cmd);
  cmd->add_option("--plot", args->plot, "Draw busbw against size (gnuplot; .png, .svg or .pdf)");
  cmd->add_option("--also", args->also, "More machines to draw beside the first (repeatable)");
  cmd->callback([args] {
    CommandOutputs outputs(args->force);
    outputs.claim_picture(args->plot);
    outputs.claim(args->json_out);
    const auto op = coll::op_from_nccl_tests_binary(args->binary);
    if (!op) {
      throw InputError("", "argument BINARY",
                       fmt::format("unknown nccl-tests binary \"{}\"; expected one of {}",
                                   args->binary, fmt::join(coll::nccl_tests_binaries(), ", ")));
    }
    const topo::Topology machine = load_machine(args->topology, args->nodes);
    auto gpus = machine.nodes_of(topo::NodeKind::gpu);
    const int want = args->gpus == 0 ? static_cast<int>(gpus.size()) : args->gpus;
    if (want < 1 || want > static_cast<int>(gpus.size())) {
      throw InputError(machine.file, "-g",
                       fmt::format("expected 1 to {} GPUs (the machine has {}), got {}",
                                   gpus.size(), gpus.size(), want));
    }
    gpus.resize(static_cast<std::size_t>(want));
    coll::SweepSpec spec;
    spec.op = *op;
    auto parse_size = [](const std::string& text, const char* flag) {
      auto v = coll::parse_nccl_size(text);
      if (!v) {
        throw InputError("", flag,
                         fmt::format("expected a size such as 8, 64K, 8G, got \"{}\"", text));
      }
      return *v;
    };
    spec.min_bytes = parse_size(args->min_bytes, "-b");
    spec.max_bytes = parse_size(args->max_bytes, "-e");
    spec.step_factor = args->factor;
    spec.step_bytes = parse_size(args->step, "-i");
    spec.dtype = args->dtype;
    spec.redop = args->redop;
    spec.root = args->root;
    coll::validate_sweep_spec(spec);
    if (spec.root < 0 || spec.root >= want) {
      throw InputError("", "-r", fmt::format("expected a root from 0 to {}", want - 1));
    }
    // NCCL's environment, as a real nccl-tests run would see it; --algo and --proto (same
    // syntax) take precedence.
    // A flag's value, else the environment variable's; `source` says which, for errors.
    const auto setting = [](const std::string& flag_value, const char* flag, const char* variable,
                            std::string& source) {
      const char* env = std::getenv(variable);
      source = flag_value.empty() ? variable : flag;
      return flag_value.empty() ? std::string(env ? env : "") : flag_value;
    };
    std::string source;
    if (const auto algo = setting(args->algo, "--algo", "NCCL_ALGO", source); !algo.empty()) {
      spec.allowed_algorithms = coll::parse_nccl_algo(algo, source);
    }
    if (const auto proto = setting(args->proto, "--proto", "NCCL_PROTO", source); !proto.empty()) {
      spec.allowed_protocols = coll::parse_nccl_proto(proto, source);
    }
    if (const char* nvls = std::getenv("NCCL_NVLS_ENABLE"); nvls && std::string(nvls) == "0") {
      spec.allowed_algorithms = coll::without_nvls(spec.allowed_algorithms);
    }
    if (args->gpus_per_thread < 0 || args->gpus_per_thread > want ||
        (args->gpus_per_thread > 0 && want % args->gpus_per_thread != 0)) {
      throw InputError(
          "", "--gpus-per-thread",
          fmt::format("expected a divisor of the {} GPUs taking part, from 1 to {}", want, want));
    }
    spec.gpus_per_thread = args->gpus_per_thread;
    if (args->iterations < 1) throw InputError("", "-n", "expected at least 1 iteration");
    spec.iterations = args->iterations;
    const coll::Communicator comm(machine, gpus);
    std::vector<coll::SweepRow> rows;
    Progress progress(args->binary, "sizes", 0);
    spec.progress = progress.callback();
    try {
      rows = coll::run_sweep(comm, spec);
    } catch (const std::invalid_argument& e) {
      throw InputError(machine.file, "", e.what());
    }
    report::NcclTestsHeader header;
    header.binary = args->binary;
    header.machine = machine.name;
    for (auto g : gpus)
      header.gpu_models.push_back(machine.node(g).model);
    header.min_bytes = spec.min_bytes;
    header.max_bytes = spec.max_bytes;
    header.step_factor = spec.step_factor;
    header.step_bytes = spec.step_bytes;
    header.gpus_per_thread = static_cast<std::size_t>(spec.gpus_per_thread);
    header.iterations = spec.iterations;
    std::string table = report::format_nccl_tests(header, rows, comm, args->explain);
    progress.finish();
    spec.progress = nullptr;  // the range and --also sweeps repeat it, quickly
    std::optional<coll::SweepRange> range;
    try {
      range = coll::run_sweep_range(machine, gpus, spec);
    } catch (const std::invalid_argument& e) {
      throw InputError(machine.file, "", e.what());
    }
    if (range) table += report::format_nccl_tests_range(rows, *range);
    if (!args->plot.empty()) {
      std::vector<report::BusbwSeries> series{{machine.name, rows}};
      for (const auto& other : args->also) {
        const topo::Topology m2 = topo::load_topology(other);
        auto g2 = m2.nodes_of(topo::NodeKind::gpu);
        g2.resize(std::min(g2.size(), gpus.size()));
        try {
          series.push_back({m2.name, coll::run_sweep(coll::Communicator(m2, g2), spec)});
        } catch (const std::invalid_argument& e) {
          throw InputError(m2.file, "", e.what());
        }
      }
      outputs.put(args->plot,
                  render_plot(report::busbw_plot_script(args->binary + " (simulated)", series),
                              args->plot));
    }
    if (!args->json_out.empty()) {
      outputs.put(args->json_out,
                  report::nccl_tests_json(header, rows, range ? &*range : nullptr).dump(2) + "\n");
    }
    outputs.put("-", table);
    outputs.write();
  });
}

void register_accuracy(CLI::App& app) {
  auto reference = std::make_shared<std::string>(validate::default_measurements_path());
  auto output = std::make_shared<std::string>();
  auto force = std::make_shared<bool>(false);
  auto* cmd = app.add_subcommand(
      "accuracy", "Predicted against measured nccl-tests busbw on the reference machines");
  cmd->add_option("--reference", *reference, "measurements.json with the reference runs");
  cmd->add_option("-o,--output", *output, "Write the Markdown report here (default: stdout)");
  cmd->add_flag("--force", *force, "Overwrite the output file");
  cmd->callback([=] {
    CommandOutputs outputs(*force);
    outputs.claim(*output);
    outputs.put(*output, validate::format_accuracy_markdown(validate::evaluate_accuracy(
                             validate::load_nccl_tests_records(*reference))));
    outputs.write();
  });
}

}  // namespace linksim::cli
