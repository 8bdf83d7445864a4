#pragma once
// What a run records: when each task started and ended, what each GPU was doing, and how
// each channel was used. Times are seconds from the start of the run.

#include <cstdint>
#include <vector>

#include "sim/engine/task.hpp"

namespace linksim::engine {

struct Interval {
  double start_s = 0;
  double end_s = 0;
};

// A task's interval on a GPU.
struct TaskInterval {
  double start_s = 0;
  double end_s = 0;
  TaskId task = 0;
};

// A channel's load from `time_s` until the next sample: the summed rates of its flows.
struct LoadSample {
  double time_s = 0;
  double load_Bps = 0;
};

struct ChannelUsage {
  double bytes = 0;        // bytes that crossed the channel
  double busy_s = 0;       // time with at least one flow streaming on it
  double saturated_s = 0;  // time its load equalled its capacity
  // Streaming intervals, in time order (only when RunOptions::record_intervals and
  // record_channel_intervals).
  std::vector<Interval> busy;
  // Its load at each change, in time order, ending with a 0 sample once idle (only when
  // RunOptions::record_intervals and record_channel_load): what a trace's utilisation counter
  // draws, and what tells a saturated link from a lightly used one.
  std::vector<LoadSample> load{};  // {} so that {bytes, busy_s, ...} leaves it empty
};

struct Timeline {
  double makespan_s = 0;
  std::vector<double> task_start_s;  // by task id
  std::vector<double> task_end_s;
  // Per GPU, sorted by (start, task) (only when RunOptions::record_intervals). A transfer
  // counts as communication on its source and its destination GPU, latency included. These are
  // the raw intervals; the step split (compute / exposed / hidden / idle, summary.hpp) adds the
  // whole span of each collective a GPU takes part in, whose GPU-less delays and barriers
  // appear here on no GPU.
  std::vector<std::vector<TaskInterval>> gpu_compute;
  std::vector<std::vector<TaskInterval>> gpu_comm;
  std::vector<ChannelUsage> channels;  // by channel id

  // Counters of work done, for benchmarks.
  std::uint64_t flow_starts = 0;
  std::uint64_t flow_ends = 0;
  std::uint64_t solves = 0;
  std::uint64_t event_times = 0;  // distinct instants processed
};

}  // namespace linksim::engine
