#include "sim/coll/sweep.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <stdexcept>
#include <utility>

#include "sim/coll/host_launch_cost.hpp"
#include "sim/core/error.hpp"
#include "sim/core/parallel_cases.hpp"
#include "sim/topo/copy_model.hpp"
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
  // common.cu parsesize: sscanf(value, "%lf %1s") -- leading blanks, a number, optional blanks
  // and one letter read (anything after it ignored).
  const std::size_t begin = text.find_first_not_of(" \t");
  if (begin == std::string::npos) return std::nullopt;
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text.substr(begin), &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  const std::string rest = text.substr(begin + used);
  const std::size_t letter = rest.find_first_not_of(" \t");
  double mult = 1;
  if (letter != std::string::npos) {
    switch (rest[letter]) {
      case 'K':
      case 'k':
        mult = 1024.0;
        break;
      case 'M':
      case 'm':
        mult = 1024.0 * 1024;
        break;
      case 'G':
      case 'g':
        mult = 1024.0 * 1024 * 1024;
        break;
      default:
        return std::nullopt;
    }
  }
  if (!(v >= 0) || !std::isfinite(v)) return std::nullopt;
  return std::floor(v * mult);
}

PacedTime pace_like_nccl_tests(double op_time_s, double per_gpu_launch_s, const LaunchPacing& p) {
  const double g = std::max(p.gpus_per_thread, 1);
  const double n = std::max(p.iterations, 1);
  const double m = std::max(p.agg_iters, 1);
  const double host_s = g * std::max(per_gpu_launch_s, 0.0);
  PacedTime out{op_time_s, host_s / m, false};
  if (op_time_s <= 0) return out;
  if (p.graph_launches > 0) {
    const double k = p.graph_launches;
    const double gpu_s = n * m * op_time_s;
    out.host_bound = host_s > gpu_s;
    out.time_s = (k * std::max(host_s, gpu_s) + std::min(host_s, gpu_s)) / (k * n * m);
    out.cpu_time_s = host_s / (n * m);
    return out;
  }
  const double gpu_s = m * op_time_s;
  out.host_bound = host_s > gpu_s;
  if (p.blocking > 0) {
    out.time_s = (host_s + gpu_s) / m;
    out.cpu_time_s = out.time_s;
    return out;
  }
  out.time_s = (n * std::max(host_s, gpu_s) + std::min(host_s, gpu_s)) / (n * m);
  return out;
}

Outcome with_host_launch_floor(Outcome o, const topo::Topology& machine, int gpus_per_thread,
                               int iterations, double size_bytes) {
  LaunchPacing pacing;
  pacing.gpus_per_thread = gpus_per_thread;
  pacing.iterations = iterations;
  const PacedTime paced = pace_like_nccl_tests(o.time_s, machine.host_launch.per_gpu_s, pacing);
  const double t = paced.time_s;
  o.host_bound = paced.host_bound;
  if (t == o.time_s) return o;
  o.busbw_Bps *= o.time_s / t;
  o.time_s = t;
  o.algbw_Bps = size_bytes / t;
  return o;
}

