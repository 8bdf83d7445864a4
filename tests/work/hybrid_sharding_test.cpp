// Hybrid sharding (plan.shard_group, FSDP's HYBRID_SHARD): where ranks sit, what memory each
// GPU holds, which collectives a step issues on a two-node cluster, and bad plans; and MoE
// expert parallelism whose groups span the nodes.
#include <gtest/gtest.h>

#include <string>

#include "sim/core/error.hpp"
#include "sim/topo/gpu_model.hpp"
#include "sim/topo/loader.hpp"
#include "sim/work/job_sim.hpp"
#include "sim/work/memory.hpp"
#include "sim/work/rank_layout.hpp"
#include "tests/support/temp_files.hpp"

namespace linksim::work {
namespace {

using linksim::testing::TempDir;

// 2 layers, h = 8, 2 heads of 4, 1 KV head, gated FFN 16, vocab 10, bf16 (memory_test.cpp):
// 1,352 parameters in all.
ModelSpec tiny_memory_model() {
  return parse_model(parse_json_text(R"({"title": "tiny", "layers": 2, "hidden": 8, "heads": 2,
                                         "kv_heads": 1, "ffn_hidden": 16, "vocab": 10})",
                                     "tiny.json"),
                     "tiny.json", "tiny");
}

// A small dense model for step volumes: 4 layers, h = 1024, 8 heads of 128 (8 KV heads),
// gated FFN 4096, bf16. Per layer: q, k, v, o 4 x 1024^2 = 4,194,304; FFN 3 x 1024 x 4096 =
// 12,582,912; norms 2 x 1024 = 2,048; 16,779,264 parameters = 33,558,528 B.
constexpr const char* kTinyModel = R"({"title": "tiny", "sources": ["test"], "layers": 4,
  "hidden": 1024, "heads": 8, "kv_heads": 8, "ffn_hidden": 4096, "vocab": 1000, "dtype": "bf16",
  "published_parameters": 1})";

Scenario scenario(const TempDir& dir, const std::string& plan) {
  dir.write("tiny.json", kTinyModel);
  return load_scenario(dir.write(
      "s.json", std::string(R"({"title": "t", "topologies": ["aws-p4d-x2"], "model": ")") +
                    dir.path() +
                    R"(/tiny.json", "job": {"kind": "training", "global_batch": 16,
                    "sequence_length": 128}, "plan": )" +
                    plan + "}"));
}

TEST(HybridSharding, GroupsAreNeighboursAndReplicasAcrossThem) {
  ParallelPlan p;
  p.data = 16;
  p.tensor = 2;
  p.shard_group = 8;
  const RankLayout layout{p};
  // rank = replica x 2 + tp: replicas 8..15 of TP rank 1 are ranks 17, 19, ..., 31.
  EXPECT_EQ(layout.shard_group(0, 9, 1), (std::vector<int>{17, 19, 21, 23, 25, 27, 29, 31}));
  // Replica 3 holds shard 3 of group 0; replica 11 holds it in group 1.
  EXPECT_EQ(layout.replica_group(0, 11, 0), (std::vector<int>{6, 22}));
  // Without hybrid sharding the shard group is the whole DP group, and a rank its own replica.
  p.shard_group = 0;
  const RankLayout plain{p};
  EXPECT_EQ(plain.shard_group(0, 5, 0).size(), 16u);
  EXPECT_EQ(plain.replica_group(0, 5, 0), (std::vector<int>{10}));
}

TEST(HybridSharding, MemoryShardsOverTheGroupNotTheWholeDataParallelGroup) {
  Job job;
  job.kind = JobKind::training;
  job.global_batch = 8;
  job.sequence_length = 16;
  ParallelPlan p;
  p.data = 8;
  p.zero_stage = 3;
  p.shard_group = 4;
  const MemoryBreakdown hsdp = memory_per_gpu(tiny_memory_model(), job, p);
  // 1,352 parameters over a group of 4: weights and gradients 1,352 x 2 B / 4 = 676 B each,
  // optimizer 1,352 x 12 B / 4 = 4,056 B. ZeRO-3's working copies (memory.hpp): 2 gathered
  // layers (prefetch depth 1) and 2 layers of unsharded gradients, each 592 x 2 B = 1,184 B a
  // layer: + 2,368 B to weights and to gradients. Activations: b = 8 / 8 = 1 sequence, s·b·h =
  // 16·1·8 = 128; x (26 + 2·2·16/8 = 34, memory_test's DataParallelByHand) = 4,352 B per layer,
  // x 2 layers = 8,704 B.
  EXPECT_EQ(hsdp.weights_bytes, 676.0 + 2368.0);
  EXPECT_EQ(hsdp.gradients_bytes, 676.0 + 2368.0);
  EXPECT_EQ(hsdp.optimizer_bytes, 4056.0);
  EXPECT_EQ(hsdp.activations_bytes, 8704.0);
  EXPECT_EQ(hsdp.total_bytes(), 14112.0 + 2 * 2368.0);
  // Plain ZeRO-3 over all 8: 338 + 338 + 2,028 + 8,704 = 11,408 B, + 2 x 2,368 B.
  p.shard_group = 0;
  EXPECT_EQ(memory_per_gpu(tiny_memory_model(), job, p).total_bytes(), 11408.0 + 2 * 2368.0);
  // ZeRO-1 with groups of 2: only the optimizer is sharded, 16,224 / 2 = 8,112 B.
  p.zero_stage = 1;
  p.shard_group = 2;
  EXPECT_EQ(memory_per_gpu(tiny_memory_model(), job, p).optimizer_bytes, 8112.0);
}

