#include "sim/work/fit_failure.hpp"

#include <fmt/format.h>

#include "sim/work/plan_check.hpp"

namespace linksim::work {

std::string does_not_fit_message(const topo::Topology& machine, const ModelSpec& model,
                                 const Scenario& sc, const topo::GpuModel& gpu,
                                 const FitResult& fit) {
  std::string msg =
      fmt::format("{} does not fit on {}: {}", model.name, machine.name, fit.explanation);
  const int max_tensor = machine.is_cluster() ? machine.cluster->gpus_per_host : 8;
  const auto machine_gpus = static_cast<int>(machine.count(topo::NodeKind::gpu));
  const auto better = smallest_fitting_plan(
      model, sc.job, gpu, machine_gpus, 0.9, sc.plan, max_tensor,
      [&](const ParallelPlan& p) { return !plan_problem(machine, model, sc.job, p); });
  if (better) {
    return msg + fmt::format(
                     "; the smallest plan that fits is data {} x tensor {} x pipeline {} with "
                     "ZeRO stage {} and {} micro-batches (`linksim plan` ranks every plan "
                     "that fits)",
                     better->data, better->tensor, better->pipeline, better->zero_stage,
                     better->micro_batches);
  }
  const auto any = smallest_fitting_plan(model, sc.job, gpu, 4096, 0.9, sc.plan, max_tensor);
  return msg + (any ? fmt::format("; no plan on {}'s {} GPUs fits: it needs at least {} GPUs "
                                  "(data {} x tensor {} x pipeline {}), which takes several "
                                  "nodes: run it on a cluster (a cluster file, or this machine "
                                  "scaled out to more nodes)",
                                  machine.name, machine_gpus, any->gpus(), any->data, any->tensor,
                                  any->pipeline)
                    : std::string("; no plan fits even on 4096 GPUs"));
}

}  // namespace linksim::work
