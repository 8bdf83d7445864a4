// `linksim run SCENARIO` and `linksim compare SCENARIO`: the main job.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <iostream>
#include <string>

#include "sim/app/scenario_report.hpp"
#include "sim/app/scenario_run.hpp"
#include "sim/cli/command_outputs.hpp"
#include "sim/cli/commands.hpp"
#include "sim/cli/gnuplot.hpp"
#include "sim/cli/jobs_option.hpp"
#include "sim/cli/machine_option.hpp"
#include "sim/cli/progress.hpp"
#include "sim/core/error.hpp"
#include "sim/report/chrome_trace.hpp"
#include "sim/report/job_report.hpp"
#include "sim/report/plot.hpp"
#include "sim/report/serving_report.hpp"
#include "sim/work/scenario.hpp"

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
  int jobs = 0;  // threads; 0: one per core
  bool force = false;
  std::string train_tokens;  // "15T", "300B", "2e12"; "" for the scenario's
  std::optional<double> price_per_hour;
  bool no_range = false;
};

// A token count as planners write it: a number, or one with K, M, B (or G) or T (decimal).
double token_count(const std::string& text) {
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  double scale = 1;
  const std::string suffix = used > 0 ? text.substr(used) : std::string();
  if (suffix == "K" || suffix == "k")
    scale = 1e3;
  else if (suffix == "M")
    scale = 1e6;
  else if (suffix == "B" || suffix == "G")
    scale = 1e9;
  else if (suffix == "T")
    scale = 1e12;
  else if (!suffix.empty())
    used = 0;
  if (used == 0 || !std::isfinite(value) || value * scale < 1) {
    throw InputError("", "--train-tokens",
                     fmt::format("expected a number of tokens such as 15T, 300B or 2e12, not "
                                 "\"{}\"",
                                 text));
  }
  return value * scale;
}

using Runs = app::ScenarioRuns;

// Every machine that ran, each as its own processes named after it; a machine the job does not
// fit has no run to draw, and stderr says so rather than leave it out silently.
std::string trace_of(const Runs& runs, const std::string& path) {
  std::vector<report::TraceRun> traced;
  std::vector<std::string> left_out;
  for (const auto& j : runs.jobs) {
    if (!j.simulation || !j.timeline || !j.names) {
      left_out.push_back(j.machine);
      continue;
    }
    traced.push_back({j.machine, j.simulation.get(), j.timeline.get(), j.names.get()});
  }
  if (traced.empty()) throw InputError(path, "--trace", "this scenario kind records no trace");
  if (!left_out.empty()) {
    std::cerr << fmt::format("note: --trace: nothing to draw for {} (the job did not run there)\n",
                             fmt::join(left_out, ", "));
  }
  return report::to_chrome_trace(traced);
}

Runs run_all(const RunArgs& a) {
  Progress progress("simulating", "machines", 0);
  app::ScenarioRunOptions options;
  options.scenario = a.scenario;
  options.machines = a.topologies;
  options.nodes = a.nodes;
  options.price_per_node_hour_usd = a.price_per_hour;
  options.trace_every_machine = !a.trace.empty();  // --trace draws every machine
  options.threads = a.jobs;
  options.ranges = !a.no_range;
  if (!a.train_tokens.empty()) options.train_tokens = token_count(a.train_tokens);
  options.progress = progress.detailed_callback();
  Runs runs = app::run_scenario(options);
  progress.finish();
  return runs;
}

// JSON and CSV are the same for run and compare; the table is each command's own.
std::string format_runs(const RunArgs& a, const Runs& runs, const std::string& table) {
  if (a.format == "json") return app::scenario_runs_json(runs);
  if (runs.serving() && a.format == "csv")
    return report::servings_csv(runs.servings, runs.scenario);
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
  cmd->add_option("-o,--output", a.output, "Write the report here instead of stdout (- is stdout)")
      ->check(output_file_name());
  cmd->add_flag("--force", a.force, "Overwrite output files");
  add_nodes_option(cmd, a.nodes);
  add_price_option(cmd, a.price_per_hour);
  cmd->add_option("--train-tokens", a.train_tokens,
                  "Training: the run's token budget (15T, 300B, 2e12), for the days, GPU-hours "
                  "and cost to train (default: the scenario's job.train_tokens, if any)");
  cmd->add_flag("--no-range", a.no_range,
                "No step-time range (docs/uncertainty.md): a third of the simulation time");
  add_jobs_option(cmd, a.jobs, "Machines");
  add_quiet_flag(cmd);
}

}  // namespace

void register_run(CLI::App& app) {
  auto a = std::make_shared<RunArgs>();
  auto* cmd = app.add_subcommand(
      "run", "Simulate a scenario: step time, compute / communication / exposed split, advice");
  add_common(cmd, *a);
  cmd->add_option("--trace", a->trace,
                  "Write a Chrome trace (Perfetto): each machine as its own processes")
      ->check(output_file_name());
  cmd->callback([a] {
    CommandOutputs outputs(a->force);
    outputs.claim(a->trace);
    outputs.claim(a->output);
    // A serving scenario keeps no single run to draw: refused before the work, not after it.
    if (!a->trace.empty() && app::is_serving(work::load_scenario(a->scenario))) {
      throw InputError(a->trace, "--trace", "this scenario kind records no trace");
    }
    const Runs runs = run_all(*a);
    std::string table;
    if (runs.serving()) {
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
    if (!a->trace.empty()) outputs.put(a->trace, trace_of(runs, a->trace));
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
                  "Also draw the step breakdown per machine (gnuplot; .png, .svg or .pdf)")
      ->check(output_file_name());
  cmd->callback([a] {
    CommandOutputs outputs(a->force);
    outputs.claim_picture(a->plot);
    outputs.claim(a->output);
    const Runs runs = run_all(*a);
    if (runs.serving() && !a->plot.empty()) {
      throw InputError(a->plot, "--plot", "a serving scenario has no step breakdown to plot");
    }
    std::string table = runs.serving()
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
