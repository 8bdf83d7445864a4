#pragma once
// The discrete-event loop. A Simulation is built from channel capacities, paths over them and a
// DAG of tasks, then run() plays it out:
//
// - A task starts when all its dependencies have ended; tasks without any start at time 0.
// - compute and delay last their duration; a barrier ends the instant it starts.
// - A transfer splits into one flow per path carrying bytes x share. Each flow waits its path
//   latency, then streams at its max-min fair rate (sim/net) until its bytes are through. The
//   transfer ends when its last flow does. Rates change only when some flow starts or ends.
// - Everything due at the same instant is processed together, then the sharing is re-solved
//   once, for the affected components only.
//
// Deterministic: simultaneous events are ordered by (kind, task id, path index), never by
// pointer or hash, so a run depends only on what was added, in the order it was added. Callers
// that want output independent of their input's order add tasks in a canonical order.
//
// Knows nothing of topologies: callers pass capacities by channel id and paths as channel ids.

#include <functional>
#include <span>
#include <unordered_map>
#include <vector>

#include "sim/engine/task.hpp"
#include "sim/engine/timeline.hpp"

namespace linksim::engine {

struct RunOptions {
  // Per-GPU intervals and per-channel busy intervals (memory grows with the event count; turn
  // off for very large runs that only need totals).
  bool record_intervals = true;
  // Of those, the channels' busy intervals (ChannelUsage::busy), which only traces draw: off
  // keeps the per-GPU intervals that summaries need and the channels' totals.
  bool record_channel_intervals = true;
  // Of those, each channel's load at every change (ChannelUsage::load), which only traces draw
  // (utilisation counters, the link that bounds a transfer). Off by default: a sample per
  // channel per change of rate is the largest record a run can keep.
  bool record_channel_load = false;
  // Reuse the outcome of isolated transfer groups. A group is the set of (two or more)
  // transfers that start at one instant while nothing else is in flight (no flow, no compute, no
  // delay, no pending latency), and whose dependents cannot start before the whole group has ended.
  // Such a group evolves on its own, so it is simulated alone in time relative to its start and the
  // result is kept; a later group with the same transfers (same paths, shares and bytes, in the
  // same order) replays it. Groups are always simulated this way when the option is on, so a run
  // gives the same bytes whether a result was reused or recomputed; against a run with the
  // option off, times agree to rounding (relative 1e-12), not to the bit.
  bool reuse_isolated_groups = true;
  // Timeline::task_start_s and task_end_s, 16 bytes per task. Off, a run keeps only aggregates
  // (makespan, channel totals, counters; per-GPU intervals still need record_intervals), so a
  // graph of tens of millions of transfers costs its tasks and not their times.
  bool record_task_times = true;
  // Called with (tasks finished, tasks in all) every kProgressEvery finished tasks, for a
  // command's progress line; may be empty. Never called from a replayed group's own run.
  std::function<void(std::size_t finished, std::size_t total)> progress;
  static constexpr std::size_t kProgressEvery = 1 << 16;
};

class Simulation {
 public:
  // Capacity of each channel in bytes per second, by channel id (REQUIRES: all > 0), and the
  // number of GPUs tasks may name (0..gpu_count-1).
  Simulation(std::vector<double> channel_capacity_Bps, std::size_t gpu_count);

  // Adds a channel beyond those given at construction (a per-endpoint rate limit, say) and
  // returns its id. REQUIRES: capacity_Bps > 0.
  ChannelId add_channel(double capacity_Bps);

  // A path: channels in order from source to destination, and the latency paid once before
  // streaming. An empty channel list is a path of infinite bandwidth (only latency).
  PathId add_path(std::span<const ChannelId> channels, double latency_s);

  // Each `deps` entry must be a task added earlier, so the graph is acyclic by construction.
  // REQUIRES: durations >= 0; bytes >= 0; shares > 0 summing to 1 (not checked); gpu in range.
  TaskId add_compute(int gpu, double duration_s, std::span<const TaskId> deps);
  TaskId add_transfer(double bytes, std::span<const PathShare> paths, int src_gpu, int dst_gpu,
                      std::span<const TaskId> deps);
  TaskId add_delay(double duration_s, std::span<const TaskId> deps);
  TaskId add_barrier(std::span<const TaskId> deps);

  // Sets the duration of compute or delay task `task`, in place: a graph that differs from
  // another only in such durations without a copy of the rest. REQUIRES: duration_s >= 0.
  void set_duration(TaskId task, double duration_s);

