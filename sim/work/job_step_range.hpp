#pragma once
// A job's step-time range: the job simulated with every constant at the slow end of its
// uncertainty and again at the fast end (model_uncertainty.hpp says which constants and why).

#include "sim/topo/topology.hpp"
#include "sim/work/model.hpp"
#include "sim/work/scenario.hpp"

namespace linksim::work {

// [fast step, slow step]: the derived compute fractions times `compute_factor.hi` and `.lo`
// (capped at 1), and the machine's network at the fast and slow ends of its fitted ranges, or of
// the stated ones where it has none (with_stated_network_ranges).
topo::Range job_step_range_s(const topo::Topology& machine, const ModelSpec& model,
                             const Scenario& scenario, const topo::Range& compute_factor);

}  // namespace linksim::work
