// `linksim nccl-tests --topology MACHINE [--np N] BINARY <nccl-tests arguments>`: what an
// nccl-tests binary prints on a simulated machine, byte for byte in nccl-tests 2.19.6's layout
// (sim/app/nccl_tests_run.hpp does the work). The arguments after the binary are the real
// tool's own (sim/coll/nccl_tests_options.hpp); linksim's flags are long ones no nccl-tests flag
// collides with, so a command line pasted from a log runs unchanged. Notes on what is not
// simulated go to stderr.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iostream>

#include "sim/app/mpi_launcher.hpp"
#include "sim/app/nccl_tests_run.hpp"
#include "sim/cli/command_outputs.hpp"
#include "sim/cli/commands.hpp"
#include "sim/cli/gnuplot.hpp"
#include "sim/cli/machine_option.hpp"
#include "sim/cli/progress.hpp"
#include "sim/cli/whole_number_range.hpp"
#include "sim/coll/algorithm_registry.hpp"
#include "sim/core/error.hpp"
#include "sim/core/nccl_version.hpp"
#include "sim/report/nccl_tests_csv.hpp"
#include "sim/report/plot.hpp"

extern char** environ;

namespace linksim::cli {
namespace {

struct Args {
  app::NcclTestsOptions options;
  bool force = false;
  std::string plot;
  // --topology, repeatable as in run and compare: the first is simulated, the others are drawn
  // beside it (with --also, the older spelling).
  std::vector<std::string> machines;
  std::vector<std::string> also;
  std::string output;           // --output: the printout's destination ("" or "-": stdout)
  std::string format = "text";  // --format: text (nccl-tests' table) or csv
};

// --nccl-version's value: a release parse_nccl_version reads, checked as the option is read.
// An empty one would otherwise pass for no option at all, the modelled release.
CLI::Validator nccl_release() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        try {
          parse_nccl_version(text);
          return "";
        } catch (const NcclVersionError& e) {
          return e.what();
        }
      },
      "");
}

void run_nccl_tests(Args args, const std::vector<std::string>& pasted) {
  // `mpirun -np 16 ... all_reduce_perf ...` pasted whole: the process count, then the command.
  const app::LaunchedCommand launched = app::strip_mpi_launcher(pasted);
  const std::vector<std::string>& words = launched.words;
  if (launched.processes) {
    if (args.options.processes != 1 && args.options.processes != *launched.processes) {
      throw InputError("", "--np",
                       fmt::format("{} processes, but the pasted launcher says -np {}",
                                   args.options.processes, *launched.processes));
    }
    args.options.processes = *launched.processes;
  }
  if (words.empty()) {
    throw InputError("", "argument BINARY",
                     fmt::format("expected an nccl-tests binary: one of {}",
                                 fmt::join(coll::nccl_tests_binaries(), ", ")));
  }
  const app::NcclTestsInvocation invocation = app::parse_nccl_tests_invocation(
      words.front(), std::vector<std::string>(words.begin() + 1, words.end()));
  if (invocation.help) {
    std::cout << app::nccl_tests_help(invocation);
    return;
  }
  if (args.options.processes < 1) throw InputError("", "--np", "expected at least 1 process");
  args.options.machine = args.machines.front();
  args.also.insert(args.also.begin(), args.machines.begin() + 1, args.machines.end());
  CommandOutputs outputs(args.force);
  outputs.claim_picture(args.plot);
  const app::NcclTestsJsonDestination json = app::nccl_tests_json_destination(
      invocation.settings.output_file, args.force, invocation.settings.output_file_given);
  const std::string& json_path = json.path;
  outputs.claim(json_path);
  outputs.claim(args.output);
  for (char** e = environ; e && *e; ++e)
    args.options.environment.emplace_back(*e);
  Progress progress(invocation.binary, "sizes", 0);
  args.options.progress = progress.callback();
  const app::NcclTestsResult result = app::simulate_nccl_tests(args.options, invocation, json_path);
  progress.finish();
  if (!args.plot.empty()) {
    outputs.put(args.plot,
                render_plot(report::busbw_plot_script(invocation.binary + " (simulated)",
                                                      app::busbw_series_with(result, args.also)),
                            args.plot));
  }
  if (!json_path.empty()) outputs.put(json_path, result.json);
  outputs.put(args.output, args.format == "csv" ? report::nccl_tests_csv(result.rows)
                                                : json.printed_line + result.printout);
  std::cerr << json.note << result.notes;
  outputs.write();
  // nccl-tests fails a run whose average bus bandwidth is under 90% of NCCL_TESTS_MIN_BW (its
  // status is non-zero; CI gates rely on it), after printing and writing everything.
  if (result.bandwidth_check_failed) throw CommandFailed{1};
}

}  // namespace

