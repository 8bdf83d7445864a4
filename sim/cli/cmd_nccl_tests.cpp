// `linksim nccl-tests --topology MACHINE [--np N] BINARY <nccl-tests arguments>`: what an
// nccl-tests binary prints on a simulated machine, byte for byte in nccl-tests 2.19.6's layout.
// The arguments after the binary are the real tool's own (sim/coll/nccl_tests_options.hpp);
// linksim's flags are long ones no nccl-tests flag collides with, so a command line pasted
// from a log runs unchanged. Notes on what is not simulated go to stderr.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>

#include "sim/cli/command_outputs.hpp"
#include "sim/cli/commands.hpp"
#include "sim/cli/gnuplot.hpp"
#include "sim/cli/machine_option.hpp"
#include "sim/cli/progress.hpp"
#include "sim/coll/algorithm_registry.hpp"
#include "sim/coll/host_launch_cost.hpp"
#include "sim/coll/nccl_selection.hpp"
#include "sim/coll/nccl_tests_options.hpp"
#include "sim/coll/sweep.hpp"
#include "sim/core/error.hpp"
#include "sim/report/nccl_tests_table.hpp"
#include "sim/report/plot.hpp"
#include "sim/topo/loader.hpp"
#include "validate/reference_measurements.hpp"

extern char** environ;

