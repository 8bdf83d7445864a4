#include "sim/work/task_graph.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <optional>
#include <unordered_map>

#include "sim/coll/algorithm_registry.hpp"
#include "sim/core/error.hpp"
#include "sim/core/schema_check.hpp"
#include "sim/core/units.hpp"
#include "sim/work/task_graph_placement.hpp"

namespace linksim::work {
namespace {

using detail::CollectiveTask;
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
  double read_bytes(const JsonView& b, const RawTask& t) const;
  void read_collective(const JsonView& v, RawTask& t) const;
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

double Loader::read_bytes(const JsonView& b, const RawTask& t) const {
  double bytes = 0;
  if (b.is_number()) {
    if (!b.raw().is_number_integer()) {
      fail_task(b, t, "bytes must be an integer or a size such as \"10 GB\"");
    }
    bytes = static_cast<double>(b.as_integer());
  } else {
    bytes = b.as_bytes();
  }
  if (!(bytes > 0)) fail_task(b, t, fmt::format("bytes must be positive, got {}", b.raw().dump()));
  if (bytes > units::kMaxBytes) {
    fail_task(b, t,
              fmt::format("bytes {} is above the 1e18 (1 EB) linksim accepts", b.raw().dump()));
  }
  return bytes;
}

// op, bytes, gpus (two or more distinct GPUs) and optionally algorithm and protocol, spelled as
// the scenario format spells them.
void Loader::read_collective(const JsonView& v, RawTask& t) const {
  try {
    v.expect_only({"id", "kind", "deps", "op", "bytes", "gpus", "algorithm", "protocol", "note"});
  } catch (const InputError& e) {
    throw InputError(e.file(), e.location(), fmt::format("task \"{}\": {}", t.id, e.message()));
  }
  CollectiveTask c;
  const JsonView op = v.at("op");
  const auto parsed = coll::op_from_string(op.as_string());
  if (!parsed || coll::to_string(*parsed) != op.as_string()) {
    fail_task(op, t,
              fmt::format("unknown op \"{}\"; expected one of: {}", op.as_string(),
                          fmt::join(coll::op_names(), ", ")));
  }
  c.op = *parsed;
  t.amount = read_bytes(v.at("bytes"), t);
  const JsonView gpus = v.at("gpus");
  const std::vector<JsonView> members = gpus.elements();
  if (members.size() < 2) {
    fail_task(gpus, t, fmt::format("a collective needs at least 2 GPUs, got {}", members.size()));
  }
  for (const JsonView& m : members) {
    const topo::NodeId g = endpoint(m, t);
    if (topo_.node(g).kind != topo::NodeKind::gpu) {
      fail_task(m, t, fmt::format("\"{}\" is not a GPU", m.as_string()));
    }
    if (std::find(c.gpus.begin(), c.gpus.end(), g) != c.gpus.end()) {
      fail_task(m, t, fmt::format("GPU \"{}\" is listed twice", m.as_string()));
    }
    c.gpus.push_back(g);
  }
  if (auto a = v.get("algorithm")) {
    const auto& registry = coll::AlgorithmRegistry::builtin();
    const std::string name = a->as_string();
    c.algorithm = registry.find(name);
    if (!c.algorithm || c.algorithm->name() != name) {
      fail_task(*a, t, registry.unknown_name_message(name) + " (spelled exactly so)");
    }
  }
  if (auto p = v.get("protocol")) {
    const std::string name = p->as_string();
    c.protocol = coll::protocol_from_string(name);
    if (!c.protocol || coll::to_string(*c.protocol) != name) {
      fail_task(*p, t,
                fmt::format("unknown protocol \"{}\"; expected one of LL, LL128, Simple "
                            "(spelled exactly so)",
                            name));
    }
  }
  t.collective = std::make_unique<CollectiveTask>(std::move(c));
}

void Loader::read_task(const JsonView& v, std::size_t index) {
  RawTask t;
  t.id = v.at("id").as_string();
  if (t.id.empty()) v.at("id").fail("task id must not be empty");
  if (auto it = by_id_.find(t.id); it != by_id_.end()) {
    v.at("id").fail(fmt::format("duplicate task id \"{}\" (first at /tasks/{})", t.id, it->second));
  }
  const JsonView kind_view = v.at("kind");
  if (kind_view.as_string() == "collective") {
    read_collective(v, t);
    by_id_.emplace(t.id, index);
    tasks_.push_back(std::move(t));
    views_.push_back(v);
    return;
  }
  const auto kind = kind_from_string(kind_view.as_string());
  if (!kind) {
    fail_task(kind_view, t,
              fmt::format("unknown kind \"{}\"; expected one of: compute, transfer, delay, "
                          "barrier, collective",
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
    t.amount = read_bytes(v.at("bytes"), t);
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
  TaskGraph graph =
      detail::place_tasks(tasks_, order, topo_, rates_,
                          [&](std::size_t i, const char* field, const std::string& message) {
                            fail_task(views_[i].at(field), tasks_[i], message);
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

std::vector<std::string> channel_names(const TaskGraph& graph, const topo::Topology& topology) {
  std::vector<std::string> names = topo::channel_names(topology);
  for (std::size_t c = names.size(); c < graph.simulation.channel_count(); ++c)
    names.push_back(fmt::format("protocol cap {}", c));
  return names;
}

TaskGraph read_task_graph_text(const std::string& text, const std::string& file,
                               const topo::Topology& topology, LinkRates rates) {
  if (auto graph = detail::read_valid_task_graph(text, topology, rates)) return std::move(*graph);
  return parse_task_graph(parse_json_text(text, file), file, topology, rates);
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
  if (in) return read_task_graph_text(text, path, topology, rates);
  // Unreadable: the JSON reader says why.
  return parse_task_graph(read_json_file(path), path, topology, rates);
}

}  // namespace linksim::work
