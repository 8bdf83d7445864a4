#pragma once
// Results of a run, in the terms people ask about: how long it took, what each GPU spent on
// compute and on communication (and how much communication nothing hid), and how each
// channel was used, with the channels that sat saturated longest named as bottlenecks.

#include <string>
#include <vector>

#include "sim/engine/names.hpp"
#include "sim/engine/simulation.hpp"

namespace linksim::engine {

struct TaskRow {
  std::string name;
  TaskKind kind = TaskKind::barrier;
  double start_s = 0;
  double end_s = 0;
};

struct GpuRow {
  std::string name;
  double compute_s = 0;       // time with some compute running (overlaps counted once)
  double comm_s = 0;          // time with some transfer from or to this GPU in flight
  double exposed_comm_s = 0;  // communication time with no compute running on this GPU
  double busy_s = 0;          // compute or communication
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
// task, GPU and channel of `sim`.
Summary summarize(const Simulation& sim, const Timeline& timeline, const Names& names);

// Total length of the union of intervals, and of the part of `a` not covered by `b`.
double union_length(std::vector<Interval> intervals);
double uncovered_length(std::vector<Interval> a, std::vector<Interval> b);

}  // namespace linksim::engine
