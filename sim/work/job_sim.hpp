#pragma once
// A job on a machine: the model's compute and the plan's communication as one task graph on
// the engine, so overlap and contention are simulated rather than assumed.
//
// Training: per pipeline stage a 1F1B schedule of micro-batches; per layer an attention half
// and an MLP half, each timed by the roofline (FLOPs at the achieved rate, or bytes at HBM
// bandwidth, whichever is longer) and followed by a Megatron tensor-parallel all-reduce (or a
// reduce-scatter + all-gather with sequence parallelism); activations and their gradients sent
// between stages; MoE all-to-all around the experts; ZeRO-3 weight all-gathers (one layer
// ahead with plan.prefetch, so that they run beside the previous layer's compute) and gradient
// reduce-scatters per layer; otherwise DDP gradient buckets all-reduced (reduce-scattered for
// ZeRO-1/2) as the last micro-batch's backward produces them, overlapped with the rest of the
// backward; then the optimizer step.
// Inference: prefill is one forward pass of the prompt; decode is one token's forward pass
// (context at its average length), repeated decode_tokens times.
//
// Communication kernels take SMs from concurrent compute (one CTA per NCCL channel): compute
// overlapped with communication runs at (1 - share) of its speed, share = channels / SMs by
// default. The run is done twice: once to find the overlap, once with the slowed compute.
// The step's split into compute, exposed and hidden communication and idle time is the engine's
// (sim/engine/summary.hpp), with every collective and send declared as one operation.

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/engine/summary.hpp"
#include "sim/topo/topology.hpp"
#include "sim/work/memory.hpp"
#include "sim/work/model.hpp"
#include "sim/work/scenario.hpp"

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
  std::vector<std::string> advice;
  std::vector<std::string> notes;  // how this result was obtained (e.g. the seed's simple model)
  std::string failure;             // set when the job could not run here (does not fit)
  // On a calibrated machine whose figures carry ranges: the step time with every figure at its
  // fast end (lo) and at its slow end (hi); see sim/topo/uncertainty.hpp.
  std::optional<topo::Range> step_range_s;

  // The last run, for traces and detailed reports.
  std::shared_ptr<const engine::Simulation> simulation;
  std::shared_ptr<const engine::Timeline> timeline;
  std::shared_ptr<const engine::Names> names;
};

// A plan that does not fit the machine's memory: the message carries the breakdown and the
// smallest plan that fits, if any. `compare` reports it per machine and goes on.
class DoesNotFit : public InputError {
 public:
  using InputError::InputError;
};

struct JobOptions {
  // false: time the job without checking that it fits (the serving simulation keeps its own
  // KV-cache account, sim/work/serving.hpp).
  bool check_memory = true;
};

// Throws InputError (naming the scenario file) for a plan that does not match the machine, and
// DoesNotFit when it does not fit in memory.
JobResult simulate_job(const topo::Topology& machine, const ModelSpec& model,
                       const Scenario& scenario, const JobOptions& options = {});

// The seed's gradient example on one machine: `compute_s` of compute, then the gradient
// synchronised. Two results: the seed's simple model (every byte at the GPU's line rate, no
// overlap) and the realistic one (an NCCL all-reduce over all GPUs, simulated).
struct GradientSyncResult {
  JobResult simple;
  JobResult realistic;
};
GradientSyncResult simulate_gradient_sync(const topo::Topology& machine, const Scenario& scenario);

}  // namespace linksim::work
