#pragma once
// The links that bound a job's step, for its report: channels saturated for at least 1% of the
// step, each shown with the links alike (same kind, capacity, inside a node or in the network,
// and saturated as long to 1e-9: the symmetric copies one collective loads the same), so that 64
// identical NVLinks are one line and not three of the three lines shown. A link in the network
// (NIC to switch, switch to switch) that binds is always named, even where NVLinks inside the
// nodes sit saturated longer: it is what tells a rail-optimised fabric from an oversubscribed
// one.

#include <string>
#include <vector>

#include "sim/engine/summary.hpp"
#include "sim/topo/topology.hpp"

namespace linksim::work {

// At most `lines` lines, "<link> [and N more alike]: saturated P% of the step", longest first:
// the longest group inside the nodes and the longest in the network first, then the next
// longest of either. Channels past the machine's (the per-rank caps) are not links.
std::vector<std::string> binding_links(const topo::Topology& machine,
                                       const std::vector<engine::ChannelRow>& channels,
                                       double step_s, std::size_t lines = 3);

}  // namespace linksim::work
