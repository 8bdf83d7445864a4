#include "sim/app/nccl_tests_run.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string_view>
#include <system_error>

#include "sim/app/machine.hpp"
#include "sim/coll/communicator.hpp"
#include "sim/coll/host_launch_cost.hpp"
#include "sim/coll/nccl_env.hpp"
#include "sim/coll/nccl_selection.hpp"
#include "sim/core/ascii_case.hpp"
#include "sim/core/error.hpp"
#include "sim/core/nccl_version.hpp"
#include "sim/core/parallel_cases.hpp"
#include "sim/report/nccl_tests_table.hpp"
#include "sim/topo/loader.hpp"

namespace linksim::app {
namespace {

// The release asked for (--nccl-version), else the one the model follows (2.30.7,
// ../shared/reference/nccl-model.md), as NCCL_VERSION_CODE.
int nccl_version_of(const NcclTestsOptions& options) {
  if (options.nccl_version.empty()) return kModelledNcclVersion;
  try {
    return parse_nccl_version(options.nccl_version);
  } catch (const NcclVersionError& e) {
    throw InputError("", "--nccl-version", e.what());
  }
}

// The value of `name` in the run's environment ("" when unset).
std::string environment_value(const NcclTestsOptions& options, std::string_view name) {
  for (const auto& entry : options.environment) {
    if (entry.size() > name.size() && entry.starts_with(name) && entry[name.size()] == '=')
      return entry.substr(name.size() + 1);
  }
  return {};
}

// NCCL's environment as a real run would see it, narrowed by `algo` / `proto` (same syntax).
void apply_nccl_environment(const NcclTestsOptions& options, coll::SweepSpec& spec) {
  // Errors name the variable, or for a list passed in (which the caller may have read from
  // anywhere) what it is.
  const auto setting = [&](const std::string& given, const char* what, const char* variable,
                           std::string& source) {
    source = given.empty() ? variable : what;
    return given.empty() ? environment_value(options, variable) : given;
  };
  std::string source;
  if (const auto algo = setting(options.algo, "the algorithms asked for", "NCCL_ALGO", source);
      !algo.empty()) {
    spec.allowed_algorithms = coll::parse_nccl_algo(algo, source, spec.op);
  }
  if (const auto proto = setting(options.proto, "the protocols asked for", "NCCL_PROTO", source);
      !proto.empty()) {
    spec.allowed_protocols = coll::parse_nccl_proto(proto, source, spec.op);
  }
  if (environment_value(options, "NCCL_NVLS_ENABLE") == "0") {
    spec.allowed_algorithms = coll::without_nvls(spec.allowed_algorithms);
  }
  // NCCL_MIN_NCHANNELS / NCCL_MAX_NCHANNELS: whole numbers from 1 to 64 (MAXCHANNELS), as
  // NCCL reads them (a bad value there is ignored with a warning; here it is an error).
  const auto channels = [&](const char* variable) {
    const std::string text = environment_value(options, variable);
    if (text.empty()) return 0;
    int value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || value < 1 || value > 64) {
      throw InputError(
          "", variable,
          fmt::format("expected a whole number of channels from 1 to 64, not \"{}\"", text));
    }
    return value;
  };
  spec.min_channels = channels("NCCL_MIN_NCHANNELS");
  spec.max_channels = channels("NCCL_MAX_NCHANNELS");
  if (spec.min_channels > 0 && spec.max_channels > 0 && spec.min_channels > spec.max_channels) {
    throw InputError(
        "", "NCCL_MIN_NCHANNELS",
        fmt::format("{} is above NCCL_MAX_NCHANNELS ({})", spec.min_channels, spec.max_channels));
  }
}

// The NCCL variables of the run's environment that linksim does not model, each once, in the
// environment's order: what a real run reads and this one would silently drop.
std::vector<std::string> unmodelled_nccl_variables(const NcclTestsOptions& options) {
  // What changes the simulation (above, and the cluster file's nccl_env), and what changes no
  // timing in a real run either (logging, dumps, nccl-tests' own checks).
  static const std::set<std::string, std::less<>> kRead{
      "NCCL_ALGO",          "NCCL_PROTO",           "NCCL_NVLS_ENABLE",    "NCCL_MIN_NCHANNELS",
      "NCCL_MAX_NCHANNELS", "NCCL_TESTS_MIN_BW",    "NCCL_DEBUG",          "NCCL_DEBUG_SUBSYS",
      "NCCL_DEBUG_FILE",    "NCCL_GRAPH_DUMP_FILE", "NCCL_TOPO_DUMP_FILE", "NCCL_TESTS_SPLIT_MASK",
      "NCCL_TESTS_DEVICE"};
  const auto& modelled = coll::nccl_environment_variables();
  std::vector<std::string> out;
  for (const auto& entry : options.environment) {
    if (!std::string_view(entry).starts_with("NCCL_")) continue;
    const std::string name = entry.substr(0, entry.find('='));
    if (kRead.contains(name)) continue;
    if (std::find(modelled.begin(), modelled.end(), name) != modelled.end()) continue;
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  }
  return out;
}

// The ranks' GPUs: mpirun fills each host's slots in turn, and rank r of process p is
// p x t x g + i (common.cu), so the world is the machine's first np x t x g GPUs.
std::vector<topo::NodeId> world_gpus(const topo::Topology& machine, int processes,
                                     const coll::NcclTestsSettings& s) {
  auto gpus = machine.nodes_of(topo::NodeKind::gpu);
  const long long world = static_cast<long long>(processes) * s.threads * s.gpus_per_thread;
  if (world > static_cast<long long>(gpus.size())) {
    throw InputError(machine.file, "",
                     fmt::format("{} processes x {} threads (-t) x {} GPUs per thread (-g) = {} "
                                 "ranks, but the machine has {} GPUs",
                                 processes, s.threads, s.gpus_per_thread, world, gpus.size()));
  }
  gpus.resize(static_cast<std::size_t>(world));
  return gpus;
}

report::NcclTestsRun describe_run(const NcclTestsOptions& options,
                                  const NcclTestsInvocation& invocation,
                                  const coll::Communicator& comm) {
  const coll::NcclTestsSettings& s = invocation.settings;
  report::NcclTestsRun run;
  run.program = invocation.binary;
  run.argv = invocation.command;
  for (const auto& entry : options.environment) {
    if (std::string_view(entry).starts_with("NCCL")) run.env.push_back(entry);
  }
  std::sort(run.env.begin(), run.env.end());
  run.nccl_version = nccl_version_of(options);
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
  if (const std::string min_bw = environment_value(options, "NCCL_TESTS_MIN_BW"); !min_bw.empty())
    run.min_bw_check_GBps = std::atof(min_bw.c_str());
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
          coll::SweepSpec one = spec;
          one.dtype = type;
          one.redop = redop;
          one.root = root;
          auto more = coll::run_sweep(comm, one);
          rows.insert(rows.end(), more.begin(), more.end());
        }
      }
    }
  }
  return rows;
}

