// The values routing.hpp hands out: path classes and transports by name, and a Route's
// aggregate bandwidth and latency over its paths.
#include <algorithm>

#include "sim/topo/routing.hpp"

namespace linksim::topo {

std::string_view to_string(PathClass c) {
  switch (c) {
    case PathClass::self:
      return "X";
    case PathClass::nvlink:
      return "NV";
    case PathClass::pix:
      return "PIX";
    case PathClass::pxb:
      return "PXB";
    case PathClass::phb:
      return "PHB";
    case PathClass::node:
      return "NODE";
    case PathClass::sys:
      return "SYS";
  }
  return "?";
}

std::string_view to_string(Transport t) {
  switch (t) {
    case Transport::local:
      return "local";
    case Transport::nvlink:
      return "nvlink";
    case Transport::nvlink_relay:
      return "nvlink-relay";
    case Transport::pcie_p2p:
      return "pcie-p2p";
    case Transport::host_bounce:
      return "host-bounce";
    case Transport::pcie:
      return "pcie";
    case Transport::network:
      return "network";
  }
  return "?";
}

double Route::bandwidth_Bps() const {
  // Each path carries `share` of the bytes at up to its bottleneck: the transfer finishes when
  // the slowest path does, so the aggregate is min over paths of bottleneck / share.
  double bw = 0;
  bool first = true;
  for (const auto& p : paths) {
    if (p.share <= 0) continue;
    const double implied = p.bottleneck_Bps / p.share;
    bw = first ? implied : std::min(bw, implied);
    first = false;
  }
  return bw;
}

double Route::latency_s() const {
  double lat = 0;
  for (const auto& p : paths)
    lat = std::max(lat, p.latency_s);
  return lat;
}

}  // namespace linksim::topo
