// nccl-tests' -J file (src/util.cu json* @a0b82b22, version 3): "args" (argv, the binary first),
// "config" {nthreads, ngpus, iterations, devices[]}, "results"[] {size, count, type, redop,
// root, out_of_place/in_place {time or cpu_time, alg_bw, bus_bw, nwrong}} and
// "average_bus_bandwidth" {bandwidth}.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "calibrate/import_nccl_tests.hpp"
#include "sim/core/error.hpp"
#include "sim/core/json_view.hpp"
#include "sim/core/nccl_version.hpp"
#include "sim/core/units.hpp"

namespace linksim::calibrate {
namespace {

// Most timed iterations a run may claim (-n), as for a text log's "iters:"; 0 says nothing.
constexpr std::int64_t kMaxIterations = 1 << 30;

std::string binary_named_in(const std::string& text) {
  std::string best;
  for (const auto& name : nccl_tests_binaries()) {
    if (text.find(name) != std::string::npos && name.size() > best.size()) best = name;
  }
  return best;
}

// A placement's figures: null (nccl-tests writes it for runs without one) gives nothing. As
// for a text log: a result with wrong values timed a run that did not compute the collective,
// and busbw must be alg_bw x the binary's bus factor (the JSON keeps more digits than the
// text, so within 2% or 0.001 GB/s).
void add_record(const JsonView& result, const char* placement, const std::string& binary, int ranks,
                std::vector<Record>& out) {
  const auto v = result.get(placement);
  if (!v || v->raw().is_null()) return;
  if (const auto wrong = v->get("nwrong"); wrong && wrong->raw().is_number()) {
    const double n = wrong->as_number();
    if (n > 0) {
      wrong->fail(fmt::format("{} wrong results: the run failed validation", n));
    }
  }
  Record r;
  r.variant = placement;
  r.size_bytes = static_cast<double>(result.at("size").as_integer());
  const double time_us = (v->has("time") ? v->at("time") : v->at("cpu_time")).as_number();
  if (!(time_us > 0) || time_us * 1e-6 > units::kMaxTime_s) {
    v->fail(fmt::format("expected a time above 0 us, got {}", time_us));
  }
  r.time_s = time_us * 1e-6;
  const double algbw_GBps = v->at("alg_bw").as_number();
  const double busbw_GBps = v->at("bus_bw").as_number();
  r.bandwidth_Bps = algbw_GBps * 1e9;
  r.bus_bandwidth_Bps = busbw_GBps * 1e9;
  if (const auto off = busbw_mismatch(binary, ranks, algbw_GBps, busbw_GBps, 0.001)) {
    v->at("bus_bw").fail(fmt::format(
        "busbw {} GB/s is not alg_bw {} GB/s x {:.4g} ({}'s bus factor for {} ranks) = {:.2f} "
        "GB/s",
        busbw_GBps, algbw_GBps, off->factor, binary, ranks, off->expected_GBps));
  }
  r.source_file = result.file();
  out.push_back(std::move(r));
}

// config's "nthreads" or "ngpus" (1 when absent): from 1 to kMaxNcclTestsRanks, as the text
// header's nThread and nGpus, so that a huge one is blamed here and not on what the fit
// derives from it.
int rank_factor(const JsonView& config, std::string_view key) {
  const auto v = config.get(key);
  if (!v) return 1;
  const std::int64_t n = v->as_integer();
  if (n < 1) v->fail(fmt::format("expected at least 1, got {}", n));
  if (n > kMaxNcclTestsRanks) {
    v->fail(fmt::format("{} is above the {} linksim accepts", n, kMaxNcclTestsRanks));
  }
  return static_cast<int>(n);
}

// "nccl_version": ncclGetVersion()'s code, such as 22704 for 2.27.4. One that names no release
// linksim knows is damage: fitted as the modelled release, it would be silently wrong.
int nccl_version_field(const JsonView& v) {
  const Json& raw = v.raw();
  const int code = raw.is_number_integer() && raw.get<std::int64_t>() >= 0
                       ? known_nccl_version(std::to_string(raw.get<std::int64_t>()))
                       : 0;
  if (code == 0) {
    v.fail(fmt::format("expected an NCCL_VERSION_CODE such as {} ({}), from {} ({}) on, got {}",
                       kModelledNcclVersion, nccl_version_text(kModelledNcclVersion),
                       kOldestNcclVersion, nccl_version_text(kOldestNcclVersion), raw.dump()));
  }
  return code;
}

// A result's "size", "type" and "redop" as nccl-tests writes them: a byte count from 0 to
// 1e18, one of its type names, and one of its reduction names ("" for hypercube_perf, which
// passes no reduction's name).
void check_result_fields(const JsonView& result, const std::string& binary) {
  const JsonView size = result.at("size");
  const std::int64_t bytes = size.as_integer();
  if (bytes < 0) size.fail(fmt::format("expected a size of at least 0 bytes, got {}", bytes));
  if (static_cast<double>(bytes) > units::kMaxBytes) {
    size.fail(fmt::format("{} bytes is above the 1e18 (1 EB) linksim accepts", bytes));
  }
  if (const auto type = result.get("type")) {
    const std::string name = type->as_string();
    const auto& names = nccl_tests_type_names();
    if (std::find(names.begin(), names.end(), name) == names.end()) {
      type->fail(fmt::format("unknown data type \"{}\"; expected one of {}", name,
                             fmt::join(names, ", ")));
    }
  }
  if (const auto redop = result.get("redop")) {
    const std::string name = redop->as_string();
    const auto& names = nccl_tests_redop_names();
    const bool hypercube_none = name.empty() && binary == "hypercube_perf";
    if (!hypercube_none && std::find(names.begin(), names.end(), name) == names.end()) {
      redop->fail(
          fmt::format("unknown reduction \"{}\"; expected sum, prod, max, min, avg, "
                      "mulsum or none",
                      name));
    }
  }
}

}  // namespace

NcclTestsLog import_nccl_tests_json(const std::string& text, const std::string& file,
                                    const ImportOptions& options) {
  const Json doc = parse_json_text(text, file);
  const JsonView root(doc, file);
  if (root.has("linksim")) {
    root.at("linksim").fail(
        "this is linksim's own -J output (a simulation), not a measurement: fit needs a log from "
        "a real run");
  }
  NcclTestsLog log;
  log.op = options.nccl_tests_binary;
  if (log.op.empty()) {
    if (const auto args = root.get("args"); args && !args->elements().empty()) {
      log.op = binary_named_in(args->elements().front().as_string());
    }
  }
  if (log.op.empty()) log.op = binary_named_in(file);
  if (log.op.empty()) {
    root.fail(
        fmt::format("cannot tell which nccl-tests binary wrote this file: \"args\" names "
                    "none and neither does the file name; give FILE:BINARY (one of {})",
                    fmt::join(nccl_tests_binaries(), ", ")));
  }
  const JsonView config = root.at("config");
  log.threads = rank_factor(config, "nthreads");
  log.gpus_per_thread = rank_factor(config, "ngpus");
  if (const auto iterations = config.get("iterations")) {
    const std::int64_t n = iterations->as_integer();
    if (n < 0 || n > kMaxIterations) {
      iterations->fail(fmt::format("expected an integer from 0 to {}, got {}", kMaxIterations, n));
    }
    log.iterations = static_cast<int>(n);
  }
  if (const auto version = root.get("nccl_version"))
    log.nccl_version = nccl_version_field(*version);
  // The header's counts against the devices and the machine, as for a text log's "#  Rank"
  // lines: each process drives nthreads x ngpus of them.
  const long long per_process =
      static_cast<long long>(log.threads) * static_cast<long long>(log.gpus_per_thread);
  if (per_process > kMaxNcclTestsRanks) {
    config.fail(fmt::format("nthreads x ngpus = {} x {} is above the {} ranks linksim accepts",
                            log.threads, log.gpus_per_thread, kMaxNcclTestsRanks));
  }
  if (options.expected_gpu_count && per_process > *options.expected_gpu_count) {
    config.fail(fmt::format("one process drives {} x {} = {} GPUs but the topology has {}",
                            log.threads, log.gpus_per_thread, per_process,
                            *options.expected_gpu_count));
  }
  const auto devices = config.get("devices");
  log.ranks = devices ? static_cast<int>(devices->elements().size()) : 0;
  if (devices && log.ranks % per_process != 0) {
    devices->fail(fmt::format("{} devices are not a whole number of processes of {} x {} GPUs",
                              log.ranks, log.threads, log.gpus_per_thread));
  }
  if (log.ranks == 0) log.ranks = static_cast<int>(per_process);
  if (options.expected_gpu_count && log.ranks > *options.expected_gpu_count) {
    config.fail(fmt::format("the run used {} GPUs but the topology has {}", log.ranks,
                            *options.expected_gpu_count));
  }
  // One run times each size once per type, reduction and root: a second result for the same
  // is a second run pasted in, which the fit would count twice.
  std::map<std::string, std::string> first_at;
  for (const auto& result : root.at("results").elements()) {
    check_result_fields(result, log.op);
    std::string what = fmt::format("{} B", result.at("size").as_integer());
    for (const char* key : {"type", "redop"}) {
      if (const auto f = result.get(key); f && f->raw().is_string()) what += " " + f->as_string();
    }
    if (const auto f = result.get("root"); f && f->raw().is_number_integer()) {
      what += fmt::format(" root {}", f->as_integer());
    } else if (f && f->raw().is_string()) {  // nccl-tests writes it padded: "    -1"
      std::string root_text = f->as_string();
      root_text.erase(0, root_text.find_first_not_of(' '));
      what += " root " + root_text;
    }
    const auto [it, fresh] = first_at.emplace(what, result.pointer());
    if (!fresh) {
      result.fail(fmt::format("a second result for {} (the first is at {}); give one run per file",
                              what, it->second));
    }
    add_record(result, "out_of_place", log.op, log.ranks, log.records);
    add_record(result, "in_place", log.op, log.ranks, log.records);
  }
  if (log.records.empty()) root.at("results").fail("expected at least one result");
  if (const auto avg = root.get("average_bus_bandwidth")) {
    log.avg_bus_bandwidth_Bps = avg->at("bandwidth").as_number() * 1e9;
  }
  for (auto& r : log.records) {
    r.kind = std::string(kind::nccl_prefix) + log.op;
    r.gpu_count = log.ranks;
    r.gpus_per_thread = log.gpus_per_thread;
    r.iterations = log.iterations;
    r.nccl_version = log.nccl_version;
  }
  return log;
}

}  // namespace linksim::calibrate