NcclTestsSizes nccl_tests_sizes(Op op, double swept_bytes, int type_bytes, int n) {
  NcclTestsSizes out;
  const long long ts = type_bytes;
  const long long count = static_cast<long long>(swept_bytes) / ts;
  // Ops whose count is per rank: each rank's part rounded down to 16 bytes.
  const long long align = std::max<long long>(1, 16 / ts);
  const long long base = (count / n) & ~(align - 1);
  switch (op) {
    case Op::all_reduce:
    case Op::broadcast:
    case Op::reduce:
    case Op::sendrecv:
      out.count = count;
      out.size_bytes = static_cast<double>(count * ts);
      out.algbw_bytes = out.size_bytes;
      break;
    case Op::all_gather:
    case Op::reduce_scatter:
    case Op::alltoall:
    case Op::scatter:
    case Op::gather:
      out.count = base;
      out.size_bytes = static_cast<double>(base * n * ts);
      out.algbw_bytes = out.size_bytes;
      break;
    case Op::hypercube:
      out.count = base;
      out.size_bytes = static_cast<double>(base * n * ts);
      out.algbw_bytes = static_cast<double>(base * ts * (n - 1));
      break;
    case Op::alltoallv: {
      // alltoallv.cu AlltoAllvComputeMaxCounts: rank 0's distance-weighted shares of the
      // total base n ts, each rounded down to 16 bytes, summed in elements.
      const double total = static_cast<double>(base * n * ts);
      long long elements = 0;
      for (int d = 0; d < n; ++d) {
        const long long bytes = n == 1 ? static_cast<long long>(total)
                                       : static_cast<long long>(d * total / (n * (n - 1) / 2.0));
        elements += (bytes & ~15LL) / ts;
      }
      out.count = base;
      out.size_bytes = static_cast<double>(elements * ts);
      out.algbw_bytes = out.size_bytes;
      break;
    }
  }
  out.request_bytes = out.size_bytes;
  return out;
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

double one_rank_copy_s(const topo::GpuModel& gpu, double bytes) {
  const double copy_Bps = gpu.hbm_bandwidth_Bps * topo::kCopyConstants.dram_copy_efficiency;
  return copy_Bps > 0 ? 2 * bytes / copy_Bps : 0;
}

bool one_rank_copies_in_place(Op op, const std::string& redop, const std::string& dtype) {
  // Only the reducing collectives take the -o reduction (sendrecv's name is printed, unused).
  if (op != Op::all_reduce && op != Op::reduce && op != Op::reduce_scatter) return false;
  // enqueue.cc hostToDevRedOp: ncclAvg is PreMulSum (by 1/nranks) on floating-point types and
  // SumPostDiv on integers; nccl-tests' mulsum is ncclRedOpCreatePreMulSum on every type.
  static const std::vector<std::string> floating{"half",   "bfloat16", "float",
                                                 "double", "f8e4m3",   "f8e5m2"};
  const bool is_floating = std::find(floating.begin(), floating.end(), dtype) != floating.end();
  return redop == "mulsum" || (redop == "avg" && is_floating);
}

namespace {

// One row of the sweep: the collective at `size` as nccl-tests sizes, launches and reports it.
SweepRow sweep_row(const Communicator& comm, const SweepSpec& spec, double size) {
  const int type_bytes = dtype_bytes(spec.dtype);
  const int n = comm.size();
  const bool reduces = spec.op == Op::all_reduce || spec.op == Op::reduce_scatter ||
                       spec.op == Op::reduce || spec.op == Op::sendrecv;
  const bool rooted = spec.op == Op::broadcast || spec.op == Op::reduce || spec.op == Op::scatter ||
                      spec.op == Op::gather;
  LaunchPacing pacing = spec.pacing;
  if (pacing.gpus_per_thread <= 0) pacing.gpus_per_thread = n;
  const double launch_s = host_launch_per_gpu_s(comm.topology());
  SweepRow row;
  const NcclTestsSizes sizes = nccl_tests_sizes(spec.op, size, type_bytes, n);
  row.size_bytes = sizes.size_bytes;
  row.count = sizes.count;
  row.type = spec.dtype;
  // sendrecv.cu passes the reduction's name, though nothing is reduced; hypercube.cu "".
  row.redop = reduces ? spec.redop : spec.op == Op::hypercube ? "" : "none";
  row.root = rooted ? spec.root : -1;
  Request request;
  request.op = spec.op;
  request.size_bytes = sizes.request_bytes;
  request.root = spec.root;
  request.algorithm = spec.algorithm;
  request.protocol = spec.protocol;
  request.allowed_algorithms = spec.allowed_algorithms;
  request.allowed_protocols = spec.allowed_protocols;
  request.nccl_version = spec.nccl_version;
  request.simulate_every_candidate = spec.simulate_every_candidate;
  request.simulate_every_loop = spec.simulate_every_loop;
  request.min_channels = spec.min_channels;
  request.max_channels = spec.max_channels;
  const Outcome simulated = simulate_collective(comm, request);
  // The run as nccl-tests times it, when the GPU spends `gpu_s` on each operation.
  const auto reported = [&](double gpu_s) {
    Outcome o = simulated;
    const PacedTime paced = pace_like_nccl_tests(gpu_s, launch_s, pacing);
    o.time_s = paced.time_s;
    o.host_bound = paced.host_bound;
    row.cpu_time_s = paced.cpu_time_s;  // the host's launches: the same in place or not
    o.algbw_Bps = o.time_s > 0 ? sizes.algbw_bytes / o.time_s : 0;
    o.busbw_Bps = o.algbw_Bps * busbw_factor(spec.op, n);
    return o;
  };
  if (n == 1) {
    // One rank moves nothing between GPUs (simulated: its launch alone), but copies in memory.
    const auto& gpu = comm.topology().node(comm.gpu(0)).gpu;
    const double copy_s = gpu ? one_rank_copy_s(*gpu, sizes.request_bytes) : 0.0;
    const bool in_place_copies = one_rank_copies_in_place(spec.op, spec.redop, spec.dtype);
    row.outcome = reported(simulated.time_s + copy_s);
    row.in_place = reported(simulated.time_s + (in_place_copies ? copy_s : 0.0));
    return row;
  }
  row.outcome = reported(simulated.time_s);
  return row;
}

}  // namespace

std::vector<SweepRow> run_sweep(const Communicator& comm, const SweepSpec& spec) {
  validate_sweep_spec(spec);
  std::vector<double> sizes;
  for (double size = spec.min_bytes; size <= spec.max_bytes;
       size = spec.step_factor > 1 ? size * spec.step_factor : size + spec.step_bytes) {
    sizes.push_back(size);
    if (size == 0) break;  // a zero start would never grow
  }
  std::vector<SweepRow> rows(sizes.size());
  // Each size is simulated on its own (the communicator's caches are shared and locked), so the
  // rows do not depend on which thread ran them; the first failure in size order is the one
  // reported, as a single thread would report it.
  const std::size_t total_rows = spec.progress ? sweep_row_count(spec) : 0;
  CaseProgress progress;
  if (spec.progress) {
    progress.finished = [&](std::size_t done) { spec.progress(done, total_rows); };
  }
  run_cases(
      sizes.size(), std::max(1, spec.threads),
      [&](std::size_t i) { rows[i] = sweep_row(comm, spec, sizes[i]); }, progress);
  return rows;
}

std::optional<SweepRange> run_sweep_range(const topo::Topology& machine,
                                          const std::vector<topo::NodeId>& gpus,
                                          const SweepSpec& spec) {
  if (!topo::has_ranges(machine)) return std::nullopt;
  SweepRange out;
  out.slow = run_sweep(
      Communicator(topo::at_range_end(machine, topo::RangeEnd::slow), gpus, {}, spec.nccl_env),
      spec);
  out.fast = run_sweep(
      Communicator(topo::at_range_end(machine, topo::RangeEnd::fast), gpus, {}, spec.nccl_env),
      spec);
  return out;
}

}  // namespace linksim::coll
