#include "sim/coll/link_efficiency.hpp"

namespace linksim::coll {

double payload_efficiency(const topo::Link& link) {
  if (link.provenance.basis == "effective") return 1.0;
  switch (link.kind) {
    case topo::LinkKind::nvlink:
      return 0.958;
    case topo::LinkKind::pcie:
      return 0.82;
    case topo::LinkKind::infiniband:
      return 0.96;
    case topo::LinkKind::ethernet:
      return 0.90;
    case topo::LinkKind::upi:
    case topo::LinkKind::qpi:
    case topo::LinkKind::xgmi:
    case topo::LinkKind::c2c:
      return 0.80;
    case topo::LinkKind::soc:
      return 1.0;
  }
  return 1.0;
}

std::vector<double> payload_capacities_Bps(const topo::Topology& topo) {
  std::vector<double> out(topo.channel_count());
  for (topo::LinkId l = 0; l < topo.links().size(); ++l) {
    const double c = topo.link(l).bandwidth_Bps * payload_efficiency(topo.link(l));
    out[topo::Topology::channel(l, true)] = c;
    out[topo::Topology::channel(l, false)] = c;
  }
  return out;
}

}  // namespace linksim::coll
