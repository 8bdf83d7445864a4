#include "sim/work/recorded_collective.hpp"

#include "sim/coll/collective_sim.hpp"

namespace linksim::work {
namespace {

engine::Simulation scratch_for(const coll::Communicator& comm,
                               const std::vector<double>& capacities_Bps) {
  return engine::Simulation(capacities_Bps, comm.topology().count(topo::NodeKind::gpu));
}

}  // namespace

RecordedCollective::RecordedCollective(const coll::Communicator& comm, const coll::Request& request,
                                       const coll::Choice& choice,
                                       const std::vector<double>& capacities_Bps)
    : topology_channels_(capacities_Bps.size()), scratch_(scratch_for(comm, capacities_Bps)) {
  end_ = coll::lower_collective(comm, request, choice, scratch_, {});
}

engine::TaskId RecordedCollective::add_to(engine::Simulation& sim,
                                          std::span<const engine::TaskId> deps) const {
  const engine::Simulation& s = scratch_;
  // Channels the lowering added (rank caps), then its paths, then its tasks: each kind of id is
  // numbered on its own, so adding them kind by kind gives the ids lowering in place gives.
  std::vector<engine::ChannelId> channel(s.channel_count());
  for (std::size_t c = 0; c < s.channel_count(); ++c) {
    channel[c] = c < topology_channels_
                     ? static_cast<engine::ChannelId>(c)
                     : sim.add_channel(s.channel_capacity_Bps(static_cast<engine::ChannelId>(c)));
  }
  std::vector<engine::PathId> path(s.path_count());
  std::vector<engine::ChannelId> channels;
  for (std::size_t p = 0; p < s.path_count(); ++p) {
    channels.clear();
    for (engine::ChannelId c : s.path_channels(static_cast<engine::PathId>(p)))
      channels.push_back(channel[c]);
    path[p] = sim.add_path(channels, s.path_latency_s(static_cast<engine::PathId>(p)));
  }
  const auto base = static_cast<engine::TaskId>(sim.task_count());
  std::vector<engine::TaskId> task_deps;
  std::vector<engine::PathShare> shares;
  for (engine::TaskId t = 0; t < s.task_count(); ++t) {
    task_deps.clear();
    if (t == 0) task_deps.assign(deps.begin(), deps.end());
    for (engine::TaskId d : s.deps(t))
      task_deps.push_back(base + d);
    switch (s.kind(t)) {
      case engine::TaskKind::compute:
        sim.add_compute(s.gpu(t), s.amount(t), task_deps);
        break;
      case engine::TaskKind::transfer:
        shares.clear();
        for (const engine::PathShare& ps : s.paths(t))
          shares.push_back({path[ps.path], ps.share});
        sim.add_transfer(s.amount(t), shares, s.gpu(t), s.peer_gpu(t), task_deps);
        break;
      case engine::TaskKind::delay:
        sim.add_delay(s.amount(t), task_deps);
        break;
      case engine::TaskKind::barrier:
        sim.add_barrier(task_deps);
        break;
    }
  }
  return base + end_;
}

}  // namespace linksim::work
