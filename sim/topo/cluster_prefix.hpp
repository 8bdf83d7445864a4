#pragma once
// The first hosts of a cluster, as a machine of their own, for a job that runs on them alone.
//
// A job's GPUs are the cluster's first GPUs (sim/work/rank_layout.hpp), so a job of G GPUs
// occupies hosts 0 .. ceil(G / gpus_per_host) - 1, and its traffic never enters another host:
// hosts meet only through the fabric's switches. cluster_prefix keeps those hosts' nodes, every
// fabric switch, and every link between kept nodes, each with its own figures (the uplinks keep
// the capacity they have in the whole cluster), in the cluster's order; it drops the other
// hosts and their links. So node and link ids keep their relative order, names and ordinals are
// unchanged, and a route between kept GPUs is the route the whole cluster gives. The header
// (name, title, instance and price, calibration) and ClusterInfo are the cluster's own: a job's
// price is still a share of the whole cluster's. What shrinks is what is sized by the machine
// (channel tables, route searches, every engine run's link state), which is why it exists: a
// 65,536-GPU DGX A100 cluster has 1.67 million channels; the prefix of a 16-GPU job has its 2
// hosts' 400 and the fabric's 33,000.

#include "sim/topo/topology.hpp"

namespace linksim::topo {

// The hosts a job on the first `gpus` GPUs of `cluster` occupies.
// REQUIRES: cluster.is_cluster(), gpus >= 1.
int hosts_for_gpus(const Topology& cluster, int gpus);

// REQUIRES: cluster.is_cluster(), 1 <= hosts <= cluster.cluster->hosts.
Topology cluster_prefix(const Topology& cluster, int hosts);

}  // namespace linksim::topo
