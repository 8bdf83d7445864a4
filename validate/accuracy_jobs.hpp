#pragma once
// Training jobs held against published measurements (issue 33, Build item 5): the runs of
// validate/jobs/*.json, one file per public source, each run simulated as `linksim run` would
// run it, and per source the signed step-time error of every run, the median |error| and
// Spearman's rank correlation of predicted against measured throughput. Nothing is fitted.
//
// This layer may not run jobs (sim/work is above it): the caller passes the predictor, which
// turns a run's scenario document into a step time or a refusal (`linksim accuracy
// --training-jobs`, sim/cli/cmd_accuracy.cpp).

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/json_view.hpp"

namespace linksim::validate {

struct JobRun {
  std::string id;
  std::string model;
  std::string machine;
  int nodes = 1;
  Json plan;  // as the file says, context included
  int global_batch = 1;
  int sequence_length = 1;
  std::string precision;  // bf16, fp16 or fp8
  // Adam's state as the source's configuration kept it: precision.optimizer_states and
  // precision.master_weights (empty: linksim's defaults, fp32 moments and master copy).
  std::string optimizer_states;
  std::string master_weights;
  double measured_value = 0;
  std::string measured_unit;  // step_s, tokens_per_s_per_gpu or tokens_per_s
  std::string series;
  std::string excerpt;
  std::string url;
  int gpus() const;  // data x tensor x pipeline x context
  // The measured figure as seconds per step (the schema's conversion formulas).
  double measured_step_s() const;
};

struct JobSource {
  std::string name;  // file stem
  std::string file;
  std::string title;
  std::string url;
  std::string version;
  std::string conversion;
  std::vector<JobRun> runs;
};

// Every *.json under `dir` but schema.json, sorted by name, each checked against the folder's
// schema.json. Throws InputError naming the file and JSON pointer.
std::vector<JobSource> load_job_sources(const std::string& dir);
std::string default_jobs_dir();  // <data_dir()>/validate/jobs

// What linksim cannot run yet, said before anything is simulated; empty when the run can be
// simulated. Nothing at present: FP8 training, refused here until it was modelled, runs with
// precision.matmul "fp8" (job_scenario).
std::string unsupported_feature(const JobRun& run);

// The scenario document `linksim run` would read for this run: one machine, the model, a
// training job and the plan, the run's dtype (precision.dtype: bf16 for an FP8 run), for an FP8
// run precision.matmul "fp8", and the run's Adam state
// (precision.optimizer_states, master_weights) when its file states one. Run it with
// --nodes run.nodes.
Json job_scenario(const JobRun& run);

struct JobPrediction {
  std::optional<double> step_s;  // absent when refused
  std::string refusal;           // linksim's message when refused
};

struct JobRow {
  JobRun run;
  double measured_step_s = 0;
  JobPrediction predicted;
  // predicted / measured - 1 (on step time); nullopt when refused.
  std::optional<double> error() const;
};

struct JobSourceResult {
  JobSource source;
  std::vector<JobRow> rows;
  std::size_t simulated = 0;
  std::optional<double> median_abs_error;  // over simulated rows
  // Spearman's rho of predicted against measured tokens/s per GPU over simulated rows; absent
  // under 3 rows or when either side has no spread.
  std::optional<double> spearman;
};

using JobPredictor = std::function<JobPrediction(const JobRun&)>;

// Runs `predict` on every run (unsupported ones are refused without it), on `threads` threads
// (0: one per core); the results do not depend on the thread count.
std::vector<JobSourceResult> evaluate_jobs(const std::vector<JobSource>& sources,
                                           const JobPredictor& predict, int threads = 1);

// Ranks 1..n with ties given the mean of the ranks they span.
std::vector<double> average_ranks(const std::vector<double>& values);
// Spearman's rho: Pearson's correlation of the average ranks. nullopt when the sizes differ,
// there are fewer than 2 values, or either side's ranks are all equal.
std::optional<double> spearman_rho(const std::vector<double>& x, const std::vector<double>& y);

// The "Training jobs against published measurements" section of docs/ACCURACY.md.
std::string format_jobs_markdown(const std::vector<JobSourceResult>& results);
// For programs: every source and row, in SI units.
std::string jobs_json(const std::vector<JobSourceResult>& results);

}  // namespace linksim::validate
