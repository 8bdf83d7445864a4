// What the memory features cost in time: LoRA's compute and gradient volume, selective
// recomputation, activation and optimizer offload copies, quantized weights and an fp8 KV
// cache in a memory-bound decode; worked by hand on a small model on one A100, under the
// compute.efficiency override (the single-number roofline, layer_roofline.hpp) so that the
// features' arithmetic stays short; tests/work/compute_model_test.cpp covers the derived model.
#include <gtest/gtest.h>

#include "sim/topo/loader.hpp"
#include "sim/work/job_sim.hpp"
#include "tests/support/temp_files.hpp"
#include "tests/support/tiny_model.hpp"

namespace linksim::work {
namespace {

using linksim::testing::TempDir;

// 4 layers, h 1024, 8 heads (MHA, head_dim 128), gated FFN 4096, vocab 1000, bf16.
// Per layer: attention 2·1024² + 2·1024·1024 = 4,194,304; FFN 3·1024·4096 = 12,582,912;
// norms 2,048: 16,779,264 parameters. Forward matmul FLOPs per token: 2 × 16,777,216 =
// 33,554,432; attention scores 4·1024 = 4,096 per token per context token.
const char* const kModel = linksim::testing::kTinyModelJson;

Scenario scenario(const TempDir& dir, const std::string& job, const std::string& plan,
                  const std::string& rest = "") {
  dir.write("tiny.json", kModel);
  return load_scenario(dir.write(
      "s.json", R"({"title": "t", "topologies": ["dgx-a100"], "model": "tiny.json",
                    "compute": {"efficiency": 0.5}, "job": )" +
                    job + R"(, "plan": )" + plan + (rest.empty() ? "" : ", " + rest) + "}"));
}

JobResult run(const Scenario& sc) {
  return simulate_job(topo::load_topology("dgx-a100"), load_model(sc.model), sc);
}

const topo::GpuModel& a100() {
  static const topo::GpuModel g = *topo::find_gpu_model("A100-SXM4-80GB");
  return g;
}
double peak() {
  return a100().peak_flops.at("bf16") * 0.5;  // compute.efficiency 0.5
}

// Training, 8 sequences of 128 tokens on one GPU: 1,024 tokens, average context 64; a layer
// half is half the layer's FLOPs: 512 token-halves.
//
// The one stage is first and last: embedding, final norm, LM head and loss, each FLOPs at
// peak × 0.5 or bytes at HBM bandwidth, whichever is longer (layer_ops.hpp):
//   forward  embedding 2 · 1024·1024·2 = 4,194,304 B; final norm 4,194,304 B; LM head
//            2·1024·1000·1024 = 2,097,152,000 FLOPs (its 6,193,152 B take 3.0e-6 s against
//            1.3e-5 s of FLOPs); loss 1024·1000·(2 + 4) = 6,144,000 B
//   backward final norm 2 × 4,194,304 = 8,388,608 B; LM head dX 2,097,152,000 FLOPs, dW
//            (unless frozen) 2,097,152,000 FLOPs; loss 2 × 6,144,000 = 12,288,000 B; embedding
//            gradient (unless frozen) 1000·1024·2 + 3 · 2,097,152 = 8,339,456 B.
// Frozen (LoRA): 2 × 2,097,152,000 FLOPs and 4,194,304·2 + 6,144,000 + 8,388,608 + 12,288,000
// = 35,209,216 B. Full: 3 × 2,097,152,000 = 6,291,456,000 FLOPs and 35,209,216 + 8,339,456 =
// 43,548,672 B.
const char* kTraining = R"({"kind": "training", "global_batch": 8, "sequence_length": 128)";

TEST(JobSimFeatures, LoraBackwardSkipsTheBaseWeightGradients) {
  TempDir dir;
  const Scenario sc = scenario(dir, std::string(kTraining) + R"(, "finetune": {"method": "lora",
                                 "rank": 8, "target_modules": ["q_proj", "v_proj"]}})",
                               R"({"data": 1})");
  const JobResult r = run(sc);
  // Adapters per layer: 8·(1024 + 1024) × 2 = 32,768. Per half:
  //   base 512 × 33,554,432 = 17,179,869,184; adapters 512 × 2 × 32,768 = 33,554,432;
  //   scores 512 × 4,096 × 64 = 134,217,728; forward 17,347,641,344
  //   backward: base 1x + adapters 2x + scores 2x = 17,515,413,504
  // 8 halves: 8 × 34,863,054,848 = 278,904,438,784 FLOPs, compute-bound. Optimizer (adapters
  // only): 4 × 32,768 = 131,072 parameters × (16 + 2·2) B at HBM bandwidth.
  // With the frozen edges: 278,904,438,784 + 4,194,304,000 = 283,098,742,784 FLOPs and
  // 35,209,216 B.
  const double expected =
      283098742784.0 / peak() + (131072.0 * 20 + 35209216) / a100().hbm_bandwidth_Bps;
  EXPECT_NEAR(r.compute_s, expected, 1e-12 * expected);
  EXPECT_NEAR(r.step_s, expected, 1e-12 * expected);
}

