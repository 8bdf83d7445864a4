#pragma once
// Text about a machine for people: the summary under `topo show`, the explanation from
// `topo check`, and the one-liner of `topo list`. Returns strings; never prints.

#include <string>

#include "sim/topo/summary.hpp"
#include "sim/topo/topology.hpp"

namespace linksim::topo {

std::string describe_summary(const Topology& topo, const MachineSummary& s);
std::string explain_machine(const Topology& topo, const MachineSummary& s);
std::string one_line(const Topology& topo);

}  // namespace linksim::topo
