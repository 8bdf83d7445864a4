#include "calibrate/collective_fit.hpp"

#include <fmt/format.h>

#include <Eigen/Dense>
#include <algorithm>
#include <array>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <map>
#include <memory>
#include <stdexcept>

#include "sim/coll/collective_sim.hpp"
#include "sim/coll/sweep.hpp"
#include "sim/core/error.hpp"

namespace linksim::calibrate {
namespace {

constexpr const char* kPrefix = "nccl:";

std::optional<coll::Op> op_of(const Record& r) {
  if (r.kind.rfind(kPrefix, 0) != 0) return std::nullopt;
  return coll::op_from_nccl_tests_binary(r.kind.substr(std::string(kPrefix).size()));
}

// GPUs the log's host thread drove: the header's nGpus, else every rank (one process, -g N).
int gpus_per_thread_of(const Record& r) {
  return r.gpus_per_thread > 0 ? r.gpus_per_thread : r.gpu_count;
}

// The log's timed iterations (-n), nccl-tests' default 20 when the header did not say.
int iterations(const Record& r) {
  return r.iterations > 0 ? r.iterations : 20;
}

// The call the record timed: its operation and size, under the NCCL release the log names
// (else the one the model follows).
coll::Request request_of(const Record& r, coll::Op op) {
  coll::Request req;
  req.op = op;
  req.size_bytes = r.size_bytes;
  if (r.nccl_version > 0) req.nccl_version = r.nccl_version;
  return req;
}

bool usable(const Record& r) {
  return op_of(r) && r.variant == "out_of_place" && r.size_bytes > 0 && r.time_s > 0 &&
         r.gpu_count >= 1;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Communicators by rank count, built once: the ring search is the costly part of a
// prediction, and the calibration being fitted is read from the machine at each lowering.
class Predictions {
 public:
  explicit Predictions(const topo::Topology& machine) : machine_(machine) {}

  std::optional<double> time_s(const Record& r) {
    const auto op = op_of(r);
    auto gpus = machine_.nodes_of(topo::NodeKind::gpu);
    const std::size_t n = static_cast<std::size_t>(r.gpu_count);
    if (!op || n > gpus.size()) return std::nullopt;
    auto it = comms_.find(n);
    if (it == comms_.end()) {
      gpus.resize(n);
      it = comms_.emplace(n, std::make_unique<coll::Communicator>(machine_, gpus)).first;
    }
    const coll::Request req = request_of(r, *op);
    try {
      return coll::with_host_launch_floor(coll::simulate_collective_as_in_jobs(*it->second, req),
                                          machine_, gpus_per_thread_of(r), iterations(r),
                                          r.size_bytes)
          .time_s;
    } catch (const InputError&) {  // a size this machine cannot run
      return std::nullopt;
    }
  }

 private:
  const topo::Topology& machine_;
  std::map<std::size_t, std::unique_ptr<coll::Communicator>> comms_;
};

// Log errors of every usable record with the machine's calibration as it stands.
std::vector<double> log_errors(Predictions& predictions, const std::vector<Record>& records) {
  std::vector<double> out;
  for (const auto& r : records) {
    if (!usable(r)) continue;
    auto t = predictions.time_s(r);
    if (t && *t > 0) out.push_back(std::log(*t / r.time_s));
  }
  return out;
}

// The fit's objective: the sum of absolute log errors (least absolute deviations). A model that
// cannot follow every wiggle of a sweep (an NCCL version's own mid-size behaviour, a noisy
// point) then matches the bulk of the sizes and leaves the misfit visible in a few, instead of
// spreading it over all of them as squared errors would.
double cost(const std::vector<double>& errors) {
  double c = 0;
  for (double e : errors)
    c += std::fabs(e);
  return c;
}

double squared(const std::vector<double>& errors) {
  double c = 0;
  for (double e : errors)
    c += e * e;
  return c;
}

double median_abs_relative(const std::vector<double>& log_errors) {
  std::vector<double> rel;
  for (double e : log_errors)
    rel.push_back(std::fabs(std::exp(e) - 1));
  return median(rel);
}

}  // namespace

std::optional<double> SimulatedCollectives::predict_time_s(const topo::Topology& topology,
                                                           const Record& record) const {
  const auto op = op_of(record);
  if (!op || record.size_bytes <= 0) return std::nullopt;
  auto gpus = topology.nodes_of(topo::NodeKind::gpu);
  const std::size_t n =
      record.gpu_count > 0 ? static_cast<std::size_t>(record.gpu_count) : gpus.size();
  if (n > gpus.size()) return std::nullopt;
  gpus.resize(n);
  try {
    const coll::Communicator comm(topology, gpus);
    const coll::Request req = request_of(record, *op);
    return coll::with_host_launch_floor(coll::simulate_collective(comm, req), topology,
                                        gpus_per_thread_of(record), iterations(record),
                                        record.size_bytes)
        .time_s;
  } catch (const InputError&) {  // a size this machine cannot run
    return std::nullopt;
  }
}

namespace {

// What is being fitted, in log space: x[0] = log latency scale, x[1] = log bandwidth scale,
// x[2] and x[3] = log LL and LL128 factors (on top of the bandwidth scale) of one operation
// (all of them when `op` is empty) and, over all operations, x[4] = log of the host launch cost
// in microseconds. Setting x writes into `trial`, which the predictions read.
constexpr std::size_t kLatency = 0, kBandwidth = 1, kLl = 2, kLl128 = 3, kLaunch = 4;

class Parameters {
 public:
  // Over all operations (`op` empty) every parameter is free; for one operation only its two
  // scales are, and it keeps the LL/LL128 factors and launch cost already in `trial` (they
  // belong to the machine, not to an operation, and a few sizes of one operation could not
  // pin them down).
  Parameters(topo::Topology& trial, Predictions& predictions, const std::vector<Record>& records,
             std::optional<coll::Op> op)
      : trial_(trial), predictions_(predictions), op_(op) {
    for (const auto& r : records) {
      if (!op || op_of(r) == op) mine_.push_back(r);
    }
    free_ = !op ? std::vector<std::size_t>{kLatency, kBandwidth, kLl, kLl128, kLaunch}
                : std::vector<std::size_t>{kLatency, kBandwidth};
  }

