#include "sim/engine/simulation.hpp"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <limits>
#include <map>
#include <queue>
#include <unordered_map>

#include "sim/net/solver.hpp"

namespace linksim::engine {

Simulation::Simulation(std::vector<double> channel_capacity_Bps, std::size_t gpu_count)
    : capacity_Bps_(std::move(channel_capacity_Bps)), gpu_count_(gpu_count) {
  for ([[maybe_unused]] double c : capacity_Bps_)
    assert(c > 0 && "channel capacity must be > 0");
}

ChannelId Simulation::add_channel(double capacity_Bps) {
  assert(capacity_Bps > 0 && "channel capacity must be > 0");
  capacity_Bps_.push_back(capacity_Bps);
  return static_cast<ChannelId>(capacity_Bps_.size() - 1);
}

PathId Simulation::add_path(std::span<const ChannelId> channels, double latency_s) {
  assert(latency_s >= 0);
  for ([[maybe_unused]] ChannelId c : channels)
    assert(c < capacity_Bps_.size());
  path_channels_.insert(path_channels_.end(), channels.begin(), channels.end());
  path_begin_.push_back(static_cast<std::uint32_t>(path_channels_.size()));
  path_latency_s_.push_back(latency_s);
  return static_cast<PathId>(path_latency_s_.size() - 1);
}

TaskId Simulation::add_task(Task task, std::span<const TaskId> deps) {
  const auto id = static_cast<TaskId>(tasks_.size());
  for ([[maybe_unused]] TaskId d : deps)
    assert(d < id && "dependencies must be added first");
  task.dep_begin = static_cast<std::uint32_t>(deps_.size());
  deps_.insert(deps_.end(), deps.begin(), deps.end());
  if (task.kind != TaskKind::transfer)
    task.path_begin = static_cast<std::uint32_t>(path_shares_.size());
  tasks_.push_back(task);
  return id;
}

TaskId Simulation::add_compute(int gpu, double duration_s, std::span<const TaskId> deps) {
  assert(gpu >= 0 && static_cast<std::size_t>(gpu) < gpu_count_ && duration_s >= 0);
  Task t;
  t.kind = TaskKind::compute;
  t.gpu = gpu;
  t.amount = duration_s;
  return add_task(t, deps);
}

TaskId Simulation::add_transfer(double bytes, std::span<const PathShare> paths, int src_gpu,
                                int dst_gpu, std::span<const TaskId> deps) {
  assert(bytes >= 0);
  assert(src_gpu < static_cast<int>(gpu_count_) && dst_gpu < static_cast<int>(gpu_count_));
  Task t;
  t.kind = TaskKind::transfer;
  t.gpu = src_gpu;
  t.peer_gpu = dst_gpu;
  t.amount = bytes;
  t.path_begin = static_cast<std::uint32_t>(path_shares_.size());
  for (const PathShare& p : paths) {
    assert(p.path < path_latency_s_.size() && p.share > 0);
    path_shares_.push_back(p);
  }
  return add_task(t, deps);
}

TaskId Simulation::add_delay(double duration_s, std::span<const TaskId> deps) {
  assert(duration_s >= 0);
  Task t;
  t.kind = TaskKind::delay;
  t.amount = duration_s;
  return add_task(t, deps);
}

TaskId Simulation::add_barrier(std::span<const TaskId> deps) {
  return add_task(Task{}, deps);
}

void Simulation::reserve(std::size_t tasks, std::size_t deps, std::size_t transfer_paths) {
  tasks_.reserve(tasks);
  deps_.reserve(deps);
  path_shares_.reserve(transfer_paths);
}

std::span<const TaskId> Simulation::deps(TaskId task) const {
  const Task& t = tasks_[task];
  return {deps_.data() + t.dep_begin, dep_end(task) - t.dep_begin};
}

std::span<const PathShare> Simulation::paths(TaskId task) const {
  const Task& t = tasks_[task];
  return {path_shares_.data() + t.path_begin, path_end(task) - t.path_begin};
}

std::span<const ChannelId> Simulation::path_channels(PathId path) const {
  return {path_channels_.data() + path_begin_[path], path_begin_[path + 1] - path_begin_[path]};
}

namespace {

// Busy intervals that touch (one ends as the next starts) are one interval.
void append_busy(ChannelUsage& u, double start_s, double end_s) {
  if (!u.busy.empty() && u.busy.back().end_s == start_s) {
    u.busy.back().end_s = end_s;
  } else {
    u.busy.push_back({start_s, end_s});
  }
}

}  // namespace

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
    std::uint32_t version;     // flow_end: matches Flow::version unless superseded
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
    std::uint32_t version = 0;
  };

  void push(double time_s, EventKind kind, TaskId task, std::uint32_t path_index,
            net::FlowId flow = 0, std::uint32_t version = 0) {
    if (kind != EventKind::flow_end) ++live_other_events_;
    queue_.push({time_s, kind, task, path_index, flow, version});
  }
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

  const Simulation& sim_;
  const RunOptions& options_;
  Timeline tl_;
  net::Solver solver_;
  double now_s_ = 0;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> queue_;
  std::vector<std::uint32_t> waiting_on_;  // unfinished dependencies per task
  std::vector<std::uint32_t> dependents_begin_;
  std::vector<TaskId> dependents_;
  std::vector<std::uint32_t> open_paths_;  // per transfer: paths still in flight
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