// The sweep the settings ask for, its maximum shrunk to the GPUs' memory as common.cu does
// (noted in `run`), under NCCL's environment.
coll::SweepSpec sweep_spec_of(const NcclTestsOptions& options, const NcclTestsInvocation& inv,
                              const coll::Communicator& comm, report::NcclTestsRun& run) {
  const coll::NcclTestsSettings& s = inv.settings;
  coll::SweepSpec spec;
  spec.op = inv.op;
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
  apply_nccl_environment(options, spec);
  spec.nccl_version = run.nccl_version;
  spec.simulate_every_candidate = options.simulate_every_candidate;
  spec.simulate_every_loop = options.simulate_every_loop;
  spec.threads = threads_for(options.threads);
  // validate_sweep_spec names the sweep's fields ("step size"); here the user gave them as
  // nccl-tests' flags, so its errors name those.
  try {
    coll::validate_sweep_spec(spec);
  } catch (const InputError& e) {
    static const std::map<std::string, char, std::less<>> flag_of{{"minimum size", 'b'},
                                                                  {"maximum size", 'e'},
                                                                  {"step size", 'i'},
                                                                  {"step factor", 'f'},
                                                                  {"data type", 'd'}};
    const auto it = flag_of.find(e.location());
    if (!e.file().empty() || it == flag_of.end()) throw;
    throw InputError("", fmt::format("nccl-tests -{}", it->second), e.message());
  }
  return spec;
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

}  // namespace

