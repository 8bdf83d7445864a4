#pragma once
// A what-if scenario (docs/scenario-format.md): which machines, which model, what job, split
// how, at what compute efficiency, with which overrides.

#include <optional>
#include <string>
#include <vector>

#include "sim/coll/collective.hpp"
#include "sim/work/model.hpp"
#include "sim/work/parallel_plan.hpp"

namespace linksim::work {

// The seed's simple case: compute, then synchronise a gradient of a given size.
struct GradientSync {
  double compute_s = 0;
  double gradient_bytes = 0;
};

struct ComputeModel {
  // Achieved fraction of the GPU's peak dense FLOP/s for every matmul: an explicit override of
  // the derived per-operation model (nullopt, the default: layer_roofline.hpp).
  std::optional<double> efficiency;
  // Share of SMs the communication kernels take from concurrent compute; nullopt = derive from
  // the channel count and the GPU's SM count.
  std::optional<double> comm_sm_share;
  // Multiplies every derived efficiency fraction (capped at 1): the step-range runs set it to
  // an end of the stated uncertainty (model_uncertainty.hpp). Not a file field; 1 otherwise.
  double fraction_factor = 1.0;
};

struct Scenario {
  std::string file;
  std::string name;  // file stem
  std::string title;
  std::string description;
  std::vector<std::string> topologies;  // names or paths, resolved against the scenario's folder
  std::string model;                    // name or path; empty for gradient_sync
  Job job;
  std::optional<GradientSync> gradient_sync;  // job kind "gradient_sync"
  ParallelPlan plan;
  ComputeModel compute;
  std::optional<coll::Algorithm> algorithm;  // overrides, as NCCL_ALGO / NCCL_PROTO
  std::optional<coll::Protocol> protocol;
  std::vector<std::string> notes;
};

// Throws InputError naming the file, JSON pointer and what was expected.
Scenario load_scenario(const std::string& path);
// The scenario's model as it runs: its file, with precision.dtype when the scenario sets one.
ModelSpec scenario_model(const Scenario& scenario);
std::vector<std::string> shipped_scenario_files();
std::string resolve_scenario_path(const std::string& name_or_path);

}  // namespace linksim::work
