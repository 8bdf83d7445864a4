// The engine's builder (Simulation) and one run's event loop and task life cycle (Runner, whose
// replay of repeated groups is group_replay.cpp's).
#include "sim/engine/simulation.hpp"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <limits>
#include <map>
#include <queue>
#include <unordered_map>

#include "sim/engine/runner.hpp"
#include "sim/net/solver.hpp"

namespace linksim::engine {

Simulation::Simulation(std::vector<double> channel_capacity_Bps, std::size_t gpu_count)
    : capacity_Bps_(std::move(channel_capacity_Bps)), gpu_count_(gpu_count) {
  assert(gpu_count < (std::size_t{1} << 30) - 1 && "GPU indices share a word with the task kind");
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
  unit_set_of_path_.push_back(kNoPathSet);
  return static_cast<PathId>(path_latency_s_.size() - 1);
}

Simulation::PathSetId Simulation::intern_path_set(std::span<const PathShare> paths) {
  if (paths.empty()) return 0;
  const auto make = [&] {
    set_shares_.insert(set_shares_.end(), paths.begin(), paths.end());
    set_begin_.push_back(static_cast<std::uint32_t>(set_shares_.size()));
    return static_cast<PathSetId>(set_begin_.size() - 2);
  };
  if (paths.size() == 1 && paths[0].share == 1.0) {  // the common case, without hashing
    PathSetId& unit = unit_set_of_path_[paths[0].path];
    if (unit == kNoPathSet) unit = make();
    return unit;
  }
  std::uint64_t h = 14695981039346656037ull;  // FNV-1a over (path, share) pairs
  const auto mix = [&h](std::uint64_t v) { h = (h ^ v) * 1099511628211ull; };
  for (const PathShare& p : paths) {
    mix(p.path);
    mix(std::bit_cast<std::uint64_t>(p.share));
  }
  for (auto [it, end] = sets_by_hash_.equal_range(h); it != end; ++it) {
    const std::uint32_t b = set_begin_[it->second];
    if (set_begin_[it->second + 1] - b != paths.size()) continue;
    if (std::equal(paths.begin(), paths.end(), set_shares_.begin() + b,
                   [](const PathShare& x, const PathShare& y) {
                     return x.path == y.path && x.share == y.share;
                   })) {
      return it->second;
    }
  }
  const PathSetId id = make();
  sets_by_hash_.emplace(h, id);
  return id;
}

TaskId Simulation::add_task(Task task, std::span<const TaskId> deps) {
  const auto id = static_cast<TaskId>(tasks_.size());
  for ([[maybe_unused]] TaskId d : deps)
    assert(d < id && "dependencies must be added first");
  task.dep_begin = static_cast<std::uint32_t>(deps_.size());
  deps_.insert(deps_.end(), deps.begin(), deps.end());
  tasks_.push_back(task);
  return id;
}

TaskId Simulation::add_compute(int gpu, double duration_s, std::span<const TaskId> deps) {
  assert(gpu >= 0 && static_cast<std::size_t>(gpu) < gpu_count_ && duration_s >= 0);
  Task t;
  t.set_kind(TaskKind::compute, gpu);
  t.amount = duration_s;
  return add_task(t, deps);
}

TaskId Simulation::add_transfer(double bytes, std::span<const PathShare> paths, int src_gpu,
                                int dst_gpu, std::span<const TaskId> deps) {
  assert(bytes >= 0);
  assert(src_gpu < static_cast<int>(gpu_count_) && dst_gpu < static_cast<int>(gpu_count_));
  Task t;
  t.set_kind(TaskKind::transfer, src_gpu);
  t.peer_gpu = dst_gpu;
  t.amount = bytes;
  for ([[maybe_unused]] const PathShare& p : paths)
    assert(p.path < path_latency_s_.size() && p.share > 0);
  t.path_set = intern_path_set(paths);
  return add_task(t, deps);
}

Simulation::PathSetId Simulation::add_path_set(std::span<const PathShare> paths) {
  if (paths.empty()) return 0;
  for ([[maybe_unused]] const PathShare& p : paths)
    assert(p.path < path_latency_s_.size() && p.share > 0);
  set_shares_.insert(set_shares_.end(), paths.begin(), paths.end());
  set_begin_.push_back(static_cast<std::uint32_t>(set_shares_.size()));
  return static_cast<PathSetId>(set_begin_.size() - 2);
}

TaskId Simulation::add_transfer(double bytes, PathSetId set, int src_gpu, int dst_gpu,
                                std::span<const TaskId> deps) {
  assert(bytes >= 0 && set < path_set_count());
  assert(src_gpu < static_cast<int>(gpu_count_) && dst_gpu < static_cast<int>(gpu_count_));
  Task t;
  t.set_kind(TaskKind::transfer, src_gpu);
  t.peer_gpu = dst_gpu;
  t.amount = bytes;
  t.path_set = set;
  return add_task(t, deps);
}

std::span<const PathShare> Simulation::path_set_paths(PathSetId set) const {
  return {set_shares_.data() + set_begin_[set], set_begin_[set + 1] - set_begin_[set]};
}

TaskId Simulation::add_delay(double duration_s, std::span<const TaskId> deps) {
  assert(duration_s >= 0);
  Task t;
  t.set_kind(TaskKind::delay, kNoGpu);
  t.amount = duration_s;
  return add_task(t, deps);
}

TaskId Simulation::add_barrier(std::span<const TaskId> deps) {
  return add_task(Task{}, deps);
}

void Simulation::set_duration(TaskId task, double duration_s) {
  assert(duration_s >= 0);
  assert(kind(task) == TaskKind::compute || kind(task) == TaskKind::delay);
  tasks_[task].amount = duration_s;
}

void Simulation::reserve(std::size_t tasks, std::size_t deps) {
  tasks_.reserve(tasks);
  deps_.reserve(deps);
}

std::span<const TaskId> Simulation::deps(TaskId task) const {
  const Task& t = tasks_[task];
  return {deps_.data() + t.dep_begin, dep_end(task) - t.dep_begin};
}

std::span<const PathShare> Simulation::paths(TaskId task) const {
  return path_set_paths(tasks_[task].path_set);
}

std::span<const ChannelId> Simulation::path_channels(PathId path) const {
  return {path_channels_.data() + path_begin_[path], path_begin_[path + 1] - path_begin_[path]};
}

void Runner::start_task(TaskId id) {
  const Simulation::Task& t = sim_.tasks_[id];
  if (!tl_.task_start_s.empty()) tl_.task_start_s[id] = now_s_;
  switch (t.kind()) {
    case TaskKind::compute:
    case TaskKind::delay:
      push(now_s_ + t.amount, EventKind::task_end, id, 0);
      return;
    case TaskKind::barrier:
      finish_task(id);
      return;
    case TaskKind::transfer: {
      const auto paths = sim_.paths(id);
      waiting_on_[id] = static_cast<std::uint32_t>(paths.size());  // now: paths in flight
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

void Runner::finish_task(TaskId id) {
  if (!tl_.task_end_s.empty()) tl_.task_end_s[id] = now_s_;
  tl_.makespan_s = std::max(tl_.makespan_s, now_s_);
  const Simulation::Task& t = sim_.tasks_[id];
  if (options_.record_intervals) {
    const TaskInterval iv{tl_.task_start_s[id], now_s_, id};
    const int gpu = t.gpu();
    if (t.kind() == TaskKind::compute) tl_.gpu_compute[static_cast<std::size_t>(gpu)].push_back(iv);
    if (t.kind() == TaskKind::transfer) {
      if (gpu != kNoGpu) tl_.gpu_comm[static_cast<std::size_t>(gpu)].push_back(iv);
      if (t.peer_gpu != kNoGpu && t.peer_gpu != gpu) {
        tl_.gpu_comm[static_cast<std::size_t>(t.peer_gpu)].push_back(iv);
      }
    }
  }
  for (std::uint32_t i = dependents_begin_[id]; i < dependents_begin_[id + 1]; ++i) {
    const TaskId d = dependents_[i];
    if (--waiting_on_[d] == 0) ready_.push_back(d);
  }
  if (++finished_tasks_ % RunOptions::kProgressEvery == 0 && options_.progress) {
    options_.progress(finished_tasks_, sim_.task_count());
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
  for (ChannelId c : channels)
    tl_.channels[c].bytes += bytes;
  ++tl_.flow_starts;
}

void Runner::path_done(TaskId id) {
  if (--waiting_on_[id] == 0) finish_task(id);
}

void Runner::flow_end(const Event& e) {
  const net::FlowId f = e.flow;
  const Flow& flow = flows_[f];
  assert(flow.task == e.task && "a flow's end outlived the flow");
  solver_.remove_flow(f);
  ++tl_.flow_ends;
  path_done(flow.task);
}

void Runner::record_channel_states() {
  for (net::LinkId l : solver_.resolved_links()) {
    const bool busy = solver_.flows_on(l) > 0;
    const bool saturated = solver_.saturated(l);
    ChannelUsage& u = tl_.channels[l];
    if (options_.record_intervals && options_.record_channel_load) {
      append_load(u, now_s_, solver_.load(l));
    }
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
    flow_ends_.set(f, {now_s_ + flow.remaining_bytes / rate, EventKind::flow_end, flow.task,
                       flow.path_index, f});
  }
  record_channel_states();
}

void Runner::init_state() {
  const std::size_t n = sim_.task_count();
  // Per-GPU intervals are built from the start times, so they keep them.
  if (options_.record_task_times || options_.record_intervals)
    tl_.task_start_s.assign(n, std::numeric_limits<double>::quiet_NaN());
  if (options_.record_task_times)
    tl_.task_end_s.assign(n, std::numeric_limits<double>::quiet_NaN());
  tl_.channels.resize(sim_.channel_count());
  if (options_.record_intervals) {
    tl_.gpu_compute.resize(sim_.gpu_count());
    tl_.gpu_comm.resize(sim_.gpu_count());
    // Room for every interval finish_task will record, so the lists never grow by copying.
    std::vector<std::size_t> compute(sim_.gpu_count(), 0);
    std::vector<std::size_t> comm(sim_.gpu_count(), 0);
    for (const Simulation::Task& t : sim_.tasks_) {
      const int gpu = t.gpu();
      if (t.kind() == TaskKind::compute) ++compute[static_cast<std::size_t>(gpu)];
      if (t.kind() == TaskKind::transfer) {
        if (gpu != kNoGpu) ++comm[static_cast<std::size_t>(gpu)];
        if (t.peer_gpu != kNoGpu && t.peer_gpu != gpu) ++comm[static_cast<std::size_t>(t.peer_gpu)];
      }
    }
    for (std::size_t g = 0; g < sim_.gpu_count(); ++g) {
      tl_.gpu_compute[g].reserve(compute[g]);
      tl_.gpu_comm[g].reserve(comm[g]);
    }
  }
  solver_.reserve_links(sim_.capacity_Bps_.size());
  for (double c : sim_.capacity_Bps_)
    solver_.add_link(c);
  busy_since_s_.assign(sim_.channel_count(), std::numeric_limits<double>::quiet_NaN());
  saturated_since_s_ = busy_since_s_;
}

// Dependents in compressed rows (dependents_begin_, dependents_); waiting counts.
void Runner::index_dependents() {
  const std::size_t n = sim_.task_count();
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
  std::vector<std::uint32_t> fill(dependents_begin_.begin(), dependents_begin_.end() - 1);
  for (TaskId id = 0; id < n; ++id) {
    for (TaskId d : sim_.deps(id))
      dependents_[fill[d]++] = id;
  }
}

void Runner::handle(const Event& e) {
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
}

Runner::Event Runner::pop_next() {
  if (next_is_flow_end()) {
    const Event e = flow_ends_.top();
    flow_ends_.pop();
    return e;
  }
  const Event e = queue_.top();
  queue_.pop();
  --live_other_events_;
  return e;
}

// Everything due now, including zero-duration work that this instant's events start.
void Runner::run_instant() {
  for (;;) {
    if (!has_events() || next_time_s() > now_s_) {
      if (pending_transfers_.empty()) break;
      start_pending_transfers();  // may queue more events for now (zero latency)
      continue;
    }
    handle(pop_next());
    drain_ready();
  }
  after_instant();
}

Timeline Runner::run() {
  init_state();
  index_dependents();
  for (TaskId id = 0; id < sim_.task_count(); ++id) {
    if (waiting_on_[id] == 0) ready_.push_back(id);
  }
  drain_ready();
  if (!pending_transfers_.empty()) start_pending_transfers();

  while (has_events()) {
    now_s_ = next_time_s();
    ++tl_.event_times;
    run_instant();
  }

  // A GPU's intervals are recorded in end order; its compute seldom overlaps, so they often are
  // in (start, task) order already. The order is total (a task appears once per GPU), so the
  // sorted list is unique and skipping the sort of a sorted one changes nothing.
  const auto by_start = [](const TaskInterval& a, const TaskInterval& b) {
    return a.start_s != b.start_s ? a.start_s < b.start_s : a.task < b.task;
  };
  for (auto* per_gpu : {&tl_.gpu_compute, &tl_.gpu_comm}) {
    for (auto& v : *per_gpu) {
      if (!std::is_sorted(v.begin(), v.end(), by_start)) std::sort(v.begin(), v.end(), by_start);
    }
  }
  if (!options_.record_task_times) std::vector<double>().swap(tl_.task_start_s);
  return std::move(tl_);
}

Timeline Simulation::run(const RunOptions& options) const {
  return Runner(*this, options).run();
}

}  // namespace linksim::engine
