#pragma once
// How much power a job's machines draw, and so the energy of a step. A GPU draws its idle power
// plus a share of the rest of its board power (TDP) that depends on what it is doing; its host
// draws a share of what the system's datasheet budgets beside the GPUs (HostPower), throughout:
//   GPU:  P = idle + (TDP - idle) x activity,  idle = idle_fraction x TDP
//         activity = compute_activity while it computes (the simulated compute time),
//                    wait_activity otherwise (exposed communication, bubbles, waiting on peers);
//   host: P = host_load_share x non_gpu_w.
// The four constants, their ranges and where they come from are one table
// (power_constant_table; docs/energy.md). This is IT power: no cooling or power delivery
// outside the servers (multiply by a data centre's PUE), and no network switches.

#include <optional>
#include <string>
#include <vector>

#include "sim/topo/topology.hpp"

namespace linksim::work {

struct PowerConstants {
  double idle_fraction = 0;     // of TDP, drawn by an idle GPU
  double compute_activity = 0;  // share of (TDP - idle) drawn while computing
  double wait_activity = 0;     // share of (TDP - idle) drawn while communicating or waiting
  double host_load_share = 0;   // share of the host's non-GPU budget drawn while the job runs
};

// One row of the table: a constant's value, its range (the low and high ends used for the
// energy range) and its source.
struct PowerConstant {
  std::string name;
  double value = 0;
  topo::Range range;
  std::string source;
};

// Every constant, in PowerConstants' order.
const std::vector<PowerConstant>& power_constant_table();

enum class PowerEnd { point, low, high };
// The constants at their values, or all at their low or high ends.
PowerConstants power_constants(PowerEnd end);

// A job's machines for the energy model.
struct PoweredMachines {
  double gpu_tdp_w = 0;
  int busy_gpus = 0;     // the plan's GPUs
  int powered_gpus = 0;  // every GPU of the hosts the plan occupies (the others idle)
  int hosts = 0;
  std::optional<double> host_non_gpu_w;  // per host; nullopt: GPUs only
};

// Joules of one step of `step_s` whose busy GPUs each compute for `compute_s` of it (the mean
// over GPUs). REQUIRES: 0 <= compute_s <= step_s, busy_gpus <= powered_gpus.
double step_energy_j(const PoweredMachines& machines, double step_s, double compute_s,
                     const PowerConstants& constants);

}  // namespace linksim::work
