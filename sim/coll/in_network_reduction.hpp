#pragma once
// The network leg of NCCL's CollNet algorithms (algorithms/collnet_direct.cpp,
// collnet_chain.cpp): an all-reduce among one head GPU per node that the fabric's switches
// reduce (NVIDIA SHARP, the fabric's "in_network_reduction"). Each head sends its part up
// through its NIC once and receives the reduced part once: no 2 (n - 1) / n factor.
//
// What linksim assumes, and why:
// - A switch reduces at line rate: the streams of the heads below it come in, one reduced stream
//   goes up, and the result comes down once per link and is copied to every link below (SHARP
//   aggregation nodes reduce in the switch ASIC as the packets pass; NVIDIA quotes SHARP at the
//   switch's port rate). So an inter-switch link carries the part once each way, whatever the
//   number of heads beneath it, and the top switch sends it once to each leaf below.
// - The reduction tree of a group of heads follows their routes: the route from each head to a
//   reference head (the last node's, and for the last node the first's) climbs to its middle
//   switch, the top of that route; the links on the way up and down are the tree's. The first
//   and the last node are the farthest apart, so every leaf the group spans sends up to the
//   tier that joins them.
// - Contention stays real: the flows cross the links the fabric has (the head's PCIe path and
//   NIC, the leaf, the spines), so oversubscription and other traffic on them still slow it.

#include <vector>

#include "sim/coll/lowering.hpp"

namespace linksim::coll {

// Adds, after `after`, the flows of the in-network all-reduce of `payload_bytes` held by each
// of `heads` (ranks, one per node, at least 2): up from every head to the top of the group's
// tree, and back down. The flows pay no latency (the caller's pipeline fill does: one network
// step and the route's latency). Returns the flows.
std::vector<engine::TaskId> add_in_network_all_reduce(Lowering& l, const std::vector<int>& heads,
                                                      double payload_bytes, engine::TaskId after);

}  // namespace linksim::coll
