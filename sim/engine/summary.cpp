#include "sim/engine/summary.hpp"

#include <algorithm>

namespace linksim::engine {
namespace {

// Sorts and merges overlapping or touching intervals.
std::vector<Interval> merged(std::vector<Interval> v) {
  std::sort(v.begin(), v.end(), [](const Interval& x, const Interval& y) {
    return x.start_s != y.start_s ? x.start_s < y.start_s : x.end_s < y.end_s;
  });
  std::vector<Interval> out;
  for (const Interval& iv : v) {
    if (!out.empty() && iv.start_s <= out.back().end_s) {
      out.back().end_s = std::max(out.back().end_s, iv.end_s);
    } else {
      out.push_back(iv);
    }
  }
  return out;
}

std::vector<Interval> plain(const std::vector<TaskInterval>& v) {
  std::vector<Interval> out;
  out.reserve(v.size());
  for (const auto& t : v)
    out.push_back({t.start_s, t.end_s});
  return out;
}

}  // namespace

double union_length(std::vector<Interval> intervals) {
  double total = 0;
  for (const auto& iv : merged(std::move(intervals)))
    total += iv.end_s - iv.start_s;
  return total;
}

double uncovered_length(std::vector<Interval> a, std::vector<Interval> b) {
  const auto ma = merged(std::move(a));
  const auto mb = merged(std::move(b));
  double total = 0;
  std::size_t j = 0;
  for (const auto& iv : ma) {
    double cursor = iv.start_s;
    while (j < mb.size() && mb[j].end_s <= cursor)
      ++j;
    for (std::size_t k = j; k < mb.size() && mb[k].start_s < iv.end_s; ++k) {
      if (mb[k].start_s > cursor) total += mb[k].start_s - cursor;
      cursor = std::max(cursor, mb[k].end_s);
    }
    if (cursor < iv.end_s) total += iv.end_s - cursor;
  }
  return total;
}

Summary summarize(const Simulation& sim, const Timeline& tl, const Names& names) {
  Summary s;
  s.makespan_s = tl.makespan_s;
  s.tasks.reserve(sim.task_count());
  for (TaskId t = 0; t < sim.task_count(); ++t) {
    s.tasks.push_back({names.tasks.at(t), sim.kind(t), tl.task_start_s[t], tl.task_end_s[t]});
  }
  for (std::size_t g = 0; g < sim.gpu_count(); ++g) {
    GpuRow row;
    row.name = names.gpus.at(g);
    const auto compute = plain(tl.gpu_compute.at(g));
    const auto comm = plain(tl.gpu_comm.at(g));
    auto both = compute;
    both.insert(both.end(), comm.begin(), comm.end());
    row.compute_s = union_length(compute);
    row.comm_s = union_length(comm);
    row.exposed_comm_s = uncovered_length(comm, compute);
    row.busy_s = union_length(both);
    row.comm_fraction = s.makespan_s > 0 ? row.comm_s / s.makespan_s : 0;
    s.gpus.push_back(row);
  }
  for (ChannelId c = 0; c < sim.channel_count(); ++c) {
    const ChannelUsage& u = tl.channels.at(c);
    if (u.bytes <= 0) continue;
    ChannelRow row;
    row.channel = c;
    row.name = names.channels.at(c);
    row.capacity_Bps = sim.channel_capacity_Bps(c);
    row.bytes = u.bytes;
    row.busy_s = u.busy_s;
    row.saturated_s = u.saturated_s;
    row.utilization = s.makespan_s > 0 ? u.bytes / (row.capacity_Bps * s.makespan_s) : 0;
    s.channels.push_back(row);
  }
  for (std::size_t i = 0; i < s.channels.size(); ++i) {
    if (s.channels[i].saturated_s > 0) s.bottlenecks.push_back(i);
  }
  std::stable_sort(s.bottlenecks.begin(), s.bottlenecks.end(), [&](std::size_t a, std::size_t b) {
    return s.channels[a].saturated_s > s.channels[b].saturated_s;
  });
  if (s.bottlenecks.size() > kMaxBottlenecks) s.bottlenecks.resize(kMaxBottlenecks);
  return s;
}

}  // namespace linksim::engine
