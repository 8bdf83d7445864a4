// The energy model (sim/work/power_model.hpp, sim/work/job_energy.hpp): joules of a step by
// hand, where the machine figures come from, and what the report carries.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "sim/topo/cluster_loader.hpp"
#include "sim/topo/gpu_model.hpp"
#include "sim/topo/loader.hpp"
#include "sim/work/job_energy.hpp"
#include "sim/work/job_result.hpp"
#include "sim/work/power_model.hpp"
#include "tests/support/temp_files.hpp"

namespace linksim::work {
namespace {

// Six busy GPUs of eight on one host with a 4,600 W non-GPU budget; a 2 s step, 1.5 s computing.
PoweredMachines six_of_eight() {
  PoweredMachines m;
  m.gpu_tdp_w = 700;
  m.busy_gpus = 6;
  m.powered_gpus = 8;
  m.hosts = 1;
  m.host_non_gpu_w = 4600;
  return m;
}

TEST(PowerModel, StepEnergyByHandAtEachEnd) {
  // Point (idle 0.10, compute 1.0, wait 0.3, host 0.6): idle 70 W, computing 70 + 630 = 700 W,
  // waiting 70 + 630 x 0.3 = 259 W. A busy GPU: 1.5 x 700 + 0.5 x 259 = 1,179.5 J; six of them
  // 7,077 J; two idle GPUs 2 x 70 x 2 = 280 J; the host 0.6 x 4,600 x 2 = 5,520 J. 12,877 J.
  EXPECT_NEAR(step_energy_j(six_of_eight(), 2, 1.5, power_constants(PowerEnd::point)), 12877, 1e-9);
  // Low (0.05, 0.85, 0.15, 0.4): idle 35 W, computing 35 + 665 x 0.85 = 600.25 W, waiting
  // 35 + 665 x 0.15 = 134.75 W. 6 x (1.5 x 600.25 + 0.5 x 134.75) = 5,806.5; 2 x 35 x 2 = 140;
  // 0.4 x 4,600 x 2 = 3,680. 9,626.5 J.
  EXPECT_NEAR(step_energy_j(six_of_eight(), 2, 1.5, power_constants(PowerEnd::low)), 9626.5, 1e-9);
  // High (0.15, 1.0, 0.5, 1.0): idle 105 W, computing 700 W, waiting 105 + 595 x 0.5 = 402.5 W.
  // 6 x (1,050 + 201.25) = 7,507.5; 2 x 105 x 2 = 420; 4,600 x 2 = 9,200. 17,127.5 J.
  EXPECT_NEAR(step_energy_j(six_of_eight(), 2, 1.5, power_constants(PowerEnd::high)), 17127.5,
              1e-9);
  // Without a host figure the host's 5,520 J is not counted: 7,357 J.
  PoweredMachines gpus_only = six_of_eight();
  gpus_only.host_non_gpu_w.reset();
  EXPECT_NEAR(step_energy_j(gpus_only, 2, 1.5, power_constants(PowerEnd::point)), 7357, 1e-9);
}

TEST(PowerModel, EveryConstantLiesInItsRangeWithASource) {
  for (const PowerConstant& c : power_constant_table()) {
    EXPECT_LE(c.range.lo, c.value) << c.name;
    EXPECT_LE(c.value, c.range.hi) << c.name;
    EXPECT_GE(c.range.lo, 0) << c.name;
    EXPECT_LE(c.range.hi, 1) << c.name;  // shares and fractions: never above the rating
    EXPECT_FALSE(c.source.empty()) << c.name;
  }
}

TEST(PowerModel, BoardPowerComesFromTheCatalogAndHostPowerFromTheBaseFile) {
  EXPECT_EQ(topo::find_gpu_model("H100-SXM5-80GB")->tdp_w, 700);
  EXPECT_EQ(topo::find_gpu_model("A100-SXM4-80GB")->tdp_w, 400);
  EXPECT_EQ(topo::find_gpu_model("A10G")->tdp_w, 0);  // no public datasheet: not guessed
  // DGX H100: 10.2 kW rated less 8 x 700 W. p5 takes dgx-h100 as its base and inherits it.
  const topo::Topology p5 = topo::load_topology("aws-p5.48xlarge");
  ASSERT_TRUE(p5.host_power);
  EXPECT_EQ(p5.host_power->non_gpu_w, 4600);
  // A cluster's hosts each draw it.
  const topo::Topology cluster = topo::scale_out(p5, 2);
  ASSERT_TRUE(cluster.host_power);
  EXPECT_EQ(cluster.host_power->non_gpu_w, 4600);
  EXPECT_FALSE(topo::load_topology("rtx4090-4x").host_power);
}

TEST(PowerModel, AJobOnTwoHostsCountsWholeHostsAndTheStepRange) {
  // 12 GPUs of a 2 x 8 cluster: both hosts are powered, 4 GPUs idle. Step 1 s, computing
  // 0.5 s, 1,200 tokens a step. Busy GPU: 0.5 x 700 + 0.5 x 259 = 479.5 J, x 12 = 5,754; idle
  // 4 x 70 = 280; hosts 2 x 0.6 x 4,600 = 5,520. 11,554 J; 11,554 / 1,200 = 9.628333 J a token.
  const topo::Topology cluster = topo::scale_out(topo::load_topology("dgx-h100"), 2);
  JobResult r;
  r.gpus = 12;
  r.step_s = 1;
  r.compute_s = 0.5;
  r.tokens_per_step = 1200;
  const auto e = job_energy(cluster, r);
  ASSERT_TRUE(e);
  EXPECT_NEAR(e->step_j, 11554, 1e-9);
  EXPECT_NEAR(e->per_token_j, 11554.0 / 1200, 1e-12);
  EXPECT_NEAR(e->mean_power_w, 11554, 1e-9);
  EXPECT_TRUE(e->includes_hosts);
  // With a step range of 0.8 to 1.5 s the split keeps its shares (0.4 and 0.75 s computing).
  // Low end, low constants at 0.8 s: busy 0.4 x 600.25 + 0.4 x 134.75 = 294 J, x 12 = 3,528;
  // idle 4 x 35 x 0.8 = 112; hosts 2 x 0.4 x 4,600 x 0.8 = 2,944. 6,584 J.
  // High end, high constants at 1.5 s: busy 0.75 x 700 + 0.75 x 402.5 = 826.875, x 12 =
  // 9,922.5; idle 4 x 105 x 1.5 = 630; hosts 2 x 4,600 x 1.5 = 13,800. 24,352.5 J.
  r.step_range_s = topo::Range{0.8, 1.5};
  const auto ranged = job_energy(cluster, r);
  EXPECT_NEAR(ranged->step_j, 11554, 1e-9);
  EXPECT_NEAR(ranged->step_j_range.lo, 6584, 1e-9);
  EXPECT_NEAR(ranged->step_j_range.hi, 24352.5, 1e-9);
}

TEST(PowerModel, ServingCountsIterationsAsComputingAndTheGapsAsIdle) {
  // A DGX H100 serving for 10 s, each of its 8 GPUs in iterations for 6 s, 1,000 output tokens.
  // Point: a GPU 6 x 700 + 4 x 70 = 4,480 J, x 8 = 35,840; host 0.6 x 4,600 x 10 = 27,600.
  // 63,440 J: 63.44 J a token, 6,344 W. Low: 6 x 600.25 + 4 x 35 = 3,741.5, x 8 = 29,932; host
  // 0.4 x 46,000 = 18,400: 48.332 J a token. High: 6 x 700 + 4 x 105 = 4,620, x 8 = 36,960;
  // host 46,000: 82.96 J a token.
  const auto e = serving_energy(powered_machines(topo::load_topology("dgx-h100"), 8), 10, 48, 1000);
  ASSERT_TRUE(e);
  EXPECT_NEAR(e->per_output_token_j, 63.44, 1e-12);
  EXPECT_NEAR(e->mean_power_w, 6344, 1e-9);
  EXPECT_NEAR(e->per_output_token_j_range.lo, 48.332, 1e-12);
  EXPECT_NEAR(e->per_output_token_j_range.hi, 82.96, 1e-12);
  EXPECT_TRUE(e->includes_hosts);
  EXPECT_FALSE(
      serving_energy(powered_machines(topo::load_topology("aws-g5.48xlarge"), 8), 10, 48, 1000));
}

TEST(PowerModel, TheReportCarriesEnergyAndSaysWhenItCannot) {
  const auto r = testing::run_linksim("run default -t dgx-h100 --train-tokens 1T --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out).at(0);
  const double step = j.at("step_s").get<double>();
  const double compute = j.at("compute_s").get<double>();
  const int gpus = j.at("gpus").get<int>();
  ASSERT_EQ(gpus, 8);
  // Every GPU of the one host busy: 8 x (compute x 700 + (step - compute) x 259) + 0.6 x 4,600
  // x step.
  const double expected = 8 * (compute * 700 + (step - compute) * 259) + 0.6 * 4600 * step;
  EXPECT_NEAR(j.at("energy_per_step_j").get<double>(), expected, 1e-9 * expected);
  const auto range = j.at("energy_per_step_j_range");
  EXPECT_LT(range.at(0).get<double>(), expected);
  EXPECT_GT(range.at(1).get<double>(), expected);
  EXPECT_EQ(j.at("energy_scope"), "gpus and hosts");
  EXPECT_NEAR(j.at("energy_to_train_j").get<double>(),
              expected * j.at("time_to_train_s").get<double>() / step, 1e-9 * expected * 1e6);
  // A GPU with no published board power: no energy figures, and a note saying why.
  const auto g5 = testing::run_linksim("run default -t aws-g5.48xlarge");
  ASSERT_EQ(g5.exit_code, 0) << g5.err;
  EXPECT_EQ(g5.out.find("  energy "), std::string::npos);
  EXPECT_NE(g5.out.find("note: energy not reported: A10G has no published board power (give "
                        "tdp_w in the machine file's gpu_models)"),
            std::string::npos);
}

TEST(PowerModel, BadPowerFiguresAreRefusedWithTheirPath) {
  const testing::TempDir dir;
  const std::string file =
      dir.write("m.json", R"({"title": "t", "base": ")" + topo::load_topology("dgx-h100").file +
                              R"(", "host_power": {"non_gpu_w": -1, "source": "x"}})");
  const auto r = testing::run_linksim("topo show " + file);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "linksim: error: " + file +
                       ": at /host_power/non_gpu_w: expected a power in watts between 0 and "
                       "1000000\n");
}

}  // namespace
}  // namespace linksim::work
