// Memory features beyond the paper's baseline: FlashAttention, selective recompute, offloads,
// quantized weights, fp8 KV cache, LoRA and QLoRA, each worked by hand on a tiny model.
#include <gtest/gtest.h>

#include "sim/topo/gpu_model.hpp"
#include "sim/work/memory.hpp"

namespace linksim::work {
namespace {

// 2 layers, h = 8, 2 heads of 4, 1 KV head, gated FFN 16, vocab 10, bf16.
// layer: linear 2·64 (q, o) + 2·8·4 (k, v) + 3·8·16 (FFN) = 576, norms 16; 592 in all.
// outside layers: 2·10·8 (embedding + LM head) + 8 (final norm) = 168 (the model's dtype).
ModelSpec tiny() {
  return parse_model(parse_json_text(R"({"title": "tiny", "layers": 2, "hidden": 8, "heads": 2,
                                         "kv_heads": 1, "ffn_hidden": 16, "vocab": 10})",
                                     "tiny.json"),
                     "tiny.json", "tiny");
}

Job training(int global_batch, int sequence_length) {
  Job j;
  j.kind = JobKind::training;
  j.global_batch = global_batch;
  j.sequence_length = sequence_length;
  return j;
}

Job decode() {
  Job j;
  j.kind = JobKind::decode;
  j.global_batch = 3;
  j.sequence_length = 10;
  j.decode_tokens = 6;
  return j;
}

ParallelPlan plan(int dp, int tp, int pp, int zero = 0, int micro_batches = 1) {
  ParallelPlan p;
  p.data = dp;
  p.tensor = tp;
  p.pipeline = pp;
  p.zero_stage = zero;
  p.micro_batches = micro_batches;
  return p;
}

constexpr MemoryOptions kFlash{.flash_attention = true};

TEST(MemoryFlashAttention, DropsTheSquareTermAndKeepsTheSoftmaxStatistics) {
  // DP 2, batch 4, 16 tokens: b = 2; s·b·h = 16·2·8 = 256.
  // Without FlashAttention: 256 × (26 + the softmax's output 2·2·16/8 = 8) = 8,704 per layer
  // (memory_test). With it: 256 × 26 = 6,656, plus log-sum-exp 4 B × a 2 × s 16 × b 2 / t 1 =
  // 256: 6,912; × 2 layers = 13,824.
  EXPECT_EQ(memory_per_gpu(tiny(), training(4, 16), plan(2, 1, 1), kFlash).activations_bytes,
            13824.0);
  // TP 2 + sequence parallel, PP 2, 4 micro-batches of 1: s·b·h = 128; 128 × 26 / 2 = 1,664,
  // + 4·2·16·1 / 2 = 64: 1,728 per layer; 1 layer per stage × 2 in flight = 3,456.
  ParallelPlan sp = plan(1, 2, 2, 0, 4);
  sp.sequence_parallel = true;
  EXPECT_EQ(memory_per_gpu(tiny(), training(4, 16), sp, kFlash).activations_bytes, 3456.0);
}

