// The training-job accuracy set (validate/jobs/, validate/accuracy_jobs.hpp) and its report
// (`linksim accuracy --training-jobs`).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/core/json_view.hpp"
#include "sim/core/schema_check.hpp"
#include "sim/work/model.hpp"
#include "tests/support/temp_files.hpp"
#include "validate/accuracy_jobs.hpp"

namespace linksim::validate {
namespace {

namespace fs = std::filesystem;

std::string jobs_dir() {
  return testing::source_dir() + "/validate/jobs";
}

TEST(JobAccuracyData, EveryFileMeetsTheSchemaAndNamesShippedModels) {
  const Json schema = read_json_file(jobs_dir() + "/schema.json");
  int files = 0;
  for (const auto& entry : fs::directory_iterator(jobs_dir())) {
    if (entry.path().filename() == "schema.json") continue;
    SCOPED_TRACE(entry.path().string());
    ++files;
    EXPECT_EQ(schema_violations(read_json_file(entry.path().string()), schema),
              std::vector<std::string>{});
  }
  const auto sources = load_job_sources(jobs_dir());
  EXPECT_EQ(static_cast<int>(sources.size()), files);
  EXPECT_GE(sources.size(), 3u);
  std::size_t runs = 0;
  for (const auto& s : sources) {
    for (const auto& run : s.runs) {
      SCOPED_TRACE(run.id);
      ++runs;
      EXPECT_NO_THROW(work::load_model(run.model));
      // Every machine here has 8 GPUs a node, and every run fills its nodes.
      EXPECT_EQ(run.gpus(), 8 * run.nodes);
      EXPECT_GT(run.measured_step_s(), 0);
    }
  }
  EXPECT_GE(runs, 20u);
}

TEST(JobAccuracyData, TheSchemaRefusesARunWithoutItsExcerpt) {
  const Json schema = read_json_file(jobs_dir() + "/schema.json");
  Json doc = read_json_file(jobs_dir() + "/mt-nlg-530b.json");
  doc["runs"][0].erase("excerpt");
  EXPECT_FALSE(schema_violations(doc, schema).empty());
}

TEST(JobAccuracyData, MeasuredFiguresBecomeStepSeconds) {
  JobRun run;
  run.plan = Json{{"data", 2}, {"tensor", 4}, {"pipeline", 1}, {"context", 2}};  // 16 GPUs
  run.global_batch = 128;
  run.sequence_length = 4096;  // 524288 tokens a step
  run.measured_value = 8192;
  run.measured_unit = "tokens_per_s_per_gpu";
  // 524288 / (8192 x 16) = 4 s.
  EXPECT_DOUBLE_EQ(run.measured_step_s(), 4.0);
  run.measured_unit = "tokens_per_s";
  run.measured_value = 262144;
  // 524288 / 262144 = 2 s.
  EXPECT_DOUBLE_EQ(run.measured_step_s(), 2.0);
  run.measured_unit = "step_s";
  run.measured_value = 8.309;
  EXPECT_DOUBLE_EQ(run.measured_step_s(), 8.309);
}

TEST(JobAccuracySpearman, AverageRanksForTies) {
  // 3 and 3 share ranks 3 and 4: 3.5 each.
  EXPECT_EQ(average_ranks({3, 1, 3, 2}), (std::vector<double>{3.5, 1, 3.5, 2}));
}

TEST(JobAccuracySpearman, HandComputedExampleWithATie) {
  // x = 1, 2, 2, 4 -> ranks 1, 2.5, 2.5, 4; y = 10, 30, 20, 40 -> ranks 1, 3, 2, 4.
  // Mean rank (4 + 1) / 2 = 2.5. Deviations x: -1.5, 0, 0, 1.5; y: -1.5, 0.5, -0.5, 1.5.
  // Sxy = 2.25 + 0 + 0 + 2.25 = 4.5; Sxx = 4.5; Syy = 2.25 + 0.25 + 0.25 + 2.25 = 5.
  // rho = 4.5 / sqrt(4.5 x 5) = sqrt(20.25 / 22.5) = sqrt(0.9) = 0.9487.
  const auto rho = spearman_rho({1, 2, 2, 4}, {10, 30, 20, 40});
  ASSERT_TRUE(rho.has_value());
  EXPECT_DOUBLE_EQ(*rho, std::sqrt(0.9));
  EXPECT_DOUBLE_EQ(*spearman_rho({1, 2, 3}, {30, 20, 10}), -1.0);
  EXPECT_FALSE(spearman_rho({1, 1, 1}, {1, 2, 3}).has_value());  // no spread
}

TEST(JobAccuracyEvaluate, MedianAndSpearmanPerSourceRefusalsListed) {
  JobSource s;
  s.name = "hand";
  auto add = [&](const std::string& id, double measured_s, const std::string& precision) {
    JobRun run;
    run.id = id;
    run.plan = Json{{"data", 1}, {"tensor", 1}, {"pipeline", 1}};
    run.global_batch = 1;
    run.sequence_length = 1;
    run.precision = precision;
    run.measured_value = measured_s;
    run.measured_unit = "step_s";
    s.runs.push_back(run);
  };
  add("a", 1.0, "bf16");
  add("b", 2.0, "bf16");
  add("c", 4.0, "bf16");
  add("d", 1.0, "fp8");  // FP8 reaches the predictor, which refuses it here
  // Predicted 1.1, 1.8, 5.0 s: errors +10%, -10%, +25%; median |error| 10%. Throughput ranks
  // are the same order on both sides (a > b > c): rho = 1.
  const auto results = evaluate_jobs(
      {s},
      [](const JobRun& run) {
        if (run.id == "d") return JobPrediction{std::nullopt, "d does not fit"};
        const double step = run.id == "a" ? 1.1 : run.id == "b" ? 1.8 : 5.0;
        return JobPrediction{step, ""};
      },
      2);
  ASSERT_EQ(results.size(), 1u);
  const auto& r = results.front();
  EXPECT_EQ(r.simulated, 3u);
  EXPECT_NEAR(*r.median_abs_error, 0.1, 1e-12);
  EXPECT_DOUBLE_EQ(*r.spearman, 1.0);
  EXPECT_FALSE(r.rows[3].predicted.step_s.has_value());
  EXPECT_EQ(r.rows[3].predicted.refusal, "d does not fit");
  const std::string md = format_jobs_markdown(results);
  EXPECT_NE(md.find("| hand | 4 | 3 | 1 | 10.0% | +1.00 |"), std::string::npos);
  EXPECT_NE(md.find("refused: d does not fit"), std::string::npos);
  EXPECT_EQ(md.find("FP8 training: not modelled"), std::string::npos);
}

// tests/data/jobs/small-runs.json with the real schema beside it: a folder of job sources that
// `linksim accuracy --training-jobs` runs in seconds. Two runs on one DGX H100 that linksim
// simulates, one with context parallelism, one in FP8, and one refusal, linksim's own (70B with
// plain data parallelism does not fit). `linksim accuracy --training-jobs` itself runs
// validate/jobs (docs/ACCURACY.md).
std::string small_runs_dir(const testing::TempDir& dir) {
  fs::copy_file(jobs_dir() + "/schema.json", dir.path() + "/schema.json");
  fs::copy_file(testing::source_dir() + "/tests/data/jobs/small-runs.json",
                dir.path() + "/small-runs.json");
  return dir.path();
}

TEST(JobAccuracyData, NoRunIsMeasuredByTheSourcesKeptForIndependentChecking) {
  // Narayanan et al. SC'21 (arXiv 2104.04473), Korthikanti et al. 2022 (arXiv 2205.05198), the
  // Llama 3 paper (arXiv 2407.21783): their measured throughput is neither fitted nor tested.
  const std::vector<std::string> kept_out{"2104.04473",
                                          "2205.05198",
                                          "2407.21783",
                                          "Efficient Large-Scale Language Model Training",
                                          "Reducing Activation Recomputation",
                                          "Llama 3 Herd",
                                          "Narayanan",
                                          "Korthikanti"};
  for (const auto& s : load_job_sources(jobs_dir())) {
    for (const auto& text : {s.title, s.url, s.version}) {
      for (const auto& name : kept_out)
        EXPECT_EQ(text.find(name), std::string::npos) << s.name << ": " << name;
    }
    for (const auto& run : s.runs) {
      for (const auto& text : {run.url, run.excerpt}) {
        for (const auto& name : kept_out)
          EXPECT_EQ(text.find(name), std::string::npos) << run.id << ": " << name;
      }
    }
  }
}

TEST(JobAccuracyData, WhatTheShippedSetRefusesBeforeSimulating) {
  // docs/ACCURACY.md's counts: 58 DGX Cloud runs (29 BF16 and their 29 FP8 twins, 22 with CP
  // 2), 8 NeMo 24.07 runs (all FP8) and 3 MT-NLG runs. 69 runs, none refused before anything is
  // simulated, each at its own dtype; the FP8 ones with precision.matmul "fp8". Adam's state as
  // each source's configuration kept it: NeMo's distributed_fused_adam keeps remainders
  // (gpt3-175b x 5 and llama3.1 x 11 at DGX Cloud, twice with the FP8 tables; 7 of the NeMo
  // 24.07 runs), bf16 moments without a master copy for nemotron4-340b (5 x 2 + 1), and
  // Megatron-Core's optimizer the default fp32 copy (nemotron4-15b, 8 x 2); MT-NLG states none.
  int runs = 0, refused = 0, fp8 = 0, remainder = 0, bf16_states = 0, fp32_master = 0;
  for (const auto& s : load_job_sources(jobs_dir())) {
    for (const auto& run : s.runs) {
      ++runs;
      refused += !unsupported_feature(run).empty();
      const Json scenario = job_scenario(run);
      // The run's dtype always: bf16 for the FP8 runs (only their GEMMs are FP8).
      Json precision{{"dtype", run.precision == "fp8" ? "bf16" : run.precision}};
      if (run.precision == "fp8") {
        ++fp8;
        precision["matmul"] = "fp8";
      }
      if (run.master_weights == "remainder") {
        ++remainder;
        precision["master_weights"] = "remainder";
      } else if (run.master_weights == "none") {
        ++bf16_states;
        EXPECT_EQ(run.optimizer_states, "bf16") << run.id;
        precision["optimizer_states"] = "bf16";
        precision["master_weights"] = "none";
      } else if (run.master_weights == "fp32") {
        ++fp32_master;
        precision["master_weights"] = "fp32";
      }
      EXPECT_EQ(scenario.at("precision"), precision) << run.id;
    }
  }
  EXPECT_EQ(runs, 58 + 8 + 3);
  EXPECT_EQ(refused, 0);
  EXPECT_EQ(fp8, 29 + 8);
  EXPECT_EQ(remainder, (5 + 11) * 2 + 7);
  EXPECT_EQ(bf16_states, 5 * 2 + 1);
  EXPECT_EQ(fp32_master, 8 * 2);
}

TEST(JobAccuracyCli, SmallRunsAsJsonRanOrRefusedWithWhyAndTheSameOnEveryThreadCount) {
  const testing::TempDir dir;
  const std::string jobs = small_runs_dir(dir);
  const auto one =
      testing::run_linksim("accuracy --training-jobs --format json -j 1 --jobs-dir " + jobs);
  ASSERT_EQ(one.exit_code, 0) << one.err;
  const auto sources = nlohmann::json::parse(one.out);
  ASSERT_EQ(sources.size(), 1u);
  const auto& s = sources[0];
  EXPECT_EQ(s["source"], "small-runs");
  EXPECT_EQ(s["simulated"], 4);
  ASSERT_EQ(s["rows"].size(), 5u);
  const auto& dp8 = s["rows"][0];
  const auto& tp2 = s["rows"][1];
  const auto& cp = s["rows"][2];
  const auto& fp8 = s["rows"][3];
  EXPECT_EQ(dp8["id"], "small-dp8");
  EXPECT_EQ(tp2["id"], "small-dp4-tp2");
  // 8 x 4096 tokens / (10240 tokens/s/GPU x 8 GPUs) = 0.4 s; 4 x 4096 / 81920 tokens/s = 0.2 s;
  // the context-parallel run's 0.3 s and the FP8 run's 0.5 s as given.
  EXPECT_DOUBLE_EQ(dp8["measured_step_s"].get<double>(), 0.4);
  EXPECT_DOUBLE_EQ(fp8["measured_step_s"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(tp2["measured_step_s"].get<double>(), 0.2);
  EXPECT_DOUBLE_EQ(cp["measured_step_s"].get<double>(), 0.3);
  std::vector<double> abs_errors;
  for (const auto* row : {&dp8, &tp2, &cp, &fp8}) {
    SCOPED_TRACE((*row)["id"].get<std::string>());
    ASSERT_TRUE(row->contains("predicted_step_s")) << row->dump();
    const double predicted = (*row)["predicted_step_s"].get<double>();
    EXPECT_GT(predicted, 0);
    EXPECT_DOUBLE_EQ((*row)["error"].get<double>(),
                     predicted / (*row)["measured_step_s"].get<double>() - 1);
    abs_errors.push_back(std::fabs((*row)["error"].get<double>()));
  }
  // FP8 runs small-dp8's model, plan and batch with its linear GEMMs at twice the peak: faster.
  EXPECT_LT(fp8["predicted_step_s"].get<double>(), dp8["predicted_step_s"].get<double>());
  // The median of four is the mean of the middle two; Spearman, with 4 runs that ran, is a rank
  // correlation.
  std::sort(abs_errors.begin(), abs_errors.end());
  EXPECT_DOUBLE_EQ(s["median_abs_error"].get<double>(), (abs_errors[1] + abs_errors[2]) / 2);
  ASSERT_TRUE(s["spearman"].is_number());
  EXPECT_LE(std::fabs(s["spearman"].get<double>()), 1.0);
  // The refused keeps its measured step (0.6 s as given) and says why.
  const auto& no_fit = s["rows"][4];
  EXPECT_DOUBLE_EQ(no_fit["measured_step_s"].get<double>(), 0.6);
  const std::string why = no_fit["refusal"].get<std::string>();
  EXPECT_TRUE(why.starts_with("llama2-70b does not fit on dgx-h100-x1")) << why;
  EXPECT_FALSE(no_fit.contains("predicted_step_s"));
  // No temporary scenario file's name (process id, counter) in the report: it would differ from
  // run to run.
  EXPECT_EQ(one.out.find("linksim-job-"), std::string::npos);
  const auto two =
      testing::run_linksim("accuracy --training-jobs --format json -j 2 --jobs-dir " + jobs);
  ASSERT_EQ(two.exit_code, 0) << two.err;
  EXPECT_EQ(one.out, two.out);
}

TEST(JobAccuracyCli, MarkdownAddsOneSectionAfterTheCollectivesReportListingEveryRefusal) {
  const testing::TempDir dir;
  const std::string jobs = small_runs_dir(dir);
  // An empty reference set keeps the collectives part to NVIDIA's two H100 figures (the shipped
  // sweeps take tens of seconds under the sanitizers); the jobs section comes after it either way.
  const testing::TempDir reference_dir;  // not beside the jobs' schema, which it would meet
  const std::string reference = reference_dir.write("reference.json", "[]");
  const auto md = testing::run_linksim("accuracy --training-jobs -j 2 --reference " + reference +
                                       " --jobs-dir " + jobs);
  ASSERT_EQ(md.exit_code, 0) << md.err;
  const auto plain = testing::run_linksim("accuracy --reference " + reference);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  ASSERT_LT(plain.out.size(), md.out.size());
  EXPECT_EQ(md.out.substr(0, plain.out.size()), plain.out);
  const std::string jobs_md = md.out.substr(plain.out.size());
  EXPECT_TRUE(jobs_md.starts_with("\n## Training jobs against published measurements\n"));
  // 5 runs, 4 ran, 1 refused.
  EXPECT_NE(jobs_md.find("| small-runs | 5 | 4 | 1 | "), std::string::npos);
  EXPECT_NE(jobs_md.find("| all sources | 5 | 4 | 1 | "), std::string::npos);
  EXPECT_NE(jobs_md.find("4 of 5 runs ran; 1 were refused:"), std::string::npos);
  EXPECT_EQ(jobs_md.find("context parallelism: not modelled"), std::string::npos);
  EXPECT_EQ(jobs_md.find("FP8 training: not modelled"), std::string::npos);
  EXPECT_NE(jobs_md.find("| refused by linksim as stated (does not fit, task bound, input) | 1 | "
                         "small-no-fit |"),
            std::string::npos);
  // Each run's row: 8 GPUs on one node, measured 0.4 s (above); a refusal in linksim's words.
  EXPECT_NE(jobs_md.find("| small-dp8 | llama2-7b | dgx-h100-superpod-su x 1 | 8 | DP 8 x TP 1 x "
                         "PP 1, 1 micro-batches, ZeRO-1 | 8 x 4096 | 0.400 | "),
            std::string::npos);
  EXPECT_NE(jobs_md.find("| 0.600 | refused: llama2-70b does not fit"), std::string::npos);
  EXPECT_NE(jobs_md.find("| small-cp2 | llama2-7b | dgx-h100-superpod-su x 1 | 8 | DP 4 x TP 1 x "
                         "PP 1 x CP 2, 1 micro-batches, ZeRO-1 | 4 x 4096 | 0.300 | "),
            std::string::npos);
  // small-fp8 is small-dp8 in FP8: one pair, measured 0.4 / 0.5 = x0.800; the last column is the
  // predicted speed-up over that (each printed to three decimals).
  EXPECT_NE(jobs_md.find("| FP8 against 16 bits | GPUs | measured speed-up (16-bit step / FP8 "
                         "step) | predicted | predicted / measured |"),
            std::string::npos);
  const std::string row = "| llama2-7b (small-dp8 / small-fp8) | 8 | x0.800 | x";
  const std::size_t at = jobs_md.find(row);
  ASSERT_NE(at, std::string::npos) << jobs_md;
  double predicted = 0, ratio = 0;
  ASSERT_EQ(std::sscanf(jobs_md.c_str() + at + row.size(), "%lf | %lf |", &predicted, &ratio), 2);
  EXPECT_GT(predicted, 1);  // FP8's GEMMs at twice the peak: faster
  EXPECT_NEAR(ratio, predicted / 0.8, 0.0015);
}

}  // namespace
}  // namespace linksim::validate
