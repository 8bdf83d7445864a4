#pragma once
// From fitted series to per-link figures. Each series' bandwidth beta and latency alpha are
// spread over the channels of its route(s):
//   - bandwidth: every channel on a path is a candidate for beta x (the path's share of the
//     bytes); a link's new bandwidth is the LARGEST candidate over its two directions, since a
//     link carries at least every rate that was observed through it. A measurement limited by
//     something that is not a link (host-memory staging, a copy engine) then stays slower than
//     its route predicts, and the report's "after" column shows it instead of hiding it in the
//     links it shares with others.
//   - latency: alpha / (channels on the path) per channel, only from series whose latency was
//     identified (two or more sizes, or a latency sample); a link's new latency is the SMALLEST
//     candidate, the one least inflated by software overheads.
// Figures are clamped to what the loader accepts (1 MB/s..10 TB/s, latency up to 1 ms).
// Series staged through host memory (peer copies without P2P) set nothing: their time is the
// driver's staging (copy to a host buffer, then out of it, with its software latency), which
// bounds the links from below but measures none of them. A GPU measured only that way keeps
// its datasheet figures, and the report says so.

#include <optional>
#include <string>
#include <vector>

#include "calibrate/series.hpp"
#include "sim/topo/routing.hpp"

namespace linksim::calibrate {

struct LinkOverride {
  topo::LinkId link = 0;
  std::optional<double> bandwidth_Bps;
  std::optional<double> latency_s;
  // The confidence interval of the series that set the figure, scaled as the figure was; absent
  // when that fit has no finite interval.
  std::optional<topo::Range> bandwidth_range_Bps;
  std::optional<topo::Range> latency_range_s;
  std::string bandwidth_from;  // describe(series key) that set it
  std::string latency_from;
  // For the file's per-link "source".
  std::string source() const;
};

// Whether any of the routes bounces through host memory.
bool staged_through_host(const std::vector<topo::Route>& routes);

// Sorted by link id. Series without a route in the machine are skipped.
std::vector<LinkOverride> derive_link_overrides(const topo::Router& router,
                                                const std::vector<Series>& series);

}  // namespace linksim::calibrate
