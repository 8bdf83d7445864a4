#pragma once
// The stated uncertainty of the model's constants, and the step-time range it gives every job
// (issue 39): the job is simulated twice more, once with every constant at its slow end and
// once at its fast end, like a calibrated machine's fitted intervals (topo/uncertainty.hpp).
//  - Compute: every derived efficiency fraction (compute_efficiency_table.hpp) times the compute
//    row's multipliers, capped at 1. A scenario's own compute.efficiency is the user's figure
//    and is left as given.
//  - Network: a machine with fitted ranges (`linksim fit`) uses them; any other gets the stated
//    range on its collective bandwidth and latency scales, the one-host row or, on a cluster,
//    the across-hosts row.
// The ranges and their sources are one table (model_uncertainty_table; docs/uncertainty.md).

#include <string>
#include <vector>

#include "sim/topo/topology.hpp"
#include "sim/topo/uncertainty.hpp"

namespace linksim::work {

struct UncertaintyRow {
  std::string name;    // "compute", "network, one host", "network, across hosts"
  topo::Range factor;  // multipliers at the slow (lo) and fast (hi) ends of a rate
  std::string source;
};

const std::vector<UncertaintyRow>& model_uncertainty_table();
const UncertaintyRow& uncertainty_row(const std::string& name);

// The compute row's multipliers on the efficiency fractions: [slow end, fast end].
topo::Range stated_compute_factor();

// `machine` with the stated network ranges where it has no fitted range of its own (as is).
topo::Topology with_stated_network_ranges(const topo::Topology& machine);

}  // namespace linksim::work
