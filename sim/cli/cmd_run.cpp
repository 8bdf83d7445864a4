// `linksim run SCENARIO` and `linksim compare SCENARIO`: the main job.
#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "sim/cli/command_outputs.hpp"
#include "sim/cli/commands.hpp"
#include "sim/cli/gnuplot.hpp"
#include "sim/cli/machine_option.hpp"
#include "sim/cli/progress.hpp"
#include "sim/core/error.hpp"
#include "sim/report/chrome_trace.hpp"
#include "sim/report/job_report.hpp"
#include "sim/report/plot.hpp"
#include "sim/report/serving_report.hpp"
#include "sim/topo/loader.hpp"
#include "sim/topo/uncertainty.hpp"
#include "sim/work/gradient_sync_sim.hpp"
#include "sim/work/model.hpp"
#include "sim/work/serving.hpp"

namespace linksim::cli {
namespace {

struct RunArgs {
  std::string scenario;
  std::vector<std::string> topologies;
  std::string format = "table";
  std::string output;
  std::string trace;
  std::string plot;
  int nodes = 0;
  bool force = false;
};

struct Runs {
  work::Scenario scenario;
  std::vector<work::JobResult> jobs;
  std::vector<work::GradientSyncResult> syncs;
  std::vector<work::ServingResult> servings;
};

bool serving(const Runs& runs) {
  return !runs.scenario.gradient_sync && runs.scenario.job.kind == work::JobKind::serving;
}

// A serving scenario on one machine; a machine it does not fit is a finding, as for jobs.
void run_serving(Runs& runs, const topo::Topology& machine, std::size_t machine_count) {
  const work::ModelSpec model = work::load_model(runs.scenario.model);
  try {
    runs.servings.push_back(work::simulate_serving(machine, model, runs.scenario));
  } catch (const work::DoesNotFit& e) {
    if (machine_count == 1) throw;
    work::ServingResult r;
    r.machine = machine.name;
    r.machine_title = machine.title;
    r.gpus = static_cast<int>(machine.count(topo::NodeKind::gpu));
    r.failure = e.message();
    runs.servings.push_back(std::move(r));
  }
  work::JobResult j;  // for the checks below: whether anything ran
  j.machine = machine.name;
  j.failure = runs.servings.back().failure;
  runs.jobs.push_back(std::move(j));
}

Runs run_all(const RunArgs& a) {
  Runs runs{work::load_scenario(a.scenario), {}, {}, {}};
  std::vector<std::string> machines =
      a.topologies.empty() ? runs.scenario.topologies : a.topologies;
  // Each machine is a whole simulation: a list is bounded, and a machine named twice would
  // only repeat one.
  constexpr std::size_t kMaxMachines = 64;
  const std::string where = a.topologies.empty() ? runs.scenario.file : std::string();
  if (machines.size() > kMaxMachines) {
    throw InputError(where, a.topologies.empty() ? "/topologies" : "",
                     fmt::format("{} machines named; at most {} can be compared in one run",
                                 machines.size(), kMaxMachines));
  }
  for (std::size_t i = 0; i < machines.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (machines[i] == machines[j]) {
        throw InputError(where, a.topologies.empty() ? fmt::format("/topologies/{}", i) : "",
                         fmt::format("machine \"{}\" is named twice", machines[i]));
      }
    }
  }
  Progress progress("simulating", "machines", machines.size());
  for (const auto& m : machines) {
    progress.update(runs.jobs.size(), m);
    const topo::Topology machine = load_machine(m, a.nodes);
    if (serving(runs)) {
      run_serving(runs, machine, machines.size());
    } else if (runs.scenario.gradient_sync) {
      runs.syncs.push_back(work::simulate_gradient_sync(machine, runs.scenario));
      runs.syncs.back().realistic.step_range_s =
          topo::range_of(machine, [&](const topo::Topology& t) {
            return work::simulate_gradient_sync(t, runs.scenario).realistic.step_s;
          });
      runs.jobs.push_back(runs.syncs.back().realistic);
    } else {
      const work::ModelSpec model = work::load_model(runs.scenario.model);
      work::JobOptions options;
      options.record_channel_intervals = !a.trace.empty();  // only a trace draws them
      try {
        runs.jobs.push_back(work::simulate_job(machine, model, runs.scenario, options));
        runs.jobs.back().step_range_s = topo::range_of(machine, [&](const topo::Topology& t) {
          return work::simulate_job(t, model, runs.scenario).step_s;
        });
      } catch (const work::DoesNotFit& e) {
        // One machine too small is a finding, not a failure of the run: report it and go on.
        if (machines.size() == 1) throw;
        work::JobResult r;
        r.machine = machine.name;
        r.machine_title = machine.title;
        r.gpus = static_cast<int>(machine.count(topo::NodeKind::gpu));
        r.failure = e.message();
        runs.jobs.push_back(std::move(r));
      }
    }
  }
  bool any = false;
  for (const auto& j : runs.jobs)
    any = any || j.failure.empty();
  if (!any) throw InputError(runs.scenario.file, "/plan", runs.jobs.front().failure);
  return runs;
}

// JSON and CSV are the same for run and compare; the table is each command's own.
std::string format_runs(const RunArgs& a, const Runs& runs, const std::string& table) {
  if (serving(runs) && a.format == "json") {
    Json all = Json::array();
    for (const auto& r : runs.servings)
      all.push_back(report::serving_json(r, runs.scenario));
    return all.dump(2) + "\n";
  }
  if (serving(runs) && a.format == "csv") return report::servings_csv(runs.servings, runs.scenario);
  if (a.format == "json") {
    Json all = Json::array();
    for (const auto& j : runs.jobs)
      all.push_back(report::job_json(j, runs.scenario));
    return all.dump(2) + "\n";
  }
  if (a.format == "csv") return report::jobs_csv(runs.jobs, runs.scenario);
  return table;
}

void add_common(CLI::App* cmd, RunArgs& a) {
  cmd->add_option("scenario", a.scenario, "Scenario file, or the name of a shipped scenario")
      ->required();
  cmd->add_option("-t,--topology", a.topologies,
                  "Machine(s) to run on instead of the scenario's (repeatable)");
  cmd->add_option("--format", a.format, "table, json or csv")
      ->check(CLI::IsMember({"table", "json", "csv"}));
  cmd->add_option("-o,--output", a.output, "Write the report here instead of stdout (- is stdout)");
  cmd->add_flag("--force", a.force, "Overwrite output files");
  add_nodes_option(cmd, a.nodes);
  add_quiet_flag(cmd);
}

}  // namespace