namespace linksim::cli {
namespace {

// NCCL_VERSION_CODE of the NCCL release whose tuning tables the model follows (2.30.7,
// ../shared/reference/nccl-model.md), printed as nccl-tests prints its headers and library.
constexpr int kNcclVersionCode = 23007;

struct Args {
  std::string topology;
  int processes = 1;  // --np, as mpirun -np
  int nodes = 0;
  std::string algo;
  std::string proto;
  bool explain = false;
  bool force = false;
  std::string plot;
  std::vector<std::string> also;
};

// NCCL's environment as a real run would see it, narrowed by --algo / --proto (same syntax).
void apply_nccl_environment(const Args& args, coll::SweepSpec& spec) {
  const auto setting = [](const std::string& flag_value, const char* flag, const char* variable,
                          std::string& source) {
    const char* env = std::getenv(variable);
    source = flag_value.empty() ? variable : flag;
    return flag_value.empty() ? std::string(env ? env : "") : flag_value;
  };
  std::string source;
  if (const auto algo = setting(args.algo, "--algo", "NCCL_ALGO", source); !algo.empty()) {
    spec.allowed_algorithms = coll::parse_nccl_algo(algo, source);
  }
  if (const auto proto = setting(args.proto, "--proto", "NCCL_PROTO", source); !proto.empty()) {
    spec.allowed_protocols = coll::parse_nccl_proto(proto, source);
  }
  if (const char* nvls = std::getenv("NCCL_NVLS_ENABLE"); nvls && std::string(nvls) == "0") {
    spec.allowed_algorithms = coll::without_nvls(spec.allowed_algorithms);
  }
}

// The ranks' GPUs: mpirun fills each host's slots in turn, and rank r of process p is
// p x t x g + i (common.cu), so the world is the machine's first np x t x g GPUs.
std::vector<topo::NodeId> world_gpus(const topo::Topology& machine, const Args& args,
                                     const coll::NcclTestsSettings& s) {
  auto gpus = machine.nodes_of(topo::NodeKind::gpu);
  const long long world = static_cast<long long>(args.processes) * s.threads * s.gpus_per_thread;
  if (world > static_cast<long long>(gpus.size())) {
    throw InputError(machine.file, "--np",
                     fmt::format("{} processes x {} threads (-t) x {} GPUs per thread (-g) = {} "
                                 "ranks, but the machine has {} GPUs",
                                 args.processes, s.threads, s.gpus_per_thread, world, gpus.size()));
  }
  gpus.resize(static_cast<std::size_t>(world));
  return gpus;
}

report::NcclTestsRun describe_run(const std::string& binary, const std::vector<std::string>& argv,
                                  const coll::NcclTestsSettings& s,
                                  const coll::Communicator& comm) {
  report::NcclTestsRun run;
  run.program = binary;
  run.argv = argv;
  for (char** e = environ; e && *e; ++e) {
    if (std::string_view(*e).starts_with("NCCL")) run.env.emplace_back(*e);
  }
  std::sort(run.env.begin(), run.env.end());
  run.nccl_version = kNcclVersionCode;
  run.threads = s.threads;
  run.gpus_per_thread = s.gpus_per_thread;
  run.min_bytes = static_cast<long long>(s.min_bytes);
  run.max_bytes = static_cast<long long>(s.max_bytes);
  run.step_factor = s.step_factor;
  run.step_bytes = static_cast<long long>(s.step_bytes);
  run.warmup_iters = s.warmup_iters;
  run.iters = s.iters;
  run.agg_iters = s.agg_iters;
  run.datacheck = s.check;
  run.graph_launches = s.graph_launches;
  run.unalign = s.unalign;
  run.blocking = s.blocking;
  run.per_iter_timing = s.per_iter_timing;
  run.per_iter_skip = s.per_iter_skip;
  run.parallel_init = s.parallel_init;
  run.report_cputime = s.report_cputime != 0;
  if (const char* min_bw = std::getenv("NCCL_TESTS_MIN_BW"))
    run.min_bw_check_GBps = std::atof(min_bw);
  const auto& topo = comm.topology();
  const int per_process = s.threads * s.gpus_per_thread;
  for (int r = 0; r < comm.size(); ++r) {
    report::NcclTestsRank k;
    k.rank = r;
    k.pid = r / per_process;
    // On a cluster each rank runs on its node, numbered as that node numbers its GPUs.
    k.host = topo.is_cluster() ? fmt::format("node{}", comm.host(r)) : topo.name;
    k.device =
        topo.is_cluster() ? comm.gpu_index(r) % topo.cluster->gpus_per_host : comm.gpu_index(r);
    k.bus_id = fmt::format("0000:{:02x}:00", k.device);
    k.gpu_name = topo.node(comm.gpu(r)).model;
    run.ranks.push_back(k);
  }
  return run;
}

// common.cu run(): maxBytes must leave room for the send, receive and (when checking) expected
// buffers in the smallest GPU's memory, after 1 GiB per 16 GiB installed (at most 4 GiB) and
// 1 GiB more are set aside. The GPU memory is the catalog's.
std::optional<long long> memory_limited_max_bytes(const coll::Communicator& comm,
                                                  const coll::NcclTestsSettings& s) {
  double least = 0;
  for (int r = 0; r < comm.size(); ++r) {
    const auto& gpu = comm.topology().node(comm.gpu(r)).gpu;
    const double bytes = gpu ? gpu->memory_bytes : 0;
    if (bytes > 0 && (least == 0 || bytes < least)) least = bytes;
  }
  if (least <= 0) return std::nullopt;
  const long long gib = 1LL << 30;
  const auto mem = static_cast<long long>(least);
  const long long reserve = std::min((mem + 16 * gib - 1) / (16 * gib) * gib, 4 * gib);
  const long long limit = (mem - reserve - gib) / (s.check ? 3 : 2);
  if (s.max_bytes <= static_cast<double>(limit)) return std::nullopt;
  return limit;
}

// The sweep of one data type, reduction and root, as TimeTest runs it.
std::vector<coll::SweepRow> one_test(const coll::Communicator& comm, coll::SweepSpec spec,
                                     const std::string& type, const std::string& op, int root) {
  spec.dtype = type;
  spec.redop = op;
  spec.root = root;
  try {
    return coll::run_sweep(comm, spec);
  } catch (const std::invalid_argument& e) {
    throw InputError(comm.topology().file, "", e.what());
  }
}

// Every TimeTest the binary runs, in its order: types, then reductions (for the ops that take
// one), then roots (-r -1: every rank, for the rooted ops), repeated -N times.
std::vector<coll::SweepRow> all_tests(const coll::Communicator& comm, const coll::SweepSpec& spec,
                                      const coll::NcclTestsSettings& s) {
  const coll::Op op = spec.op;
  const bool takes_op = op == coll::Op::all_reduce || op == coll::Op::reduce_scatter ||
                        op == coll::Op::reduce || op == coll::Op::sendrecv;
  const bool rooted = op == coll::Op::broadcast || op == coll::Op::reduce ||
                      op == coll::Op::scatter || op == coll::Op::gather;
  bool fp8 = true;
  for (int r = 0; r < comm.size(); ++r) {
    const auto& gpu = comm.topology().node(comm.gpu(r)).gpu;
    const std::string arch = gpu ? gpu->architecture : "";
    fp8 = fp8 && (arch == "hopper" || arch == "blackwell");
  }
  const std::vector<std::string> ops =
      takes_op ? coll::nccl_tests_ops(s.op) : std::vector<std::string>{"none"};
  std::vector<int> roots{s.root};
  if (rooted && s.root == -1) {
    roots.clear();
    for (int r = 0; r < comm.size(); ++r)
      roots.push_back(r);
  }
  std::vector<coll::SweepRow> rows;
  for (int cycle = 0; cycle < s.run_cycles; ++cycle) {
    for (const auto& type : coll::nccl_tests_types(s.datatype, fp8)) {
      for (const auto& redop : ops) {
        for (const int root : roots) {
          auto more = one_test(comm, spec, type, redop, root);
          rows.insert(rows.end(), more.begin(), more.end());
        }
      }
    }
  }
  return rows;
}

// nccl-tests' -J: written only for a .json name, and never over an existing file: it probes
// NAME.0, NAME.1, ... (util.cu jsonOutputInit). With --force linksim overwrites NAME instead.
std::string json_destination(const std::string& path, bool force) {
  if (path.empty()) return {};
  const std::filesystem::path p(path);
  std::string ext = p.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ext != ".json") return {};
  if (force || !std::filesystem::exists(p)) return path;
  for (int i = 0;; ++i) {
    const std::string probe = fmt::format("{}.{}", path, i);
    if (!std::filesystem::exists(probe)) return probe;
  }
}

// The sweep the settings ask for, its maximum shrunk to the GPUs' memory as common.cu does
// (noted in `run`), under NCCL's environment.
coll::SweepSpec sweep_spec_of(const Args& args, const coll::NcclTestsSettings& s, coll::Op op,
                              const coll::Communicator& comm, report::NcclTestsRun& run) {
  coll::SweepSpec spec;
  spec.op = op;
  spec.min_bytes = s.min_bytes;
  spec.max_bytes = s.max_bytes;
  if (const auto limit = memory_limited_max_bytes(comm, s)) {
    run.reduced_max_bytes = *limit;
    spec.max_bytes = static_cast<double>(*limit);
    spec.min_bytes = std::min(spec.min_bytes, spec.max_bytes);
  }
  spec.step_factor = s.step_factor > 1 ? static_cast<double>(s.step_factor) : 0;
  spec.step_bytes = s.step_bytes;
  spec.pacing = {.gpus_per_thread = s.gpus_per_thread,
                 .iterations = s.iters,
                 .agg_iters = s.agg_iters,
                 .graph_launches = s.graph_launches,
                 .blocking = s.blocking};
  apply_nccl_environment(args, spec);
  coll::validate_sweep_spec(spec);
  return spec;
}

// --plot: busbw against size, with --also's machines on as many GPUs.
std::string plot_of(const Args& args, const std::string& binary, const topo::Topology& machine,
                    std::size_t ranks, const std::vector<coll::SweepRow>& rows,
                    const coll::SweepSpec& spec) {
  std::vector<report::BusbwSeries> series{{machine.name, rows}};
  for (const auto& other : args.also) {
    const topo::Topology m2 = topo::load_topology(other);
    auto g2 = m2.nodes_of(topo::NodeKind::gpu);
    g2.resize(std::min(g2.size(), ranks));
    try {
      series.push_back({m2.name, coll::run_sweep(coll::Communicator(m2, g2), spec)});
    } catch (const std::invalid_argument& e) {
      throw InputError(m2.file, "", e.what());
    }
  }
  return render_plot(report::busbw_plot_script(binary + " (simulated)", series), args.plot);
}

// The -J file's "linksim" object: that it is simulated, the machine, the launch cost and, on a
// calibrated machine, each result's busbw (GB/s) at the slow and the fast end.
std::string json_extras(const topo::Topology& machine, const std::vector<coll::SweepRow>& rows,
                        const std::optional<coll::SweepRange>& range) {
  std::string ranges;
  for (std::size_t i = 0; range && i < rows.size(); ++i) {
    ranges += fmt::format("{}[{},{}]", i ? "," : "", range->slow.at(i).outcome.busbw_Bps / 1e9,
                          range->fast.at(i).outcome.busbw_Bps / 1e9);
  }
  return fmt::format("{{\"simulated\":true,\"machine\":\"{}\",\"host_launch_per_gpu_us\":{}{}}}",
                     machine.name, coll::host_launch_per_gpu_s(machine) * 1e6,
                     range ? fmt::format(",\"bus_bw_range\":[{}]", ranges) : std::string());
}

void run_nccl_tests(const Args& args, const std::vector<std::string>& words) {
  if (words.empty()) {
    throw InputError("", "argument BINARY",
                     fmt::format("expected an nccl-tests binary: one of {}",
                                 fmt::join(coll::nccl_tests_binaries(), ", ")));
  }
  const std::string binary = std::filesystem::path(words.front()).filename().string();
  const auto op = coll::op_from_nccl_tests_binary(binary);
  if (!op) {
    throw InputError("", "argument BINARY",
                     fmt::format("unknown nccl-tests binary \"{}\"; expected one of {}", binary,
                                 fmt::join(coll::nccl_tests_binaries(), ", ")));
  }
  if (args.processes < 1) throw InputError("", "--np", "expected at least 1 process");
  const std::vector<std::string> rest(words.begin() + 1, words.end());
  const coll::NcclTestsArgs parsed = coll::parse_nccl_tests_args(rest);
  if (parsed.help) {
    std::cout << fmt::format("nccl-tests options linksim reads after {}:\n", binary);
    for (const auto& f : coll::nccl_tests_flags())
      std::cout << fmt::format("  -{},--{:<24} {}\n", f.short_name, f.long_name, f.meaning);
    return;
  }
  const coll::NcclTestsSettings s = coll::read_nccl_tests_settings(parsed);
  CommandOutputs outputs(args.force);
  outputs.claim_picture(args.plot);
  const std::string json_path = json_destination(s.output_file, args.force);
  outputs.claim(json_path);
  const topo::Topology machine = load_machine(args.topology, args.nodes);
  const auto gpus = world_gpus(machine, args, s);
  const coll::Communicator comm(machine, gpus);
  if (s.root >= comm.size()) {
    throw InputError("", "nccl-tests -r",
                     fmt::format("expected a root from -1 to {}", comm.size() - 1));
  }
  report::NcclTestsRun run = describe_run(binary, words, s, comm);
  coll::SweepSpec spec = sweep_spec_of(args, s, *op, comm, run);
  std::vector<coll::SweepRow> rows;
  std::string printed =
      json_path.empty() ? std::string() : fmt::format("# Writing JSON output to {}\n", json_path);
  if (*op == coll::Op::hypercube && (comm.size() & (comm.size() - 1)) != 0) {
    // hypercube.cu runs no test then; the footer divides 0 by 0.
    printed += fmt::format("nRanks {} is not a power of 2, skipping\n", comm.size());
  } else {
    Progress progress(binary, "sizes", 0);
    spec.progress = progress.callback();
    rows = all_tests(comm, spec, s);
    progress.finish();
    spec.progress = nullptr;
  }
  report::RowNotes notes;
  std::string network;
  if (args.explain) {
    for (const auto& row : rows)
      notes.push_back(report::explain_row(row, comm));
    network = report::explain_network(comm);
  }
  printed += report::format_nccl_tests(run, rows, notes, network);
  std::string stderr_text;
  for (const auto& n : s.notes)
    stderr_text += fmt::format("linksim: note: {}\n", n);
  if (args.explain && machine.host_launch.per_gpu_s <= 0) {
    stderr_text += fmt::format(
        "linksim: note: host launch cost {:.1f} us per GPU per launch, the default for {} hosts "
        "({})\n",
        coll::host_launch_per_gpu_s(machine) * 1e6, coll::host_cpu_class(machine),
        coll::host_launch_source(machine));
  }
  // A calibrated machine's ranges, for a run of one test (one type, reduction and root).
  std::optional<coll::SweepRange> range;
  try {
    range = coll::run_sweep_range(machine, gpus, spec);
  } catch (const std::invalid_argument& e) {
    throw InputError(machine.file, "", e.what());
  }
  if (range && range->slow.size() != rows.size()) range.reset();
  if (range) stderr_text += report::format_nccl_tests_range(rows, *range);
  if (!args.plot.empty())
    outputs.put(args.plot, plot_of(args, binary, machine, gpus.size(), rows, spec));
  if (!json_path.empty()) {
    outputs.put(json_path,
                report::nccl_tests_json(run, rows, json_extras(machine, rows, range)) + "\n");
  }
  outputs.put("-", printed);
  std::cerr << stderr_text;
  outputs.write();
}

}  // namespace

