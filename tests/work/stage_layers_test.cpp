// Uneven pipeline stages (plan.first_stage_layers, plan.last_stage_layers;
// sim/work/stage_layers.hpp): the split, its checks, and a step that runs on it.
#include "sim/work/stage_layers.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/topo/loader.hpp"
#include "sim/work/job_sim.hpp"
#include "sim/work/memory.hpp"
#include "tests/support/temp_files.hpp"
#include "tests/support/tiny_model.hpp"

namespace linksim::work {
namespace {

ModelSpec layers(int n) {
  ModelSpec m;
  m.name = "m";
  m.layers = n;
  return m;
}

ParallelPlan stages(int pipeline, int first, int last) {
  ParallelPlan p;
  p.pipeline = pipeline;
  p.first_stage_layers = first;
  p.last_stage_layers = last;
  return p;
}

TEST(StageLayersTest, EvenByDefaultTheRemainderFirst) {
  // 126 = 16 x 7 + 14: the first 14 stages take 8, the last 2 take 7.
  std::vector<int> expected(14, 8);
  expected.push_back(7);
  expected.push_back(7);
  EXPECT_EQ(stage_layers(layers(126), stages(16, 0, 0)), expected);
  EXPECT_EQ(most_stage_layers(layers(126), stages(16, 0, 0)), 8);
}

TEST(StageLayersTest, FirstAndLastOfTheirOwnTheRestEven) {
  // Llama 3 405B's 126 layers on 16 stages, 7 on the first and the last: 112 left over 14
  // stages, 8 each.
  std::vector<int> expected{7};
  for (int s = 0; s < 14; ++s)
    expected.push_back(8);
  expected.push_back(7);
  EXPECT_EQ(stage_layers(layers(126), stages(16, 7, 7)), expected);
  EXPECT_FALSE(stage_layers_problem(layers(126), stages(16, 7, 7)));
  // First only: 32 - 5 = 27 over 3 stages, 9 each.
  EXPECT_EQ(stage_layers(layers(32), stages(4, 5, 0)), (std::vector<int>{5, 9, 9, 9}));
  // Last only, 2 stages: 3 + 1.
  EXPECT_EQ(stage_layers(layers(4), stages(2, 0, 1)), (std::vector<int>{3, 1}));
}

TEST(StageLayersTest, SplitsThatDoNotWorkNameTheField) {
  const auto message = [](int total, const ParallelPlan& p) {
    const auto problem = stage_layers_problem(layers(total), p);
    return problem ? problem->pointer + ": " + problem->message : std::string();
  };
  EXPECT_EQ(message(32, stages(1, 4, 0)),
            "/plan/first_stage_layers: a first or last stage of its own needs pipeline >= 2; "
            "pipeline is 1");
  // 32 - 4 - 4 = 24 over 3 stages between: 8 each, fine; 32 - 5 - 4 = 23: not.
  EXPECT_EQ(message(32, stages(5, 4, 4)), "");
  EXPECT_EQ(message(32, stages(5, 5, 4)),
            "/plan/first_stage_layers: m's 32 layers less 9 on the first and last stages leave 23 "
            "for the 3 stages between, which must split evenly with at least one each; expected "
            "first and last layers leaving a multiple of 3");
  EXPECT_EQ(message(32, stages(2, 10, 20)),
            "/plan/first_stage_layers: with 2 stages, first_stage_layers 10 + last_stage_layers "
            "20 must be m's 32 layers");
  EXPECT_EQ(message(32, stages(2, 0, 40)),
            "/plan/last_stage_layers: m's 32 layers less 40 on the first and last stages leave -8 "
            "for the 1 stages between, which must split evenly with at least one each; expected "
            "first and last layers leaving a multiple of 1");
}

TEST(StageLayersTest, AnUnbalancedSplitTakesLongerAndSizesTheBusiestStage) {
  // tiny: 4 layers on 2 stages. Even: 2 + 2. first_stage_layers 1: 1 + 3, so the last stage
  // holds 3 layers (memory) and sets the pace of 1F1B (a longer step).
  const linksim::testing::TempDir dir;
  const auto scenario = [&](const std::string& extra) {
    return load_scenario(linksim::testing::write_tiny_scenario(
        dir, "dgx-h100", R"({"kind": "training", "global_batch": 8, "sequence_length": 512})",
        R"({"pipeline": 2, "micro_batches": 8)" + extra + "}"));
  };
  const Scenario even = scenario("");
  const Scenario uneven = scenario(R"(, "first_stage_layers": 1)");
  const topo::Topology h100 = topo::load_topology("dgx-h100");
  const ModelSpec model = load_model(even.model);
  const JobResult a = simulate_job(h100, model, even);
  const JobResult b = simulate_job(h100, model, uneven);
  EXPECT_GT(b.step_s, a.step_s);
  EXPECT_GT(b.memory.weights_bytes, a.memory.weights_bytes);
}

}  // namespace
}  // namespace linksim::work
