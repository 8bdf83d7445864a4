// From one step to the whole run (sim/work/time_to_train.hpp), by hand.
#include "sim/work/time_to_train.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "tests/support/temp_files.hpp"

namespace linksim::work {
namespace {

TEST(TimeToTrain, DaysGpuHoursAndCostByHand) {
  // 15e12 tokens at 1e6 tokens/s: 1.5e7 s; at 90% goodput 1.5e7 / 0.9 = 16,666,666.67 s
  // (192.9 days). On 1,024 GPUs: 16,666,666.67 x 1,024 / 3,600 = 4,740,740.74 GPU-hours. At
  // $98.32 an hour for the machine: 98.32 x 16,666,666.67 / 3,600 = $455,185.19.
  const auto t = time_to_train(15e12, 0.9, 1e6, 1024, 98.32);
  ASSERT_TRUE(t);
  EXPECT_DOUBLE_EQ(t->time_s, 15e12 / 1e6 / 0.9);
  EXPECT_NEAR(t->time_s, 16'666'666.67, 0.01);
  EXPECT_NEAR(t->gpu_hours, 4'740'740.74, 0.01);
  ASSERT_TRUE(t->cost_usd);
  EXPECT_NEAR(*t->cost_usd, 455'185.19, 0.01);
  // No price, no cost; no throughput, no answer.
  EXPECT_FALSE(time_to_train(15e12, 1, 1e6, 8, std::nullopt)->cost_usd);
  EXPECT_FALSE(time_to_train(15e12, 1, 0, 8, 1.0));
}

TEST(TimeToTrain, TheReportCarriesItAndTheFlagSetsIt) {
  const auto r = testing::run_linksim("run default -t dgx-h100 --train-tokens 1T --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out).at(0);
  const double tokens_per_s = j.at("tokens_per_s").get<double>();
  EXPECT_EQ(j.at("train_tokens").get<double>(), 1e12);
  EXPECT_EQ(j.at("goodput").get<double>(), 1.0);
  // 1e12 tokens over the step's throughput; on the DGX H100's 8 GPUs.
  EXPECT_NEAR(j.at("time_to_train_s").get<double>(), 1e12 / tokens_per_s,
              1e-12 * 1e12 / tokens_per_s);
  EXPECT_NEAR(j.at("gpu_hours").get<double>(), 1e12 / tokens_per_s * 8 / 3600,
              1e-12 * 1e12 / tokens_per_s);
  EXPECT_FALSE(j.contains("cost_to_train_usd"));  // a bare machine has no price
}

TEST(TimeToTrain, BadBudgetsAreRefused) {
  const auto word = testing::run_linksim("run default --train-tokens lots");
  EXPECT_EQ(word.exit_code, 2);
  EXPECT_EQ(word.err,
            "linksim: error: --train-tokens: expected a number of tokens such as 15T, 300B or "
            "2e12, not \"lots\"\n");
  const auto inference = testing::run_linksim("run seed-70b-inference-tp8 --train-tokens 1T");
  EXPECT_EQ(inference.exit_code, 2);
  EXPECT_EQ(inference.err,
            "linksim: error: --train-tokens: a token budget needs a training scenario; "
            "seed-70b-inference-tp8 is not one\n");
  const testing::TempDir dir;
  const std::string file =
      dir.write("s.json", R"({"title": "t", "model": "llama2-7b", "topologies": ["dgx-a100"],
    "job": {"kind": "training", "global_batch": 8, "sequence_length": 2048, "goodput": 0.9},
    "plan": {"data": 8}})");
  const auto goodput = testing::run_linksim("run " + file);
  EXPECT_EQ(goodput.exit_code, 2);
  EXPECT_EQ(goodput.err, "linksim: error: " + file +
                             ": at /job/goodput: goodput scales a token budget: give "
                             "train_tokens\n");
}

}  // namespace
}  // namespace linksim::work