NcclTestsInvocation parse_nccl_tests_invocation(const std::string& binary,
                                                const std::vector<std::string>& arguments) {
  NcclTestsInvocation inv;
  inv.binary = std::filesystem::path(binary).filename().string();
  const auto op = coll::op_from_nccl_tests_binary(inv.binary);
  if (!op) {
    throw InputError("", "argument BINARY",
                     fmt::format("unknown nccl-tests binary \"{}\"; expected one of {}", inv.binary,
                                 fmt::join(coll::nccl_tests_binaries(), ", ")));
  }
  inv.op = *op;
  inv.command.push_back(binary);
  inv.command.insert(inv.command.end(), arguments.begin(), arguments.end());
  const coll::NcclTestsArgs parsed = coll::parse_nccl_tests_args(arguments);
  inv.help = parsed.help;
  if (!inv.help) inv.settings = coll::read_nccl_tests_settings(parsed);
  return inv;
}

std::string nccl_tests_help(const NcclTestsInvocation& invocation) {
  std::string out = fmt::format("nccl-tests options linksim reads after {}:\n", invocation.binary);
  for (const auto& f : coll::nccl_tests_flags())
    out += fmt::format("  -{},--{:<24} {}\n", f.short_name, f.long_name, f.meaning);
  return out;
}

NcclTestsResult simulate_nccl_tests(const NcclTestsOptions& options,
                                    const NcclTestsInvocation& invocation,
                                    const std::string& json_path) {
  if (options.processes < 1) {
    throw InputError("", "", "expected at least 1 process (as mpirun -np gives them)");
  }
  const coll::NcclTestsSettings& s = invocation.settings;
  topo::Topology machine = load_machine(options.machine, options.nodes);
  // The user's variables, then what the cluster's network plugin sets (nccl_env), as NCCL reads
  // a variable the plugin set only where the user had not.
  const std::map<std::string, std::string>* plugin_variables =
      machine.is_cluster() ? &machine.cluster->fabric.nccl_env.variables : nullptr;
  std::vector<std::string> env_notes;
  const coll::NcclEnvironment env = coll::read_nccl_environment(
      [&](std::string_view name) {
        std::string text = environment_value(options, name);
        if (text.empty() && plugin_variables) {
          const auto it = plugin_variables->find(std::string(name));
          if (it != plugin_variables->end()) text = it->second;
        }
        return text;
      },
      env_notes);
  if (env.net_gdr_level && machine.is_cluster() &&
      machine.cluster->fabric.gpudirect_rdma != topo::GdrLevel::off) {
    // NCCL_NET_GDR_LEVEL replaces the cluster's gpudirect_rdma level, which is what NCCL's
    // ncclTopoCheckGdr reads (topo/gpudirect.hpp), except "off": hardware without GPUDirect
    // RDMA (gdrSupport 0) has none at any level. On one machine no traffic reaches a NIC.
    auto cluster = std::make_shared<topo::ClusterInfo>(*machine.cluster);
    cluster->fabric.gpudirect_rdma = *env.net_gdr_level;
    machine.cluster = std::move(cluster);
  }
  const auto gpus = world_gpus(machine, options.processes, s);
  const coll::Communicator comm(machine, gpus, {}, env);
  if (s.root >= comm.size()) {
    throw InputError("", "nccl-tests -r",
                     fmt::format("expected a root from -1 to {}", comm.size() - 1));
  }
  report::NcclTestsRun run = describe_run(options, invocation, comm);
  NcclTestsResult result;
  result.machine_name = machine.name;
  result.ranks = gpus.size();
  result.spec = sweep_spec_of(options, invocation, comm, run);
  result.spec.nccl_env = env;
  std::string printed =
      json_path.empty() ? std::string() : fmt::format("# Writing JSON output to {}\n", json_path);
  if (invocation.op == coll::Op::hypercube && (comm.size() & (comm.size() - 1)) != 0) {
    // hypercube.cu runs no test then; the footer divides 0 by 0.
    printed += fmt::format("nRanks {} is not a power of 2, skipping\n", comm.size());
  } else {
    coll::SweepSpec spec = result.spec;
    spec.progress = options.progress;
    result.rows = all_tests(comm, spec, s);
    result.bandwidth_check_failed =
        run.min_bw_check_GBps != -1 &&
        report::nccl_tests_average_busbw_GBps(result.rows) < run.min_bw_check_GBps * 0.9;
  }
  report::RowNotes notes;
  std::string network;
  if (options.explain) {
    for (const auto& row : result.rows)
      notes.push_back(report::explain_row(row, comm));
    network = report::explain_network(comm);
  }
  result.printout = printed + report::format_nccl_tests(run, result.rows, notes, network);
  for (const auto& n : s.notes)
    result.notes += fmt::format("linksim: note: {}\n", n);
  for (const auto& n : env_notes)
    result.notes += fmt::format("linksim: note: {}\n", n);
  for (const auto& name : unmodelled_nccl_variables(options))
    result.notes += fmt::format("linksim: note: {} is not modelled; ignored\n", name);
  if (machine.is_cluster() && !machine.cluster->fabric.nccl_env.empty()) {
    const auto& plugin = machine.cluster->fabric.nccl_env;
    result.notes += fmt::format(
        "linksim: note: the cluster's network plugin sets {} unless already set{}; --proto or "
        "NCCL_PROTO chooses the protocols instead\n",
        topo::env_text(plugin),
        plugin.source.empty() ? std::string() : fmt::format(" ({})", plugin.source));
  }
  if (options.explain && machine.host_launch.per_gpu_s <= 0) {
    result.notes += fmt::format(
        "linksim: note: host launch cost {:.1f} us per GPU per launch, the default for {} hosts "
        "({})\n",
        coll::host_launch_per_gpu_s(machine) * 1e6, coll::host_cpu_class(machine),
        coll::host_launch_source(machine));
  }
  // A calibrated machine's ranges, for a run of one test (one type, reduction and root).
  std::optional<coll::SweepRange> range = coll::run_sweep_range(machine, gpus, result.spec);
  if (range && range->slow.size() != result.rows.size()) range.reset();
  if (range) result.notes += report::format_nccl_tests_range(result.rows, *range);
  if (!json_path.empty()) {
    result.json =
        report::nccl_tests_json(run, result.rows, json_extras(machine, result.rows, range)) + "\n";
  }
  return result;
}