void Runner::start_task(TaskId id) {
  const Simulation::Task& t = sim_.tasks_[id];
  tl_.task_start_s[id] = now_s_;
  switch (t.kind) {
    case TaskKind::compute:
    case TaskKind::delay:
      push(now_s_ + t.amount, EventKind::task_end, id, 0);
      return;
    case TaskKind::barrier:
      finish_task(id);
      return;
    case TaskKind::transfer: {
      const auto paths = sim_.paths(id);
      open_paths_[id] = static_cast<std::uint32_t>(paths.size());
      if (paths.empty()) {
        finish_task(id);
        return;
      }
      pending_transfers_.push_back(id);  // scheduled once the instant's starts are all known
      return;
    }
  }
}

void Runner::start_paths(TaskId id) {
  const auto paths = sim_.paths(id);
  for (std::uint32_t i = 0; i < paths.size(); ++i) {
    push(now_s_ + sim_.path_latency_s(paths[i].path), EventKind::path_ready, id, i);
  }
}

void Runner::start_pending_transfers() {
  // A lone transfer is cheaper to simulate than to look up.
  if (options_.reuse_isolated_groups && pending_transfers_.size() >= 2 &&
      solver_.active_flow_count() == 0 && live_other_events_ == 0 && try_replay_group()) {
    pending_transfers_.clear();
    return;
  }
  for (TaskId id : pending_transfers_)
    start_paths(id);
  pending_transfers_.clear();
}

// The group is what pending_transfers_ holds; nothing else is in flight. Its key lists, per
// transfer, the bytes and each path with its share.
bool Runner::try_replay_group() {
  const std::uint64_t key = group_hash();
  const GroupResult* found = nullptr;
  for (auto [it, end] = groups_.equal_range(key); it != end && !found; ++it) {
    if (same_as_pending(it->second.exemplar)) found = &it->second;
  }
  const GroupResult& r = found ? *found : simulate_group(key);

  // Safe only if no dependent can start before the group's last end: a dependent whose
  // remaining dependencies all lie in the group becomes ready at the latest of their ends.
  const double last_s = r.ends.back().first;
  reach_.clear();
  for (std::uint32_t k = 0; k < pending_transfers_.size(); ++k) {
    const TaskId id = pending_transfers_[k];
    for (std::uint32_t i = dependents_begin_[id]; i < dependents_begin_[id + 1]; ++i) {
      reach_.push_back({dependents_[i], r.end_offset_s[k]});
    }
  }
  // Group by dependent (a run of equal ids is one dependent): count and latest end.
  const auto by_task = [](const auto& a, const auto& b) { return a.first < b.first; };
  if (!std::is_sorted(reach_.begin(), reach_.end(), by_task)) {
    std::sort(reach_.begin(), reach_.end(), by_task);
  }
  for (std::size_t i = 0; i < reach_.size();) {
    std::size_t j = i;
    double latest = 0;
    for (; j < reach_.size() && reach_[j].first == reach_[i].first; ++j) {
      latest = std::max(latest, reach_[j].second);
    }
    if (j - i == waiting_on_[reach_[i].first] && latest < last_s) return false;
    i = j;
  }

  for (std::size_t i = 0; i < r.channels.size(); ++i) {
    ChannelUsage& u = tl_.channels[r.channels[i]];
    const ChannelUsage& d = r.usage[i];
    u.bytes += d.bytes;
    u.busy_s += d.busy_s;
    u.saturated_s += d.saturated_s;
    for (const Interval& iv : d.busy)
      append_busy(u, now_s_ + iv.start_s, now_s_ + iv.end_s);
  }
  tl_.flow_starts += r.flow_starts;
  tl_.flow_ends += r.flow_ends;
  const auto replay = static_cast<std::uint32_t>(replays_.size());
  replays_.push_back({&r, pending_transfers_});
  for (std::uint32_t e = 0; e < r.ends.size(); ++e) {
    push(now_s_ + r.ends[e].first, EventKind::group_end, replay, e);
  }
  return true;
}

