#pragma once
// What a job's simulation reports (simulate_job, sim/work/job_sim.hpp; the gradient-sync seed
// example, sim/work/gradient_sync_sim.hpp): the step, its split, per-group communication,
// memory, and the last run kept for traces.

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/engine/names.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/engine/timeline.hpp"
#include "sim/topo/topology.hpp"
#include "sim/work/job_energy.hpp"
#include "sim/work/memory.hpp"
#include "sim/work/time_to_train.hpp"

namespace linksim::work {

struct GroupStat {
  int collectives = 0;
  double time_s = 0;  // summed durations of the group's collectives (they may overlap)
  double bytes = 0;   // summed buffer sizes (nccl-tests "size")
};

struct JobResult {
  std::string machine;  // topology name
  std::string machine_title;
  std::optional<double> price_per_hour_usd;
  std::string price_as_of;  // with a price: when it was the list price (topo::Instance)
  int gpus = 0;
  double step_s = 0;     // training step, prefill request, or one decode token
  double request_s = 0;  // decode: all tokens; otherwise step_s
  // Averages over GPUs of the split that sim/engine/summary.hpp defines: time in compute, in
  // communication (all of it), in communication with no compute beside it (exposed) and with
  // compute beside it (hidden), and idle (waiting on another rank's compute: pipeline bubbles,
  // a collective's slower peers). compute + exposed + idle = step_s.
  double compute_s = 0;
  double comm_s = 0;
  double exposed_comm_s = 0;
  double hidden_comm_s = 0;
  double idle_s = 0;
  double comm_share = 0;  // exposed_comm_s / step_s
  double tokens_per_step = 0;
  double tokens_per_s = 0;
  std::map<std::string, GroupStat> by_group;       // "DP", "TP", "PP", "EP"
  std::map<std::string, GroupStat> by_collective;  // "all_reduce", "send", ...
  std::vector<std::string> bottlenecks;            // "gpu0->plx0 (PCIe 4.0 x16): 92% of the step"
  MemoryBreakdown memory;
  std::string fit_explanation;
  double comm_sm_share = 0;
  // The derived compute model's split of the step's compute by what bounds it ("matmul",
  // "attention", "memory-bound", "LM head, loss, embedding", "optimizer"), shares summing to
  // 1, largest first; empty under compute.efficiency (layer_roofline.hpp).
  std::vector<std::pair<std::string, double>> compute_by_operation;
  std::vector<std::string> advice;
  std::vector<std::string> notes;  // how this result was obtained (e.g. the seed's simple model)
  std::string failure;             // set when the job could not run here (does not fit)
  // Training with job.train_tokens: the whole run (time_to_train.hpp).
  std::optional<TimeToTrain> to_train;
  // The step time with every constant at the fast (lo) and at the slow (hi) end of its stated
  // uncertainty (model_uncertainty.hpp), the network's at its fitted 95% bounds where the
  // machine is calibrated (network_range_fitted; topo/uncertainty.hpp). Set by app::run_scenario.
  std::optional<topo::Range> step_range_s;
  bool network_range_fitted = false;
  // Joules per step and per token, and to train (job_energy.hpp); nullopt when the GPU's board
  // power is unknown (a note says so). Computed again whenever step_range_s is set.
  std::optional<JobEnergy> energy;

  // The last run, for traces and detailed reports.
  std::shared_ptr<const engine::Simulation> simulation;
  std::shared_ptr<const engine::Timeline> timeline;
  std::shared_ptr<const engine::Names> names;
};

// A plan that does not fit the machine: its memory (the message carries the breakdown and the
// smallest plan that fits, if any), or more GPUs than the machine has. `compare` reports it per
// machine and goes on.
class DoesNotFit : public InputError {
 public:
  using InputError::InputError;
};

}  // namespace linksim::work
