#pragma once
// Fitting the collective model to a machine's own nccl-tests logs, through the simulator:
// corrections on every NCCL latency term, on every protocol's payload efficiency and on LL's
// and LL128's on top (topology "collective_calibration"), and the host's per-GPU launch cost
// (topology "host_launch": a thread driving g GPUs starts an operation at most every g x that),
// chosen to minimise the absolute log error of the predicted times over all sizes, so small and
// large messages count alike. docs/calibration.md explains the choices.

#include <optional>
#include <vector>

#include "calibrate/collective_hook.hpp"
#include "calibrate/record.hpp"
#include "sim/topo/topology.hpp"

namespace linksim::calibrate {

// Predicts nccl-tests times with sim/coll on the first `gpu_count` GPUs of the machine.
class SimulatedCollectives : public CollectivePredictor {
 public:
  std::optional<double> predict_time_s(const topo::Topology& topology,
                                       const Record& record) const override;
};

struct CollectiveFit {
  topo::CollectiveCalibration calibration;
  // The host's per-GPU launch cost, when some logged size was launch-bound (per_gpu_s 0 else).
  topo::HostLaunch host_launch;
  std::size_t samples = 0;
  double median_abs_error_before = 0;  // |predicted / measured - 1|, over the samples
  double median_abs_error_after = 0;
};

// Fits over the out-of-place nccl-tests records of `records` (others are ignored). nullopt when
// there are none the simulator can predict. Deterministic: a fixed pattern search in log space.
// Each scale carries its `confidence` interval where the records identify it (see
// collective_fit.cpp, intervals()).
std::optional<CollectiveFit> fit_collectives(const topo::Topology& machine,
                                             const std::vector<Record>& records,
                                             double confidence = 0.95);

}  // namespace linksim::calibrate