  const std::vector<std::size_t>& free() const { return free_; }

  // Log errors of the records with parameters x.
  std::vector<double> errors(const std::vector<double>& x) {
    set(x, {});
    return log_errors(predictions_, mine_);
  }

  void set(const std::vector<double>& x, const std::vector<std::optional<topo::Range>>& ranges) {
    const auto range = [&](std::size_t k) {
      return k < ranges.size() ? ranges[k] : std::optional<topo::Range>{};
    };
    topo::CollectiveScales s;
    s.latency = std::exp(x[kLatency]);
    s.bandwidth = std::exp(x[kBandwidth]);
    s.ll = std::exp(x[kLl]);
    s.ll128 = std::exp(x[kLl128]);
    s.latency_range = range(kLatency);
    s.bandwidth_range = range(kBandwidth);
    // A single operation keeps the machine's LL/LL128 factors, with their intervals.
    s.ll_range = !op_ ? range(kLl) : trial_.collective.all.ll_range;
    s.ll128_range = !op_ ? range(kLl128) : trial_.collective.all.ll128_range;
    (!op_ ? trial_.collective.all : trial_.collective.by_op[*op_]) = s;
    if (!op_) {
      trial_.host_launch.per_gpu_s = std::exp(x[kLaunch]) * 1e-6;
      trial_.host_launch.range_s = range(kLaunch);
    }
  }

  // Where the searches start: every scale 1 and, with the launch cost, twice: once with a cost
  // whose floor binds at the fastest record (0.9 of the most it may be), so that the search
  // sees whether a floor helps, and once with a negligible one (10 ns), so that a floor cannot
  // trap it in a worse valley. The better end wins.
  std::vector<std::vector<double>> starts() const {
    const topo::CollectiveScales& all = trial_.collective.all;
    std::vector<double> x{0, 0, std::log(all.ll), std::log(all.ll128)};
    if (op_) return {x};
    std::vector<double> negligible = x;
    negligible.push_back(std::log(0.01));
    x.push_back(std::log(0.9) + max_log_launch());
    return {x, negligible};
  }

  // Scales stay within 0.05..20 (the loader's bounds). The launch cost stays above 10 ns and
  // below what the fastest record allows: a thread driving g GPUs that needs g L to launch
  // cannot have finished any operation in less than g L.
  bool allowed(std::size_t axis, double v) const {
    if (axis != kLaunch) return std::fabs(v) <= std::log(20.0);
    return v >= std::log(0.01) && v <= max_log_launch();
  }

  // The same bounds in each parameter's own units (scales; the launch cost in seconds), for
  // clamping intervals.
  topo::Range bounds(std::size_t axis) const {
    if (axis != kLaunch) return {0.05, 20.0};
    return {0.01e-6, std::exp(max_log_launch()) * 1e-6};
  }

