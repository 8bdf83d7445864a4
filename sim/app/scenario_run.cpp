#include "sim/app/scenario_run.hpp"

#include <fmt/format.h>

#include <optional>
#include <unordered_set>

#include "sim/app/machine.hpp"
#include "sim/core/error.hpp"
#include "sim/core/parallel_cases.hpp"
#include "sim/topo/uncertainty.hpp"
#include "sim/work/job_energy.hpp"
#include "sim/work/job_step_range.hpp"
#include "sim/work/model.hpp"
#include "sim/work/model_uncertainty.hpp"

namespace linksim::app {
namespace {

// Each machine is a whole simulation, and its results stay until all are printed: a list is
// bounded (1,000 copies of dgx-a100 in `compare default` run in about 35 s on one thread and
// under 20 MB, docs/BENCHMARKS.md), and a machine named twice would only repeat one.
constexpr std::size_t kMaxMachines = 1024;

// The machines to run on, checked. Names come from the scenario's /topologies unless the caller
// gave its own list (then the location is the flag).
std::vector<std::string> machines_to_run(const ScenarioRunOptions& options,
                                         const work::Scenario& scenario) {
  const bool own = options.machines.empty();
  const std::vector<std::string>& machines = own ? scenario.topologies : options.machines;
  const std::string where = own ? scenario.file : std::string();
  if (machines.size() > kMaxMachines) {
    throw InputError(where, own ? "/topologies" : "--topology",
                     fmt::format("{} machines named; at most {} can be compared in one run",
                                 machines.size(), kMaxMachines));
  }
  std::unordered_set<std::string> seen;
  for (std::size_t i = 0; i < machines.size(); ++i) {
    if (!seen.insert(machines[i]).second) {
      throw InputError(where, own ? fmt::format("/topologies/{}", i) : "--topology",
                       fmt::format("machine \"{}\" is named twice", machines[i]));
    }
  }
  return machines;
}

template <typename Result>
Result does_not_fit(const topo::Topology& machine, const work::DoesNotFit& e) {
  Result r;
  r.machine = machine.name;
  r.machine_title = machine.title;
  r.gpus = static_cast<int>(machine.count(topo::NodeKind::gpu));
  r.failure = e.message();
  return r;
}

// One machine's results, written by its own case only.
struct MachineRun {
  work::JobResult job;
  std::optional<work::GradientSyncResult> sync;
  std::optional<work::ServingResult> serving;
};

// What a case leaves behind is its figures: the run's simulation, timeline and names (the bulk
// of its memory) go with the case unless a trace asked for them.
void keep_figures_only(work::JobResult& j) {
  j.simulation.reset();
  j.timeline.reset();
  j.names.reset();
}

MachineRun run_serving(const work::Scenario& scenario, const topo::Topology& machine,
                       std::size_t machine_count) {
  const work::ModelSpec model = work::scenario_model(scenario);
  MachineRun run;
  try {
    run.serving = work::simulate_serving(machine, model, scenario);
  } catch (const work::DoesNotFit& e) {
    if (machine_count == 1) throw;
    run.serving = does_not_fit<work::ServingResult>(machine, e);
  }
  run.job.machine = machine.name;  // for run_scenario's check that something ran
  run.job.failure = run.serving->failure;
  return run;
}

MachineRun run_gradient_sync(const work::Scenario& scenario, const topo::Topology& machine,
                             bool keep_run) {
  MachineRun run;
  run.sync = work::simulate_gradient_sync(machine, scenario);
  run.sync->realistic.step_range_s = topo::range_of(machine, [&](const topo::Topology& t) {
    return work::simulate_gradient_sync(t, scenario).realistic.step_s;
  });
  // The simulated step's energy, as a job's (the seed's simple model has no compute split).
  run.sync->realistic.energy = work::job_energy(machine, run.sync->realistic);
  keep_figures_only(run.sync->simple);
  if (!keep_run) keep_figures_only(run.sync->realistic);
  run.job = run.sync->realistic;
  return run;
}

MachineRun run_job(const work::Scenario& scenario, const topo::Topology& machine,
                   std::size_t machine_count, bool keep_run, bool ranges) {
  const work::ModelSpec model = work::scenario_model(scenario);
  work::JobOptions job_options;
  job_options.record_channel_intervals = keep_run;  // only a trace draws them
  job_options.name_tasks = keep_run;
  MachineRun run;
  try {
    run.job = work::simulate_job(machine, model, scenario, job_options);
    if (ranges) {
      run.job.step_range_s =
          work::job_step_range_s(machine, model, scenario, work::stated_compute_factor());
      run.job.network_range_fitted = topo::has_ranges(machine);
      run.job.energy = work::job_energy(machine, run.job);
    }
  } catch (const work::DoesNotFit& e) {
    // One machine too small is a finding, not a failure of the run: report it and go on.
    if (machine_count == 1) throw;
    run.job = does_not_fit<work::JobResult>(machine, e);
  }
  if (!keep_run) keep_figures_only(run.job);
  return run;
}

// One case: the machine is loaded, simulated and dropped; only its results stay.
MachineRun run_machine(const ScenarioRuns& runs, const std::string& name, int nodes,
                       std::optional<double> price, std::size_t machine_count, bool keep_run,
                       bool ranges) {
  const topo::Topology machine = load_machine(name, nodes, price);
  if (runs.serving()) return run_serving(runs.scenario, machine, machine_count);
  if (runs.scenario.gradient_sync) return run_gradient_sync(runs.scenario, machine, keep_run);
  return run_job(runs.scenario, machine, machine_count, keep_run, ranges);
}

}  // namespace

bool is_serving(const work::Scenario& scenario) {
  return !scenario.gradient_sync && scenario.job.kind == work::JobKind::serving;
}

bool ScenarioRuns::serving() const {
  return is_serving(scenario);
}

ScenarioRuns run_scenario(const ScenarioRunOptions& options) {
  ScenarioRuns runs;
  runs.scenario = work::load_scenario(options.scenario);
  if (options.adjust_scenario) options.adjust_scenario(runs.scenario);
  if (options.train_tokens) {
    if (runs.scenario.gradient_sync || runs.scenario.job.kind != work::JobKind::training) {
      throw InputError(
          "", "--train-tokens",
          fmt::format("a token budget needs a training scenario; {} is not one", options.scenario));
    }
    runs.scenario.job.train_tokens = *options.train_tokens;
  }
  const std::vector<std::string> machines = machines_to_run(options, runs.scenario);
  std::vector<MachineRun> results(machines.size());
  CaseProgress progress;
  if (options.progress) {
    progress.started = [&](std::size_t index, std::size_t finished) {
      options.progress(finished, machines.size(), machines[index]);
    };
  }
  run_cases(
      machines.size(), options.threads,
      [&](std::size_t i) {
        results[i] = run_machine(
            runs, machines[i], options.nodes, options.price_per_node_hour_usd, machines.size(),
            options.trace_every_machine || (options.trace_first_machine && i == 0), options.ranges);
      },
      progress);
  if (options.progress) options.progress(machines.size(), machines.size(), "");
  for (auto& r : results) {  // in the order named, whichever finished first
    runs.jobs.push_back(std::move(r.job));
    if (r.sync) runs.syncs.push_back(std::move(*r.sync));
    if (r.serving) runs.servings.push_back(std::move(*r.serving));
  }
  bool any = false;
  for (const auto& j : runs.jobs)
    any = any || j.failure.empty();
  if (!any) throw InputError(runs.scenario.file, "/plan", runs.jobs.front().failure);
  return runs;
}

}  // namespace linksim::app
