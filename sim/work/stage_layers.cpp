#include "sim/work/stage_layers.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace linksim::work {

std::vector<int> stage_layers(const ModelSpec& model, const ParallelPlan& plan) {
  const int stages = std::max(plan.pipeline, 1);
  const int first = plan.first_stage_layers;
  const int last = plan.last_stage_layers;
  std::vector<int> out(static_cast<std::size_t>(stages), 0);
  if (first == 0 && last == 0) {
    for (int s = 0; s < stages; ++s)
      out[static_cast<std::size_t>(s)] =
          model.layers / stages + (s < model.layers % stages ? 1 : 0);
    return out;
  }
  const int between_begin = first > 0 ? 1 : 0;
  const int between_end = last > 0 ? stages - 1 : stages;
  const int between = between_end - between_begin;
  const int rest = model.layers - first - last;
  if (first > 0) out.front() = first;
  if (last > 0) out.back() = last;
  for (int s = between_begin; s < between_end; ++s)
    out[static_cast<std::size_t>(s)] = between > 0 ? rest / between : 0;
  return out;
}

int most_stage_layers(const ModelSpec& model, const ParallelPlan& plan) {
  const std::vector<int> layers = stage_layers(model, plan);
  return *std::max_element(layers.begin(), layers.end());
}

std::optional<PlanProblem> stage_layers_problem(const ModelSpec& model, const ParallelPlan& plan) {
  const int first = plan.first_stage_layers;
  const int last = plan.last_stage_layers;
  if (first == 0 && last == 0) return std::nullopt;
  const char* pointer = first > 0 ? "/plan/first_stage_layers" : "/plan/last_stage_layers";
  const auto problem = [&](std::string message) {
    return PlanProblem{pointer, std::move(message)};
  };
  const int both = (first > 0 ? 1 : 0) + (last > 0 ? 1 : 0);
  if (plan.pipeline < 2) {
    return problem(
        fmt::format("a first or last stage of its own needs pipeline >= 2; pipeline is "
                    "{}",
                    plan.pipeline));
  }
  const int between = plan.pipeline - both;
  const int rest = model.layers - first - last;
  if (between == 0) {
    if (rest != 0) {
      return problem(
          fmt::format("with 2 stages, first_stage_layers {} + last_stage_layers {} "
                      "must be {}'s {} layers",
                      first, last, model.name, model.layers));
    }
    return std::nullopt;
  }
  if (rest < between || rest % between != 0) {
    return problem(fmt::format(
        "{}'s {} layers less {} on the first and last stages leave {} for the {} stages "
        "between, which must split evenly with at least one each; expected first and last "
        "layers leaving a multiple of {}",
        model.name, model.layers, first + last, rest, between, between));
  }
  return std::nullopt;
}

}  // namespace linksim::work
