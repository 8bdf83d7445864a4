// nccl-tests' -J file (src/util.cu json* @a0b82b22, version 3): "args" (argv, the binary first),
// "config" {nthreads, ngpus, iterations, devices[]}, "results"[] {size, count, type, redop,
// root, out_of_place/in_place {time or cpu_time, alg_bw, bus_bw, nwrong}} and
// "average_bus_bandwidth" {bandwidth}.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <string>

#include "calibrate/import_nccl_tests.hpp"
#include "sim/core/error.hpp"
#include "sim/core/json_view.hpp"
#include "sim/core/units.hpp"

namespace linksim::calibrate {
namespace {

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
  log.threads = static_cast<int>(config.integer_or("nthreads", 1));
  log.gpus_per_thread = static_cast<int>(config.integer_or("ngpus", 1));
  log.iterations = static_cast<int>(config.integer_or("iterations", 0));
  if (const auto version = root.get("nccl_version");
      version && version->raw().is_number_integer()) {
    log.nccl_version = known_nccl_version(std::to_string(version->as_integer()));
  }
  const auto devices = config.get("devices");
  log.ranks = devices ? static_cast<int>(devices->elements().size()) : 0;
  if (log.ranks == 0) log.ranks = log.threads * log.gpus_per_thread;
  if (log.threads < 1 || log.gpus_per_thread < 1) {
    config.fail("expected nthreads and ngpus of at least 1");
  }
  if (options.expected_gpu_count && log.ranks > *options.expected_gpu_count) {
    config.fail(fmt::format("the run used {} GPUs but the topology has {}", log.ranks,
                            *options.expected_gpu_count));
  }
  // One run times each size once per type, reduction and root: a second result for the same
  // is a second run pasted in, which the fit would count twice.
  std::map<std::string, std::string> first_at;
  for (const auto& result : root.at("results").elements()) {
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
