#pragma once
// A job's communicators: one per group of ranks that communicates (built once, as NCCL builds a
// communicator once per group), and per group, operation and size the algorithm, protocol and
// channels the planner picks (simulated once, as every repeat of the call picks the same), with
// its lowering recorded once and copied into the job at every repeat (recorded_collective.hpp).

#include <map>
#include <memory>
#include <tuple>
#include <utility>
#include <vector>

#include "sim/coll/communicator.hpp"
#include "sim/coll/request.hpp"
#include "sim/coll/route_planes.hpp"
#include "sim/topo/topology.hpp"
#include "sim/work/recorded_collective.hpp"

namespace linksim::work {

class JobCommunicators {
 public:
  // `gpus`: the job's GPUs by rank (plan_gpus). `machine` outlives this. `leave_out_planes`:
  // lower every collective on the identical planes that the routes between all of the job's
  // GPUs cross (job_planes.hpp), where there are any.
  JobCommunicators(const topo::Topology& machine, std::vector<topo::NodeId> gpus,
                   bool leave_out_planes = false);

  // The planes every lowering leaves out, or nullptr when it leaves out none.
  const coll::PlaneCopies* planes() const { return planes_.copies > 1 ? &planes_ : nullptr; }

  // The communicator of `ranks` (job ranks, in the group's order).
  coll::Communicator& communicator(const std::vector<int>& ranks);
  // How the planner runs `request` on the communicator of `ranks`.
  const coll::Choice& choice(const std::vector<int>& ranks, const coll::Request& request);
  // The call lowered as the planner runs it, for a simulation whose channels start with the
  // topology's payload capacities (topo::payload_capacities_Bps). On planes(), throws
  // PlanesDoNotHold when the chosen algorithm cannot leave planes out.
  const RecordedCollective& lowered(const std::vector<int>& ranks, const coll::Request& request);

 private:
  const topo::Topology& machine_;
  std::vector<topo::NodeId> gpus_;
  std::map<std::vector<int>, std::unique_ptr<coll::Communicator>> comms_;
  std::vector<double> capacities_Bps_;
  coll::PlaneCopies planes_;
  // Whether the groups `a` and `b` are twins (coll::are_twins), found once per pair.
  bool twins(const std::vector<int>& a, const std::vector<int>& b);

  std::map<std::tuple<std::vector<int>, int, double>, coll::Choice> choices_;
  // Per operation, size and root, the groups whose choice was simulated, in order.
  std::map<std::tuple<int, double, int>, std::vector<std::vector<int>>> chosen_on_;
  std::map<std::pair<std::vector<int>, std::vector<int>>, bool> twins_;
  std::map<std::tuple<std::vector<int>, int, double>, std::unique_ptr<RecordedCollective>> lowered_;
};

}  // namespace linksim::work
