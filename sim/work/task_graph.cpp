#include "sim/work/task_graph.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <queue>
#include <unordered_map>

#include "sim/coll/route_paths.hpp"
#include "sim/core/error.hpp"
#include "sim/core/schema_check.hpp"
#include "sim/core/units.hpp"
#include "sim/topo/link_payload.hpp"
#include "sim/work/task_graph_placement.hpp"

namespace linksim::work {
namespace {

using detail::RawTask;

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
      : root_(root), topo_(topology), rates_(rates) {}

  TaskGraph load();

 private:
  [[noreturn]] void fail_task(const JsonView& at, const RawTask& t, const std::string& msg) const {
    at.fail(fmt::format("task \"{}\": {}", t.id, msg));
  }
  topo::NodeId endpoint(const JsonView& v, const RawTask& t) const;
  void read_task(const JsonView& v, std::size_t index);
  [[noreturn]] void fail_cycle(const std::vector<std::size_t>& order) const;

  JsonView root_;
  const topo::Topology& topo_;
  LinkRates rates_;
  std::vector<RawTask> tasks_;
  std::vector<JsonView> views_;
  std::unordered_map<std::string, std::size_t> by_id_;
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

// A leftover after the canonical order means a cycle: walk unfinished dependencies from a
// leftover task until one repeats, and name that loop.
void Loader::fail_cycle(const std::vector<std::size_t>& order) const {
  const std::size_t n = tasks_.size();
  std::vector<bool> placed(n, false);
  for (std::size_t i : order)
    placed[i] = true;
  // Start from the leftover task with the lowest id, so the message is stable.
  std::size_t start = n;
  for (std::size_t i = 0; i < n; ++i) {
    if (!placed[i] && (start == n || tasks_[i].id < tasks_[start].id)) start = i;
  }
  std::vector<std::size_t> walk;
  std::vector<std::size_t> seen_at(n, n);
  std::size_t cur = start;
  while (seen_at[cur] == n) {
    seen_at[cur] = walk.size();
    walk.push_back(cur);
    std::size_t next = n;
    for (std::size_t d : tasks_[cur].deps) {  // lowest-id unfinished dependency
      if (!placed[d] && (next == n || tasks_[d].id < tasks_[next].id)) next = d;
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

TaskGraph Loader::load() {
  root_.expect_only({"$schema", "description", "tasks"});
  const std::vector<JsonView> list = root_.at("tasks").elements();
  for (std::size_t i = 0; i < list.size(); ++i) {
    read_task(list[i], i);
  }
  // Dependencies, once every id is known.
  for (RawTask& t : tasks_) {
    const auto deps = views_[&t - tasks_.data()].get("deps");
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
  const std::vector<std::size_t> order = detail::canonical_order(tasks_);
  if (order.size() != tasks_.size()) fail_cycle(order);
  std::string description;
  if (auto d = root_.get("description")) description = d->as_string();
  TaskGraph graph = detail::place_tasks(tasks_, order, topo_, rates_, [&](std::size_t i) {
    const RawTask& t = tasks_[i];
    fail_task(views_[i].at("dst"), t,
              fmt::format("no route from {} to {} in topology \"{}\"", topo_.node(t.src).id,
                          topo_.node(t.dst).id, topo_.name));
  });
  graph.description = std::move(description);
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
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  std::string text;
  if (in) {
    const std::streamoff size = in.tellg();
    in.seekg(0);
    if (size > 0) {
      text.resize(static_cast<std::size_t>(size));
      in.read(text.data(), size);
    }
  }
  if (in) {
    if (auto graph = detail::read_valid_task_graph(text, topology, rates)) return std::move(*graph);
    return parse_task_graph(parse_json_text(text, path), path, topology, rates);
  }
  // Unreadable: the JSON reader says why.
  return parse_task_graph(read_json_file(path), path, topology, rates);
}

namespace detail {

std::vector<std::size_t> canonical_order(const std::vector<RawTask>& tasks, bool* duplicate_ids) {
  const std::size_t n = tasks.size();
  // Ids are unique: rank them once, so that the queue compares integers.
  std::vector<std::size_t> by_id(n);
  for (std::size_t i = 0; i < n; ++i)
    by_id[i] = i;
  std::sort(by_id.begin(), by_id.end(),
            [&](std::size_t a, std::size_t b) { return tasks[a].id < tasks[b].id; });
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

TaskGraph place_tasks(const std::vector<RawTask>& tasks, const std::vector<std::size_t>& order,
                      const topo::Topology& topology, LinkRates rates,
                      const std::function<void(std::size_t)>& no_route) {
  std::vector<int> gpu_index(topology.nodes().size(), engine::kNoGpu);
  std::vector<std::string> gpu_names;
  for (topo::NodeId g : topology.nodes_of(topo::NodeKind::gpu)) {
    gpu_index[g] = static_cast<int>(gpu_names.size());
    gpu_names.push_back(topology.node(g).id);
  }
  std::vector<double> capacity(topology.channel_count());
  if (rates == LinkRates::payload) {
    capacity = topo::payload_capacities_Bps(topology);
  } else {
    for (topo::ChannelId c = 0; c < capacity.size(); ++c)
      capacity[c] = topology.channel_bandwidth_Bps(c);
  }
  TaskGraph graph{engine::Simulation(std::move(capacity), gpu_names.size()), {}, {}, {}};
  graph.gpu_names = std::move(gpu_names);
  engine::Simulation& sim = graph.simulation;
  std::size_t dep_count = 0;
  for (const RawTask& t : tasks)
    dep_count += t.deps.size();
  sim.reserve(tasks.size(), dep_count, 0);
  graph.task_names.reserve(tasks.size());

  const topo::Router router(topology);
  std::map<std::pair<topo::NodeId, topo::NodeId>, std::vector<engine::PathShare>> routes;
  std::vector<engine::TaskId> ids(tasks.size());
  std::vector<engine::TaskId> deps;
  for (std::size_t i : order) {
    const RawTask& t = tasks[i];
    deps.clear();
    for (std::size_t d : t.deps)
      deps.push_back(ids[d]);
    std::sort(deps.begin(), deps.end());
    switch (t.kind) {
      case engine::TaskKind::compute:
        ids[i] = sim.add_compute(gpu_index[t.gpu], t.amount, deps);
        break;
      case engine::TaskKind::delay:
        ids[i] = sim.add_delay(t.amount, deps);
        break;
      case engine::TaskKind::barrier:
        ids[i] = sim.add_barrier(deps);
        break;
      case engine::TaskKind::transfer: {
        auto [it, fresh] = routes.try_emplace({t.src, t.dst});
        if (fresh) {
          const auto route = router.route(t.src, t.dst);
          if (!route || route->paths.empty()) no_route(i);
          it->second = coll::add_route_paths(sim, *route);
        }
        ids[i] = sim.add_transfer(t.amount, it->second, gpu_index[t.src], gpu_index[t.dst], deps);
        break;
      }
    }
    graph.task_names.push_back(t.id);
  }
  return graph;
}

}  // namespace detail

}  // namespace linksim::work
