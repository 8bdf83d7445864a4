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

#include "sim/work/placement.hpp"

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

// Hands tasks to one placement, names their engine tasks and keeps the collectives' spans.
class Placer {
 public:
  Placer(const topo::Topology& topology, LinkRates rates, const PlacementFailure& fail)
      : placement_(topology, topology.nodes_of(topo::NodeKind::gpu), {rates, false}), fail_(fail) {
    for (topo::NodeId g : topology.nodes_of(topo::NodeKind::gpu))
      gpu_names_.push_back(topology.node(g).id);
  }

  engine::Simulation& simulation() { return placement_.simulation(); }
  std::vector<std::string>& task_names() { return task_names_; }

  // Adds task `i` after `deps` (engine ids); returns the engine task its dependents wait for.
  // A collective's tasks are named "ID#k", the last one "ID".
  engine::TaskId add(std::size_t i, const RawTask& t, std::span<const engine::TaskId> deps) {
    Work w{.kind = t.kind, .amount = t.amount, .gpu = t.gpu, .src = t.src, .dst = t.dst};
    if (t.collective) {
      w.kind = WorkKind::collective;
      w.collective = t.collective.get();
    }
    Placed placed;
    try {
      placed = placement_.add(w, deps);
    } catch (const PlacementError& e) {
      fail_(i, e.field(), e.what());
    }
    if (t.collective) {
      std::vector<int> gpus;
      for (topo::NodeId g : t.collective->gpus)
        gpus.push_back(placement_.gpu_index(g));
      for (engine::TaskId k = placed.first; k < placed.end; ++k)
        task_names_.push_back(fmt::format("{}#{}", t.id, k - placed.first));
      comm_ops_.push_back({placed.first, placed.end, std::move(gpus)});
    }
    task_names_.push_back(t.id);
    return placed.end;
  }

  TaskGraph release() {
    return TaskGraph{std::move(placement_.simulation()),
                     std::move(task_names_),
                     std::move(gpu_names_),
                     {},
                     std::move(comm_ops_)};
  }

 private:
  Placement placement_;
  const PlacementFailure& fail_;
  std::vector<std::string> task_names_;
  std::vector<std::string> gpu_names_;
  std::vector<engine::CommOp> comm_ops_;
};

}  // namespace

WorkKind transfer_work(const topo::Topology& topology, topo::NodeId src, topo::NodeId dst) {
  const bool gpus = topology.node(src).kind == topo::NodeKind::gpu &&
                    topology.node(dst).kind == topo::NodeKind::gpu;
  return gpus ? WorkKind::send : WorkKind::copy;
}

TaskGraph place_tasks(const std::vector<RawTask>& tasks, const std::vector<std::size_t>& order,
                      const topo::Topology& topology, LinkRates rates,
                      const PlacementFailure& fail) {
  Placer placer(topology, rates, fail);
  engine::Simulation& sim = placer.simulation();
  std::size_t dep_count = 0;
  for (const RawTask& t : tasks)
    dep_count += t.deps.size();
  sim.reserve(tasks.size(), dep_count);
  placer.task_names().reserve(tasks.size());
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
  return placer.release();
}

}  // namespace linksim::work::detail
