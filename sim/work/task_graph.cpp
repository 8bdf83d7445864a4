#include "sim/work/task_graph.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <queue>

#include "sim/coll/route_paths.hpp"
#include "sim/core/error.hpp"
#include "sim/core/schema_check.hpp"
#include "sim/core/units.hpp"
#include "sim/topo/link_payload.hpp"

namespace linksim::work {
namespace {

// A task as read from the file, before it is placed in the simulation.
struct RawTask {
  std::string id;
  engine::TaskKind kind = engine::TaskKind::barrier;
  std::size_t index = 0;  // position in the file's task list
  double amount = 0;      // seconds or bytes
  topo::NodeId gpu = 0;   // compute
  topo::NodeId src = 0;   // transfer
  topo::NodeId dst = 0;
  std::vector<std::size_t> deps;  // indices into the raw task list
};

std::optional<engine::TaskKind> kind_from_string(const std::string& s) {
  for (auto k : {engine::TaskKind::compute, engine::TaskKind::transfer, engine::TaskKind::delay,
                 engine::TaskKind::barrier}) {
    if (engine::to_string(k) == s) return k;
  }
  return std::nullopt;
}

class Loader {
 public:
  Loader(const JsonView& root, const topo::Topology& topology, LinkRates rates)
      : root_(root), topo_(topology), router_(topology), rates_(rates) {}

  TaskGraph load();

 private:
  [[noreturn]] void fail_task(const JsonView& at, const RawTask& t, const std::string& msg) const {
    at.fail(fmt::format("task \"{}\": {}", t.id, msg));
  }
  topo::NodeId endpoint(const JsonView& v, const RawTask& t) const;
  void read_task(const JsonView& v, std::size_t index);
  std::vector<std::size_t> canonical_order() const;
  engine::TaskId add(engine::Simulation& sim, const RawTask& t,
                     const std::vector<engine::TaskId>& ids);

