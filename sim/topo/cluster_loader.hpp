#pragma once
// Cluster files (docs/cluster-format.md: a host machine, a node count and a fabric) and the
// scaling of any machine to N nodes. Problems are InputErrors naming the file and JSON path.

#include <string>

#include "sim/core/json_view.hpp"
#include "sim/topo/cluster_builder.hpp"
#include "sim/topo/topology.hpp"

namespace linksim::topo {

// A document whose top level has "cluster". REQUIRES: root.has("cluster").
Topology parse_cluster(const JsonView& root, const std::string& file);

// `machine` on `nodes` nodes: a machine gets its default fabric (default_fabric); a cluster is
// rebuilt at the new size on its own fabric. InputError (naming the machine's file) when it
// cannot be.
Topology scale_out(const Topology& machine, int nodes);

// A fabric kind field ("infiniband", "efa", ...).
FabricKind fabric_kind_field(const JsonView& v);

}  // namespace linksim::topo
