#include "sim/app/scenario_run.hpp"

#include <fmt/format.h>

#include "sim/app/machine.hpp"
#include "sim/core/error.hpp"
#include "sim/topo/uncertainty.hpp"
#include "sim/work/model.hpp"

namespace linksim::app {
namespace {

// Each machine is a whole simulation: a list is bounded, and a machine named twice would only
// repeat one.
constexpr std::size_t kMaxMachines = 64;

// The machines to run on, checked. Names come from the scenario's /topologies unless the caller
// gave its own list (then no file location applies).
std::vector<std::string> machines_to_run(const ScenarioRunOptions& options,
                                         const work::Scenario& scenario) {
  const bool own = options.machines.empty();
  const std::vector<std::string>& machines = own ? scenario.topologies : options.machines;
  const std::string where = own ? scenario.file : std::string();
  if (machines.size() > kMaxMachines) {
    throw InputError(where, own ? "/topologies" : "",
                     fmt::format("{} machines named; at most {} can be compared in one run",
                                 machines.size(), kMaxMachines));
  }
  for (std::size_t i = 0; i < machines.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (machines[i] == machines[j]) {
        throw InputError(where, own ? fmt::format("/topologies/{}", i) : "",
                         fmt::format("machine \"{}\" is named twice", machines[i]));
      }
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

void run_serving(ScenarioRuns& runs, const topo::Topology& machine, std::size_t machine_count) {
  const work::ModelSpec model = work::load_model(runs.scenario.model);
  try {
    runs.servings.push_back(work::simulate_serving(machine, model, runs.scenario));
  } catch (const work::DoesNotFit& e) {
    if (machine_count == 1) throw;
    runs.servings.push_back(does_not_fit<work::ServingResult>(machine, e));
  }
  work::JobResult j;  // for run_scenario's check that something ran
  j.machine = machine.name;
  j.failure = runs.servings.back().failure;
  runs.jobs.push_back(std::move(j));
}

void run_gradient_sync(ScenarioRuns& runs, const topo::Topology& machine) {
  runs.syncs.push_back(work::simulate_gradient_sync(machine, runs.scenario));
  runs.syncs.back().realistic.step_range_s = topo::range_of(machine, [&](const topo::Topology& t) {
    return work::simulate_gradient_sync(t, runs.scenario).realistic.step_s;
  });
  runs.jobs.push_back(runs.syncs.back().realistic);
}

void run_job(ScenarioRuns& runs, const topo::Topology& machine, std::size_t machine_count,
             const ScenarioRunOptions& options) {
  const work::ModelSpec model = work::load_model(runs.scenario.model);
  work::JobOptions job_options;
  job_options.record_channel_intervals = options.record_channel_intervals;
  try {
    runs.jobs.push_back(work::simulate_job(machine, model, runs.scenario, job_options));
    runs.jobs.back().step_range_s = topo::range_of(machine, [&](const topo::Topology& t) {
      return work::simulate_job(t, model, runs.scenario).step_s;
    });
  } catch (const work::DoesNotFit& e) {
    // One machine too small is a finding, not a failure of the run: report it and go on.
    if (machine_count == 1) throw;
    runs.jobs.push_back(does_not_fit<work::JobResult>(machine, e));
  }
}

}  // namespace

bool ScenarioRuns::serving() const {
  return !scenario.gradient_sync && scenario.job.kind == work::JobKind::serving;
}

ScenarioRuns run_scenario(const ScenarioRunOptions& options) {
  ScenarioRuns runs;
  runs.scenario = work::load_scenario(options.scenario);
  const std::vector<std::string> machines = machines_to_run(options, runs.scenario);
  for (const auto& name : machines) {
    if (options.progress) options.progress(runs.jobs.size(), machines.size(), name);
    const topo::Topology machine = load_machine(name, options.nodes);
    if (runs.serving()) {
      run_serving(runs, machine, machines.size());
    } else if (runs.scenario.gradient_sync) {
      run_gradient_sync(runs, machine);
    } else {
      run_job(runs, machine, machines.size(), options);
    }
  }
  bool any = false;
  for (const auto& j : runs.jobs)
    any = any || j.failure.empty();
  if (!any) throw InputError(runs.scenario.file, "/plan", runs.jobs.front().failure);
  return runs;
}

}  // namespace linksim::app
