#include "sim/engine/summary.hpp"

#include <algorithm>
#include <limits>

namespace linksim::engine {
namespace {

std::vector<Interval> plain(const std::vector<TaskInterval>& v) {
  std::vector<Interval> out;
  out.reserve(v.size());
  for (const auto& t : v)
    out.push_back({t.start_s, t.end_s});
  return out;
}

}  // namespace

std::vector<Interval> merged(std::vector<Interval> v) {
  const auto before = [](const Interval& x, const Interval& y) {
    return x.start_s != y.start_s ? x.start_s < y.start_s : x.end_s < y.end_s;
  };
  // Often two sorted runs back to back (a GPU's transfers, then its collectives' spans): sort
  // only what follows the sorted prefix, then merge.
  const auto prefix_end = std::is_sorted_until(v.begin(), v.end(), before);
  if (prefix_end != v.end()) {
    std::sort(prefix_end, v.end(), before);
    std::inplace_merge(v.begin(), prefix_end, v.end(), before);
  }
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

double covered_length(const std::vector<Interval>& m, double start_s, double end_s) {
  // The first interval that ends after start_s; merged intervals end in start order too.
  auto it = std::upper_bound(m.begin(), m.end(), start_s,
                             [](double t, const Interval& iv) { return t < iv.end_s; });
  double total = 0;
  for (; it != m.end() && it->start_s < end_s; ++it)
    total += std::min(end_s, it->end_s) - std::max(start_s, it->start_s);
  return total;
}

std::vector<std::vector<Interval>> comm_intervals(const Simulation& sim, const Timeline& tl,
                                                  std::span<const CommOp> ops) {
  std::vector<std::vector<Interval>> out(sim.gpu_count());
  for (std::size_t g = 0; g < sim.gpu_count(); ++g)
    out[g] = plain(tl.gpu_comm.at(g));
  for (const CommOp& op : ops) {
    // The span of all its tasks: the first one gates the rest, but take no order for granted.
    double start_s = std::numeric_limits<double>::infinity();
    double end_s = -start_s;
    for (TaskId t = op.first_task; t <= op.last_task; ++t) {
      start_s = std::min(start_s, tl.task_start_s.at(t));
      end_s = std::max(end_s, tl.task_end_s.at(t));
    }
    if (!(end_s > start_s)) continue;  // takes no time (or never ran)
    for (int g : op.gpus)
      out.at(static_cast<std::size_t>(g)).push_back({start_s, end_s});
  }
  for (auto& v : out)
    v = merged(std::move(v));
  return out;
}

std::vector<std::vector<Interval>> compute_intervals(const Timeline& tl) {
  std::vector<std::vector<Interval>> out;
  out.reserve(tl.gpu_compute.size());
  for (const auto& v : tl.gpu_compute)
    out.push_back(merged(plain(v)));
  return out;
}

Summary summarize(const Simulation& sim, const Timeline& tl, const Names& names,
                  std::span<const CommOp> ops) {
  Summary s;
  s.makespan_s = tl.makespan_s;
  if (!names.tasks.empty()) {
    s.tasks.reserve(sim.task_count());
    for (TaskId t = 0; t < sim.task_count(); ++t) {
      s.tasks.push_back({names.tasks.at(t), sim.kind(t), tl.task_start_s[t], tl.task_end_s[t]});
    }
  }
  const auto comm = comm_intervals(sim, tl, ops);
  const auto compute = compute_intervals(tl);
  for (std::size_t g = 0; g < sim.gpu_count(); ++g) {
    GpuRow row;
    row.name = names.gpus.at(g);
    row.compute_s = union_length(compute[g]);
    row.comm_s = union_length(comm[g]);
    row.exposed_comm_s = uncovered_length(comm[g], compute[g]);
    row.hidden_comm_s = std::max(0.0, row.comm_s - row.exposed_comm_s);
    // Idle closes the sum, so that compute + exposed + idle is the makespan to rounding; a
    // difference of a few ulps is the rounding of the two lengths, not idle time.
    row.busy_s = row.compute_s + row.exposed_comm_s;
    row.idle_s = s.makespan_s - row.busy_s;
    if (row.idle_s <= 8 * std::numeric_limits<double>::epsilon() * s.makespan_s) row.idle_s = 0;
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
