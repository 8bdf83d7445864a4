// Context parallelism (plan.context): the plan's checks, the ring attention's K/V exchange in the
// step's graph, memory per GPU, and folding with it.
#include <gtest/gtest.h>

#include <string>

#include "sim/core/error.hpp"
#include "sim/topo/cluster_loader.hpp"
#include "sim/topo/loader.hpp"
#include "sim/work/job_sim.hpp"
#include "sim/work/memory.hpp"
#include "sim/work/plan_check.hpp"
#include "sim/work/replica_folding.hpp"
#include "tests/support/temp_files.hpp"
#include "tests/support/tiny_model.hpp"

namespace linksim::work {
namespace {

using linksim::testing::TempDir;

Scenario tiny_scenario(const TempDir& dir, const std::string& plan,
                       const std::string& job = R"({"kind": "training", "global_batch": 8,
                                                    "sequence_length": 512})") {
  return load_scenario(testing::write_tiny_scenario(dir, "dgx-h100", job, plan));
}

std::string problem_pointer(const Scenario& sc, const topo::Topology& machine) {
  const auto p = plan_problem(machine, load_model(sc.model), sc.job, sc.plan);
  return p ? p->pointer + ": " + p->message : "";
}

TEST(ContextParallelTest, ThePlanCountsContextRanksAndChecksTheSplit) {
  const TempDir dir;
  const topo::Topology h100 = topo::load_topology("dgx-h100");
  // data 2 x context 2 x tensor 2 = 8 GPUs: fits the machine.
  EXPECT_EQ(problem_pointer(tiny_scenario(dir, R"({"data": 2, "context": 2, "tensor": 2})"), h100),
            "");
  // data 4 x context 2 x tensor 2 = 16 > 8.
  const Scenario big = tiny_scenario(dir, R"({"data": 4, "context": 2, "tensor": 2})");
  EXPECT_EQ(big.plan.gpus(), 16);
  const auto too_big = plan_problem(h100, load_model(big.model), big.job, big.plan);
  ASSERT_TRUE(too_big);
  EXPECT_TRUE(too_big->machine_too_small);
  EXPECT_NE(too_big->message.find("data 4 x context 2 x tensor 2 x pipeline 1 = 16 GPUs"),
            std::string::npos);
  // 512 tokens in 2 x 3 chunks: no.
  EXPECT_EQ(problem_pointer(tiny_scenario(dir, R"({"data": 2, "context": 3})"), h100),
            "/plan/context: context 3 does not split the sequence of 512 tokens into 2 x 3 equal "
            "chunks (Megatron-LM's load-balanced split); expected a sequence length divisible "
            "by 6");
  EXPECT_EQ(problem_pointer(tiny_scenario(dir, R"({"context": 2, "flash_attention": false})"), h100)
                .substr(0, 60),
            "/plan/context: context parallelism runs as fused ring attent");
  EXPECT_EQ(problem_pointer(tiny_scenario(dir, R"({"context": 2})",
                                          R"({"kind": "decode", "global_batch": 1,
                                              "sequence_length": 512, "decode_tokens": 8})"),
                            h100),
            "/plan/context: context parallelism splits a training or prefill sequence; a decode "
            "job has none to split: expected context 1");
}

TEST(ContextParallelTest, RingAttentionExchangesKeysAndValuesBesideTheAttention) {
  // data 2 x context 2: 8 sequences / 2 data ranks / 2 micro-batches = 2 sequences a
  // micro-batch, each GPU 512 / 2 = 256 tokens of each: 512 tokens. The CP group's K and V:
  // 512 tokens x 2 ranks x 2,048 elements x 2 bytes = 4,194,304 bytes. Per layer and
  // micro-batch, each of the 2 CP groups runs an all-gather in the forward and an all-gather
  // and a reduce-scatter in the backward: 4 layers x 2 micro-batches x 3 x 2 groups = 48.
  const TempDir dir;
  const Scenario sc = tiny_scenario(dir, R"({"data": 2, "context": 2, "micro_batches": 2})");
  const JobResult r = simulate_job(topo::load_topology("dgx-h100"), load_model(sc.model), sc);
  ASSERT_TRUE(r.by_group.count("CP"));
  EXPECT_EQ(r.by_group.at("CP").collectives, 48);
  EXPECT_EQ(r.by_group.at("CP").bytes, 48 * 4'194'304.0);
  EXPECT_EQ(r.gpus, 4);
  // 8 x 512 tokens a step.
  EXPECT_EQ(r.tokens_per_step, 4096);
}

TEST(ContextParallelTest, EachGpuHoldsItsShareOfTheActivations) {
  // With FlashAttention every activation term is linear in the tokens a GPU keeps (memory.hpp):
  // context 2 halves them exactly.
  const TempDir dir;
  const Scenario one = tiny_scenario(dir, R"({"data": 2})");
  const Scenario two = tiny_scenario(dir, R"({"data": 2, "context": 2})");
  const ModelSpec model = load_model(one.model);
  const topo::Topology h100 = topo::load_topology("dgx-h100");
  const topo::GpuModel& gpu = *h100.node(h100.nodes_of(topo::NodeKind::gpu)[0]).gpu;
  const double a1 = check_fit(model, one.job, one.plan, gpu).need.activations_bytes;
  const double a2 = check_fit(model, two.job, two.plan, gpu).need.activations_bytes;
  ASSERT_GT(a1, 0);
  EXPECT_DOUBLE_EQ(a2 / a1, 0.5);
}

TEST(ContextParallelTest, FoldingKeepsWholeContextGroups) {
  // TP 4 on 8-GPU hosts: 2 ranks a host; context 4 makes the unit lcm(2, 4) = 4 ranks.
  ModelSpec model;
  model.layers = 4;
  ParallelPlan plan;
  plan.data = 8;
  plan.context = 4;
  plan.tensor = 4;
  const topo::Topology cluster = topo::scale_out(topo::load_topology("dgx-h100"), 16);
  EXPECT_EQ(replicas_to_build(cluster, model, Job{}, plan, FoldReplicas::always), 4);
}

TEST(ContextParallelTest, FoldedContextParallelStepMatchesTheFullOne) {
  // TP 4 x CP 2 x DP 4 on 4 DGX H100s: each host holds one data rank's CP group, so the folded
  // run builds one host; the gradient all-reduces over the 8 data x context ranks of each TP
  // rank cross only the rails, and the step agrees to rounding.
  const TempDir dir;
  const Scenario sc =
      tiny_scenario(dir, R"({"data": 4, "context": 2, "tensor": 4, "micro_batches": 2})",
                    R"({"kind": "training", "global_batch": 8, "sequence_length": 512})");
  const topo::Topology cluster = topo::scale_out(topo::load_topology("dgx-h100"), 4);
  const ModelSpec model = load_model(sc.model);
  JobOptions folded;
  folded.fold_replicas = FoldReplicas::always;
  JobOptions full;
  full.fold_replicas = FoldReplicas::never;
  const JobResult a = simulate_job(cluster, model, sc, folded);
  const JobResult b = simulate_job(cluster, model, sc, full);
  EXPECT_NEAR(a.step_s / b.step_s, 1.0, 1e-9);
  EXPECT_NEAR(a.exposed_comm_s, b.exposed_comm_s, 1e-9 * b.step_s);
  EXPECT_EQ(a.by_group.at("CP").collectives * 4, b.by_group.at("CP").collectives);
}

}  // namespace
}  // namespace linksim::work
