#include "sim/coll/sweep.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <map>
#include <stdexcept>
#include <utility>

#include "sim/core/error.hpp"
#include "sim/topo/uncertainty.hpp"

namespace linksim::coll {

int dtype_bytes(const std::string& dtype) {
  static const std::map<std::string, int> sizes{
      {"int8", 1},  {"uint8", 1},  {"f8e4m3", 1}, {"f8e5m2", 1}, {"half", 2},   {"bfloat16", 2},
      {"int32", 4}, {"uint32", 4}, {"float", 4},  {"int64", 8},  {"uint64", 8}, {"double", 8}};
  auto it = sizes.find(dtype);
  return it == sizes.end() ? 0 : it->second;
}

std::optional<double> parse_nccl_size(const std::string& text) {
  if (text.empty()) return std::nullopt;
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  std::string suffix = text.substr(used);
  double mult = 1;
  if (suffix == "K" || suffix == "k")
    mult = 1024.0;
  else if (suffix == "M" || suffix == "m")
    mult = 1024.0 * 1024;
  else if (suffix == "G" || suffix == "g")
    mult = 1024.0 * 1024 * 1024;
  else if (!suffix.empty())
    return std::nullopt;
  if (!(v >= 0) || !std::isfinite(v)) return std::nullopt;
  return std::floor(v * mult);
}

Outcome with_host_launch_floor(Outcome o, const topo::Topology& machine, int gpus_per_thread,
                               int iterations, double size_bytes) {
  const double launch_s = gpus_per_thread * machine.host_launch.per_gpu_s;
  if (launch_s <= 0 || o.time_s <= 0) return o;
  const double n = std::max(iterations, 1);
  const double t = std::max(launch_s, o.time_s) + std::min(launch_s, o.time_s) / n;
  o.host_bound = launch_s > o.time_s;
  o.busbw_Bps *= o.time_s / t;
  o.time_s = t;
  o.algbw_Bps = size_bytes / t;
  return o;
}

std::size_t sweep_row_count(const SweepSpec& spec) {
  if (spec.min_bytes > spec.max_bytes) return 0;
  if (spec.step_factor > 1) {
    if (spec.min_bytes <= 0) return 1;  // a zero start never grows: one row
    std::size_t rows = 0;
    for (double size = spec.min_bytes; size <= spec.max_bytes && rows <= kMaxSweepRows;
         size *= spec.step_factor) {
      ++rows;
    }
    return rows;
  }
  if (!(spec.step_bytes > 0)) return kMaxSweepRows + 1;
  const double steps = std::floor((spec.max_bytes - spec.min_bytes) / spec.step_bytes);
  return steps >= static_cast<double>(kMaxSweepRows) ? kMaxSweepRows + 1
                                                     : static_cast<std::size_t>(steps) + 1;
}

void validate_sweep_spec(const SweepSpec& spec) {
  const auto fail = [](const char* field, const std::string& message) {
    throw InputError("", field, message);
  };
  const double f = spec.step_factor;
  if (f != 0 && !(std::isfinite(f) && f >= 2 && f == std::floor(f) && f <= 1e6)) {
    fail("step factor", fmt::format("expected an integer from 2 to 1000000, got {}", f));
  }
  for (const auto& [field, v] :
       {std::pair{"minimum size", spec.min_bytes}, std::pair{"maximum size", spec.max_bytes}}) {
    if (!(std::isfinite(v) && v >= 0)) fail(field, fmt::format("expected bytes >= 0, got {}", v));
  }
  if (spec.max_bytes > kMaxSweepBytes) {
    fail("maximum size", fmt::format("{} bytes is above the 64 GiB ({} bytes) a sweep may reach",
                                     spec.max_bytes, kMaxSweepBytes));
  }
  if (spec.min_bytes > spec.max_bytes) {
    fail("minimum size", fmt::format("{} bytes exceeds the maximum size, {} bytes", spec.min_bytes,
                                     spec.max_bytes));
  }
  if (f == 0 && !(std::isfinite(spec.step_bytes) && spec.step_bytes > 0)) {
    fail("step size", fmt::format("expected a step above 0 bytes, got {}", spec.step_bytes));
  }
  if (dtype_bytes(spec.dtype) == 0) {
    fail("data type", fmt::format("unknown data type \"{}\"", spec.dtype));
  }
  if (sweep_row_count(spec) > kMaxSweepRows) {
    fail(f != 0 ? "step factor" : "step size",
         fmt::format("the sweep from {} to {} bytes would print more than {} rows; use a larger "
                     "step",
                     spec.min_bytes, spec.max_bytes, kMaxSweepRows));
  }
}

std::vector<SweepRow> run_sweep(const Communicator& comm, const SweepSpec& spec) {
  validate_sweep_spec(spec);
  const int type_bytes = dtype_bytes(spec.dtype);
  const int n = comm.size();
  const bool per_rank =
      spec.op == Op::all_gather || spec.op == Op::reduce_scatter || spec.op == Op::alltoall;
  const bool reduces =
      spec.op == Op::all_reduce || spec.op == Op::reduce_scatter || spec.op == Op::reduce;
  const bool rooted = spec.op == Op::broadcast || spec.op == Op::reduce;
  std::vector<SweepRow> rows;
  const std::size_t total_rows = spec.progress ? sweep_row_count(spec) : 0;
  for (double size = spec.min_bytes; size <= spec.max_bytes;
       size = spec.step_factor > 1 ? size * spec.step_factor : size + spec.step_bytes) {
    SweepRow row;
    long long count = static_cast<long long>(size) / type_bytes;
    if (per_rank) {
      // common.cu: each rank's part is rounded down to 16 bytes.
      const long long align = std::max(1, 16 / type_bytes);
      count = (count / n) & ~(align - 1);
      row.size_bytes = static_cast<double>(count) * n * type_bytes;
    } else {
      row.size_bytes = static_cast<double>(count) * type_bytes;
    }
    row.count = count;
    row.type = spec.dtype;
    row.redop = reduces ? spec.redop : "none";
    row.root = rooted ? spec.root : -1;
    Request request;
    request.op = spec.op;
    request.size_bytes = row.size_bytes;
    request.root = spec.root;
    request.algorithm = spec.algorithm;
    request.protocol = spec.protocol;
    request.allowed_algorithms = spec.allowed_algorithms;
    request.allowed_protocols = spec.allowed_protocols;
    row.outcome = with_host_launch_floor(simulate_collective(comm, request), comm.topology(),
                                         spec.gpus_per_thread > 0 ? spec.gpus_per_thread : n,
                                         spec.iterations, row.size_bytes);
    rows.push_back(std::move(row));
    if (spec.progress) spec.progress(rows.size(), total_rows);
    if (size == 0) break;  // a zero start would never grow
  }
  return rows;
}

std::optional<SweepRange> run_sweep_range(const topo::Topology& machine,
                                          const std::vector<topo::NodeId>& gpus,
                                          const SweepSpec& spec) {
  if (!topo::has_ranges(machine)) return std::nullopt;
  SweepRange out;
  out.slow = run_sweep(Communicator(topo::at_range_end(machine, topo::RangeEnd::slow), gpus), spec);
  out.fast = run_sweep(Communicator(topo::at_range_end(machine, topo::RangeEnd::fast), gpus), spec);
  return out;
}

double average_busbw_Bps(const std::vector<SweepRow>& rows) {
  if (rows.empty()) return 0;
  double sum = 0;
  for (const auto& r : rows)
    sum += 2 * r.outcome.busbw_Bps;  // out-of-place + in-place
  return sum / (2.0 * static_cast<double>(rows.size()));
}

}  // namespace linksim::coll
