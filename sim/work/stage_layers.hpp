#pragma once
// How a plan's pipeline stages split the model's layers. Evenly by default, the remainder on
// the first stages; or, as Megatron-LM's --decoder-first-pipeline-num-layers and
// --decoder-last-pipeline-num-layers do, with the first and/or last stage given fewer (or more)
// layers, the rest split evenly over the other stages. Frameworks shorten the first and last
// stages because they also carry the embedding and the LM head with its loss.

#include <optional>
#include <vector>

#include "sim/work/model.hpp"
#include "sim/work/parallel_plan.hpp"
#include "sim/work/plan_check.hpp"

namespace linksim::work {

// Layers per stage, stage 0 first. REQUIRES: no stage_layers_problem.
std::vector<int> stage_layers(const ModelSpec& model, const ParallelPlan& plan);

// The most layers any stage holds.
int most_stage_layers(const ModelSpec& model, const ParallelPlan& plan);

// What is wrong with plan.first_stage_layers / last_stage_layers for this model, or nullopt:
// they need two stages or more (three for both with layers between), at least one layer each,
// and the layers left to split evenly over the stages between (Megatron asserts the same).
std::optional<PlanProblem> stage_layers_problem(const ModelSpec& model, const ParallelPlan& plan);

}  // namespace linksim::work
