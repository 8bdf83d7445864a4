#pragma once
// Private to the engine (simulation.cpp, group_replay.cpp): one run's mutable state. The event
// loop and task life cycle are simulation.cpp's; the replay of repeated isolated groups of
// transfers is group_replay.cpp's.

#include <cstdint>
#include <functional>
#include <queue>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/core/indexed_heap.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/net/solver.hpp"

namespace linksim::engine {

// Busy intervals that touch (one ends as the next starts) are one interval.
inline void append_busy(ChannelUsage& u, double start_s, double end_s) {
  if (!u.busy.empty() && u.busy.back().end_s == start_s) {
    u.busy.back().end_s = end_s;
  } else {
    u.busy.push_back({start_s, end_s});
  }
}

// A load sample that changes nothing is left out; two at one instant keep the later.
inline void append_load(ChannelUsage& u, double time_s, double load_Bps) {
  if (u.load.empty() ? load_Bps == 0 : u.load.back().load_Bps == load_Bps) return;
  if (!u.load.empty() && u.load.back().time_s == time_s) {
    u.load.pop_back();
    if (u.load.empty() ? load_Bps == 0 : u.load.back().load_Bps == load_Bps) return;
  }
  u.load.push_back({time_s, load_Bps});
}

// One run's mutable state.
class Runner {
 public:
  Runner(const Simulation& sim, const RunOptions& options) : sim_(sim), options_(options) {}
  Timeline run();

 private:
  // Kinds in the order they are handled within an instant.
  enum class EventKind : std::uint8_t { task_end, flow_end, group_end, path_ready };
  struct Event {
    double time_s;
    EventKind kind;
    TaskId task;
    std::uint32_t path_index;  // within the task's paths
    net::FlowId flow;          // flow_end only
    bool operator>(const Event& o) const {
      if (time_s != o.time_s) return time_s > o.time_s;
      if (kind != o.kind) return kind > o.kind;
      if (task != o.task) return task > o.task;
      return path_index > o.path_index;
    }
  };
  // An isolated group simulated on its own, relative to its start.
  struct GroupResult {
    std::vector<double> end_offset_s;  // per transfer, in group order
    // Distinct end offsets, ascending, with the group positions that end there.
    std::vector<std::pair<double, std::vector<std::uint32_t>>> ends;
    std::vector<ChannelId> channels;  // channels used, with their usage during the group
    std::vector<ChannelUsage> usage;
    std::uint64_t flow_starts = 0;
    std::uint64_t flow_ends = 0;
    std::vector<TaskId> exemplar;  // the transfers first simulated as this group
  };
  struct Replay {
    const GroupResult* result;
    std::vector<TaskId> tasks;  // group order
  };
  struct Flow {  // indexed by solver flow id
    TaskId task = 0;
    std::uint32_t path_index = 0;
    double remaining_bytes = 0;
    double rate_Bps = 0;
    double since_s = 0;  // when remaining_bytes was last brought up to date
  };

  // Queues an event other than a flow's end (those live in flow_ends_, one per flow).
  void push(double time_s, EventKind kind, TaskId task, std::uint32_t path_index) {
    ++live_other_events_;
    queue_.push({time_s, kind, task, path_index, 0});
  }
  bool has_events() const { return !queue_.empty() || !flow_ends_.empty(); }
  // The two queues' entries never tie (their kinds differ), so the earlier is well defined.
  bool next_is_flow_end() const {
    return queue_.empty() || (!flow_ends_.empty() && queue_.top() > flow_ends_.top());
  }
  double next_time_s() const {
    return next_is_flow_end() ? flow_ends_.top().time_s : queue_.top().time_s;
  }
  Event pop_next();
  void start_paths(TaskId id);
  void start_pending_transfers();
  bool try_replay_group();
  const GroupResult& simulate_group(std::uint64_t key);
  std::uint64_t group_hash() const;
  bool same_as_pending(const std::vector<TaskId>& exemplar) const;
  void group_end(const Event& e);
  void start_task(TaskId id);
  void finish_task(TaskId id);
  void path_ready(TaskId id, std::uint32_t path_index);
  void path_done(TaskId id);
  void flow_end(const Event& e);
  void drain_ready();
  void after_instant();
  void record_channel_states();
  // run()'s steps: sizing the timeline and solver, indexing dependents, one instant's events.
  void init_state();
  void index_dependents();
  void handle(const Event& e);
  void run_instant();

  const Simulation& sim_;
  const RunOptions& options_;
  Timeline tl_;
  net::Solver solver_;
  double now_s_ = 0;
  std::size_t finished_tasks_ = 0;  // for RunOptions::progress
  std::priority_queue<Event, std::vector<Event>, std::greater<>> queue_;
  IndexedHeap<Event> flow_ends_;  // by solver flow id: when each flow with a rate ends
  // Per task: unfinished dependencies until it starts; then, for a transfer, paths in flight.
  std::vector<std::uint32_t> waiting_on_;
  std::vector<std::uint32_t> dependents_begin_;
  std::vector<TaskId> dependents_;
  std::vector<TaskId> ready_;
  std::size_t ready_head_ = 0;
  std::vector<Flow> flows_;
  std::vector<TaskId> pending_transfers_;  // started this instant, paths not yet scheduled
  std::size_t live_other_events_ = 0;      // queued events other than flow_end
  // By hash of the group; element addresses stay valid as the map grows.
  std::unordered_multimap<std::uint64_t, GroupResult> groups_;
  std::vector<Replay> replays_;
  std::vector<std::pair<TaskId, double>> reach_;  // scratch: (dependent, end offset)
  std::vector<std::uint64_t> key_;                // scratch: the pending group's key
  std::vector<double> busy_since_s_;              // per channel; NaN when idle
  std::vector<double> saturated_since_s_;
};

}  // namespace linksim::engine
