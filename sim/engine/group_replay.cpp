// Replay of repeated groups of transfers: a group that starts alone (nothing else in flight) is
// simulated once on its own channels, and each later identical group replays that result,
// provided no dependent could start before the group's last end (see try_replay_group).
#include <algorithm>
#include <bit>
#include <map>
#include <unordered_map>

#include "sim/engine/runner.hpp"

namespace linksim::engine {

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
    for (const LoadSample& s : d.load)
      append_load(u, now_s_ + s.time_s, s.load_Bps);
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

// FNV-1a over each transfer's bytes and its path set (sets are interned: one id per distinct
// list of paths and shares).
std::uint64_t Runner::group_hash() const {
  std::uint64_t h = 14695981039346656037ull;
  const auto mix = [&h](std::uint64_t v) { h = (h ^ v) * 1099511628211ull; };
  mix(pending_transfers_.size());
  for (TaskId id : pending_transfers_) {
    mix(std::bit_cast<std::uint64_t>(sim_.tasks_[id].amount));
    mix(sim_.tasks_[id].path_set);
  }
  return h;
}

// Whether the pending group moves the same bytes over the same paths as `exemplar`, in order.
bool Runner::same_as_pending(const std::vector<TaskId>& exemplar) const {
  if (exemplar.size() != pending_transfers_.size()) return false;
  for (std::size_t k = 0; k < exemplar.size(); ++k) {
    const Simulation::Task& a = sim_.tasks_[exemplar[k]];
    const Simulation::Task& b = sim_.tasks_[pending_transfers_[k]];
    if (a.amount != b.amount || a.path_set != b.path_set) return false;
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
  options.record_task_times = true;  // the group's end offsets
  options.progress = nullptr;        // the outer run counts the group's tasks
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
    waiting_on_[id] = 0;
    finish_task(id);
  }
  if (e.path_index + 1 == replay.result->ends.size()) std::vector<TaskId>().swap(replay.tasks);
}

}  // namespace linksim::engine
