#pragma once
// A scenario (a training or inference job, a gradient sync, a serving system) simulated on each
// machine it names: `linksim run SCENARIO --format json` as a call.
//
//   linksim::RunOptions options;
//   options.scenario = "default";
//   const linksim::RunResult result = linksim::run_scenario(options);
//   for (const auto& m : result.machines)
//     if (m.step) use(m.machine, m.step->step_s, m.step->exposed_comm_s);
//
// Part of the installed C++ package (docs/cpp-api.md): standard headers only. Throws
// linksim::InputError for bad input, and when the job fits on no machine named.

#include <optional>
#include <string>
#include <vector>

namespace linksim {

struct RunOptions {
  // A scenario file, or a shipped name ("default", "llama3-8b-h100"). Required.
  std::string scenario;
  // Machines to run on instead of the scenario's own list (files or shipped names). Default:
  // none, the scenario's.
  std::vector<std::string> machines;
  // Scale every machine to this many nodes. Default 0: as each file says.
  int nodes = 0;
  // Give each job a step-time range from the uncertainty of the model's constants (three
  // simulations per machine instead of one). Default true, as the CLI.
  bool ranges = true;
  // Machines simulated at once. Default 0: one per core. The result is the same for any count.
  int threads = 0;
};

// Where a training or inference step's time goes; compute_s + exposed_comm_s + idle_s ==
// step_s.
struct StepBreakdown {
  double step_s = 0;
  double compute_s = 0;
  double exposed_comm_s = 0;  // communication nothing hides
  double idle_s = 0;          // waiting on other ranks (pipeline bubbles, stragglers)
  double comm_s = 0;          // all communication, hidden or not
  double tokens_per_s = 0;
};

struct MachineRun {
  std::string machine;
  int gpus = 0;
  // Why the job did not run here (too little memory, too few GPUs); "" when it ran.
  std::string failure;
  // A training or inference job or a gradient sync (its simulated step) that ran; absent for
  // a failure and for a serving system, whose figures are in report_json only.
  std::optional<StepBreakdown> step;
};

struct RunResult {
  std::string scenario;              // its name
  std::vector<MachineRun> machines;  // in the order run
  // `linksim run --format json`'s report, byte for byte: every figure, one object per machine.
  std::string report_json;
};

RunResult run_scenario(const RunOptions& options);

}  // namespace linksim