void register_run(CLI::App& app) {
  auto a = std::make_shared<RunArgs>();
  auto* cmd = app.add_subcommand(
      "run", "Simulate a scenario: step time, compute / communication / exposed split, advice");
  add_common(cmd, *a);
  cmd->add_option("--trace", a->trace, "Write a Chrome trace (Perfetto) of the first machine");
  cmd->callback([a] {
    CommandOutputs outputs(a->force);
    outputs.claim(a->trace);
    outputs.claim(a->output);
    const Runs runs = run_all(*a);
    std::string table;
    if (serving(runs)) {
      for (std::size_t i = 0; i < runs.servings.size(); ++i) {
        table += (i ? "\n" : "") + report::format_serving(runs.servings[i], runs.scenario);
      }
    } else if (runs.scenario.gradient_sync) {
      table = report::format_gradient_sync(runs.syncs, runs.scenario);
    } else {
      for (std::size_t i = 0; i < runs.jobs.size(); ++i) {
        table += (i ? "\n" : "") + report::format_job(runs.jobs[i], runs.scenario);
      }
    }
    const std::string text = format_runs(*a, runs, table);
    if (!a->trace.empty()) {
      const auto& j = runs.jobs.front();
      if (!j.simulation) {
        throw InputError(a->trace, "--trace", "this scenario kind records no trace");
      }
      outputs.put(a->trace, report::to_chrome_trace(*j.simulation, *j.timeline, *j.names));
    }
    outputs.put(a->output, text);
    outputs.write();
  });
}

void register_compare(CLI::App& app) {
  auto a = std::make_shared<RunArgs>();
  auto* cmd = app.add_subcommand(
      "compare", "Run a scenario on several machines and tabulate time, share, throughput, cost");
  add_common(cmd, *a);
  cmd->add_option("--plot", a->plot,
                  "Also draw the step breakdown per machine (gnuplot; .png, .svg or .pdf)");
  cmd->callback([a] {
    CommandOutputs outputs(a->force);
    outputs.claim_picture(a->plot);
    outputs.claim(a->output);
    const Runs runs = run_all(*a);
    if (serving(runs) && !a->plot.empty()) {
      throw InputError(a->plot, "--plot", "a serving scenario has no step breakdown to plot");
    }
    std::string table = serving(runs)
                            ? report::format_serving_comparison(runs.servings, runs.scenario)
                            : report::format_comparison(runs.jobs, runs.scenario);
    if (runs.scenario.gradient_sync) {
      table += "\n" + report::format_gradient_sync(runs.syncs, runs.scenario);
    }
    const std::string text = format_runs(*a, runs, table);
    if (!a->plot.empty()) {
      outputs.put(a->plot,
                  render_plot(report::breakdown_plot_script(
                                  "Step breakdown per machine: " + runs.scenario.name, runs.jobs),
                              a->plot));
    }
    outputs.put(a->output, text);
    outputs.write();
  });
}

}  // namespace linksim::cli