TEST(JobSimFeatures, LoraAllReducesOnlyTheAdapterGradients) {
  TempDir dir;
  const Scenario sc = scenario(dir, std::string(kTraining) + R"(, "finetune": {"method": "lora",
                                 "rank": 8, "target_modules": ["q_proj", "v_proj"]}})",
                               R"({"data": 8, "bucket_size": "1 GB"})");
  const JobResult r = run(sc);
  // 4 layers × 32,768 adapter parameters × 2 B = 262,144 B in one bucket; the frozen base and
  // embeddings send nothing.
  ASSERT_TRUE(r.by_group.count("DP"));
  EXPECT_EQ(r.by_group.at("DP").bytes, 262144.0);
}

TEST(JobSimFeatures, SelectiveRecomputeRedoesTheAttentionCore) {
  TempDir dir;
  const JobResult r =
      run(scenario(dir, std::string(kTraining) + "}", R"({"data": 1, "recompute": "selective"})"));
  // Per half: forward 17,179,869,184 + 134,217,728 = 17,314,086,912; backward 2x that plus the
  // scores again, 34,628,173,824 + 134,217,728 = 34,762,391,552. 8 halves: 416,611,827,712.
  // Optimizer: 4 × 16,779,264 + 2·1000·1024 + 1024 = 69,166,080 parameters × 20 B.
  // With the edges: 416,611,827,712 + 6,291,456,000 = 422,903,283,712 FLOPs and 43,548,672 B.
  const double expected =
      422903283712.0 / peak() + (69166080.0 * 20 + 43548672) / a100().hbm_bandwidth_Bps;
  EXPECT_NEAR(r.compute_s, expected, 1e-12 * expected);
}

TEST(JobSimFeatures, ActivationOffloadCopiesEveryLayerDownAndBack) {
  TempDir dir;
  const JobResult r = run(
      scenario(dir, std::string(kTraining) + "}", R"({"data": 1, "activation_offload": true})"));
  // FlashAttention (bf16 on Ampere), per token in units of h bytes (memory.hpp): held whole,
  // norm inputs 4 + QKV input 2 + MLP up input 2 = 8; Q, K, V 6 (multi-head) + projection
  // input 2 + SwiGLU input 2·4·2 = 16 + MLP down input 2·4 = 8: 40. s·b·h = 128·8·1024 =
  // 1,048,576 × 40 = 41,943,040, plus 4·8·128·8 = 32,768 of softmax statistics: 41,975,808 B
  // per layer, down and back up for 4 layers: 8 copies = 335,806,464 B.
  ASSERT_TRUE(r.by_group.count("offload"));
  EXPECT_EQ(r.by_group.at("offload").bytes, 335806464.0);
  EXPECT_EQ(r.by_group.at("offload").collectives, 8);
  EXPECT_NEAR(r.compute_s + r.exposed_comm_s + r.idle_s, r.step_s, 1e-9 * r.step_s);
  EXPECT_EQ(r.memory.host_bytes, 4 * 41975808.0);
}

TEST(JobSimFeatures, ZeroOffloadSendsGradientsDownAndWeightsUp) {
  TempDir dir;
  const JobResult r = run(scenario(dir, std::string(kTraining) + "}",
                                   R"({"data": 2, "zero_stage": 1, "optimizer_offload": true})"));
  // Each of 2 ranks holds 69,166,080 / 2 = 34,583,040 parameters of optimizer state: its
  // gradients go down and its weights come up, 2 B each: 4 copies × 69,166,080 B.
  ASSERT_TRUE(r.by_group.count("offload"));
  EXPECT_EQ(r.by_group.at("offload").bytes, 4 * 69166080.0);
  EXPECT_EQ(r.memory.optimizer_bytes, 0.0);
  EXPECT_GT(r.memory.host_bytes, 0.0);
}

TEST(JobSimFeatures, QuantizedWeightsAndFp8KvSpeedUpAMemoryBoundDecode) {
  TempDir dir;
  const std::string decode =
      R"({"kind": "decode", "global_batch": 1, "sequence_length": 128, "decode_tokens": 2})";
  // One token per step at context 128 + 2/2 = 129. Per half: weights int4, 16,777,216 linear ×
  // (0.5 + 2.5/128) + 2,048 norms × 2 = 8,720,384 B / 2 = 4,360,192; KV 129 × 2·8·128·2 B / 2
  // = 264,192 (bf16) or 132,096 (fp8). FLOPs 512-fold smaller: memory-bound. 8 halves. Then
  // the edges, all memory-bound: embedding 2·1024·2 = 4,096 B, final norm 4,096 B, LM head
  // 1024·2 + 1024·1000·2 + 1000·2 = 2,052,048 B, logits read 2,000 B: 2,062,240 B.
  const double hbm = a100().hbm_bandwidth_Bps;
  const JobResult int4 =
      run(scenario(dir, decode, R"({"data": 1})", R"("precision": {"weights": "int4"})"));
  EXPECT_NEAR(int4.step_s, (8 * 4624384.0 + 2062240) / hbm, 1e-12);
  const JobResult fp8_kv = run(scenario(dir, decode, R"({"data": 1})",
                                        R"("precision": {"weights": "int4", "kv_cache": "fp8"})"));
  EXPECT_NEAR(fp8_kv.step_s, (8 * 4492288.0 + 2062240) / hbm, 1e-12);
}

}  // namespace
}  // namespace linksim::work
