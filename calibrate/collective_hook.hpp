#pragma once
// Hook for the collective model. Fitting NCCL protocol parameters (per-protocol base latency,
// per-hop latency, bandwidth efficiency) needs the simulator's collective planner (sim/coll),
// which is not part of the library yet. When it is, implement this interface on top of it and
// pass it in FitMachineOptions: nccl-tests records then get before/after predictions in the
// report, and a fitter can adjust the predictor's parameters the way fit_alpha_beta adjusts
// links. Until then nccl-tests logs are imported and listed, and the report says the
// collective part is pending.

#include <optional>

#include "calibrate/record.hpp"
#include "sim/topo/topology.hpp"

namespace linksim::calibrate {

class CollectivePredictor {
 public:
  virtual ~CollectivePredictor() = default;
  // Predicted time of one nccl-tests operation (record.kind "nccl:<binary>", gpu_count ranks,
  // size_bytes as nccl-tests prints it) on `topology`; nullopt when the op is not modelled.
  virtual std::optional<double> predict_time_s(const topo::Topology& topology,
                                               const Record& record) const = 0;
};

}  // namespace linksim::calibrate
