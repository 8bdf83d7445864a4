#include "calibrate/link_overrides.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "calibrate/path_map.hpp"
#include "sim/topo/loader.hpp"

namespace linksim::calibrate {

std::string LinkOverride::source() const {
  std::string out = "linksim fit:";
  if (bandwidth_Bps) out += " bandwidth from " + bandwidth_from;
  if (bandwidth_Bps && latency_s) out += ";";
  if (latency_s) out += " latency from " + latency_from;
  return out;
}

namespace {

// The loader takes positive latencies only: a 95% interval reaching below zero is cut at 1 ns.
constexpr double kMinLatencyRange_s = 1e-9;

// `r` clamped to [min, max] and widened to hold `value` (itself already clamped).
topo::Range clamp_range(topo::Range r, double value, double min, double max) {
  r.lo = std::min(std::clamp(r.lo, min, max), value);
  r.hi = std::max(std::clamp(r.hi, min, max), value);
  return r;
}

}  // namespace

bool staged_through_host(const std::vector<topo::Route>& routes) {
  return std::any_of(routes.begin(), routes.end(), [](const topo::Route& r) {
    return r.transport == topo::Transport::host_bounce;
  });
}

std::vector<LinkOverride> derive_link_overrides(const topo::Router& router,
                                                const std::vector<Series>& series) {
  std::map<topo::LinkId, LinkOverride> by_link;
  for (const auto& s : series) {
    auto flows = routes_for(router, s.key);
    if (!flows || staged_through_host(*flows)) continue;
    const std::string who = describe(s.key);
    for (const auto& f : *flows) {
      for (const auto& p : f.paths) {
        if (p.channels.empty()) continue;
        const double bw = std::clamp(s.fit.bandwidth_Bps * p.share, topo::kMinBandwidth_Bps,
                                     topo::kMaxBandwidth_Bps);
        const double hops = static_cast<double>(p.channels.size());
        const double lat = s.fit.latency_s / hops;
        std::optional<topo::Range> bw_range, lat_range;
        if (s.fit.has_interval && std::isfinite(s.fit.bandwidth_hi_Bps)) {
          bw_range =
              clamp_range({s.fit.bandwidth_lo_Bps * p.share, s.fit.bandwidth_hi_Bps * p.share}, bw,
                          topo::kMinBandwidth_Bps, topo::kMaxBandwidth_Bps);
        }
        if (s.fit.has_interval && s.fit.latency_identified) {
          lat_range = clamp_range(
              {std::max(s.fit.latency_lo_s, 0.0) / hops, s.fit.latency_hi_s / hops},
              std::min(lat, topo::kMaxLatency_s), kMinLatencyRange_s, topo::kMaxLatency_s);
        }
        for (auto c : p.channels) {
          const topo::LinkId l = topo::Topology::link_of(c);
          auto& o = by_link[l];
          o.link = l;
          if (!o.bandwidth_Bps || bw > *o.bandwidth_Bps) {
            o.bandwidth_Bps = bw;
            o.bandwidth_range_Bps = bw_range;
            o.bandwidth_from = who;
          }
          if (s.fit.latency_identified && lat > 0) {
            const double clamped = std::min(lat, topo::kMaxLatency_s);
            if (!o.latency_s || clamped < *o.latency_s) {
              o.latency_s = clamped;
              o.latency_range_s = lat_range;
              o.latency_from = who;
            }
          }
        }
      }
    }
  }
  std::vector<LinkOverride> out;
  for (auto& [l, o] : by_link)
    out.push_back(std::move(o));
  return out;
}

}  // namespace linksim::calibrate
