// Canonical order and placement of task-graph tasks (task_graph_placement.hpp).
#include "sim/work/task_graph_placement.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <queue>
#include <span>
#include <stdexcept>
#include <tuple>

#include "sim/coll/collective_sim.hpp"
#include "sim/coll/communicator.hpp"
#include "sim/coll/route_paths.hpp"
#include "sim/core/error.hpp"
#include "sim/topo/link_payload.hpp"

namespace linksim::work::detail {

std::vector<std::size_t> canonical_order(const std::vector<RawTask>& tasks, bool* duplicate_ids) {
  const std::size_t n = tasks.size();
  // Ids are unique: rank them once, so that the queue compares integers. The sort compares
  // each id's first 8 bytes as one big-endian integer (zero-padded, so it orders as the bytes
  // do) and looks at the strings only on a tie.
  struct Keyed {
    std::uint64_t prefix;
    std::size_t task;
  };
  std::vector<Keyed> keyed(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t prefix = 0;
    const std::string& id = tasks[i].id;
    for (std::size_t b = 0; b < 8; ++b)
      prefix = (prefix << 8) | (b < id.size() ? static_cast<unsigned char>(id[b]) : 0u);
    keyed[i] = {prefix, i};
  }
  std::sort(keyed.begin(), keyed.end(), [&](const Keyed& a, const Keyed& b) {
    if (a.prefix != b.prefix) return a.prefix < b.prefix;
    return tasks[a.task].id < tasks[b.task].id;
  });
  std::vector<std::size_t> by_id(n);
  for (std::size_t r = 0; r < n; ++r)
    by_id[r] = keyed[r].task;
  std::vector<Keyed>().swap(keyed);
  if (duplicate_ids) {
    *duplicate_ids = false;
    for (std::size_t r = 1; r < n; ++r)
      *duplicate_ids = *duplicate_ids || tasks[by_id[r - 1]].id == tasks[by_id[r]].id;
  }
  std::vector<std::size_t> rank(n);
  for (std::size_t r = 0; r < n; ++r)
    rank[by_id[r]] = r;

  std::vector<std::size_t> waiting(n);
  std::vector<std::size_t> dependents_begin(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i) {
    waiting[i] = tasks[i].deps.size();
    for (std::size_t d : tasks[i].deps)
      ++dependents_begin[d + 1];
  }
  for (std::size_t i = 0; i < n; ++i)
    dependents_begin[i + 1] += dependents_begin[i];
  std::vector<std::size_t> dependents(dependents_begin[n]);
  {
    std::vector<std::size_t> fill(dependents_begin.begin(), dependents_begin.end() - 1);
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t d : tasks[i].deps)
        dependents[fill[d]++] = i;
    }
  }
  // Ready tasks by rank, lowest first.
  std::priority_queue<std::size_t, std::vector<std::size_t>, std::greater<>> ready;
  for (std::size_t i = 0; i < n; ++i) {
    if (waiting[i] == 0) ready.push(rank[i]);
  }
  std::vector<std::size_t> order;
  order.reserve(n);
  while (!ready.empty()) {
    const std::size_t i = by_id[ready.top()];
    ready.pop();
    order.push_back(i);
    for (std::size_t k = dependents_begin[i]; k < dependents_begin[i + 1]; ++k) {
      const std::size_t d = dependents[k];
      if (--waiting[d] == 0) ready.push(rank[d]);
    }
  }
  return order;
}

namespace {

// Adds tasks to one simulation, sharing routes, communicators and collective choices.
class Placer {
 public:
  Placer(const topo::Topology& topology, LinkRates rates, const PlacementFailure& fail)
      : topo_(topology), router_(topology), fail_(fail), gpu_index_(topology.nodes().size(), -1) {
    std::vector<std::string> gpu_names;
    for (topo::NodeId g : topology.nodes_of(topo::NodeKind::gpu)) {
      gpu_index_[g] = static_cast<int>(gpu_names.size());
      gpu_names.push_back(topology.node(g).id);
    }
    std::vector<double> capacity(topology.channel_count());
    if (rates == LinkRates::payload) {
      capacity = topo::payload_capacities_Bps(topology);
    } else {
      for (topo::ChannelId c = 0; c < capacity.size(); ++c)
        capacity[c] = topology.channel_bandwidth_Bps(c);
    }
    graph_.emplace(
        TaskGraph{engine::Simulation(std::move(capacity), gpu_names.size()), {}, {}, {}, {}});
    graph_->gpu_names = std::move(gpu_names);
  }

  TaskGraph& graph() { return *graph_; }

