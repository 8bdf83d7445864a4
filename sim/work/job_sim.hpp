#pragma once
// A job on a machine: the model's compute and the plan's communication as one task graph on
// the engine (sim/work/job_builder.hpp), so overlap and contention are simulated rather than
// assumed.
//
// Communication kernels take SMs from concurrent compute (sim/work/sm_contention.hpp): the job
// runs once to find the overlap, and again (the same graph, new compute times) with the
// overlapped compute slowed. The step's split
// into compute, exposed and hidden communication and idle time is the engine's
// (sim/engine/summary.hpp), with every collective and send declared as one operation
// (sim/work/job_accounting.hpp).

#include "sim/topo/topology.hpp"
#include "sim/work/job_result.hpp"
#include "sim/work/model.hpp"
#include "sim/work/replica_folding.hpp"
#include "sim/work/scenario.hpp"

namespace linksim::work {

struct JobOptions {
  // false: time the job without checking that it fits (the serving simulation keeps its own
  // KV-cache account, sim/work/serving.hpp).
  bool check_memory = true;
  // Record each channel's busy intervals in JobResult::timeline (what a Chrome trace draws,
  // sim/report/chrome_trace.hpp). Off, the timeline keeps the channels' totals and every GPU's
  // intervals, which the rest of the result needs; for a long pipeline the intervals are a
  // quarter of the memory.
  bool record_channel_intervals = false;
  // Name every task in JobResult::names (what a trace labels its slices with); off, names cover
  // the GPUs and channels only.
  bool name_tasks = false;
  // Simulate one plane of each set of identical planes where the whole job allows it
  // (job_planes.hpp): the same times, to rounding, with a fraction of the flows. Off, every
  // plane is simulated (the reference the tests hold it to).
  bool leave_out_planes = true;
  // Build only the data-parallel replicas replica_folding.hpp allows: automatically for a
  // large step, never (the reference the tests hold folding to), or always where it can.
  FoldReplicas fold_replicas = FoldReplicas::automatic;
};

// Throws InputError (naming the scenario file) for a plan that does not match the machine, and
// DoesNotFit when it does not fit in memory.
JobResult simulate_job(const topo::Topology& machine, const ModelSpec& model,
                       const Scenario& scenario, const JobOptions& options = {});

}  // namespace linksim::work
