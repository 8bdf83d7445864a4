#pragma once
// Results of a run, in the terms people ask about: how long it took, how each GPU's time splits
// into compute, exposed communication and idle time (with the communication that compute hid
// beside it), and how each channel was used, with the channels that sat saturated longest named
// as bottlenecks.
//
// The split, per GPU, is defined here once and used by every report:
// - compute: some compute task of the GPU runs.
// - communication: some communication of the GPU is under way. That is a transfer from or to the
//   GPU (latency included), or a declared operation (CommOp: a collective or a send, with every
//   task it was lowered into, GPU-less latency delays and barriers included) that the GPU takes
//   part in, from the instant its first task starts to the instant its last task ends.
// - exposed communication: communication with no compute beside it on the GPU;
// - hidden communication: communication with compute beside it;
// - idle: neither (waiting on another rank's compute: a pipeline bubble, a straggler).
// compute + exposed + idle = makespan on every GPU; hidden is reported beside them.
//
// The waiting rule: an operation starts when its first task does, and a collective's lowering
// starts with one task that waits for every rank's input (sim/coll, lower_collective). So a GPU
// that reaches a collective while a peer still computes is idle until the last peer's input is
// ready and the collective starts, and exposed (or hidden) from then to its end.

#include <span>
#include <string>
#include <vector>

#include "sim/engine/names.hpp"
#include "sim/engine/simulation.hpp"

namespace linksim::engine {

// A communication operation as its caller built it: tasks [first_task, last_task] of the
// simulation (added in one go, so contiguous) and the GPUs that take part in it.
struct CommOp {
  TaskId first_task = 0;
  TaskId last_task = 0;
  std::vector<int> gpus;
};

struct TaskRow {
  std::string name;
  TaskKind kind = TaskKind::barrier;
  double start_s = 0;
  double end_s = 0;
};

struct GpuRow {
  std::string name;
  double compute_s = 0;       // time with some compute running (overlaps counted once)
  double comm_s = 0;          // time with some communication of this GPU under way
  double exposed_comm_s = 0;  // communication time with no compute running on this GPU
  double hidden_comm_s = 0;   // communication time with compute beside it: comm - exposed
  double idle_s = 0;          // neither: makespan - compute - exposed
  double busy_s = 0;          // compute or communication: compute + exposed
  double comm_fraction = 0;   // comm_s / makespan
};

struct ChannelRow {
  ChannelId channel = 0;
  std::string name;
  double capacity_Bps = 0;
  double bytes = 0;
  double busy_s = 0;
  double saturated_s = 0;
  double utilization = 0;  // bytes / (capacity x makespan)
};

struct Summary {
  double makespan_s = 0;
  std::vector<TaskRow> tasks;        // by task id
  std::vector<GpuRow> gpus;          // by GPU index
  std::vector<ChannelRow> channels;  // channels that carried bytes, by channel id
  // Indices into `channels` of those saturated for some time, longest first (ties: lower
  // channel id first), at most kMaxBottlenecks.
  std::vector<std::size_t> bottlenecks;
};

inline constexpr std::size_t kMaxBottlenecks = 10;

// REQUIRES: `timeline` came from `sim.run()` with intervals recorded; `names` covers every
// GPU and channel of `sim`, and every task unless `names.tasks` is empty, when the summary has
// no task rows (a job's step split needs none); every op's tasks and GPUs are in range.
Summary summarize(const Simulation& sim, const Timeline& timeline, const Names& names,
                  std::span<const CommOp> ops = {});

// Per GPU (by index), the merged, time-ordered intervals in which it communicates, as defined
// above. Same REQUIRES as summarize.
std::vector<std::vector<Interval>> comm_intervals(const Simulation& sim, const Timeline& timeline,
                                                  std::span<const CommOp> ops);

// Per GPU, the merged, time-ordered intervals in which it computes.
std::vector<std::vector<Interval>> compute_intervals(const Timeline& timeline);

// Sorts and merges overlapping or touching intervals.
std::vector<Interval> merged(std::vector<Interval> intervals);

// Total length of the union of intervals, and of the part of `a` not covered by `b`.
double union_length(std::vector<Interval> intervals);
double uncovered_length(std::vector<Interval> a, std::vector<Interval> b);

// Length of [start_s, end_s) covered by `merged_intervals` (REQUIRES: merged and sorted, as
// `merged` returns them): a binary search, then the overlapping ones.
double covered_length(const std::vector<Interval>& merged_intervals, double start_s, double end_s);

}  // namespace linksim::engine
