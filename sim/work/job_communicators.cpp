#include "sim/work/job_communicators.hpp"

#include <numeric>
#include <utility>

#include "sim/coll/algorithm.hpp"
#include "sim/coll/algorithm_registry.hpp"
#include "sim/coll/collective_sim.hpp"
#include "sim/coll/communicator_twins.hpp"
#include "sim/topo/link_payload.hpp"
#include "sim/work/job_planes.hpp"

namespace linksim::work {

JobCommunicators::JobCommunicators(const topo::Topology& machine, std::vector<topo::NodeId> gpus,
                                   bool leave_out_planes)
    : machine_(machine),
      gpus_(std::move(gpus)),
      capacities_Bps_(topo::payload_capacities_Bps(machine)) {
  const auto n = static_cast<int>(gpus_.size());
  if (!leave_out_planes || machine.is_cluster() || n < 2 ||
      n > coll::Communicator::kMaxPlaneRanks) {
    return;
  }
  std::vector<int> all(static_cast<std::size_t>(n));
  std::iota(all.begin(), all.end(), 0);
  planes_ = communicator(all).plane_copies();
}

coll::Communicator& JobCommunicators::communicator(const std::vector<int>& ranks) {
  auto it = comms_.find(ranks);
  if (it != comms_.end()) return *it->second;
  std::vector<topo::NodeId> nodes;
  for (int r : ranks)
    nodes.push_back(gpus_[static_cast<std::size_t>(r)]);
  auto c = std::make_unique<coll::Communicator>(machine_, nodes);
  return *comms_.emplace(ranks, std::move(c)).first->second;
}

const coll::Choice& JobCommunicators::choice(const std::vector<int>& ranks,
                                             const coll::Request& request) {
  auto key = std::make_tuple(ranks, static_cast<int>(request.op), request.size_bytes);
  auto it = choices_.find(key);
  if (it != choices_.end()) return it->second;
  // A twin group that has run this call already (communicator_twins.hpp) ran every candidate as
  // this group would, renamed.
  auto& chosen_on =
      chosen_on_[std::make_tuple(static_cast<int>(request.op), request.size_bytes, request.root)];
  for (const auto& other : chosen_on) {
    if (twins(other, ranks)) {
      const coll::Choice reused =
          choices_.at(std::make_tuple(other, std::get<1>(key), std::get<2>(key)));
      return choices_.emplace(key, reused).first->second;
    }
  }
  it = choices_.emplace(key, coll::simulate_collective(communicator(ranks), request).choice).first;
  chosen_on.push_back(ranks);
  return it->second;
}

bool JobCommunicators::twins(const std::vector<int>& a, const std::vector<int>& b) {
  const auto key = std::make_pair(a, b);
  auto it = twins_.find(key);
  if (it == twins_.end()) {
    it = twins_.emplace(key, coll::are_twins(communicator(a), communicator(b))).first;
  }
  return it->second;
}

const RecordedCollective& JobCommunicators::lowered(const std::vector<int>& ranks,
                                                    const coll::Request& request) {
  auto key = std::make_tuple(ranks, static_cast<int>(request.op), request.size_bytes);
  auto it = lowered_.find(key);
  if (it == lowered_.end()) {
    const coll::Choice& c = choice(ranks, request);
    if (planes() != nullptr &&
        !coll::AlgorithmRegistry::builtin().get(c.algorithm).moves_only_over_rank_routes()) {
      throw PlanesDoNotHold{};
    }
    auto recorded = std::make_unique<RecordedCollective>(communicator(ranks), request, c,
                                                         capacities_Bps_, planes());
    it = lowered_.emplace(std::move(key), std::move(recorded)).first;
  }
  return *it->second;
}

}  // namespace linksim::work