NcclTestsJsonDestination nccl_tests_json_destination(const std::string& path, bool overwrite,
                                                     bool given) {
  namespace fs = std::filesystem;
  NcclTestsJsonDestination out;
  if (!given) return out;
  const fs::path p(path);
  if (ascii_lower(p.extension().string()) != ".json") {
    out.note = fmt::format(
        "linksim: note: -J \"{}\": nothing written; nccl-tests writes JSON only to a file name "
        "ending in .json\n",
        path);
    return out;
  }
  // fopen(FILE, "wx") in util.cu: an existing name (a folder too) moves on to FILE.0, FILE.1,
  // ...; any other failure skips the output.
  std::error_code ec;
  std::string chosen = path;
  if (!overwrite) {
    for (int i = 0; fs::exists(chosen, ec) && !ec; ++i)
      chosen = fmt::format("{}.{}", path, i);
  }
  const fs::path parent =
      fs::path(chosen).parent_path().empty() ? fs::path(".") : fs::path(chosen).parent_path();
  std::string why;
  if (ec) {
    why = ec.message();
  } else if (!fs::is_directory(parent, ec)) {
    why = fmt::format("no folder {}", parent.string());
  } else if (::access(parent.c_str(), W_OK) != 0) {
    why = fmt::format("folder {} is not writable", parent.string());
  } else if (overwrite && fs::is_directory(chosen, ec)) {
    why = "it is a folder";
  }
  if (why.empty()) {
    out.path = chosen;
    return out;
  }
  out.printed_line = fmt::format("# skipping json output; {} not accessible\n", chosen);
  out.note = fmt::format(
      "linksim: note: -J \"{}\": nothing written ({}); nccl-tests skips its JSON output then\n",
      path, why);
  return out;
}

std::vector<report::BusbwSeries> busbw_series_with(const NcclTestsResult& result,
                                                   const std::vector<std::string>& others) {
  std::vector<report::BusbwSeries> series{{result.machine_name, result.rows}};
  for (const auto& other : others) {
    const topo::Topology m2 = topo::load_topology(other);
    auto g2 = m2.nodes_of(topo::NodeKind::gpu);
    g2.resize(std::min(g2.size(), result.ranks));
    series.push_back({m2.name, coll::run_sweep(coll::Communicator(m2, g2, {}, result.spec.nccl_env),
                                               result.spec)});
  }
  return series;
}

}  // namespace linksim::app