// FNV-1a over each transfer's bytes and its (path, share) list.
std::uint64_t Runner::group_hash() const {
  std::uint64_t h = 14695981039346656037ull;
  const auto mix = [&h](std::uint64_t v) { h = (h ^ v) * 1099511628211ull; };
  mix(pending_transfers_.size());
  for (TaskId id : pending_transfers_) {
    const auto paths = sim_.paths(id);
    mix(std::bit_cast<std::uint64_t>(sim_.tasks_[id].amount));
    mix(paths.size());
    for (const PathShare& p : paths) {
      mix(p.path);
      mix(std::bit_cast<std::uint64_t>(p.share));
    }
  }
  return h;
}

// Whether the pending group moves the same bytes over the same paths as `exemplar`, in order.
bool Runner::same_as_pending(const std::vector<TaskId>& exemplar) const {
  if (exemplar.size() != pending_transfers_.size()) return false;
  for (std::size_t k = 0; k < exemplar.size(); ++k) {
    const TaskId a = exemplar[k];
    const TaskId b = pending_transfers_[k];
    if (sim_.tasks_[a].amount != sim_.tasks_[b].amount) return false;
    const auto pa = sim_.paths(a);
    const auto pb = sim_.paths(b);
    if (pa.size() != pb.size()) return false;
    for (std::size_t i = 0; i < pa.size(); ++i) {
      if (pa[i].path != pb[i].path || pa[i].share != pb[i].share) return false;
    }
  }
  return true;
}

// Simulates the pending group alone, from time 0, over only the channels it uses.
const Runner::GroupResult& Runner::simulate_group(std::uint64_t key) {
  std::unordered_map<ChannelId, ChannelId> channel_index;
  std::vector<ChannelId> channels;
  std::unordered_map<PathId, PathId> path_index;
  std::vector<std::vector<ChannelId>> local_paths;
  std::vector<double> local_latency;
  for (TaskId id : pending_transfers_) {
    for (const PathShare& p : sim_.paths(id)) {
      if (path_index.count(p.path)) continue;
      path_index.emplace(p.path, static_cast<PathId>(local_paths.size()));
      std::vector<ChannelId> local;
      for (ChannelId c : sim_.path_channels(p.path)) {
        auto [it, fresh] = channel_index.try_emplace(c, static_cast<ChannelId>(channels.size()));
        if (fresh) channels.push_back(c);
        local.push_back(it->second);
      }
      local_paths.push_back(std::move(local));
      local_latency.push_back(sim_.path_latency_s(p.path));
    }
  }
  std::vector<double> capacity;
  for (ChannelId c : channels)
    capacity.push_back(sim_.capacity_Bps_[c]);
  Simulation alone(std::move(capacity), 0);
  for (std::size_t i = 0; i < local_paths.size(); ++i) {
    alone.add_path(local_paths[i], local_latency[i]);
  }
  std::vector<PathShare> shares;
  for (TaskId id : pending_transfers_) {
    shares.clear();
    for (const PathShare& p : sim_.paths(id))
      shares.push_back({path_index.at(p.path), p.share});
    alone.add_transfer(sim_.tasks_[id].amount, shares, kNoGpu, kNoGpu, {});
  }
  RunOptions options = options_;
  options.reuse_isolated_groups = false;
  Timeline tl = alone.run(options);

  GroupResult r;
  r.end_offset_s = tl.task_end_s;
  std::map<double, std::vector<std::uint32_t>> ends;
  for (std::uint32_t k = 0; k < r.end_offset_s.size(); ++k)
    ends[r.end_offset_s[k]].push_back(k);
  r.ends.assign(ends.begin(), ends.end());
  r.channels = std::move(channels);
  r.usage = std::move(tl.channels);
  r.flow_starts = tl.flow_starts;
  r.flow_ends = tl.flow_ends;
  r.exemplar = pending_transfers_;
  return groups_.emplace(key, std::move(r))->second;
}

