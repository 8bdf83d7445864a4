#include "sim/report/chrome_trace_link_load.hpp"

#include <algorithm>

namespace linksim::report {

LinkLoad::LinkLoad(const engine::Simulation& sim, const engine::Timeline& tl)
    : totals_(tl.channels.size()) {
  for (engine::ChannelId c = 0; c < tl.channels.size(); ++c) {
    capacity_Bps_.push_back(c < sim.channel_count() ? sim.channel_capacity_Bps(c) : 0);
    Totals& t = totals_[c];
    t.samples = tl.channels[c].load;
    t.saturated_s.assign(t.samples.size(), 0);
    t.bytes.assign(t.samples.size(), 0);
    for (std::size_t i = 1; i < t.samples.size(); ++i) {
      const engine::LoadSample& prev = t.samples[i - 1];
      const double dt = t.samples[i].time_s - prev.time_s;
      const bool saturated = prev.load_Bps >= kSaturatedFraction * capacity_Bps_[c];
      t.saturated_s[i] = t.saturated_s[i - 1] + (saturated ? dt : 0);
      t.bytes[i] = t.bytes[i - 1] + prev.load_Bps * dt;
    }
  }
}

std::pair<double, double> LinkLoad::up_to(const Totals& c, double capacity_Bps, double t) const {
  const auto it = std::upper_bound(
      c.samples.begin(), c.samples.end(), t,
      [](double time_s, const engine::LoadSample& s) { return time_s < s.time_s; });
  if (it == c.samples.begin()) return {0, 0};
  const auto i = static_cast<std::size_t>(it - c.samples.begin()) - 1;
  const double dt = t - c.samples[i].time_s;
  const double load = c.samples[i].load_Bps;
  const bool saturated = load >= kSaturatedFraction * capacity_Bps;
  return {c.saturated_s[i] + (saturated ? dt : 0), c.bytes[i] + load * dt};
}

ChannelWindow LinkLoad::window(engine::ChannelId channel, double start_s, double end_s) const {
  const Totals& c = totals_[channel];
  ChannelWindow w;
  if (c.samples.empty() || end_s <= start_s) return w;
  const auto [sat0, bytes0] = up_to(c, capacity_Bps_[channel], start_s);
  const auto [sat1, bytes1] = up_to(c, capacity_Bps_[channel], end_s);
  w.saturated_s = std::max(0.0, sat1 - sat0);
  w.bytes = std::max(0.0, bytes1 - bytes0);
  // The peak: the sample in force at the start, and every one that starts inside the window.
  auto it = std::upper_bound(
      c.samples.begin(), c.samples.end(), start_s,
      [](double time_s, const engine::LoadSample& s) { return time_s < s.time_s; });
  if (it != c.samples.begin()) --it;
  for (; it != c.samples.end() && it->time_s < end_s; ++it)
    w.peak_Bps = std::max(w.peak_Bps, it->load_Bps);
  return w;
}

std::optional<BoundingLink> LinkLoad::bounding(std::span<const engine::ChannelId> channels,
                                               double start_s, double end_s) const {
  std::optional<BoundingLink> best;
  double best_share = -1;
  for (engine::ChannelId c : channels) {
    if (totals_[c].samples.empty()) continue;
    const ChannelWindow w = window(c, start_s, end_s);
    const double share = w.bytes / capacity_Bps_[c];  // seconds' worth at line rate
    const bool better = !best || w.saturated_s > best->window.saturated_s ||
                        (w.saturated_s == best->window.saturated_s &&
                         (share > best_share || (share == best_share && c < best->channel)));
    if (better) {
      best = BoundingLink{c, w};
      best_share = share;
    }
  }
  return best;
}

}  // namespace linksim::report
