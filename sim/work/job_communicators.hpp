#pragma once
// A job's communicators: one per group of ranks that communicates (built once, as NCCL builds a
// communicator once per group), and per group, operation and size the algorithm, protocol and
// channels the planner picks (simulated once, as every repeat of the call picks the same), with
// its lowering recorded once and copied into the job at every repeat (recorded_collective.hpp).

#include <map>
#include <memory>
#include <tuple>
#include <vector>

#include "sim/coll/communicator.hpp"
#include "sim/coll/request.hpp"
#include "sim/topo/topology.hpp"
#include "sim/work/recorded_collective.hpp"

namespace linksim::work {

class JobCommunicators {
 public:
  // `gpus`: the job's GPUs by rank (plan_gpus). `machine` outlives this.
  JobCommunicators(const topo::Topology& machine, std::vector<topo::NodeId> gpus);

  // The communicator of `ranks` (job ranks, in the group's order).
  coll::Communicator& communicator(const std::vector<int>& ranks);
  // How the planner runs `request` on the communicator of `ranks`.
  const coll::Choice& choice(const std::vector<int>& ranks, const coll::Request& request);
  // The call lowered as the planner runs it, for a simulation whose channels start with the
  // topology's payload capacities (topo::payload_capacities_Bps).
  const RecordedCollective& lowered(const std::vector<int>& ranks, const coll::Request& request);

 private:
  const topo::Topology& machine_;
  std::vector<topo::NodeId> gpus_;
  std::map<std::vector<int>, std::unique_ptr<coll::Communicator>> comms_;
  std::vector<double> capacities_Bps_;
  std::map<std::tuple<std::vector<int>, int, double>, coll::Choice> choices_;
  std::map<std::tuple<std::vector<int>, int, double>, std::unique_ptr<RecordedCollective>> lowered_;
};

}  // namespace linksim::work