void Runner::group_end(const Event& e) {
  Replay& replay = replays_[e.task];
  for (std::uint32_t k : replay.result->ends[e.path_index].second) {
    const TaskId id = replay.tasks[k];
    open_paths_[id] = 0;
    finish_task(id);
  }
  if (e.path_index + 1 == replay.result->ends.size()) std::vector<TaskId>().swap(replay.tasks);
}

void Runner::finish_task(TaskId id) {
  tl_.task_end_s[id] = now_s_;
  tl_.makespan_s = std::max(tl_.makespan_s, now_s_);
  const Simulation::Task& t = sim_.tasks_[id];
  if (options_.record_intervals) {
    const TaskInterval iv{tl_.task_start_s[id], now_s_, id};
    if (t.kind == TaskKind::compute) tl_.gpu_compute[static_cast<std::size_t>(t.gpu)].push_back(iv);
    if (t.kind == TaskKind::transfer) {
      if (t.gpu != kNoGpu) tl_.gpu_comm[static_cast<std::size_t>(t.gpu)].push_back(iv);
      if (t.peer_gpu != kNoGpu && t.peer_gpu != t.gpu) {
        tl_.gpu_comm[static_cast<std::size_t>(t.peer_gpu)].push_back(iv);
      }
    }
  }
  for (std::uint32_t i = dependents_begin_[id]; i < dependents_begin_[id + 1]; ++i) {
    const TaskId d = dependents_[i];
    if (--waiting_on_[d] == 0) ready_.push_back(d);
  }
}

void Runner::drain_ready() {
  while (ready_head_ < ready_.size())
    start_task(ready_[ready_head_++]);
  ready_.clear();
  ready_head_ = 0;
}

void Runner::path_ready(TaskId id, std::uint32_t path_index) {
  const PathShare& p = sim_.paths(id)[path_index];
  const auto channels = sim_.path_channels(p.path);
  const double bytes = sim_.tasks_[id].amount * p.share;
  if (channels.empty() || bytes <= 0) {  // nothing to share: done once the latency is paid
    path_done(id);
    return;
  }
  // A transfer split over paths is one stream: where its paths share a channel with other
  // transfers, together they get one transfer's fair share (each path weighted by its share),
  // not one per path.
  const net::FlowId f = solver_.add_flow(channels, p.share);
  if (f >= flows_.size()) flows_.resize(f + 1);
  Flow& flow = flows_[f];
  flow.task = id;
  flow.path_index = path_index;
  flow.remaining_bytes = bytes;
  flow.rate_Bps = 0;
  flow.since_s = now_s_;
  ++flow.version;
  for (ChannelId c : channels)
    tl_.channels[c].bytes += bytes;
  ++tl_.flow_starts;
}

void Runner::path_done(TaskId id) {
  if (--open_paths_[id] == 0) finish_task(id);
}

void Runner::flow_end(const Event& e) {
  const net::FlowId f = e.flow;
  Flow& flow = flows_[f];
  if (flow.version != e.version || flow.task != e.task) return;  // superseded by a new rate
  ++flow.version;
  solver_.remove_flow(f);
  ++tl_.flow_ends;
  path_done(flow.task);
}

void Runner::record_channel_states() {
  for (net::LinkId l : solver_.resolved_links()) {
    const bool busy = solver_.flows_on(l) > 0;
    const bool saturated = solver_.saturated(l);
    ChannelUsage& u = tl_.channels[l];
    if (busy != !std::isnan(busy_since_s_[l])) {
      if (busy) {
        busy_since_s_[l] = now_s_;
      } else {
        u.busy_s += now_s_ - busy_since_s_[l];
        if (options_.record_intervals && options_.record_channel_intervals) {
          append_busy(u, busy_since_s_[l], now_s_);
        }
        busy_since_s_[l] = std::numeric_limits<double>::quiet_NaN();
      }
    }
    if (saturated != !std::isnan(saturated_since_s_[l])) {
      if (saturated) {
        saturated_since_s_[l] = now_s_;
      } else {
        u.saturated_s += now_s_ - saturated_since_s_[l];
        saturated_since_s_[l] = std::numeric_limits<double>::quiet_NaN();
      }
    }
  }
}

