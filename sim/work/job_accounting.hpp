#pragma once
// From a job's run to its result: names for the trace, the step split averaged over GPUs
// (sim/engine/summary.hpp), time and bytes per parallelism group and per operation, the
// saturated links, and tokens per step and per second.

#include <utility>
#include <vector>

#include "sim/engine/names.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/engine/timeline.hpp"
#include "sim/topo/topology.hpp"
#include "sim/work/comm_record.hpp"
#include "sim/work/compute_label.hpp"
#include "sim/work/job_result.hpp"
#include "sim/work/scenario.hpp"

namespace linksim::work {

// The job's GPUs (`gpu_ids`, by rank), every channel (the machine's, then protocol caps) and,
// with `name_tasks`, every task labelled by what it is (engine::Names::task_labels: "TP
// all_reduce" with its size, algorithm, protocol and channels; "layer 12 attention fwd" from
// `compute_labels`, by compute_tasks' index), and each record as an operation: only a trace
// shows those, and a long pipeline has millions of tasks, so they share labels.
engine::Names job_names(const topo::Topology& machine, const engine::Simulation& sim,
                        const std::vector<CommRecord>& records,
                        const std::vector<std::pair<engine::TaskId, int>>& compute_tasks,
                        const std::vector<ComputeLabel>& compute_labels,
                        std::vector<std::string> gpu_ids, bool name_tasks);

// Fills `res`'s step, its split, by_group, by_collective, bottlenecks and tokens from the run.
// The split is the mean over `counted_gpus` (engine indices; empty: every GPU of `sim`), the
// GPUs a folded job built (replica_folding.hpp).
void account_job(JobResult& res, const topo::Topology& machine, const Scenario& sc,
                 const engine::Simulation& sim, const engine::Timeline& tl,
                 const engine::Names& names, const std::vector<CommRecord>& records,
                 const std::vector<int>& counted_gpus = {});

}  // namespace linksim::work
