#include "calibrate/collective_fit.hpp"

#include <fmt/format.h>

#include <algorithm>
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

// Pattern search over (log latency scale, log bandwidth scale) for the records of `op` (all
// ops when empty): try a step each way on each axis, keep improvements, halve the step when
// none helps. `trial`'s calibration is what the predictions read.
topo::CollectiveScales search(topo::Topology& trial, Predictions& predictions,
                              const std::vector<Record>& records, const std::string& op) {
  auto set = [&](double lat, double bw) {
    const topo::CollectiveScales s{std::exp(lat), std::exp(bw)};
    if (op.empty()) {
      trial.collective.all = s;
    } else {
      trial.collective.by_op[op] = s;
    }
  };
  std::vector<Record> mine;
  for (const auto& r : records) {
    if (op.empty() || op_of(r) == coll::op_from_string(op)) mine.push_back(r);
  }
  double x[2] = {0, 0};
  set(0, 0);
  double best = cost(log_errors(predictions, mine));
  double step = std::log(2.0);
  const double min_step = std::log(1.005);
  const double limit = std::log(20.0);
  while (step > min_step) {
    bool improved = false;
    for (int axis = 0; axis < 2 && !improved; ++axis) {
      for (double dir : {+1.0, -1.0}) {
        double y[2] = {x[0], x[1]};
        y[axis] += dir * step;
        if (std::fabs(y[axis]) > limit) continue;
        set(y[0], y[1]);
        const double c = cost(log_errors(predictions, mine));
        if (c < best - 1e-12) {
          best = c;
          x[0] = y[0];
          x[1] = y[1];
          improved = true;
          break;
        }
      }
    }
    if (!improved) step /= 2;
  }
  set(x[0], x[1]);
  return {std::exp(x[0]), std::exp(x[1])};
}

}  // namespace

std::optional<CollectiveFit> fit_collectives(const topo::Topology& machine,
                                             const std::vector<Record>& records) {
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
  const topo::CollectiveScales all = search(trial, predictions, records, "");
  for (const auto& op : ops)
    search(trial, predictions, records, op);
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
