#pragma once
// Each channel's recorded load (engine::ChannelUsage::load) as running totals, so that a trace
// can ask, for any window of time and in logarithmic time, how long a channel was saturated,
// how many bytes crossed it, and which of a set of channels bound the work in that window.

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "sim/engine/simulation.hpp"
#include "sim/engine/timeline.hpp"

namespace linksim::report {

// A channel is saturated while its load is within this fraction of its capacity: the solver's
// rates sum to the capacity up to rounding.
inline constexpr double kSaturatedFraction = 1 - 1e-9;

// What a window of time saw on a channel.
struct ChannelWindow {
  double saturated_s = 0;  // time at capacity
  double bytes = 0;        // integral of the load
  double peak_Bps = 0;     // highest load
};

// The channel that bound some work, and what it saw over the work's window.
struct BoundingLink {
  engine::ChannelId channel = 0;
  ChannelWindow window;
};

class LinkLoad {
 public:
  // REQUIRES: `timeline` outlives this (it keeps views of the samples).
  LinkLoad(const engine::Simulation& sim, const engine::Timeline& timeline);

  ChannelWindow window(engine::ChannelId channel, double start_s, double end_s) const;

  // Of `channels`, the one saturated longest within [start_s, end_s]; where none was, the one
  // that carried the most bytes relative to its capacity; ties go to the lower channel id.
  // nullopt for no channels, or when no channel has recorded load.
  std::optional<BoundingLink> bounding(std::span<const engine::ChannelId> channels, double start_s,
                                       double end_s) const;

  double capacity_Bps(engine::ChannelId channel) const { return capacity_Bps_[channel]; }

 private:
  // Per channel: the samples, and the saturated time and bytes from its first sample to each.
  struct Totals {
    std::span<const engine::LoadSample> samples;
    std::vector<double> saturated_s;
    std::vector<double> bytes;
  };
  // Saturated time and bytes from the first sample up to `t`.
  std::pair<double, double> up_to(const Totals& c, double capacity_Bps, double t) const;

  std::vector<double> capacity_Bps_;
  std::vector<Totals> totals_;
};

}  // namespace linksim::report
