#include "sim/work/graph_copy.hpp"

#include <vector>

namespace linksim::work {
namespace {

// Paths are created on use (coll::add_route_paths), so the last one a task uses is the last.
std::size_t used_path_count(const engine::Simulation& sim) {
  std::size_t n = 0;
  for (engine::TaskId t = 0; t < sim.task_count(); ++t) {
    for (const engine::PathShare& ps : sim.paths(t))
      n = std::max(n, static_cast<std::size_t>(ps.path) + 1);
  }
  return n;
}

}  // namespace

engine::TaskId append_graph(const engine::Simulation& from, std::size_t shared_channels,
                            engine::Simulation& to, std::span<const engine::TaskId> first_deps,
                            const std::function<double(engine::TaskId)>& amount) {
  // Channels, then paths, then tasks: each kind of id is numbered on its own, so adding them
  // kind by kind gives the ids that building the graph in `to` directly gives.
  // Scratch kept between calls: a job appends a recorded collective some 100,000 times, and
  // these lists (a few entries each) were most of an append's cost. Only their sizes and the
  // values written below are read, so reuse changes no id (`amount` must not append).
  thread_local std::vector<engine::ChannelId> channel;
  thread_local std::vector<engine::PathId> path;
  thread_local std::vector<engine::ChannelId> channels;
  thread_local std::vector<engine::Simulation::PathSetId> set;
  thread_local std::vector<engine::TaskId> deps;
  thread_local std::vector<engine::PathShare> shares;
  channel.resize(from.channel_count());
  for (std::size_t c = 0; c < from.channel_count(); ++c) {
    const auto id = static_cast<engine::ChannelId>(c);
    channel[c] = c < shared_channels ? id : to.add_channel(from.channel_capacity_Bps(id));
  }
  path.resize(used_path_count(from));
  for (std::size_t p = 0; p < path.size(); ++p) {
    channels.clear();
    for (engine::ChannelId c : from.path_channels(static_cast<engine::PathId>(p)))
      channels.push_back(channel[c]);
    path[p] = to.add_path(channels, from.path_latency_s(static_cast<engine::PathId>(p)));
  }
  // Each of `from`'s path sets once, over the new paths: no set of `to` can equal one (their
  // paths are new), so looking for one, as add_transfer does, would be wasted.
  constexpr auto kNotYet = ~engine::Simulation::PathSetId{0};
  set.assign(from.path_set_count(), kNotYet);
  const auto base = static_cast<engine::TaskId>(to.task_count());
  for (engine::TaskId t = 0; t < from.task_count(); ++t) {
    deps.clear();
    if (t == 0) deps.assign(first_deps.begin(), first_deps.end());
    for (engine::TaskId d : from.deps(t))
      deps.push_back(base + d);
    switch (from.kind(t)) {
      case engine::TaskKind::compute:
        to.add_compute(from.gpu(t), amount(t), deps);
        break;
      case engine::TaskKind::transfer: {
        auto& s = set[from.path_set(t)];
        if (s == kNotYet) {
          shares.clear();
          for (const engine::PathShare& ps : from.paths(t))
            shares.push_back({path[ps.path], ps.share});
          s = to.add_path_set(shares);
        }
        to.add_transfer(amount(t), s, from.gpu(t), from.peer_gpu(t), deps);
        break;
      }
      case engine::TaskKind::delay:
        to.add_delay(amount(t), deps);
        break;
      case engine::TaskKind::barrier:
        to.add_barrier(deps);
        break;
    }
  }
  return base;
}

engine::Simulation copy_graph(const engine::Simulation& from,
                              const std::function<double(engine::TaskId)>& amount) {
  std::vector<double> capacity_Bps(from.channel_count());
  for (std::size_t c = 0; c < capacity_Bps.size(); ++c)
    capacity_Bps[c] = from.channel_capacity_Bps(static_cast<engine::ChannelId>(c));
  engine::Simulation to(std::move(capacity_Bps), from.gpu_count());
  std::size_t deps = 0;
  for (engine::TaskId t = 0; t < from.task_count(); ++t)
    deps += from.deps(t).size();
  to.reserve(from.task_count(), deps);
  append_graph(from, from.channel_count(), to, {}, amount);
  return to;
}

}  // namespace linksim::work
