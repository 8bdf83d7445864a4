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

namespace linksim::calibrate {
namespace {

constexpr const char* kPrefix = "nccl:";

std::optional<coll::Op> op_of(const Record& r) {
  if (r.kind.rfind(kPrefix, 0) != 0) return std::nullopt;
  return coll::op_from_nccl_tests_binary(r.kind.substr(std::string(kPrefix).size()));
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
    coll::Request req;
    req.op = *op;
    req.size_bytes = r.size_bytes;
    try {
      return coll::simulate_collective(*it->second, req).time_s;
    } catch (const std::invalid_argument&) {
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

double cost(const std::vector<double>& errors) {
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
    coll::Request req;
    req.op = *op;
    req.size_bytes = record.size_bytes;
    return coll::simulate_collective(comm, req).time_s;
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
}

namespace {

// The scales being fitted: the calibration of one operation (all of them when `op` is empty)
// in `trial`, whose calibration is what the predictions read.
class Scales {
 public:
  Scales(topo::Topology& trial, Predictions& predictions, const std::vector<Record>& records,
         const std::string& op)
      : trial_(trial), predictions_(predictions), op_(op) {
    for (const auto& r : records) {
      if (op.empty() || op_of(r) == coll::op_from_string(op)) mine_.push_back(r);
    }
  }

  // Log errors of this operation's records with log scales (latency, bandwidth) = x.
  std::vector<double> errors(const std::array<double, 2>& x) {
    set(x, {});
    return log_errors(predictions_, mine_);
  }

  void set(const std::array<double, 2>& x, const topo::CollectiveScales& ranges) {
    topo::CollectiveScales s = ranges;
    s.latency = std::exp(x[0]);
    s.bandwidth = std::exp(x[1]);
    (op_.empty() ? trial_.collective.all : trial_.collective.by_op[op_]) = s;
  }

 private:
  topo::Topology& trial_;
  Predictions& predictions_;
  std::string op_;
  std::vector<Record> mine_;
};

// Pattern search over (log latency scale, log bandwidth scale): try a step each way on each
// axis, keep improvements, halve the step when none helps.
std::array<double, 2> search(Scales& scales) {
  std::array<double, 2> x{0, 0};
  double best = cost(scales.errors(x));
  double step = std::log(2.0);
  const double min_step = std::log(1.005);
  const double limit = std::log(20.0);
  while (step > min_step) {
    bool improved = false;
    for (int axis = 0; axis < 2 && !improved; ++axis) {
      for (double dir : {+1.0, -1.0}) {
        std::array<double, 2> y = x;
        y[axis] += dir * step;
        if (std::fabs(y[axis]) > limit) continue;
        const double c = cost(scales.errors(y));
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

// Confidence intervals of the log scales at the optimum x, by linearising the log errors:
// J by central differences, Cov = s^2 (J^T J)^-1 with s^2 = SSE / (n - 2), half-width
// t_{n-2} * sqrt(Cov_kk). A scale gets no interval when n <= 2, when the records do not
// depend on it (a column of J is zero: only large messages say nothing of latency), or when
// the two scales cannot be told apart (J^T J singular). Intervals are clamped to the loader's
// 0.05..20.
topo::CollectiveScales intervals(Scales& scales, const std::array<double, 2>& x,
                                 double confidence) {
  topo::CollectiveScales out;
  const std::vector<double> r = scales.errors(x);
  const std::size_t n = r.size();
  if (n <= 2) return out;
  constexpr double h = 0.01;
  Eigen::MatrixXd jacobian(static_cast<Eigen::Index>(n), 2);
  for (int k = 0; k < 2; ++k) {
    std::array<double, 2> up = x, down = x;
    up[k] += h;
    down[k] -= h;
    const std::vector<double> ru = scales.errors(up), rd = scales.errors(down);
    if (ru.size() != n || rd.size() != n) return out;
    for (std::size_t i = 0; i < n; ++i)
      jacobian(static_cast<Eigen::Index>(i), k) = (ru[i] - rd[i]) / (2 * h);
  }
  const Eigen::Matrix2d normal = jacobian.transpose() * jacobian;
  const double scale = normal.diagonal().maxCoeff();
  if (!(scale > 0)) return out;
  const bool identified[2] = {normal(0, 0) > 1e-12 * scale, normal(1, 1) > 1e-12 * scale};
  if (identified[0] && identified[1] && normal.determinant() < 1e-9 * scale * scale) return out;
  const double sse = cost(r);
  const auto dof = static_cast<double>(n - 2);
  const double t = boost::math::quantile(
      boost::math::complement(boost::math::students_t(dof), (1 - confidence) / 2));
  const double s2 = sse / dof;
  const auto range_of = [&](int k, double variance) {
    const double half = t * std::sqrt(std::max(variance, 0.0));
    return topo::Range{std::clamp(std::exp(x[k] - half), 0.05, 20.0),
                       std::clamp(std::exp(x[k] + half), 0.05, 20.0)};
  };
  if (identified[0] && identified[1]) {
    const Eigen::Matrix2d cov = s2 * normal.inverse();
    out.latency_range = range_of(0, cov(0, 0));
    out.bandwidth_range = range_of(1, cov(1, 1));
  } else if (identified[0]) {
    out.latency_range = range_of(0, s2 / normal(0, 0));
  } else if (identified[1]) {
    out.bandwidth_range = range_of(1, s2 / normal(1, 1));
  }
  return out;
}

// Fits one operation's scales (all operations' when `op` is empty), leaves them with their
// intervals in `trial`, and returns them.
topo::CollectiveScales fit_scales(topo::Topology& trial, Predictions& predictions,
                                  const std::vector<Record>& records, const std::string& op,
                                  double confidence) {
  Scales scales(trial, predictions, records, op);
  const std::array<double, 2> x = search(scales);
  const topo::CollectiveScales ranges = intervals(scales, x, confidence);
  scales.set(x, ranges);
  return op.empty() ? trial.collective.all : trial.collective.by_op[op];
}

}  // namespace

std::optional<CollectiveFit> fit_collectives(const topo::Topology& machine,
                                             const std::vector<Record>& records,
                                             double confidence) {
  topo::Topology trial = machine;
  trial.collective = {};
  Predictions predictions(trial);
  const std::vector<double> before = log_errors(predictions, records);
  if (before.empty()) return std::nullopt;
  // One pair of corrections per operation that has logs (a machine's one-way and two-way
  // traffic can differ, as host-staged copies do), and one over all of them for the others.
  std::vector<std::string> ops;
  for (const auto& r : records) {
    if (!usable(r)) continue;
    const std::string name(coll::to_string(*op_of(r)));
    if (std::find(ops.begin(), ops.end(), name) == ops.end()) ops.push_back(name);
  }
  std::sort(ops.begin(), ops.end());
  const topo::CollectiveScales all = fit_scales(trial, predictions, records, "", confidence);
  for (const auto& op : ops)
    fit_scales(trial, predictions, records, op, confidence);
  trial.collective.all = all;
  CollectiveFit fit;
  fit.calibration = trial.collective;
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
