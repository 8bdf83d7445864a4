#pragma once
// A collective's lowering (coll::lower_collective) recorded once and added again wherever the
// job repeats the same call: the same tasks, paths and rank-cap channels, in the same order, so
// the graph is the one lowering each call would build, at the cost of copying it. A 1F1B step
// of a thousand micro-batches repeats each tensor-parallel all-reduce a hundred thousand times.

#include <span>
#include <vector>

#include "sim/coll/communicator.hpp"
#include "sim/coll/request.hpp"
#include "sim/engine/simulation.hpp"

namespace linksim::work {

class RecordedCollective {
 public:
  // Lowers the call into a scratch simulation whose first `capacities_Bps.size()` channels are
  // those of the simulation it will be added to (the topology's); with `job_planes`, only the
  // planes it keeps (coll::lower_collective).
  RecordedCollective(const coll::Communicator& comm, const coll::Request& request,
                     const coll::Choice& choice, const std::vector<double>& capacities_Bps,
                     const coll::PlaneCopies* job_planes = nullptr);

  // Adds the collective to `sim`, starting after `deps`; returns the task that ends it.
  engine::TaskId add_to(engine::Simulation& sim, std::span<const engine::TaskId> deps) const;

 private:
  std::size_t topology_channels_ = 0;
  engine::Simulation scratch_;  // the lowering alone; its first task waits for `deps`
  engine::TaskId end_ = 0;
};

}  // namespace linksim::work