  // Adds task `i` after `deps` (engine ids); returns the engine task its dependents wait for.
  engine::TaskId add(std::size_t i, const RawTask& t, std::span<const engine::TaskId> deps) {
    engine::Simulation& sim = graph_->simulation;
    if (t.collective) return add_collective(i, t, deps);
    switch (t.kind) {
      case engine::TaskKind::compute:
        return name(sim.add_compute(gpu_index_[t.gpu], t.amount, deps), t.id);
      case engine::TaskKind::delay:
        return name(sim.add_delay(t.amount, deps), t.id);
      case engine::TaskKind::barrier:
        return name(sim.add_barrier(deps), t.id);
      case engine::TaskKind::transfer:
        break;
    }
    auto [it, fresh] = routes_.try_emplace({t.src, t.dst});
    if (fresh) {
      const auto route = router_.route(t.src, t.dst);
      if (!route || route->paths.empty()) {
        fail_(i, "dst",
              fmt::format("no route from {} to {} in topology \"{}\"", topo_.node(t.src).id,
                          topo_.node(t.dst).id, topo_.name));
      }
      it->second = coll::add_route_paths(sim, *route);
    }
    return name(sim.add_transfer(t.amount, it->second, gpu_index_[t.src], gpu_index_[t.dst], deps),
                t.id);
  }

 private:
  engine::TaskId name(engine::TaskId task, const std::string& id) {
    graph_->task_names.push_back(id);
    return task;
  }

  // Lowered as a sweep lowers it, with the candidate NCCL would pick (the fastest alone on the
  // machine, among those the task allows). Its tasks are named "ID#k", the last one "ID".
  engine::TaskId add_collective(std::size_t i, const RawTask& t,
                                std::span<const engine::TaskId> deps) {
    const CollectiveTask& c = *t.collective;
    std::vector<int> gpus;
    for (topo::NodeId g : c.gpus) {
      // The lowering numbers GPUs by ordinal (sim/coll); this graph, by place in the machine.
      if (topo_.node(g).ordinal != gpu_index_[g]) {
        fail_(i, "gpus",
              fmt::format("topology \"{}\" numbers its GPUs out of order (GPU \"{}\" has "
                          "ordinal {}), which collective tasks cannot use yet",
                          topo_.name, topo_.node(g).id, topo_.node(g).ordinal));
      }
      gpus.push_back(gpu_index_[g]);
    }
    auto comm_it = communicators_.find(c.gpus);
    if (comm_it == communicators_.end()) {
      try {
        comm_it =
            communicators_.emplace(c.gpus, std::make_unique<coll::Communicator>(topo_, c.gpus))
                .first;
      } catch (const InputError& e) {
        fail_(i, "gpus", fmt::format("these GPUs cannot all reach each other: {}", e.message()));
      }
    }
    const coll::Communicator& comm = *comm_it->second;
    coll::Request r;
    r.op = c.op;
    r.size_bytes = t.amount;
    r.algorithm = c.algorithm;
    r.protocol = c.protocol;
    const auto key = std::make_tuple(c.gpus, static_cast<int>(c.op), t.amount,
                                     c.algorithm ? std::string(c.algorithm->name()) : "",
                                     c.protocol ? static_cast<int>(*c.protocol) : -1);
    auto choice_it = choices_.find(key);
    if (choice_it == choices_.end()) {
      try {
        choice_it = choices_.emplace(key, coll::simulate_collective(comm, r).choice).first;
      } catch (const InputError& e) {
        fail_(
            i,
            c.algorithm  ? "algorithm"
            : c.protocol ? "protocol"
                         : "op",
            fmt::format("no way to run {} on these GPUs: {}", coll::to_string(c.op), e.message()));
      }
    }
    engine::Simulation& sim = graph_->simulation;
    const auto first = static_cast<engine::TaskId>(sim.task_count());
    const engine::TaskId end = coll::lower_collective(comm, r, choice_it->second, sim, deps);
    for (engine::TaskId k = first; k < end; ++k)
      graph_->task_names.push_back(fmt::format("{}#{}", t.id, k - first));
    graph_->task_names.push_back(t.id);
    graph_->comm_ops.push_back({first, end, std::move(gpus)});
    return end;
  }

  const topo::Topology& topo_;
  const topo::Router router_;
  const PlacementFailure& fail_;
  std::vector<int> gpu_index_;
  std::optional<TaskGraph> graph_;
  std::map<std::pair<topo::NodeId, topo::NodeId>, std::vector<engine::PathShare>> routes_;
  std::map<std::vector<topo::NodeId>, std::unique_ptr<coll::Communicator>> communicators_;
  std::map<std::tuple<std::vector<topo::NodeId>, int, double, std::string, int>, coll::Choice>
      choices_;
};

}  // namespace

TaskGraph place_tasks(const std::vector<RawTask>& tasks, const std::vector<std::size_t>& order,
                      const topo::Topology& topology, LinkRates rates,
                      const PlacementFailure& fail) {
  Placer placer(topology, rates, fail);
  engine::Simulation& sim = placer.graph().simulation;
  std::size_t dep_count = 0;
  for (const RawTask& t : tasks)
    dep_count += t.deps.size();
  sim.reserve(tasks.size(), dep_count);
  placer.graph().task_names.reserve(tasks.size());
  std::vector<engine::TaskId> ids(tasks.size());
  std::vector<engine::TaskId> deps;
  for (std::size_t i : order) {
    const RawTask& t = tasks[i];
    deps.clear();
    for (std::size_t d : t.deps)
      deps.push_back(ids[d]);
    std::sort(deps.begin(), deps.end());
    ids[i] = placer.add(i, t, deps);
  }
  return std::move(placer.graph());
}

}  // namespace linksim::work::detail
