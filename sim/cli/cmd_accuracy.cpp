// `linksim accuracy`: predicted against measured nccl-tests busbw on the reference machines
// (validate/accuracy.hpp), as Markdown (docs/ACCURACY.md), and with --plot one picture per
// machine of both against size. With --training-jobs, also the training runs of
// validate/jobs/ (validate/accuracy_jobs.hpp), each simulated as `linksim run` runs a scenario.
#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <exception>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "sim/app/scenario_run.hpp"
#include "sim/cli/command_outputs.hpp"
#include "sim/cli/commands.hpp"
#include "sim/cli/gnuplot.hpp"
#include "sim/cli/jobs_option.hpp"
#include "sim/core/error.hpp"
#include "sim/report/plot.hpp"
#include "validate/accuracy.hpp"
#include "validate/accuracy_data.hpp"
#include "validate/accuracy_jobs.hpp"
#include "validate/accuracy_report.hpp"

namespace linksim::cli {
namespace {

// One run of validate/jobs through `linksim run`'s own path: its scenario written to a private
// temporary file, app::run_scenario on its one machine at its node count. Whatever linksim
// refuses (does not fit, the task bound, bad input) is the run's refusal, in linksim's words.
validate::JobPrediction predict_job(const validate::JobRun& run) {
  namespace fs = std::filesystem;
  static std::atomic<unsigned> counter{0};
  const fs::path file =
      fs::temp_directory_path() / fmt::format("linksim-job-{}-{}.json", ::getpid(), counter++);
  {
    std::ofstream out(file);
    out << validate::job_scenario(run).dump();
  }
  validate::JobPrediction p;
  try {
    app::ScenarioRunOptions options;
    options.scenario = file.string();
    options.nodes = run.nodes;
    options.threads = 1;
    options.ranges = false;  // the report compares point estimates
    const app::ScenarioRuns runs = app::run_scenario(options);
    if (runs.jobs.front().failure.empty()) {
      p.step_s = runs.jobs.front().step_s;
    } else {
      p.refusal = runs.jobs.front().failure;
    }
  } catch (const InputError& e) {
    p.refusal = e.message();
  } catch (const std::exception& e) {
    p.refusal = e.what();
  }
  std::error_code ec;
  fs::remove(file, ec);
  return p;
}

// A set's rows as plot series: measured and predicted busbw per operation.
std::vector<report::BusbwSeries> series_of(const validate::AccuracySet& set) {
  std::vector<report::BusbwSeries> out;
  auto series_for = [&](const std::string& label) -> report::BusbwSeries& {
    for (auto& s : out)
      if (s.label == label) return s;
    out.push_back({label, {}});
    return out.back();
  };
  for (const auto& r : set.rows) {
    const std::string op(coll::to_string(r.op));
    coll::SweepRow measured;
    measured.size_bytes = r.size_bytes;
    measured.outcome.busbw_Bps = r.measured_busbw_Bps;
    series_for(op + " measured").rows.push_back(measured);
    coll::SweepRow predicted = measured;
    predicted.outcome.busbw_Bps = r.predicted_busbw_Bps;
    series_for(op + " predicted").rows.push_back(predicted);
  }
  return out;
}

}  // namespace

void register_accuracy(CLI::App& app) {
  auto reference = std::make_shared<std::string>(validate::default_measurements_path());
  auto output = std::make_shared<std::string>();
  auto plot_dir = std::make_shared<std::string>();
  auto force = std::make_shared<bool>(false);
  auto format = std::make_shared<std::string>("markdown");
  auto training_jobs = std::make_shared<bool>(false);
  auto jobs_dir = std::make_shared<std::string>();
  auto threads = std::make_shared<int>(0);
  auto* cmd = app.add_subcommand(
      "accuracy", "Predicted against measured nccl-tests busbw on the reference machines");
  cmd->add_option("--reference", *reference, "measurements.json with the reference runs");
  cmd->add_option("-o,--output", *output, "Write the report here (default: stdout)")
      ->check(output_file_name());
  cmd->add_option("--format", *format,
                  "markdown (docs/ACCURACY.md), json or csv (every row, in SI units)")
      ->check(CLI::IsMember({"markdown", "json", "csv"}));
  cmd->add_option("--plot", *plot_dir,
                  "Also draw, into this existing folder, one PNG per machine with a sweep "
                  "(<machine>.png): measured and predicted busbw against size (gnuplot)")
      ->check(output_file_name());
  cmd->add_flag("--force", *force, "Overwrite the output file and the pictures");
  cmd->add_flag("--training-jobs", *training_jobs,
                "Also simulate the published training runs of validate/jobs/ and report "
                "predicted against measured step time per source (Markdown: a section after "
                "the collectives; json: those runs only)");
  cmd->add_option("--jobs-dir", *jobs_dir,
                  "With --training-jobs: the folder of job sources (default validate/jobs)");
  add_jobs_option(cmd, *threads, "Training runs");
  cmd->callback([=] {
    CommandOutputs outputs(*force);
    outputs.claim(*output);
    // Before the minutes of simulation the pictures' names wait for.
    if (!plot_dir->empty() && !std::filesystem::is_directory(*plot_dir)) {
      throw InputError(*plot_dir, "--plot", "is not an existing folder to draw the pictures in");
    }
    if (*training_jobs && *format == "csv") {
      throw InputError("", "--training-jobs", "reported as markdown or json, not csv");
    }
    // --training-jobs --format json reports those runs only: the collectives are simulated only
    // where something shows them.
    const bool collectives = !(*training_jobs && *format == "json") || !plot_dir->empty();
    const auto sets =
        collectives ? validate::evaluate_accuracy(validate::load_nccl_tests_records(*reference))
                    : std::vector<validate::AccuracySet>{};
    std::vector<std::pair<std::string, const validate::AccuracySet*>> pictures;
    if (!plot_dir->empty()) {
      for (const auto& s : sets) {
        if (s.rows.size() < 3) continue;  // statements and excerpts, not sweeps
        pictures.emplace_back(*plot_dir + "/" + s.topology + ".png", &s);
        outputs.claim_picture(pictures.back().first);
      }
    }
    std::vector<validate::JobSourceResult> jobs;
    if (*training_jobs) {
      jobs = validate::evaluate_jobs(
          validate::load_job_sources(jobs_dir->empty() ? validate::default_jobs_dir() : *jobs_dir),
          predict_job, *threads);
    }
    if (*training_jobs && *format == "json") {
      outputs.put(*output, validate::jobs_json(jobs));
    } else {
      outputs.put(*output, *format == "json" ? validate::accuracy_json(sets)
                           : *format == "csv"
                               ? validate::accuracy_csv(sets)
                               : validate::format_accuracy_markdown(sets) +
                                     (*training_jobs ? validate::format_jobs_markdown(jobs)
                                                     : std::string()));
    }
    for (const auto& [path, set] : pictures) {
      outputs.put(path, render_plot(report::busbw_plot_script(set->name, series_of(*set)), path));
    }
    outputs.write();
  });
}

}  // namespace linksim::cli