 private:
  // log of min over the records of time / (GPUs per thread), in microseconds.
  double max_log_launch() const {
    double per_gpu_s = 1e-3;
    for (const auto& r : mine_) {
      if (usable(r)) {
        per_gpu_s = std::min(per_gpu_s, r.time_s / std::max(gpus_per_thread_of(r), 1));
      }
    }
    return std::log(std::max(per_gpu_s, 1e-8) * 1e6);
  }

  topo::Topology& trial_;
  Predictions& predictions_;
  std::optional<coll::Op> op_;  // none: over all operations
  std::vector<Record> mine_;
  std::vector<std::size_t> free_;
};

// Pattern search: try a step each way on each free axis, keep improvements, halve the step
// when none helps, within Parameters::allowed().
std::vector<double> search_from(Parameters& params, std::vector<double> x) {
  double best = cost(params.errors(x));
  double step = std::log(2.0);
  const double min_step = std::log(1.005);
  while (step > min_step) {
    bool improved = false;
    for (std::size_t axis : params.free()) {
      if (improved) break;
      for (double dir : {+1.0, -1.0}) {
        std::vector<double> y = x;
        y[axis] += dir * step;
        if (!params.allowed(axis, y[axis])) continue;
        const double c = cost(params.errors(y));
        if (c < best - 1e-12) {
          best = c;
          x = y;
          improved = true;
          break;
        }
      }
    }
    if (!improved) step /= 2;
  }
  return x;
}

std::vector<double> search(Parameters& params) {
  std::vector<double> best;
  double best_cost = 0;
  for (const auto& start : params.starts()) {
    std::vector<double> x = search_from(params, start);
    const double c = cost(params.errors(x));
    if (best.empty() || c < best_cost) {
      best = std::move(x);
      best_cost = c;
    }
  }
  return best;
}

// Confidence intervals at the optimum x, by linearising the log errors: J by central
// differences, Cov = s^2 (J^T J)^-1 over the identified parameters with s^2 = SSE / (n - p),
// half-width t_{n-p} * sqrt(Cov_kk). A parameter the records do not depend on (a zero column
// of J: only large messages say nothing of latency, no size is launch-bound) is not
// identified and gets no interval; when the identified ones cannot be told apart (J^T J
// singular) none gets one, and when n <= p none does. Ranges are clamped like the search.
struct Intervals {
  std::vector<std::optional<topo::Range>> ranges;  // per parameter, in its own units
  std::vector<bool> identified;
};

Intervals intervals(Parameters& params, const std::vector<double>& x, double confidence) {
  const std::size_t p_all = x.size();
  const std::vector<std::size_t>& free = params.free();
  Intervals out{std::vector<std::optional<topo::Range>>(p_all), std::vector<bool>(p_all, false)};
  const std::vector<double> r = params.errors(x);
  const std::size_t n = r.size();
  constexpr double h = 0.01;
  Eigen::MatrixXd jacobian =
      Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(p_all));
  for (std::size_t k : free) {
    std::vector<double> up = x, down = x;
    up[k] += h;
    down[k] -= h;
    const std::vector<double> ru = params.errors(up), rd = params.errors(down);
    if (ru.size() != n || rd.size() != n) return out;
    for (std::size_t i = 0; i < n; ++i) {
      jacobian(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(k)) =
          (ru[i] - rd[i]) / (2 * h);
    }
  }
  double largest = 0;
  for (std::size_t k = 0; k < p_all; ++k)
    largest = std::max(largest, jacobian.col(static_cast<Eigen::Index>(k)).squaredNorm());
  if (!(largest > 0)) return out;
  // Parameters the records depend on, taken in order while they stay distinguishable from
  // those already taken (the scaled normal matrix stays well conditioned): with only LL128
  // sizes, say, the LL128 factor and the bandwidth scale are one degree of freedom, and the
  // first of them carries the interval.
  std::vector<Eigen::Index> cols;
  const auto conditioned = [&](const std::vector<Eigen::Index>& c) {
    Eigen::MatrixXd j(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(c.size()));
    for (std::size_t i = 0; i < c.size(); ++i)
      j.col(static_cast<Eigen::Index>(i)) = jacobian.col(c[i]);
    const Eigen::MatrixXd normal = j.transpose() * j;
    const Eigen::VectorXd d = normal.diagonal().cwiseSqrt().cwiseInverse();
    const Eigen::MatrixXd scaled = d.asDiagonal() * normal * d.asDiagonal();
    return Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(scaled).eigenvalues().minCoeff() > 1e-6;
  };
  for (std::size_t k = 0; k < p_all; ++k) {
    if (jacobian.col(static_cast<Eigen::Index>(k)).squaredNorm() <= 1e-12 * largest) continue;
    cols.push_back(static_cast<Eigen::Index>(k));
    if (conditioned(cols)) {
      out.identified[k] = true;
    } else {
      cols.pop_back();
    }
  }
  const auto p = static_cast<Eigen::Index>(cols.size());
  if (n <= static_cast<std::size_t>(p)) return out;
  Eigen::MatrixXd j(static_cast<Eigen::Index>(n), p);
  for (Eigen::Index c = 0; c < p; ++c)
    j.col(c) = jacobian.col(cols[static_cast<std::size_t>(c)]);
  const Eigen::MatrixXd normal = j.transpose() * j;
  const auto dof = static_cast<double>(n - static_cast<std::size_t>(p));
  // The least-squares covariance at the least-absolute-deviations optimum: an approximation
  // (exact for LAD only asymptotically and up to a factor near 1.25 for normal errors).
  const double s2 = squared(r) / dof;
  const double t = boost::math::quantile(
      boost::math::complement(boost::math::students_t(dof), (1 - confidence) / 2));
  const Eigen::MatrixXd cov = s2 * normal.inverse();
  for (Eigen::Index c = 0; c < p; ++c) {
    const auto k = static_cast<std::size_t>(cols[static_cast<std::size_t>(c)]);
    const double half = t * std::sqrt(std::max(cov(c, c), 0.0));
    const double unit = k == kLaunch ? 1e-6 : 1.0;
    const topo::Range b = params.bounds(k);
    out.ranges[k] = topo::Range{std::clamp(std::exp(x[k] - half) * unit, b.lo, b.hi),
                                std::clamp(std::exp(x[k] + half) * unit, b.lo, b.hi)};
  }
  return out;
}

// Fits one operation's scales (all operations' when `op` is empty, together with the host
// launch cost when `op` is empty), leaves them with their intervals in `trial`, and returns
// whether the launch cost was identified.
bool fit_parameters(topo::Topology& trial, Predictions& predictions,
                    const std::vector<Record>& records, std::optional<coll::Op> op,
                    double confidence) {
  Parameters params(trial, predictions, records, op);
  const std::vector<double> x = search(params);
  const Intervals iv = intervals(params, x, confidence);
  params.set(x, iv.ranges);
  return !op && iv.identified[kLaunch];
}

}  // namespace

std::optional<CollectiveFit> fit_collectives(const topo::Topology& machine,
                                             const std::vector<Record>& records,
                                             double confidence) {
  topo::Topology trial = machine;
  trial.collective = {};
  trial.host_launch = {};
  Predictions predictions(trial);
  const std::vector<double> before = log_errors(predictions, records);
  if (before.empty()) return std::nullopt;
  // One pair of corrections per operation that has logs (a machine's one-way and two-way
  // traffic can differ, as host-staged copies do), and one over all of them for the others.
  std::vector<coll::Op> ops;
  for (const auto& r : records) {
    if (!usable(r)) continue;
    if (std::find(ops.begin(), ops.end(), *op_of(r)) == ops.end()) ops.push_back(*op_of(r));
  }
  std::sort(ops.begin(), ops.end(), CollectiveOpNameOrder{});
  // The host launch cost is one figure for the whole host, fitted with the all-operations
  // scales; the per-operation fits keep it. It is kept only where some size is launch-bound.
  const bool launch = fit_parameters(trial, predictions, records, std::nullopt, confidence);
  if (!launch) trial.host_launch = {};
  const topo::CollectiveScales all = trial.collective.all;
  // With one operation logged, its own fit is the one over all operations.
  for (const auto& op : ops) {
    if (ops.size() == 1) {
      trial.collective.by_op[op] = all;
    } else {
      fit_parameters(trial, predictions, records, op, confidence);
    }
  }
  trial.collective.all = all;
  CollectiveFit fit;
  fit.calibration = trial.collective;
  fit.host_launch = trial.host_launch;
  const std::vector<double> after = log_errors(predictions, records);
  fit.samples = after.size();
  fit.median_abs_error_before = median_abs_relative(before);
  fit.median_abs_error_after = median_abs_relative(after);
  fit.calibration.source =
      fmt::format("linksim fit: {} nccl-tests sizes; median |error| {:.1f}% before, {:.1f}% after",
                  fit.samples, 100 * fit.median_abs_error_before, 100 * fit.median_abs_error_after);
  return fit;
}

}  // namespace linksim::calibrate
