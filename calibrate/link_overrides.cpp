#include "calibrate/link_overrides.hpp"

#include <algorithm>
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

std::vector<LinkOverride> derive_link_overrides(const topo::Router& router,
                                                const std::vector<Series>& series) {
  std::map<topo::LinkId, LinkOverride> by_link;
  for (const auto& s : series) {
    auto flows = routes_for(router, s.key);
    if (!flows) continue;
    const std::string who = describe(s.key);
    for (const auto& f : *flows) {
      for (const auto& p : f.paths) {
        if (p.channels.empty()) continue;
        const double bw = std::clamp(s.fit.bandwidth_Bps * p.share, topo::kMinBandwidth_Bps,
                                     topo::kMaxBandwidth_Bps);
        const double lat = s.fit.latency_s / static_cast<double>(p.channels.size());
        for (auto c : p.channels) {
          const topo::LinkId l = topo::Topology::link_of(c);
          auto& o = by_link[l];
          o.link = l;
          if (!o.bandwidth_Bps || bw > *o.bandwidth_Bps) {
            o.bandwidth_Bps = bw;
            o.bandwidth_from = who;
          }
          if (s.fit.latency_identified && lat > 0) {
            const double clamped = std::min(lat, topo::kMaxLatency_s);
            if (!o.latency_s || clamped < *o.latency_s) {
              o.latency_s = clamped;
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
