#pragma once
// A job's energy: joules per step and per token, the mean power, and over a token budget the
// energy to train, each with a range (power_model.hpp gives the model). The range puts every
// power constant at its low end with the step time at its fast end, and every one at its high
// end with the step at its slow end, so it bounds both uncertainties together.

#include <optional>
#include <string>

#include "sim/topo/topology.hpp"
#include "sim/work/power_model.hpp"

namespace linksim::work {

struct JobResult;

struct JobEnergy {
  double step_j = 0;
  topo::Range step_j_range;
  double per_token_j = 0;  // 0 when the job counts no tokens
  topo::Range per_token_j_range;
  double mean_power_w = 0;  // step_j / step_s
  // Whether the hosts' non-GPU power is in (the machine states it); otherwise GPUs only.
  bool includes_hosts = false;
  std::string host_source;
  std::optional<double> to_train_j;  // with job.train_tokens
  std::optional<topo::Range> to_train_j_range;
};

// The energy of `result` (a job that ran) on `machine`, using its step range when it has one;
// nullopt when the GPU's board power is unknown (energy_unknown_note says so).
std::optional<JobEnergy> job_energy(const topo::Topology& machine, const JobResult& result);

// A serving run's energy: every GPU of the plan computing while its replica runs an iteration
// (prefill or decode, a step taken as computing throughout) and idle between them, the hosts
// throughout. Per output token, with the power constants' range.
struct ServingEnergy {
  double per_output_token_j = 0;
  topo::Range per_output_token_j_range;
  double mean_power_w = 0;
  bool includes_hosts = false;
};

// The machines a plan of `gpus` GPUs powers on `machine`: its GPUs' board power (0 when
// unpublished), the hosts it occupies and their non-GPU power.
PoweredMachines powered_machines(const topo::Topology& machine, int gpus);

// `busy_gpu_s`: the replicas' iteration time, each replica's times its GPUs. nullopt when the
// GPUs' board power is unknown or nothing ran.
std::optional<ServingEnergy> serving_energy(const PoweredMachines& machines, double duration_s,
                                            double busy_gpu_s, double output_tokens);

// Why a machine's energy is not reported, for the report's notes; nullopt when it is.
std::optional<std::string> energy_unknown_note(const topo::Topology& machine);

}  // namespace linksim::work