TEST(HybridSharding, StepOnTwoP4dNodesGathersInsideEachNodeAndAllReducesShardsAcross) {
  TempDir dir;
  const topo::Topology p4d = topo::load_topology("aws-p4d-x2");
  const Scenario hsdp = scenario(dir, R"({"data": 16, "zero_stage": 3, "shard_group": 8})");
  const JobResult h = simulate_job(p4d, load_model(hsdp.model), hsdp);
  // Inside each node (2 groups of 8): per layer a weight all-gather in the forward and one in
  // the backward, and a gradient reduce-scatter, each of the layer's 33,558,528 B:
  // 4 layers x 2 groups x 3 = 24 collectives, 24 x 33,558,528 = 805,404,672 B; the last
  // layer's reduce-scatter also carries the embedding and LM head gradients, 2 x 1,000 x 1,024
  // + 1,024 (final norm) = 2,049,024 parameters = 4,098,048 B, in each group: + 8,196,096 B.
  ASSERT_TRUE(h.by_group.count("DP"));
  EXPECT_EQ(h.by_group.at("DP").collectives, 24);
  EXPECT_DOUBLE_EQ(h.by_group.at("DP").bytes, 805404672.0 + 8196096.0);
  // Across the nodes: per layer each of the 8 shard positions all-reduces its shard,
  // 33,558,528 / 8 = 4,194,816 B, over its 2 replicas: 32 all-reduces, 134,234,112 B; the
  // edge gradients' shards add 8 x 4,098,048 / 8 = 4,098,048 B.
  ASSERT_TRUE(h.by_group.count("DP replicas"));
  EXPECT_EQ(h.by_group.at("DP replicas").collectives, 32);
  EXPECT_DOUBLE_EQ(h.by_group.at("DP replicas").bytes, 134234112.0 + 4098048.0);
  EXPECT_EQ(h.by_collective.at("all_reduce").collectives, 32);

  // Plain ZeRO-3 over both nodes: per layer 2 all-gathers and 1 reduce-scatter over all 16
  // GPUs: 12 collectives, 12 x 33,558,528 = 402,702,336 B, + 4,098,048 B of edge gradients,
  // and nothing else.
  const Scenario zero3 = scenario(dir, R"({"data": 16, "zero_stage": 3})");
  const JobResult z = simulate_job(p4d, load_model(zero3.model), zero3);
  EXPECT_EQ(z.by_group.at("DP").collectives, 12);
  EXPECT_DOUBLE_EQ(z.by_group.at("DP").bytes, 402702336.0 + 4098048.0);
  EXPECT_EQ(z.by_group.count("DP replicas"), 0u);
  // Memory follows the group: the shards of a layer are held by 8 GPUs instead of 16; both
  // hold the same 2 gathered layers (prefetch depth 1), 2 x 33,558,528 B.
  const double gathered = 2 * 33558528.0;
  EXPECT_DOUBLE_EQ(h.memory.weights_bytes - gathered, 2 * (z.memory.weights_bytes - gathered));
}

TEST(HybridSharding, BadPlansNameTheField) {
  TempDir dir;
  const topo::Topology p4d = topo::load_topology("aws-p4d-x2");
  const auto message_of = [&](const std::string& plan) {
    try {
      const Scenario sc = scenario(dir, plan);
      simulate_job(p4d, load_model(sc.model), sc);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string file = dir.path() + "/s.json";
  EXPECT_EQ(message_of(R"({"data": 16, "zero_stage": 3, "shard_group": 3})"),
            file +
                ": at /plan/shard_group: shard_group 3 does not divide the data-parallel degree "
                "16; expected a divisor of 16");
  EXPECT_EQ(message_of(R"({"data": 16, "shard_group": 8})"),
            file +
                ": at /plan/shard_group: hybrid sharding over groups of 8 needs ZeRO (zero_stage "
                "1 to 3); zero_stage is 0");
  EXPECT_EQ(message_of(R"({"data": 16, "zero_stage": 3, "shard_group": 0})"),
            file + ": at /plan/shard_group: expected a positive integer");
}

TEST(ExpertParallelAcrossNodes, AllToAllGroupsSpanBothHosts) {
  TempDir dir;
  const std::string path = dir.write("moe.json", R"({"title": "t", "topologies": ["aws-p4d-x2"],
    "model": "mixtral-8x7b", "job": {"kind": "prefill", "global_batch": 8, "sequence_length": 2048},
    "plan": {"data": 8, "tensor": 2, "expert": 8}})");
  const Scenario sc = load_scenario(path);
  // rank = replica x 2 + tp: TP rank 0's expert group is ranks 0, 2, ..., 14, on the GPUs of
  // both 8-GPU nodes.
  EXPECT_EQ(RankLayout{sc.plan}.ep_group(0, 0, 0), (std::vector<int>{0, 2, 4, 6, 8, 10, 12, 14}));
  const JobResult r = simulate_job(topo::load_topology("aws-p4d-x2"), load_model(sc.model), sc);
  // Per MoE layer and TP rank one all-to-all of 2 x 2048 tokens x 4096 x 2 B x top-2 =
  // 67,108,864 B; 32 layers x 2 TP ranks = 64 all-to-alls, 4,294,967,296 B.
  ASSERT_TRUE(r.by_group.count("EP"));
  EXPECT_EQ(r.by_group.at("EP").collectives, 64);
  EXPECT_DOUBLE_EQ(r.by_group.at("EP").bytes, 4294967296.0);
  EXPECT_GT(r.step_s, 0);
}

}  // namespace
}  // namespace linksim::work
