#pragma once
// Placement: the one step from a workload (workload.hpp) to an engine simulation. Jobs
// (job_builder.hpp), task graphs (task_graph.hpp) and the gradient-sync scenario hand it their
// work piece by piece; it owns what they would otherwise each build again:
// - one capacity vector (LinkRates) and one GPU numbering (the topology's ordinals, as sim/coll
//   numbers them);
// - the router and the route paths per pair of endpoints;
// - one communicator per group of GPUs (as NCCL builds one per group), the planner's choice per
//   group, operation and size (a twin group reuses its twin's, communicator_twins.hpp), and each
//   such call's lowering recorded once and copied at every repeat (recorded_collective.hpp);
// - optionally the identical planes that every route between the GPUs crosses, simulated once
//   (job_planes.hpp).
// So a send, a copy or a collective costs the same whichever reader asked for it.

#include <map>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "sim/coll/communicator.hpp"
#include "sim/coll/request.hpp"
#include "sim/coll/route_planes.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/topo/routing.hpp"
#include "sim/topo/topology.hpp"
#include "sim/work/recorded_collective.hpp"
#include "sim/work/workload.hpp"

namespace linksim::work {

// Why a piece of work cannot run on the machine. `field` names the Work field to blame ("dst"
// for an unreachable endpoint, "gpus" for a group that cannot form a communicator, "algorithm",
// "protocol" or "op" for a collective with no way to run); what() is the reason.
class PlacementError : public std::runtime_error {
 public:
  PlacementError(const char* field, const std::string& message)
      : std::runtime_error(message), field_(field) {}
  const char* field() const { return field_; }

 private:
  const char* field_;
};

// The engine tasks one piece of work became: `first` up to `end`, in order; `end` is the task
// its dependents wait for (for a compute, delay or barrier, first == end).
struct Placed {
  engine::TaskId first = 0;
  engine::TaskId end = 0;
};

class Placement {
 public:
  struct Options {
    LinkRates rates = LinkRates::payload;
    // Simulate one plane of each set of identical planes that the routes between all of the
    // GPUs cross (job_planes.hpp), where there are any; add() then throws PlanesDoNotHold for
    // work that cannot leave them out.
    bool leave_out_planes = false;
  };

  // `machine` outlives this. `gpus`: the GPUs work may run on, in the topology's order from its
  // first (their ordinals number the engine's GPUs 0..gpus.size()-1).
  Placement(const topo::Topology& machine, std::vector<topo::NodeId> gpus, Options options);
  Placement(const Placement&) = delete;
  Placement& operator=(const Placement&) = delete;

  // Adds `work` after `deps` (tasks added earlier). Throws PlacementError for work the machine
  // cannot run; the simulation then holds whatever came before it.
  Placed add(const Work& work, std::span<const engine::TaskId> deps);

  // How the planner runs `c` with `bytes`: simulated once per group, operation, size and fixed
  // algorithm/protocol; a group twin to one already chosen for reuses that choice.
  const coll::Choice& choice(const CollectiveWork& c, double bytes);
  // How long each of `concurrent` (collectives of `bytes` each, on groups of this placement's
  // GPUs) takes when they all start together on an engine of their own, with nothing else in
  // flight: each lowered as add() lowers it. For work that stands in for a collective the graph
  // does not build (replica_folding.hpp).
  std::vector<double> concurrent_seconds(const std::vector<CollectiveWork>& concurrent,
                                         double bytes);
  // The communicator of `gpus` (in rank order), built once.
  coll::Communicator& communicator(const std::vector<topo::NodeId>& gpus);

  // The planes left out, or nullptr when every plane is simulated.
  const coll::PlaneCopies* planes() const { return planes_.copies > 1 ? &planes_ : nullptr; }
  const topo::Router& router() const { return router_; }
  const topo::Topology& machine() const { return machine_; }
  int gpu_index(topo::NodeId gpu) const { return machine_.node(gpu).ordinal; }
  engine::Simulation& simulation() { return *sim_; }
  std::shared_ptr<engine::Simulation> shared_simulation() const { return sim_; }

 private:
  engine::TaskId add_send(const Work& w, std::span<const engine::TaskId> deps);
  engine::TaskId add_copy(const Work& w, std::span<const engine::TaskId> deps);
  engine::TaskId add_collective(const Work& w, std::span<const engine::TaskId> deps);
  // The call's lowering, recorded once.
  const RecordedCollective& recorded(const CollectiveWork& c, double bytes);
  // The route from `src` to `dst`, once per pair; throws PlacementError when there is none.
  const topo::Route& route(topo::NodeId src, topo::NodeId dst);
  bool twins(const std::vector<topo::NodeId>& a, const std::vector<topo::NodeId>& b);
  int engine_gpu(topo::NodeId node) const;

  using Group = std::vector<topo::NodeId>;
  // (group, op, bytes, algorithm name or "", protocol or -1)
  using CallKey = std::tuple<Group, int, double, std::string, int>;

  const topo::Topology& machine_;
  std::vector<topo::NodeId> gpus_;
  LinkRates rates_;
  std::vector<double> capacities_Bps_;
  std::shared_ptr<engine::Simulation> sim_;
  const topo::Router router_;
  coll::PlaneCopies planes_;
  std::map<std::pair<topo::NodeId, topo::NodeId>, std::optional<topo::Route>> routes_;
  // Engine paths per (src, dst): of sends, and of copies (and line-rate sends).
  std::map<std::pair<topo::NodeId, topo::NodeId>, std::vector<engine::PathShare>> send_paths_;
  std::map<std::pair<topo::NodeId, topo::NodeId>, std::vector<engine::PathShare>> copy_paths_;
  std::map<Group, std::unique_ptr<coll::Communicator>> comms_;
  std::map<CallKey, coll::Choice> choices_;
  // Per call without its group, the groups whose choice was simulated, in order.
  std::map<std::tuple<int, double, std::string, int>, std::vector<Group>> chosen_on_;
  std::map<std::pair<Group, Group>, bool> twins_;
  std::map<CallKey, std::unique_ptr<RecordedCollective>> lowered_;
};

}  // namespace linksim::work