  // Optional: room for this many tasks and dependency entries in all.
  void reserve(std::size_t tasks, std::size_t deps);

  // A transfer's (path, share) list by id. add_transfer above looks for an equal list before it
  // makes one; a caller that knows its list is new (a graph copy, whose paths are its own) makes
  // it once with add_path_set and names it in every transfer that uses it. Set 0 is the empty
  // list. REQUIRES: as add_transfer's paths; `set` below path_set_count().
  using PathSetId = std::uint32_t;
  PathSetId add_path_set(std::span<const PathShare> paths);
  TaskId add_transfer(double bytes, PathSetId set, int src_gpu, int dst_gpu,
                      std::span<const TaskId> deps);
  PathSetId path_set(TaskId task) const { return tasks_[task].path_set; }
  std::size_t path_set_count() const { return set_begin_.size() - 1; }
  std::span<const PathShare> path_set_paths(PathSetId set) const;

  std::size_t task_count() const { return tasks_.size(); }
  std::size_t channel_count() const { return capacity_Bps_.size(); }
  std::size_t gpu_count() const { return gpu_count_; }
  double channel_capacity_Bps(ChannelId c) const { return capacity_Bps_[c]; }

  TaskKind kind(TaskId task) const { return tasks_[task].kind(); }
  // The GPU of a compute task; the source / destination GPU of a transfer; else kNoGpu.
  int gpu(TaskId task) const { return tasks_[task].gpu(); }
  int peer_gpu(TaskId task) const { return tasks_[task].peer_gpu; }
  // Duration of compute/delay tasks; bytes of transfers; 0 for barriers.
  double amount(TaskId task) const { return tasks_[task].amount; }
  std::span<const TaskId> deps(TaskId task) const;
  std::span<const PathShare> paths(TaskId task) const;
  std::span<const ChannelId> path_channels(PathId path) const;
  double path_latency_s(PathId path) const { return path_latency_s_[path]; }

  Timeline run(const RunOptions& options = {}) const;

 private:
  friend class Runner;
  // A transfer's list of (path, share), stored once however many transfers use it (every step
  // of a ring reuses each rank's), so a transfer costs its task and not its paths. Set 0 is the
  // empty list, which every other kind of task has.
  static constexpr PathSetId kNoPathSet = ~PathSetId{0};

  // 24 bytes: graphs of tens of millions of tasks are the point. A task's deps end where the
  // next task's begin. The kind shares a word with the GPU: (gpu + 1) << 2 | kind, so GPU
  // indices stay below 2^30 - 1 (the constructor checks the count).
  struct Task {
    double amount = 0;
    std::uint32_t dep_begin = 0;
    PathSetId path_set = 0;
    std::uint32_t gpu_kind = static_cast<std::uint32_t>(TaskKind::barrier);
    int peer_gpu = kNoGpu;

    TaskKind kind() const { return static_cast<TaskKind>(gpu_kind & 3u); }
    int gpu() const { return static_cast<int>(gpu_kind >> 2) - 1; }
    void set_kind(TaskKind k, int g) {
      gpu_kind = (static_cast<std::uint32_t>(g + 1) << 2) | static_cast<std::uint32_t>(k);
    }
  };
  static_assert(sizeof(Task) == 24);
  static_assert(static_cast<int>(TaskKind::barrier) < 4, "a kind takes two bits");
  std::uint32_t dep_end(TaskId task) const {
    return task + 1 < tasks_.size() ? tasks_[task + 1].dep_begin
                                    : static_cast<std::uint32_t>(deps_.size());
  }
  TaskId add_task(Task task, std::span<const TaskId> deps);
  // The set holding exactly `paths` (same paths, same shares, same order), made on first use.
  PathSetId intern_path_set(std::span<const PathShare> paths);

  std::vector<double> capacity_Bps_;
  std::size_t gpu_count_ = 0;
  std::vector<Task> tasks_;
  std::vector<TaskId> deps_;
  std::vector<PathShare> set_shares_;           // set s spans [set_begin_[s], set_begin_[s+1])
  std::vector<std::uint32_t> set_begin_{0, 0};  // set 0: empty
  std::vector<PathSetId> unit_set_of_path_;  // per path: its one-path, share-1 set, or kNoPathSet
  std::unordered_multimap<std::uint64_t, PathSetId> sets_by_hash_;  // the other sets
  std::vector<ChannelId> path_channels_;
  std::vector<std::uint32_t> path_begin_{0};  // path p spans [path_begin_[p], path_begin_[p+1])
  std::vector<double> path_latency_s_;
};

}  // namespace linksim::engine
