#include "sim/work/recorded_collective.hpp"

#include "sim/coll/collective_sim.hpp"
#include "sim/work/graph_copy.hpp"

namespace linksim::work {
namespace {

engine::Simulation scratch_for(const coll::Communicator& comm,
                               const std::vector<double>& capacities_Bps) {
  return engine::Simulation(capacities_Bps, comm.topology().count(topo::NodeKind::gpu));
}

}  // namespace

RecordedCollective::RecordedCollective(const coll::Communicator& comm, const coll::Request& request,
                                       const coll::Choice& choice,
                                       const std::vector<double>& capacities_Bps,
                                       const coll::PlaneCopies* job_planes)
    : topology_channels_(capacities_Bps.size()), scratch_(scratch_for(comm, capacities_Bps)) {
  end_ = coll::lower_collective(comm, request, choice, scratch_, {}, false, job_planes);
}

engine::TaskId RecordedCollective::add_to(engine::Simulation& sim,
                                          std::span<const engine::TaskId> deps) const {
  const engine::TaskId base = append_graph(scratch_, topology_channels_, sim, deps,
                                           [this](engine::TaskId t) { return scratch_.amount(t); });
  return base + end_;
}

}  // namespace linksim::work
