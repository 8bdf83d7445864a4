#pragma once
// What a cluster's fabric gives, in the figures a planner compares: per-GPU scale-out
// bandwidth, bisection, oversubscription, and how many switches a transfer crosses.

#include <string>

#include "sim/topo/topology.hpp"

namespace linksim::topo {

struct FabricSummary {
  int hosts = 0;
  int gpus = 0;
  int rails = 0;
  int leaves = 0;
  int spines = 0;
  int cores = 0;
  // One direction, payload rates (the fabric's efficiency applied).
  double per_gpu_scale_out_Bps = 0;  // a host's compute NICs over its GPUs
  double per_host_scale_out_Bps = 0;
  // What half the hosts can send the other half at once, rail by rail: the hosts' NICs, or the
  // tier above the leaves where the halves sit on different leaves and it is narrower.
  double bisection_Bps = 0;
  double oversubscription = 1;
  // Switches crossed between two hosts: on one rail and leaf, and at worst.
  int hops_same_leaf = 0;
  int hops_worst = 0;
};

// REQUIRES: topo.is_cluster().
FabricSummary summarize_fabric(const Topology& topo);

// The summary as `topo show` prints it under the host's matrix.
std::string describe_fabric(const Topology& topo, const FabricSummary& s);

}  // namespace linksim::topo