void register_nccl_tests(CLI::App& app) {
  auto args = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(
      "nccl-tests",
      "Print what an nccl-tests binary would report on a simulated machine: linksim nccl-tests "
      "--topology MACHINE [--np N] all_reduce_perf -b 8 -e 8G -f 2 -g 8");
  cmd->allow_extras();
  cmd->add_option("--topology", args->topology, "Machine: a topology file or shipped name")
      ->required();
  cmd->add_option("--np", args->processes,
                  "Processes, as mpirun -np gives them (default 1); the ranks are np x -t x -g");
  add_nodes_option(cmd, args->nodes);
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
  cmd->footer(
      "After the binary (all_reduce_perf, all_gather_perf, reduce_scatter_perf, broadcast_perf, "
      "reduce_perf, alltoall_perf, sendrecv_perf, scatter_perf, gather_perf, alltoallv_perf, "
      "hypercube_perf) come nccl-tests' own options, as the real binary reads them: -t -g -b -e "
      "-i -f -n -m -w -N -p -c -o -d -r -z -y -T -G -C -S -J -a -R -x -D -V -M -u -I -K and "
      "their long forms (BINARY --help lists them).");
  cmd->callback([cmd, args] { run_nccl_tests(*args, cmd->remaining()); });
}

}  // namespace linksim::cli