// Re-solves what this instant touched and reschedules the flows whose rate changed.
void Runner::after_instant() {
  solver_.solve();
  ++tl_.solves;
  for (net::FlowId f : solver_.resolved_flows()) {
    Flow& flow = flows_[f];
    const double rate = solver_.rate(f);
    if (rate == flow.rate_Bps) continue;  // its scheduled end still holds
    flow.remaining_bytes =
        std::max(0.0, flow.remaining_bytes - flow.rate_Bps * (now_s_ - flow.since_s));
    flow.since_s = now_s_;
    flow.rate_Bps = rate;
    ++flow.version;
    push(now_s_ + flow.remaining_bytes / rate, EventKind::flow_end, flow.task, flow.path_index, f,
         flow.version);
  }
  record_channel_states();
}

Timeline Runner::run() {
  const std::size_t n = sim_.task_count();
  tl_.task_start_s.assign(n, std::numeric_limits<double>::quiet_NaN());
  tl_.task_end_s.assign(n, std::numeric_limits<double>::quiet_NaN());
  tl_.channels.resize(sim_.channel_count());
  if (options_.record_intervals) {
    tl_.gpu_compute.resize(sim_.gpu_count());
    tl_.gpu_comm.resize(sim_.gpu_count());
  }
  for (double c : sim_.capacity_Bps_)
    solver_.add_link(c);
  busy_since_s_.assign(sim_.channel_count(), std::numeric_limits<double>::quiet_NaN());
  saturated_since_s_ = busy_since_s_;
  open_paths_.assign(n, 0);

  // Dependents in compressed rows; waiting counts.
  waiting_on_.assign(n, 0);
  dependents_begin_.assign(n + 1, 0);
  for (TaskId id = 0; id < n; ++id) {
    const auto deps = sim_.deps(id);
    waiting_on_[id] = static_cast<std::uint32_t>(deps.size());
    for (TaskId d : deps)
      ++dependents_begin_[d + 1];
  }
  for (std::size_t i = 0; i < n; ++i)
    dependents_begin_[i + 1] += dependents_begin_[i];
  dependents_.resize(sim_.deps_.size());
  {
    std::vector<std::uint32_t> fill(dependents_begin_.begin(), dependents_begin_.end() - 1);
    for (TaskId id = 0; id < n; ++id) {
      for (TaskId d : sim_.deps(id))
        dependents_[fill[d]++] = id;
    }
  }

  for (TaskId id = 0; id < n; ++id) {
    if (waiting_on_[id] == 0) ready_.push_back(id);
  }
  drain_ready();
  if (!pending_transfers_.empty()) start_pending_transfers();

  while (!queue_.empty()) {
    now_s_ = queue_.top().time_s;
    ++tl_.event_times;
    // Everything due now, including zero-duration work that this instant's events start.
    for (;;) {
      if (queue_.empty() || queue_.top().time_s > now_s_) {
        if (pending_transfers_.empty()) break;
        start_pending_transfers();  // may queue more events for now (zero latency)
        continue;
      }
      const Event e = queue_.top();
      queue_.pop();
      if (e.kind != EventKind::flow_end) --live_other_events_;
      switch (e.kind) {
        case EventKind::task_end:
          finish_task(e.task);
          break;
        case EventKind::flow_end:
          flow_end(e);
          break;
        case EventKind::group_end:
          group_end(e);
          break;
        case EventKind::path_ready:
          path_ready(e.task, e.path_index);
          break;
      }
      drain_ready();
    }
    after_instant();
  }

  for (auto* per_gpu : {&tl_.gpu_compute, &tl_.gpu_comm}) {
    for (auto& v : *per_gpu) {
      std::sort(v.begin(), v.end(), [](const TaskInterval& a, const TaskInterval& b) {
        return a.start_s != b.start_s ? a.start_s < b.start_s : a.task < b.task;
      });
    }
  }
  return std::move(tl_);
}

Timeline Simulation::run(const RunOptions& options) const {
  return Runner(*this, options).run();
}

}  // namespace linksim::engine
