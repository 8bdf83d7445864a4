#pragma once
// Whether a parallel plan can run a job on a machine at all (memory aside): its GPUs, stages
// no more than layers, interleaved stages as Megatron-LM allows them, heads split evenly,
// experts and batch splitting, and the fine-tuning targets the model has. simulate_job
// refuses a plan with a problem; the plan search (sim/work/plan_search.hpp) and the "smallest
// plan that fits" advice skip one.

#include <optional>
#include <string>

#include "sim/topo/topology.hpp"
#include "sim/work/model.hpp"
#include "sim/work/parallel_plan.hpp"

namespace linksim::work {

struct PlanProblem {
  std::string pointer;  // the scenario field at fault, e.g. "/plan/tensor"
  std::string message;  // what is wrong and what was expected
  // The plan needs more GPUs than the machine has: a finding about the machine (a larger one
  // runs it), not a fault of the scenario, so `compare` reports it and goes on.
  bool machine_too_small = false;
};

// The most compute tasks one step may build (micro-batches x layers x 2 halves x passes x
// tensor x the data-parallel replicas built, replica_folding.hpp): about 5 engine tasks each with
// tensor parallelism, so a few GB at the bound.
inline constexpr double kMaxJobComputeTasks = 2'000'000;

std::optional<PlanProblem> plan_problem(const topo::Topology& machine, const ModelSpec& model,
                                        const Job& job, const ParallelPlan& plan);

// A plan that runs but is unusual: a tensor-parallel group wider than a cluster's node, whose
// all-reduces then cross the network every layer. The warning, or nullopt.
std::optional<std::string> tensor_spans_nodes_warning(const topo::Topology& machine,
                                                      const ParallelPlan& plan);

}  // namespace linksim::work