TEST(MemoryFlashAttention, RuleFollowsTheKernelsSupport) {
  const ModelSpec bf16 = tiny();
  const ParallelPlan p = plan(1, 1, 1);
  EXPECT_TRUE(uses_flash_attention(bf16, p, *topo::find_gpu_model("A100-SXM4-80GB")));
  EXPECT_TRUE(uses_flash_attention(bf16, p, *topo::find_gpu_model("RTX-4090")));  // ada
  EXPECT_FALSE(uses_flash_attention(bf16, p, *topo::find_gpu_model("V100-SXM2-32GB")));
  EXPECT_FALSE(uses_flash_attention(bf16, p, *topo::find_gpu_model("RTX-2080-Ti")));  // turing
  ModelSpec fp32 = bf16;
  fp32.dtype = "fp32";  // FlashAttention-2 takes fp16 and bf16 only
  EXPECT_FALSE(uses_flash_attention(fp32, p, *topo::find_gpu_model("A100-SXM4-80GB")));
  ModelSpec fp8 = bf16;
  fp8.dtype = "fp8";  // FlashAttention-3: fp8 on Hopper
  EXPECT_TRUE(uses_flash_attention(fp8, p, *topo::find_gpu_model("H100-SXM5-80GB")));
  EXPECT_FALSE(uses_flash_attention(fp8, p, *topo::find_gpu_model("A100-SXM4-80GB")));
  ParallelPlan off = p;
  off.flash_attention = false;  // the opt-out
  EXPECT_FALSE(uses_flash_attention(bf16, off, *topo::find_gpu_model("A100-SXM4-80GB")));
  ParallelPlan on = p;
  on.flash_attention = true;
  EXPECT_TRUE(uses_flash_attention(bf16, on, *topo::find_gpu_model("V100-SXM2-32GB")));
  // check_fit applies the rule: 13,824 B of activations on an A100, as above.
  EXPECT_EQ(check_fit(bf16, training(4, 16), plan(2, 1, 1), *topo::find_gpu_model("A100-SXM4-80GB"))
                .need.activations_bytes,
            13824.0);
}

TEST(MemoryRecompute, SelectiveKeepsAllButTheAttentionCore) {
  // 256 × 26 = 6,656 per layer, no softmax statistics without FlashAttention; × 2 = 13,312.
  ParallelPlan p = plan(2, 1, 1);
  p.recompute = Recompute::selective;
  EXPECT_EQ(memory_per_gpu(tiny(), training(4, 16), p).activations_bytes, 13312.0);
}

TEST(MemoryOffload, ActivationsKeepTwoLayersOnTheGpu) {
  // PP 2, 4 micro-batches of b = 1: s·b·h = 128 × 34 = 4,352 per layer; 1 layer per stage.
  // Kept: 2 in flight × 4,352 = 8,704. Offloaded: min(1 layer, 2) × 4,352 = 4,352 on the GPU,
  // 1 layer × 2 in flight × 4,352 = 8,704 on the host.
  ParallelPlan p = plan(1, 1, 2, 0, 4);
  EXPECT_EQ(memory_per_gpu(tiny(), training(4, 16), p).activations_bytes, 8704.0);
  p.activation_offload = true;
  const MemoryBreakdown m = memory_per_gpu(tiny(), training(4, 16), p);
  EXPECT_EQ(m.activations_bytes, 4352.0);
  EXPECT_EQ(m.host_bytes, 8704.0);
}

TEST(MemoryOffload, ZeroOffloadMovesTheOptimizerToTheHost) {
  // ZeRO-1 over DP 2: optimizer 1,352 × 12 / 2 = 8,112, now in host memory.
  ParallelPlan p = plan(2, 1, 1, 1);
  p.optimizer_offload = true;
  const MemoryBreakdown m = memory_per_gpu(tiny(), training(4, 16), p);
  EXPECT_EQ(m.optimizer_bytes, 0.0);
  EXPECT_EQ(m.host_bytes, 8112.0);
  EXPECT_EQ(m.weights_bytes, 2704.0);  // untouched
  EXPECT_EQ(m.gradients_bytes, 2704.0);
}

TEST(MemoryQuantized, WeightBytesFromTheGroupSize) {
  // Linear weights on the GPU: 2 layers × 576 = 1,152; the rest 2 × 16 + 168 = 200 at 2 B = 400.
  Job job = decode();
  job.precision.weights = "int4";  // 0.5 + 2.5/128 B: 576 + 22.5 = 598.5
  EXPECT_EQ(memory_per_gpu(tiny(), job, plan(1, 1, 1)).weights_bytes, 998.5);
  job.precision.weights = "int8";
  job.precision.group_size = 64;  // 1 + 2/64 B: 1,152 + 36 = 1,188
  EXPECT_EQ(memory_per_gpu(tiny(), job, plan(1, 1, 1)).weights_bytes, 1588.0);
  job.precision.weights = "fp8";  // 1 B, not 2: 1,152
  EXPECT_EQ(memory_per_gpu(tiny(), job, plan(1, 1, 1)).weights_bytes, 1552.0);
  job.precision.weights = "nf4";  // 4.126953125 bits: 1,152 × 0.515869140625 = 594.28125
  EXPECT_EQ(memory_per_gpu(tiny(), job, plan(1, 1, 1)).weights_bytes, 994.28125);
}

