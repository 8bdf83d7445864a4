#pragma once
// Graphviz DOT of a machine or cluster, laid out to be read (`linksim topo dot NAME | dot -Tpng`):
// - each host of a cluster is a box (`cluster_host<h>`), and the fabric's switches another, its
//   leaves on one row and its spines on the row above;
// - inside a host, each CPU socket is a box holding the CPU and the PCIe tree below it (its
//   switches, GPUs and NICs), and the NVSwitches share a row of their own;
// - a host's GPUs sit on one row in ordinal order, its NICs on the row below;
// - one undirected edge per physical link, labelled with its kind and per-direction bandwidth,
//   NVLink bold, the network dashed;
// - NICs are labelled with what the instance really has where a cloud instance file says
//   (its "network": EFA on AWS), else with the NIC model.
// Node names are the topology's ids, quoted. Written by hand: Boost.Graph's writer has no
// clusters or same-rank groups, which are what make the picture readable.

#include <string>

#include "sim/topo/topology.hpp"

namespace linksim::topo {

std::string to_dot(const Topology& topo);

}  // namespace linksim::topo
