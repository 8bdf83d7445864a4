// linksim::run_scenario (include/linksim/scenario.hpp): sim/app's scenario run, each machine's
// step breakdown copied from the figures the JSON report prints.
#include <linksim/scenario.hpp>

#include "sim/api/option_checks.hpp"
#include "sim/app/scenario_report.hpp"
#include "sim/app/scenario_run.hpp"
#include "sim/topo/cluster_builder.hpp"

namespace linksim {

RunResult run_scenario(const RunOptions& options) {
  api::check_given("RunOptions::scenario", options.scenario, "default");
  api::check_count("RunOptions::nodes", options.nodes, 0, "as each file says", 1,
                   topo::kMaxClusterHosts);
  api::check_count("RunOptions::threads", options.threads, 0, "one per core", 1, 1024);
  app::ScenarioRunOptions run;
  run.scenario = options.scenario;
  run.machines = options.machines;
  run.nodes = options.nodes;
  run.ranges = options.ranges;
  run.threads = options.threads;
  const app::ScenarioRuns runs = app::run_scenario(run);

  RunResult result;
  result.scenario = runs.scenario.name;
  // A serving system's figures are of another kind (report_json); a gradient sync's are its
  // simulated step's (the report's "simulated all-reduce" column).
  const bool job = !runs.serving();
  for (const auto& r : runs.jobs) {
    MachineRun m;
    m.machine = r.machine;
    m.gpus = r.gpus;
    m.failure = r.failure;
    if (job && r.failure.empty()) {
      m.step = StepBreakdown{.step_s = r.step_s,
                             .compute_s = r.compute_s,
                             .exposed_comm_s = r.exposed_comm_s,
                             .idle_s = r.idle_s,
                             .comm_s = r.comm_s,
                             .tokens_per_s = r.tokens_per_s};
    }
    result.machines.push_back(std::move(m));
  }
  result.report_json = app::scenario_runs_json(runs);
  return result;
}

}  // namespace linksim
