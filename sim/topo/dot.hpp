#pragma once
// Graphviz DOT of a machine: one vertex per node, one undirected edge per physical link,
// labelled with its kind and per-direction bandwidth. Written with Boost.Graph's writer.

#include <string>

#include "sim/topo/topology.hpp"

namespace linksim::topo {

std::string to_dot(const Topology& topo);

}  // namespace linksim::topo
