#include "sim/work/plan_search.hpp"

#include <gtest/gtest.h>

#include "sim/topo/cluster_builder.hpp"
#include "sim/topo/loader.hpp"
#include "sim/work/memory.hpp"
#include "sim/work/plan_check.hpp"
#include "tests/support/temp_files.hpp"
#include "tests/support/two_gpu_host.hpp"

namespace linksim::work {
namespace {

using linksim::testing::TempDir;

Scenario llama7b(const TempDir& dir, const std::string& plan) {
  return load_scenario(dir.write("s.json", R"({"title": "t", "topologies": ["dgx-a100"],
    "model": "llama2-7b", "job": {"kind": "training", "global_batch": 16, "sequence_length": 2048},
    "plan": )" + plan + "}"));
}

TEST(PlanSearch, EveryRankedPlanRunsFitsAndIsInOrder) {
  TempDir dir;
  const Scenario sc = llama7b(dir, R"({"data": 8})");
  const ModelSpec model = load_model(sc.model);
  const topo::Topology a100 = topo::load_topology("dgx-a100");
  const PlanSearchResult r = search_plans(sc, model, {&a100});
  ASSERT_FALSE(r.ranked.empty());
  EXPECT_EQ(r.simulated, r.ranked.size());
  const topo::GpuModel gpu = *topo::find_gpu_model("A100-SXM4-80GB");
  for (std::size_t i = 0; i < r.ranked.size(); ++i) {
    const auto& p = r.ranked[i];
    EXPECT_FALSE(plan_problem(a100, model, sc.job, p.plan));
    EXPECT_TRUE(check_fit(model, sc.job, p.plan, gpu).fits);
    EXPECT_LE(p.plan.gpus(), 8);
    if (i > 0) {
      EXPECT_LE(r.ranked[i - 1].result.step_s, p.result.step_s);
    }
  }
  // 7B full training takes 16 B per parameter under DDP: 108 GB, more than an A100's 77.3 GB
  // usable; every plan shards it (ZeRO >= 1, or TP x PP >= 2).
  for (const auto& p : r.ranked) {
    EXPECT_TRUE(p.plan.zero_stage >= 1 || p.plan.tensor * p.plan.pipeline >= 2);
  }
}

TEST(PlanSearch, RanksByCostWhereMachinesHaveAPrice) {
  TempDir dir;
  const Scenario sc = llama7b(dir, R"({"data": 8})");
  const ModelSpec model = load_model(sc.model);
  const topo::Topology p4d = topo::load_topology("aws-p4d.24xlarge");
  PlanSearchOptions o;
  o.rank_by = PlanRanking::cost_per_mtoken;
  o.max_simulated = 6;
  const PlanSearchResult r = search_plans(sc, model, {&p4d}, o);
  ASSERT_EQ(r.ranked.size(), 6u);
  for (std::size_t i = 1; i < r.ranked.size(); ++i) {
    ASSERT_TRUE(r.ranked[i].cost_per_mtoken_usd);
    EXPECT_LE(*r.ranked[i - 1].cost_per_mtoken_usd, *r.ranked[i].cost_per_mtoken_usd);
  }
  // $/Mtoken = price per second / tokens per second × 1e6.
  const auto& best = r.ranked.front();
  EXPECT_DOUBLE_EQ(*best.cost_per_mtoken_usd,
                   *best.result.price_per_hour_usd / 3600 / best.result.tokens_per_s * 1e6);
}

TEST(PlanSearch, SmallestPlanAdviceRunsOnTheMachineGiven) {
  // DDP 7B on a DGX A100 does not fit; the plan the message names must run there as given.
  TempDir dir;
  const Scenario sc = llama7b(dir, R"({"data": 8})");
  const ModelSpec model = load_model(sc.model);
  const topo::Topology a100 = topo::load_topology("dgx-a100");
  std::string message;
  try {
    simulate_job(a100, model, sc);
    FAIL() << "DDP 7B fitted an A100";
  } catch (const DoesNotFit& e) {
    message = e.message();
  }
  int dp = 0, tp = 0, pp = 0, zero = 0, mb = 0;
  const auto at = message.find("the smallest plan that fits is ");
  ASSERT_NE(at, std::string::npos) << message;
  ASSERT_EQ(std::sscanf(message.c_str() + at,
                        "the smallest plan that fits is data %d x tensor %d x pipeline %d with "
                        "ZeRO stage %d and %d micro-batches",
                        &dp, &tp, &pp, &zero, &mb),
            5)
      << message;
  Scenario fixed = sc;
  fixed.plan.data = dp;
  fixed.plan.tensor = tp;
  fixed.plan.pipeline = pp;
  fixed.plan.zero_stage = zero;
  fixed.plan.micro_batches = mb;
  const JobResult r = simulate_job(a100, model, fixed);
  EXPECT_EQ(r.gpus, dp * tp * pp);
  EXPECT_TRUE(r.failure.empty());
}

TEST(PlanSearch, TensorFourOnFourOfEightGpus) {
  TempDir dir;
  const Scenario sc = load_scenario(dir.write("s.json", R"({"title": "t",
    "topologies": ["dgx-a100"], "model": "llama2-70b",
    "job": {"kind": "decode", "global_batch": 1, "sequence_length": 512, "decode_tokens": 8},
    "plan": {"tensor": 4}})"));
  const JobResult r = simulate_job(topo::load_topology("dgx-a100"), load_model(sc.model), sc);
  EXPECT_EQ(r.gpus, 4);
  ASSERT_TRUE(r.by_group.count("TP"));
  EXPECT_GT(r.by_group.at("TP").collectives, 0);
  EXPECT_NEAR(r.compute_s + r.exposed_comm_s + r.idle_s, r.step_s, 1e-9 * r.step_s);
}

// On a cluster, a candidate is simulated on the hosts its GPUs occupy (topo::cluster_prefix),
// with the result the whole cluster gives.
TEST(PlanSearch, CandidatesOnAClusterRunOnTheHostsTheyOccupy) {
  TempDir dir;
  const topo::Topology host =
      topo::load_topology(dir.write("host.json", linksim::testing::two_gpu_host_json()));
  const topo::Topology cluster = topo::build_cluster(host, 4, topo::FabricSpec{});  // 8 GPUs
  const Scenario sc = load_scenario(dir.write("s.json", R"({"title": "t",
    "topologies": ["dgx-a100"], "model": "llama2-7b",
    "job": {"kind": "decode", "global_batch": 2, "sequence_length": 512, "decode_tokens": 4},
    "plan": {}})"));
  const ModelSpec model = load_model(sc.model);
  const PlanSearchResult r = search_plans(sc, model, {&cluster});
  // TP up to a host's 2 GPUs; PP powers of two up to 8 / TP; DP the largest divisor of the batch
  // (2) with TP x PP x DP <= 8; one micro-batch (inference):
  //   TP 1: PP 1 DP 2 (2 GPUs, 1 host), PP 2 DP 2 (4, 2 hosts), PP 4 DP 2 (8, 4), PP 8 DP 1 (8, 4)
  //   TP 2: PP 1 DP 2 (4 GPUs, 2 hosts), PP 2 DP 2 (8, 4), PP 4 DP 1 (8, 4)
  // 7 candidates; 7B's 13.5 GB of weights fit every one. The three on fewer than 4 hosts run on
  // those hosts alone.
  EXPECT_EQ(r.enumerated, 7u);
  ASSERT_EQ(r.fitting, 7u);
  EXPECT_EQ(r.simulated, 7u);
  EXPECT_EQ(r.on_occupied_hosts, 3u);
  for (const auto& p : r.ranked) {
    Scenario one = sc;
    one.plan = p.plan;
    const JobResult whole = simulate_job(cluster, model, one);
    EXPECT_EQ(p.machine, cluster.name);
    EXPECT_EQ(p.result.machine, whole.machine);
    EXPECT_EQ(p.result.machine_title, whole.machine_title);
    EXPECT_EQ(p.result.step_s, whole.step_s);
    EXPECT_EQ(p.result.exposed_comm_s, whole.exposed_comm_s);
    EXPECT_EQ(p.result.bottlenecks, whole.bottlenecks);
    ASSERT_EQ(p.result.by_group.size(), whole.by_group.size());
    for (const auto& [group, m] : whole.by_group)
      EXPECT_EQ(p.result.by_group.at(group).time_s, m.time_s) << group;
  }
}

TEST(PlanSearch, GradientSyncAndServingHaveNoPlanToSearch) {
  const Scenario sc = load_scenario("seed-gradient-sync");
  EXPECT_THROW(search_plans(sc, ModelSpec{}, {}), InputError);
}

}  // namespace
}  // namespace linksim::work