void register_nccl_tests(CLI::App& app) {
  auto args = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(
      "nccl-tests",
      "Print what an nccl-tests binary would report on a simulated machine: linksim nccl-tests "
      "--topology MACHINE [--np N] all_reduce_perf -b 8 -e 8G -f 2 -g 8");
  cmd->allow_extras();
  cmd->add_option("--topology", args->machines,
                  "Machine: a topology file or shipped name; repeated, the others are drawn "
                  "beside the first with --plot")
      ->required()
      ->allow_extra_args(false);  // one value each, so the binary after it stays a binary
  cmd->add_option("--np", args->options.processes,
                  "Processes, as mpirun -np gives them (default 1); the ranks are np x -t x -g");
  add_nodes_option(cmd, args->options.nodes);
  const auto& algorithms = coll::AlgorithmRegistry::builtin();
  cmd->add_option(
      "--algo", args->options.algo,
      fmt::format("Algorithms NCCL may use, in NCCL_ALGO's syntax (a list, or ^list for all but): "
                  "{} (default: $NCCL_ALGO, else any; NCCL_NVLS_ENABLE=0 drops NVLS)",
                  fmt::join(algorithms.names(), ", ")));
  cmd->add_option("--proto", args->options.proto,
                  "Protocols, in NCCL_PROTO's syntax: LL, LL128, Simple (default: $NCCL_PROTO, "
                  "else any)");
  cmd->add_option("--nccl-version", args->options.nccl_version,
                  fmt::format("The NCCL release the run stands for, as 2.18.5 or 21805 (default: "
                              "{}, the release the model follows); printed as nccl-tests prints "
                              "NCCL's version, and followed where releases move data "
                              "differently (how NVLS spreads a message over its channels before "
                              "2.22, a tree's Simple chunk before 2.20)",
                              nccl_version_text(kModelledNcclVersion)))
      ->check(nccl_release());
  cmd->add_flag("--explain", args->options.explain,
                "After each size: the algorithm, protocol, channels and bottleneck link");
  cmd->add_flag("--simulate-candidates", args->options.simulate_every_candidate,
                "Simulate every algorithm and protocol NCCL could run and run the fastest, "
                "instead of the one NCCL's own cost model picks (what the hardware allows, not "
                "what NCCL does)");
  cmd->add_flag("--every-loop", args->options.simulate_every_loop,
                "Simulate every loop of NCCL's chunk pipeline, instead of replaying a repeating "
                "period or following the trend of long partial runs (exact, and slower on large "
                "sizes across nodes)");
  cmd->add_flag("--force", args->force, "Overwrite the -J file, the plot and the --output file");
  cmd->add_option("--output", args->output,
                  "Write the printout here instead of standard output (- is standard output; "
                  "-o after the binary is nccl-tests' reduction op)")
      ->check(output_file_name());
  cmd->add_option("--format", args->format,
                  "text (nccl-tests' table) or csv (one row per size and placement, exact "
                  "figures; linksim's layout)")
      ->check(CLI::IsMember({"text", "csv"}));
  cmd->add_option("--jobs", args->options.threads,
                  "Sizes simulated at once (default: one per core); the output is the same")
      ->check(whole_number_range(1, 1024));
  add_quiet_flag(cmd);
  cmd->add_option("--plot", args->plot, "Draw busbw against size (gnuplot; .png, .svg or .pdf)")
      ->check(output_file_name());
  cmd->add_option("--also", args->also,
                  "More machines to draw beside the first (repeatable; the same as more "
                  "--topology)")
      ->allow_extra_args(false);
  cmd->footer(
      "After the binary (all_reduce_perf, all_gather_perf, reduce_scatter_perf, broadcast_perf, "
      "reduce_perf, alltoall_perf, sendrecv_perf, scatter_perf, gather_perf, alltoallv_perf, "
      "hypercube_perf) come nccl-tests' own options, as the real binary reads them: -t -g -b -e "
      "-i -f -n -m -w -N -p -c -o -d -r -z -y -T -G -C -S -J -a -R -x -D -V -M -u -I -K and "
      "their long forms (BINARY --help lists them).");
  cmd->callback([cmd, args] { run_nccl_tests(*args, cmd->remaining()); });
}

}  // namespace linksim::cli
