#pragma once
// Multi-node NVLink domains (GB200 NVL72, the H100 NVLink Switch System): machines (trays)
// whose GPUs share one NVLink switch fabric across their chassis. A domain is built as ONE
// host: its machines' own nodes are copied per machine ("tray3/gpu1"), while the machine file's
// NVSwitch nodes are one shared set ("nvswitch5") that every machine's NVLinks plug into, so
// GPU-to-GPU traffic between machines of a domain crosses NVLink, never NICs.
//
// Why one host: NCCL (2.20+, MNNVL) fuses the topologies of every rank of an NVLink clique into
// one system (src/graph/topo.cc, ncclTopoGetSystem: "MNNVL clique support", the XML fusion over
// comm->clique) and then counts as one node every rank whose ring 0 starts at the same rank
// (src/init.cc, initTransportsRank: "Determine nNodes, firstRanks"), so nNodes counts cliques,
// not trays. A cluster whose host is a domain therefore has one host per domain, and
// Communicator::node_count() (the distinct hosts of its ranks) counts domains.

#include <optional>
#include <string>

#include "sim/topo/topology.hpp"

namespace linksim::topo {

// Why `machines` copies of `machine` cannot form one NVLink domain, as a sentence, or nullopt.
std::optional<std::string> nvlink_domain_problem(const Topology& machine, int machines);

// One host of `machines` copies of `machine` sharing its NVSwitch nodes. GPUs, CPUs and NICs
// number machine by machine (tray t's GPU g is GPU t * gpus + g). The result is no cluster
// (is_cluster() is false: no fabric joins anything), but it records what it is made of: its
// host_count is `machines` and each copied node's `host` is its machine (the shared switches
// are machine 0's), so a GPU's nearest NICs and CPU are its own tray's. A cluster built on it
// (cluster_builder.hpp) renumbers every node to its domain; its ClusterInfo::host keeps the
// domain, whose host_count says how many machines each cluster host is. An instance's price
// and network bandwidth scale with the machine count.
// REQUIRES: !nvlink_domain_problem(machine, machines).
Topology build_nvlink_domain(const Topology& machine, int machines);

}  // namespace linksim::topo
