#include "sim/work/job_step_range.hpp"

#include <algorithm>

#include "sim/topo/uncertainty.hpp"
#include "sim/work/job_sim.hpp"
#include "sim/work/model_uncertainty.hpp"

namespace linksim::work {

topo::Range job_step_range_s(const topo::Topology& machine, const ModelSpec& model,
                             const Scenario& scenario, const topo::Range& compute_factor) {
  const topo::Topology ranged = with_stated_network_ranges(machine);
  const auto step_at = [&](topo::RangeEnd end) {
    Scenario at = scenario;
    at.compute.fraction_factor =
        end == topo::RangeEnd::slow ? compute_factor.lo : compute_factor.hi;
    return simulate_job(topo::at_range_end(ranged, end), model, at).step_s;
  };
  const double fast = step_at(topo::RangeEnd::fast);
  const double slow = step_at(topo::RangeEnd::slow);
  return topo::Range{std::min(fast, slow), std::max(fast, slow)};
}

}  // namespace linksim::work