  JsonView root_;
  const topo::Topology& topo_;
  topo::Router router_;
  LinkRates rates_;
  std::vector<RawTask> tasks_;
  std::vector<JsonView> views_;
  std::map<std::string, std::size_t> by_id_;
  std::map<topo::NodeId, int> gpu_index_;
  std::map<std::pair<topo::NodeId, topo::NodeId>, std::vector<engine::PathShare>> routes_;
};

topo::NodeId Loader::endpoint(const JsonView& v, const RawTask& t) const {
  const std::string name = v.as_string();
  const auto node = topo_.find(name);
  if (!node) {
    fail_task(
        v, t,
        fmt::format("unknown endpoint \"{}\": no such node in topology \"{}\"", name, topo_.name));
  }
  return *node;
}

void Loader::read_task(const JsonView& v, std::size_t index) {
  RawTask t;
  t.index = index;
  t.id = v.at("id").as_string();
  if (t.id.empty()) v.at("id").fail("task id must not be empty");
  if (auto it = by_id_.find(t.id); it != by_id_.end()) {
    v.at("id").fail(fmt::format("duplicate task id \"{}\" (first at /tasks/{})", t.id, it->second));
  }
  const JsonView kind_view = v.at("kind");
  const auto kind = kind_from_string(kind_view.as_string());
  if (!kind) {
    fail_task(kind_view, t,
              fmt::format("unknown kind \"{}\"; expected one of: compute, transfer, delay, "
                          "barrier",
                          kind_view.as_string()));
  }
  t.kind = *kind;
  try {
    switch (t.kind) {
      case engine::TaskKind::compute:
        v.expect_only({"id", "kind", "deps", "gpu", "duration", "note"});
        break;
      case engine::TaskKind::transfer:
        v.expect_only({"id", "kind", "deps", "src", "dst", "bytes", "note"});
        break;
      case engine::TaskKind::delay:
        v.expect_only({"id", "kind", "deps", "duration", "note"});
        break;
      case engine::TaskKind::barrier:
        v.expect_only({"id", "kind", "deps", "note"});
        break;
    }
  } catch (const InputError& e) {  // add the task id to the message
    throw InputError(e.file(), e.location(), fmt::format("task \"{}\": {}", t.id, e.message()));
  }

  if (t.kind == engine::TaskKind::compute || t.kind == engine::TaskKind::delay) {
    const JsonView d = v.at("duration");
    t.amount = d.as_time_s();
    if (t.amount < 0) fail_task(d, t, "duration must not be negative");
  }
  if (t.kind == engine::TaskKind::compute) {
    const JsonView g = v.at("gpu");
    t.gpu = endpoint(g, t);
    if (topo_.node(t.gpu).kind != topo::NodeKind::gpu) {
      fail_task(g, t, fmt::format("\"{}\" is not a GPU", g.as_string()));
    }
  }
  if (t.kind == engine::TaskKind::transfer) {
    const JsonView b = v.at("bytes");
    if (b.is_number()) {
      if (!b.raw().is_number_integer()) {
        fail_task(b, t, "bytes must be an integer or a size such as \"10 GB\"");
      }
      t.amount = static_cast<double>(b.as_integer());
    } else {
      t.amount = b.as_bytes();
    }
    if (!(t.amount > 0)) {
      fail_task(b, t, fmt::format("bytes must be positive, got {}", b.raw().dump()));
    }
    if (t.amount > units::kMaxBytes) {
      fail_task(b, t,
                fmt::format("bytes {} is above the 1e18 (1 EB) linksim accepts", b.raw().dump()));
    }
    t.src = endpoint(v.at("src"), t);
    t.dst = endpoint(v.at("dst"), t);
    if (t.src == t.dst) fail_task(v.at("dst"), t, "src and dst are the same node");
  }
  by_id_.emplace(t.id, index);
  tasks_.push_back(std::move(t));
  views_.push_back(v);
}

// Kahn's algorithm, lowest id first among the ready tasks. A leftover means a cycle: walk
// unfinished dependencies from a leftover task until one repeats, and name that loop.
std::vector<std::size_t> Loader::canonical_order() const {
  const std::size_t n = tasks_.size();
  std::vector<std::size_t> waiting(n);
  std::vector<std::vector<std::size_t>> dependents(n);
  for (std::size_t i = 0; i < n; ++i) {
    waiting[i] = tasks_[i].deps.size();
    for (std::size_t d : tasks_[i].deps)
      dependents[d].push_back(i);
  }
  const auto later = [&](std::size_t a, std::size_t b) { return tasks_[a].id > tasks_[b].id; };
  std::priority_queue<std::size_t, std::vector<std::size_t>, decltype(later)> ready(later);
  for (std::size_t i = 0; i < n; ++i) {
    if (waiting[i] == 0) ready.push(i);
  }
  std::vector<std::size_t> order;
  order.reserve(n);
  while (!ready.empty()) {
    const std::size_t i = ready.top();
    ready.pop();
    order.push_back(i);
    for (std::size_t d : dependents[i]) {
      if (--waiting[d] == 0) ready.push(d);
    }
  }
  if (order.size() == n) return order;

  // Start from the leftover task with the lowest id, so the message is stable.
  std::size_t start = n;
  for (std::size_t i = 0; i < n; ++i) {
    if (waiting[i] > 0 && (start == n || tasks_[i].id < tasks_[start].id)) start = i;
  }
  std::vector<std::size_t> walk;
  std::vector<std::size_t> seen_at(n, n);
  std::size_t cur = start;
  while (seen_at[cur] == n) {
    seen_at[cur] = walk.size();
    walk.push_back(cur);
    std::size_t next = n;
    for (std::size_t d : tasks_[cur].deps) {  // lowest-id unfinished dependency
      if (waiting[d] > 0 && (next == n || tasks_[d].id < tasks_[next].id)) next = d;
    }
    cur = next;
  }
  // The loop is walk[seen_at[cur]..]; each task there depends on the next. Show it in
  // execution order: a -> b means b depends on a.
  std::vector<std::size_t> loop;
  for (std::size_t k = walk.size(); k-- > seen_at[cur];)
    loop.push_back(walk[k]);
  // Start the loop at its lowest id, and report it at that task's "deps".
  const auto first = std::min_element(loop.begin(), loop.end(), [&](std::size_t a, std::size_t b) {
    return tasks_[a].id < tasks_[b].id;
  });
  std::rotate(loop.begin(), first, loop.end());
  std::vector<std::string> names;
  for (std::size_t i : loop)
    names.push_back(tasks_[i].id);
  names.push_back(names.front());
  fail_task(views_[loop.front()].at("deps"), tasks_[loop.front()],
            fmt::format("dependency cycle: {}", fmt::join(names, " -> ")));
}

engine::TaskId Loader::add(engine::Simulation& sim, const RawTask& t,
                           const std::vector<engine::TaskId>& ids) {
  std::vector<engine::TaskId> deps;
  for (std::size_t d : t.deps)
    deps.push_back(ids[d]);
  std::sort(deps.begin(), deps.end());
  switch (t.kind) {
    case engine::TaskKind::compute:
      return sim.add_compute(gpu_index_.at(t.gpu), t.amount, deps);
    case engine::TaskKind::delay:
      return sim.add_delay(t.amount, deps);
    case engine::TaskKind::barrier:
      return sim.add_barrier(deps);
    case engine::TaskKind::transfer: {
      auto [it, fresh] = routes_.try_emplace({t.src, t.dst});
      if (fresh) {
        const auto route = router_.route(t.src, t.dst);
        if (!route || route->paths.empty()) {
          const JsonView& v = views_[t.index];
          fail_task(v.at("dst"), t,
                    fmt::format("no route from {} to {} in topology \"{}\"", topo_.node(t.src).id,
                                topo_.node(t.dst).id, topo_.name));
        }
        it->second = coll::add_route_paths(sim, *route);
      }
      const auto gpu_of = [&](topo::NodeId n) {
        auto g = gpu_index_.find(n);
        return g == gpu_index_.end() ? engine::kNoGpu : g->second;
      };
      return sim.add_transfer(t.amount, it->second, gpu_of(t.src), gpu_of(t.dst), deps);
    }
  }
  return 0;
}

TaskGraph Loader::load() {
  root_.expect_only({"$schema", "description", "tasks"});
  const std::vector<JsonView> list = root_.at("tasks").elements();
  for (std::size_t i = 0; i < list.size(); ++i) {
    read_task(list[i], i);
  }
  // Dependencies, once every id is known.
  for (RawTask& t : tasks_) {
    const auto deps = views_[t.index].get("deps");
    if (!deps) continue;
    for (const JsonView& d : deps->elements()) {
      const std::string name = d.as_string();
      const auto it = by_id_.find(name);
      if (it == by_id_.end()) {
        fail_task(d, t, fmt::format("dependency \"{}\" is not a task id", name));
      }
      if (std::find(t.deps.begin(), t.deps.end(), it->second) == t.deps.end()) {
        t.deps.push_back(it->second);
      }
    }
  }
  const std::vector<std::size_t> order = canonical_order();

  std::vector<std::string> gpu_names;
  for (topo::NodeId g : topo_.nodes_of(topo::NodeKind::gpu)) {
    gpu_index_.emplace(g, static_cast<int>(gpu_names.size()));
    gpu_names.push_back(topo_.node(g).id);
  }
  std::vector<double> capacity(topo_.channel_count());
  if (rates_ == LinkRates::payload) {
    capacity = topo::payload_capacities_Bps(topo_);
  } else {
    for (topo::ChannelId c = 0; c < capacity.size(); ++c)
      capacity[c] = topo_.channel_bandwidth_Bps(c);
  }
  TaskGraph graph{engine::Simulation(std::move(capacity), gpu_names.size()), {}, {}, {}};
  graph.gpu_names = std::move(gpu_names);
  if (auto d = root_.get("description")) graph.description = d->as_string();
  std::vector<engine::TaskId> ids(tasks_.size());
  for (std::size_t i : order) {
    ids[i] = add(graph.simulation, tasks_[i], ids);
    graph.task_names.push_back(tasks_[i].id);
  }
  return graph;
}

}  // namespace

TaskGraph parse_task_graph(const Json& document, const std::string& file,
                           const topo::Topology& topology, LinkRates rates) {
  TaskGraph graph = Loader(JsonView(document, file), topology, rates).load();
  enforce_schema(document, file, task_graph_schema_path());
  return graph;
}

TaskGraph load_task_graph(const std::string& path, const topo::Topology& topology,
                          LinkRates rates) {
  return parse_task_graph(read_json_file(path), path, topology, rates);
}

}  // namespace linksim::work
