#include "sim/topo/link_payload.hpp"

#include <algorithm>

namespace linksim::topo {
namespace {

// A DGX A100 pair's copy over all 12 NVLink 3 links (see the header): 242 GiB/s in GB/s.
constexpr double kNvlink3TypicalCopy_GBps = 242 * 1.073741824;

}  // namespace

double payload_efficiency(const Link& link) {
  if (link.provenance.basis == "effective") return 1.0;
  switch (link.kind) {
    case LinkKind::nvlink:
      // NVLink 3 has its own measurement (the header's DGX A100 copies); the others share
      // NVLink 1-2's.
      return link.generation == 3 ? kNvlink3TypicalCopy_GBps / 300 : 0.958;
    case LinkKind::pcie:
      return 0.82;
    case LinkKind::infiniband:
      return 0.96;
    case LinkKind::ethernet:
      return 0.90;
    case LinkKind::upi:
    case LinkKind::qpi:
    case LinkKind::xgmi:
    case LinkKind::c2c:
      return 0.80;
    case LinkKind::soc:
      return 1.0;
  }
  return 1.0;
}

double payload_bandwidth_Bps(const Link& link) {
  return link.bandwidth_Bps * payload_efficiency(link);
}

std::vector<double> payload_capacities_Bps(const Topology& topo) {
  std::vector<double> out(topo.channel_count());
  for (LinkId l = 0; l < topo.links().size(); ++l) {
    const double c = payload_bandwidth_Bps(topo.link(l));
    out[Topology::channel(l, true)] = c;
    out[Topology::channel(l, false)] = c;
  }
  return out;
}

double payload_bandwidth_Bps(const Topology& topo, const Route& route) {
  double bw = 0;
  bool first = true;
  for (const auto& p : route.paths) {
    if (p.share <= 0 || p.channels.empty()) continue;
    double bottleneck = payload_bandwidth_Bps(topo.link(Topology::link_of(p.channels.front())));
    for (ChannelId c : p.channels)
      bottleneck = std::min(bottleneck, payload_bandwidth_Bps(topo.link(Topology::link_of(c))));
    bw = first ? bottleneck / p.share : std::min(bw, bottleneck / p.share);
    first = false;
  }
  return bw;
}

}  // namespace linksim::topo
