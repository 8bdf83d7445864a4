#include "sim/work/replica_folding.hpp"

#include <algorithm>
#include <numeric>

#include "sim/topo/fabric.hpp"

namespace linksim::work {

double step_compute_tasks(const ModelSpec& model, const Job& job, const ParallelPlan& plan,
                          int replicas) {
  const bool one_micro_batch = job.kind == JobKind::decode || job.kind == JobKind::serving;
  const double m = one_micro_batch ? 1 : plan.micro_batches;
  const double passes = job.kind == JobKind::training ? 2 : 1;
  return m * std::max(model.layers, 1) * 2 * passes * plan.tensor * replicas;
}

int replicas_to_build(const topo::Topology& machine, const ModelSpec& model, const Job& job,
                      const ParallelPlan& plan, FoldReplicas fold) {
  const int all = plan.dp_ranks();
  if (fold == FoldReplicas::never || !machine.is_cluster() || all < 2) return all;
  if (fold == FoldReplicas::automatic &&
      step_compute_tasks(model, job, plan, all) <= kFoldAboveComputeTasks) {
    return all;
  }
  const int per_host = machine.cluster->gpus_per_host;
  const int tensor = plan.tensor;
  if (per_host < 1 || (tensor % per_host != 0 && per_host % tensor != 0)) return all;
  // Replicas per host (tensor groups dividing a host) and whole expert groups.
  const int per_host_replicas = tensor >= per_host ? 1 : per_host / tensor;
  const int unit =
      std::lcm(std::lcm(per_host_replicas, std::max(1, plan.expert)), std::max(1, plan.context));
  if (unit >= all || all % unit != 0) return all;
  return unit;
}

}  // namespace linksim::work
