#pragma once
// The seed's gradient example on one machine: `compute_s` of compute, then the gradient
// synchronised. Two results: the seed's simple model (every byte at the GPU's line rate, no
// overlap) and the realistic one (an NCCL all-reduce over all GPUs, simulated).

#include "sim/topo/topology.hpp"
#include "sim/work/job_result.hpp"
#include "sim/work/scenario.hpp"

namespace linksim::work {

struct GradientSyncResult {
  JobResult simple;
  JobResult realistic;
};

// REQUIRES: scenario.gradient_sync.
GradientSyncResult simulate_gradient_sync(const topo::Topology& machine, const Scenario& scenario);

}  // namespace linksim::work
