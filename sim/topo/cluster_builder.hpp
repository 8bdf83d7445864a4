#pragma once
// Builds a cluster: copies of one host machine joined by a scale-out fabric through their
// compute NICs (docs/cluster-format.md). The result is one Topology: host h's nodes are named
// "node{h}/<id>" and know their host, every compute NIC knows its rail, and the fabric's
// switches ("leaf3", "spine0", "core1") belong to no host. Routing across hosts is
// routing.hpp's (NIC choice, spine choice); the collectives see one communicator.

#include <optional>
#include <string>

#include "sim/topo/fabric.hpp"
#include "sim/topo/topology.hpp"

namespace linksim::topo {

// Bounds on what a cluster may multiply: beyond them a count is refused. 65,536 GPUs keep a
// whole job's graph within a few GB and a minute (a 16,384-GPU ring runs in seconds); 8,193
// nodes of 8 GPUs ran past 60 s and 7 GB.
inline constexpr int kMaxClusterHosts = 65536;
inline constexpr int kMaxClusterGpus = 65536;

// The fabric a machine scales out on when nothing states one: non-blocking and rail-optimised,
// of the kind its instance or its NICs name (InfiniBand when neither does).
FabricSpec default_fabric(const Topology& host);

// Why `host` cannot be built into a cluster of `hosts` hosts on `fabric`, as a sentence
// ("the machine has no compute NICs to join a fabric"), or nullopt when it can.
std::optional<std::string> cluster_problem(const Topology& host, int hosts,
                                           const FabricSpec& fabric);

// REQUIRES: !cluster_problem(host, hosts, fabric).
Topology build_cluster(const Topology& host, int hosts, const FabricSpec& fabric);

// A topology's header for `copies` copies of `host` (name HOST-xN, with the host's text,
// calibration and launch cost; its instance and price times `copies`), without nodes or links:
// what a cluster and an NVLink domain share.
Topology copies_header(const Topology& host, int copies);

}  // namespace linksim::topo
