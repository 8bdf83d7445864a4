// Every shipped scenario validates against scenarios/schema.json and loads.
#include <gtest/gtest.h>

#include <filesystem>

#include "sim/core/data_dir.hpp"
#include "sim/core/json_view.hpp"
#include "sim/core/schema_check.hpp"
#include "sim/topo/loader.hpp"
#include "sim/work/job_sim.hpp"
#include "sim/work/serving.hpp"

namespace linksim::work {
namespace {

TEST(ShippedScenariosTest, EveryScenarioValidatesAndLoads) {
  const Json schema = read_json_file(data_dir() + "/scenarios/schema.json");
  const auto files = shipped_scenario_files();
  ASSERT_GE(files.size(), 8u);
  for (const auto& f : files) {
    const auto problems = schema_violations(read_json_file(f), schema);
    EXPECT_TRUE(problems.empty()) << f << ": " << (problems.empty() ? "" : problems.front());
    const Scenario s = load_scenario(f);
    EXPECT_FALSE(s.topologies.empty()) << f;
  }
}

// The jobs people run, shipped: each runs on the machines it names.
TEST(ShippedScenariosTest, QloraSeventyBFitsAndTrainsOnOneFourGpuGeForceBox) {
  const Scenario sc = load_scenario("llama3-70b-qlora-4090");
  const JobResult r = simulate_job(topo::load_topology("rtx4090-4x"), load_model(sc.model), sc);
  EXPECT_EQ(r.gpus, 4);
  // 4-bit base sharded over 4 GPUs: under a quarter of 70.6e9 × 2 B per GPU.
  EXPECT_LT(r.memory.weights_bytes, 70.6e9 * 2 / 4 / 2);
  EXPECT_LE(r.memory.total_bytes(), 0.9 * topo::find_gpu_model("RTX-4090")->memory_bytes);
  EXPECT_GT(r.tokens_per_s, 0);
}

TEST(ShippedScenariosTest, SeventyBInt4OnFourGeForcesReportsTtftAndTpot) {
  const Scenario sc = load_scenario("llama3-70b-int4-tp4-4090");
  const ServingResult r =
      simulate_serving(topo::load_topology("rtx4090-4x"), load_model(sc.model), sc);
  EXPECT_EQ(r.gpus, 4);
  EXPECT_GT(r.ttft.p50_s, 0);
  EXPECT_GT(r.tpot.p50_s, 0);
  // A 1024-token prefill takes longer than one decode step.
  EXPECT_GT(r.ttft.p50_s, r.tpot.p50_s);
  EXPECT_EQ(r.requests, 8);
}

TEST(ShippedScenariosTest, ServingAtARequestRateRunsOnEachMachine) {
  const Scenario sc = load_scenario("llama3-8b-serving");
  for (const auto& name : sc.topologies) {
    const ServingResult r = simulate_serving(topo::load_topology(name), load_model(sc.model), sc);
    EXPECT_EQ(r.requests, 800) << name;
    EXPECT_TRUE(r.cost_per_mtoken_usd) << name;  // both are priced cloud instances
    EXPECT_LE(r.max_batch_seen, 64) << name;
  }
}

}  // namespace
}  // namespace linksim::work
