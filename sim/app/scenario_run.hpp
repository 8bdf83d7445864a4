#pragma once
// The library call behind `linksim run` and `linksim compare`: a scenario simulated on each
// machine it names (or the caller's list instead), with the policy that one machine too small
// for the job is a finding in the results, not a failure of the run.
//
//   app::ScenarioRunOptions options;
//   options.scenario = "llama3-405b";
//   const app::ScenarioRuns runs = app::run_scenario(options);
//   std::cout << report::format_job(runs.jobs.front(), runs.scenario);

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/work/gradient_sync_sim.hpp"
#include "sim/work/job_sim.hpp"
#include "sim/work/scenario.hpp"
#include "sim/work/serving.hpp"

namespace linksim::app {

struct ScenarioRunOptions {
  // The scenario: a file or a shipped name. Required.
  std::string scenario;
  // Machines to run on instead of the scenario's own list; empty: the scenario's. At most 1024,
  // none named twice.
  std::vector<std::string> machines;
  // Scale every machine to this many nodes (0: as each file says).
  int nodes = 0;
  // Price every machine at this many dollars per node-hour instead of its file's list price
  // (app::set_price_per_hour).
  std::optional<double> price_per_node_hour_usd;
  // Keep the first machine's run (simulation, timeline, names, with the channel intervals only
  // a Chrome trace draws). Every other result keeps its figures only, so memory grows with the
  // machines' result rows, not their timelines.
  bool trace_first_machine = false;
  // Keep every machine's run so (`linksim run --trace` draws each machine as its own processes);
  // memory then grows with the machines' timelines.
  bool trace_every_machine = false;
  // Training: the run's token budget instead of the scenario's job.train_tokens, for the time,
  // GPU-hours and cost to train (sim/work/time_to_train.hpp).
  std::optional<double> train_tokens;
  // Changes the scenario after it is read, before anything runs (a sweep's plan fields,
  // sim/app/sweep_point.hpp); may be empty. What it sets is checked as the file's plan is.
  std::function<void(work::Scenario&)> adjust_scenario;
  // Give each job a step-time range: simulated again with every constant at the slow and at
  // the fast end of its stated or fitted uncertainty (work/model_uncertainty.hpp). Triples a
  // job's simulation time; the accuracy report, which compares point estimates, turns it off.
  bool ranges = true;
  // Machines simulated at once; 0: one per core. The results are the same for any count.
  int threads = 0;
  // Called, one call at a time, as each machine starts with (machines done, machines in all, the
  // machine's name), and once at the end with (all, all, ""); may be empty.
  std::function<void(std::size_t done, std::size_t total, const std::string& machine)> progress;
};

struct ScenarioRuns {
  work::Scenario scenario;
  // One per machine, in the order named. A machine too small for the job has only `machine`,
  // `machine_title`, `gpus` and `failure` set. For a gradient-sync scenario these are the
  // realistic runs of `syncs`; for a serving scenario they carry only machine and failure.
  std::vector<work::JobResult> jobs;
  std::vector<work::GradientSyncResult> syncs;  // gradient-sync scenarios
  std::vector<work::ServingResult> servings;    // serving scenarios
  // Whether the scenario serves requests (then `servings` holds the results).
  bool serving() const;
};

// Whether a scenario serves requests (a serving job keeps no single run for a trace to draw).
bool is_serving(const work::Scenario& scenario);

// Throws InputError for bad input, and when the job fits on no machine named (the message says
// why it does not fit; with one machine, work::DoesNotFit's message).
ScenarioRuns run_scenario(const ScenarioRunOptions& options);

}  // namespace linksim::app
