#pragma once
// Internal to the task-graph loader (task_graph.cpp, task_graph_plain_reader.cpp): a task as read
// from the file, and how the tasks enter the simulation. Both readers end here, so a graph gives
// the same simulation whichever reader took it in.

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/coll/collective.hpp"
#include "sim/work/task_graph.hpp"
#include "sim/work/workload.hpp"

namespace linksim::work::detail {

// A collective task: lowered by sim/coll over its GPUs, the root (broadcast, reduce) the first.
using CollectiveTask = CollectiveWork;

// A task as read: its id, its work (workload.hpp) and its dependencies.
struct RawTask {
  std::string id;
  // Set for a collective; then `kind` is unused. (A pointer: a graph of a million plain tasks
  // should not pay for the collectives' fields.)
  std::unique_ptr<CollectiveTask> collective;
  WorkKind kind = WorkKind::barrier;
  double amount = 0;     // seconds or bytes (a collective's size, as nccl-tests counts it)
  topo::NodeId gpu = 0;  // compute
  topo::NodeId src = 0;  // send, copy
  topo::NodeId dst = 0;
  std::vector<std::size_t> deps;  // indices into the task list, each once, in file order
};

// What a file's transfer from `src` to `dst` is: between two GPUs a send (NCCL's point-to-point,
// as a job's pipeline sends), with a CPU or NIC at either end a copy.
WorkKind transfer_work(const topo::Topology& topology, topo::NodeId src, topo::NodeId dst);

// Kahn's algorithm, the lowest id first among the ready tasks. On a cycle the order is short:
// it lacks every task on or after the cycle. Sets `*duplicate_ids`, when given, to whether two
// tasks have the same id (the order then breaks their tie arbitrarily).
std::vector<std::size_t> canonical_order(const std::vector<RawTask>& tasks,
                                         bool* duplicate_ids = nullptr);

// What a task cannot do on the machine, found only when it is placed: task index, the field to
// blame and the message. Must throw.
using PlacementFailure =
    std::function<void(std::size_t task, const char* field, const std::string& message)>;

// Hands the tasks to placement (placement.hpp) in `order` (complete): a transfer whose endpoints
// have no route, or a collective that cannot run on its GPUs, calls `fail`.
TaskGraph place_tasks(const std::vector<RawTask>& tasks, const std::vector<std::size_t>& order,
                      const topo::Topology& topology, LinkRates rates,
                      const PlacementFailure& fail);

// The schema's patterns (docs/task-graph.schema.json, definitions duration and bytes), which the
// fast reader applies as the schema check does (std::regex, ECMAScript, search). A test holds
// them equal to the schema's.
inline constexpr const char* kDurationPattern =
    "^[ \\t]*([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+)? *(s|ms|us|µs|ns|min|h)[ \\t]*$";
inline constexpr const char* kBytesPattern =
    "^[ \\t]*([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+)? *(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)[ "
    "\\t]*$";

// The fast reader for large graphs: one pass over the text with no document tree, integer ids
// from then on. It takes only a graph that is valid as it stands (schema, ids, dependencies,
// endpoints, routes, no cycle) and returns nullopt for anything else, so that the full reader,
// which says what is wrong and where, handles every bad input.
std::optional<TaskGraph> read_valid_task_graph(const std::string& text,
                                               const topo::Topology& topology, LinkRates rates);

}  // namespace linksim::work::detail
