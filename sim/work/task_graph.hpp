#pragma once
// The generic task-graph workload (format: docs/task-graph-format.md): a JSON list of compute,
// transfer, delay, barrier and collective tasks with dependencies, placed on a topology; a
// collective is lowered by sim/coll as nccl-tests would run it. Loading checks
// everything (ids, kinds, fields, endpoints, routes, sizes, missing dependencies, cycles) and
// throws InputError naming the file, the JSON pointer and the task.
//
// Tasks enter the simulation in a canonical order: dependencies first, ties broken by task id
// (string order). The result is therefore the same, to the byte, whatever order the file lists
// its tasks in.

#include <string>
#include <vector>

#include "sim/core/json_view.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/engine/summary.hpp"
#include "sim/topo/routing.hpp"
#include "sim/topo/topology.hpp"
#include "sim/work/workload.hpp"

namespace linksim::work {

struct TaskGraph {
  engine::Simulation simulation;
  std::vector<std::string> task_names;  // by engine task id
  std::vector<std::string> gpu_names;   // by engine GPU index: the topology's GPUs in order
  std::string description;
  // The collective tasks, each as the engine tasks it was lowered into (for engine::summarize).
  std::vector<engine::CommOp> comm_ops;
};

// Link capacities: LinkRates (workload.hpp). With `line`, a transfer between two GPUs is a raw
// copy at line rate, as the seed article counts; with `payload`, it is NCCL's point-to-point send
// (sim/coll/point_to_point.hpp), as a job's pipeline sends are.

// Names of the graph's channels: the topology's, then the per-rank caps that collective tasks
// add ("protocol cap N", as job reports name them).
std::vector<std::string> channel_names(const TaskGraph& graph, const topo::Topology& topology);

// The graph in `text`, which came from `file`: as parse_task_graph(parse_json_text(text, file)),
// faster (one pass, no document tree) for a graph with nothing wrong in it.
TaskGraph read_task_graph_text(const std::string& text, const std::string& file,
                               const topo::Topology& topology, LinkRates rates = LinkRates::line);

TaskGraph load_task_graph(const std::string& path, const topo::Topology& topology,
                          LinkRates rates = LinkRates::line);
TaskGraph parse_task_graph(const Json& document, const std::string& file,
                           const topo::Topology& topology, LinkRates rates = LinkRates::line);

}  // namespace linksim::work
