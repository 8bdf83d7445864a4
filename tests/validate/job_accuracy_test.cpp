// The training-job accuracy set (validate/jobs/, validate/accuracy_jobs.hpp) and its report
// (`linksim accuracy --training-jobs`).
#include <gtest/gtest.h>

#include <cmath>
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
  auto add = [&](const std::string& id, double measured_s, int context) {
    JobRun run;
    run.id = id;
    run.plan = Json{{"data", 1}, {"tensor", 1}, {"pipeline", 1}, {"context", context}};
    run.global_batch = 1;
    run.sequence_length = 1;
    run.precision = "bf16";
    run.measured_value = measured_s;
    run.measured_unit = "step_s";
    s.runs.push_back(run);
  };
  add("a", 1.0, 1);
  add("b", 2.0, 1);
  add("c", 4.0, 1);
  add("d", 1.0, 2);  // context parallel: refused before the predictor runs
  // Predicted 1.1, 1.8, 5.0 s: errors +10%, -10%, +25%; median |error| 10%. Throughput ranks
  // are the same order on both sides (a > b > c): rho = 1.
  const auto results = evaluate_jobs(
      {s},
      [](const JobRun& run) {
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
  EXPECT_NE(r.rows[3].predicted.refusal.find("context parallelism (CP 2)"), std::string::npos);
  const std::string md = format_jobs_markdown(results);
  EXPECT_NE(md.find("| hand | 4 | 3 | 1 | 10.0% | +1.00 |"), std::string::npos);
  EXPECT_NE(md.find("refused: context parallelism (CP 2)"), std::string::npos);
}

// A subset of validate/jobs that runs in seconds: every refusal kind (context parallelism, FP8,
// the task bound) and, with `simulated`, the smallest run (Nemotron-4 15B on 16 GPUs) cut to one
// micro-batch of 4 sequences, through `linksim accuracy --training-jobs`. `linksim accuracy
// --training-jobs` itself runs the whole set (docs/ACCURACY.md).
std::string subset_dir(const testing::TempDir& dir, bool simulated) {
  fs::copy_file(jobs_dir() + "/schema.json", dir.path() + "/schema.json");
  const Json full = read_json_file(jobs_dir() + "/dgxc-benchmarking.json");
  Json subset = full;
  subset["runs"] = Json::array();
  for (const auto& run : full["runs"]) {
    const std::string id = run["id"].get<std::string>();
    if (id == "llama3.1-8b-bf16-8gpu" || id == "gpt3-175b-bf16-2048gpu") {
      subset["runs"].push_back(run);
    }
    if (simulated && id == "nemotron4-15b-bf16-16gpu") {
      Json small = run;
      small["plan"]["micro_batches"] = 1;
      small["job"]["global_batch"] = 4;
      subset["runs"].push_back(small);
    }
  }
  dir.write("dgxc-subset.json", subset.dump(2));
  Json fp8 = read_json_file(jobs_dir() + "/nemo-performance-summary-24.07.json");
  fp8["runs"] = Json::array({fp8["runs"][0]});
  dir.write("nemo-fp8.json", fp8.dump(2));
  return dir.path();
}

TEST(JobAccuracyCli, EveryRunSimulatesOrIsListedWithItsRefusalAndTheReportIsDeterministic) {
  const testing::TempDir dir;
  const std::string jobs = subset_dir(dir, true);
  const auto one =
      testing::run_linksim("accuracy --training-jobs --format json -j 1 --jobs-dir " + jobs);
  ASSERT_EQ(one.exit_code, 0) << one.err;
  const auto sources = nlohmann::json::parse(one.out);
  ASSERT_EQ(sources.size(), 2u);
  int simulated = 0, refused = 0;
  for (const auto& s : sources) {
    for (const auto& row : s["rows"]) {
      SCOPED_TRACE(row.dump());
      if (row.contains("predicted_step_s")) {
        ++simulated;
        EXPECT_GT(row["predicted_step_s"].get<double>(), 0);
      } else {
        ++refused;
        EXPECT_FALSE(row["refusal"].get<std::string>().empty());
      }
    }
  }
  EXPECT_EQ(simulated, 1);  // the Nemotron-4 15B run
  EXPECT_EQ(refused, 3);    // CP 2, the task bound at 2,048 GPUs, FP8
  const auto two =
      testing::run_linksim("accuracy --training-jobs --format json -j 2 --jobs-dir " + jobs);
  ASSERT_EQ(two.exit_code, 0) << two.err;
  EXPECT_EQ(one.out, two.out);
}

TEST(JobAccuracyCli, MarkdownAddsOneSectionAfterTheUnchangedCollectivesReport) {
  const testing::TempDir dir;
  const std::string jobs = subset_dir(dir, false);
  // (Determinism over thread counts: the JSON test above; the Markdown is made from the same
  // results.)
  const auto md1 = testing::run_linksim("accuracy --training-jobs -j 2 --jobs-dir " + jobs);
  ASSERT_EQ(md1.exit_code, 0) << md1.err;
  EXPECT_NE(md1.out.find("## Training jobs against published measurements"), std::string::npos);
  EXPECT_NE(md1.out.find("refused: FP8 training"), std::string::npos);
  const auto plain = testing::run_linksim("accuracy");
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(md1.out.substr(0, plain.out.size()), plain.out);
}

}  // namespace
}  // namespace linksim::validate
