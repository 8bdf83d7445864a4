#pragma once
// How `linksim fit` predicts nccl-tests times: an interface so tests can substitute a fake.
// The real one, SimulatedCollectives (collective_fit.hpp), runs sim/coll.

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
