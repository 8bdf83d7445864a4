#pragma once
// Data-parallel folding: which replicas of a job's step the graph builds.
//
// A plan's data-parallel replicas run the same layers on the same shapes, so on a cluster whose
// hosts are copies of one machine, replica d's compute, tensor-parallel collectives, pipeline
// sends, expert all-to-alls and host copies are replica 0's moved to other hosts. Where the
// replicas built fill whole hosts (no host holds a built and an unbuilt replica) and hold whole
// expert and context-parallel groups, the graph builds only them (a "replica" here is one of the
// plan's data x context ranks, ParallelPlan::dp_ranks): every other replica's transfers cross only
// its own hosts' links and the fabric, and the per-GPU split, by symmetry, is the built GPUs'.
//
// What crosses replicas is the data-parallel traffic: gradient all-reduces and reduce-scatters,
// ZeRO's weight all-gathers, hybrid sharding's replica all-reduce. Each such collective is
// simulated on its whole group, beside the other tensor ranks' groups of its stage that run it
// at the same moment, on an engine of its own (Placement::concurrent_seconds), and the folded
// graph waits that long in its place (JobBuilder::stand_in). So its time is its own, but it no
// longer shares links with the built replicas' other traffic (a pipeline send over the same NIC
// during the last backward), and the fabric links that replicas share carry only the built
// replicas' flows. tests/work/replica_folding_test.cpp holds a folded run to the full one.

#include "sim/topo/topology.hpp"
#include "sim/work/model.hpp"
#include "sim/work/parallel_plan.hpp"

namespace linksim::work {

enum class FoldReplicas {
  automatic,  // fold a step whose whole graph would exceed kFoldAboveComputeTasks
  never,      // build every replica (the reference the tests hold folding to)
  always,     // fold wherever the hosts allow it
};

// Above this many compute tasks (step_compute_tasks over every replica) a step is folded: a
// graph that size takes seconds, and folding only ever removes identical work.
inline constexpr double kFoldAboveComputeTasks = 200'000;

// Compute tasks of one step with `replicas` data-parallel replicas built: micro-batches x
// layers x 2 halves x passes x tensor x replicas.
double step_compute_tasks(const ModelSpec& model, const Job& job, const ParallelPlan& plan,
                          int replicas);

// How many replicas (from replica 0) the step's graph builds: plan.dp_ranks(), or with folding
// the fewest that fill whole hosts and whole expert and context groups. Folds only a cluster whose
// tensor groups either fill hosts or divide them; otherwise (or where the fewest is every replica)
// plan.data.
int replicas_to_build(const topo::Topology& machine, const ModelSpec& model, const Job& job,
                      const ParallelPlan& plan, FoldReplicas fold = FoldReplicas::automatic);

}  // namespace linksim::work
