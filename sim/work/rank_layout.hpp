#pragma once
// Where a plan's ranks sit: tensor fastest, then data, then pipeline (Megatron's order), so a
// tensor-parallel group sits on neighbouring GPUs; and the groups each kind of parallelism
// communicates in. A rank is an index into plan_gpus.

#include <vector>

#include "sim/topo/topology.hpp"
#include "sim/work/parallel_plan.hpp"

namespace linksim::work {

struct RankLayout {
  ParallelPlan plan;

  // `replica`: the stage's DP rank counting context ranks, 0 .. plan.dp_ranks() - 1 (context
  // rank c of data rank d is d * context + c).
  int rank(int stage, int replica, int tp) const {
    return (stage * plan.dp_ranks() + replica) * plan.tensor + tp;
  }
  // The tensor-parallel group of replica d on stage s.
  std::vector<int> tp_group(int s, int d) const;
  // The data-parallel group of TP rank t on stage s.
  std::vector<int> dp_group(int s, int t) const;
  // The ZeRO shard group holding replica d of TP rank t: `plan.shard_size()` neighbouring DP
  // ranks (all of them without hybrid sharding).
  std::vector<int> shard_group(int s, int d, int t) const;
  // The ranks holding the same shard as replica d, one in each shard group (HSDP's replica
  // all-reduce); just d's own rank without hybrid sharding.
  std::vector<int> replica_group(int s, int d, int t) const;
  // The context-parallel group holding replica d: `plan.context` neighbouring replicas.
  std::vector<int> cp_group(int s, int d, int t) const;
  // The expert-parallel group holding replica d: `plan.expert` neighbouring replicas.
  std::vector<int> ep_group(int s, int d, int t) const;
};

// The GPUs a plan runs on: the first data x tensor x pipeline of the machine, in GPU order, so
// that on a cluster tensor groups stay inside a node (a tensor degree above a node's GPU count
// spans whole nodes) and the job fills whole nodes first.
std::vector<topo::NodeId> plan_gpus(const topo::Topology& machine, const ParallelPlan& plan);

}  // namespace linksim::work