TEST(MemoryQuantized, Fp8KvCacheHalvesIt) {
  // 2 layers × 3 sequences × 16 tokens × 2 × 1 KV head × 4 × 1 B = 768 (1,536 in bf16).
  Job job = decode();
  job.precision.kv_cache = "fp8";
  EXPECT_EQ(memory_per_gpu(tiny(), job, plan(1, 1, 1)).kv_cache_bytes, 768.0);
}

TEST(MemoryLora, AdaptersAloneAreTrained) {
  // Rank 2 on q_proj (8 -> 8) and v_proj (8 -> 4): 2·(8 + 8) + 2·(8 + 4) = 56 per layer,
  // 112 for 2 layers, in bf16.
  Job job = training(4, 16);
  job.finetune.method = FinetuneMethod::lora;
  job.finetune.rank = 2;
  job.finetune.target_modules = {"q_proj", "v_proj"};
  const MemoryBreakdown m = memory_per_gpu(tiny(), job, plan(2, 1, 1));
  EXPECT_EQ(m.weights_bytes, 2928.0);    // base 1,352 × 2 = 2,704 + adapters 112 × 2 = 224
  EXPECT_EQ(m.gradients_bytes, 224.0);   // adapters only
  EXPECT_EQ(m.optimizer_bytes, 1344.0);  // 112 × 12
  // ZeRO-2 shards the adapters' gradients and optimizer over DP 2.
  const MemoryBreakdown z2 = memory_per_gpu(tiny(), job, plan(2, 1, 1, 2));
  EXPECT_EQ(z2.gradients_bytes, 112.0);
  EXPECT_EQ(z2.optimizer_bytes, 672.0);
}

TEST(MemoryLora, QloraBaseIsFourBitNormalFloat) {
  // Base: 1,152 linear × 0.515869140625 = 594.28125 + 400 = 994.28125; adapters 224.
  Job job = training(4, 16);
  job.finetune.method = FinetuneMethod::qlora;
  job.finetune.rank = 2;
  job.finetune.target_modules = {"q_proj", "v_proj"};
  EXPECT_EQ(memory_per_gpu(tiny(), job, plan(1, 1, 1)).weights_bytes, 1218.28125);
  job.precision.weights = "int4";  // an AWQ/GPTQ base instead: 998.5 + 224
  EXPECT_EQ(memory_per_gpu(tiny(), job, plan(1, 1, 1)).weights_bytes, 1222.5);
}

TEST(MemorySeventyB, FlashAttentionBringsFourKContextDownFromHundredsOfGigabytes) {
  // Llama 3 70B, 8 x 4096 tokens, TP 8 x PP 1 x DP 1, no recompute, one micro-batch of 8.
  // The s² term per layer, the softmax's output (no dropout): 2·a·s²·b/t = 2·64·4096²·8/8 =
  // 2,147,483,648 B (2.1 GB); FlashAttention keeps 4·a·s·b/t = 4·64·4096·8/8 = 1,048,576 B of it
  // instead.
  const ModelSpec m = load_model("llama3-70b");
  const Job job = training(8, 4096);
  const ParallelPlan p = plan(1, 8, 1);
  const double with_s2 = memory_per_gpu(m, job, p).activations_bytes;
  const double flash = memory_per_gpu(m, job, p, kFlash).activations_bytes;
  EXPECT_EQ(with_s2 - flash, 80 * (2147483648.0 - 1048576.0));
}

}  // namespace
}  // namespace linksim::work
