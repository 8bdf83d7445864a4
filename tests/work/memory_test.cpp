#include "sim/work/memory.hpp"

#include <gtest/gtest.h>

#include <string>

#include "sim/topo/gpu_model.hpp"
#include "sim/work/model_costs.hpp"

namespace linksim::work {
namespace {

// 2 layers, h = 8, 2 heads of 4, 1 KV head, gated FFN 16, vocab 10, bf16.
// layer params: 2·64 (q, o) + 2·8·4 (k, v) + 3·8·16 (FFN) + 16 (norms) = 592
// outside layers: 2·10·8 (embedding + LM head) + 8 (final norm) = 168; total 1,352.
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

ParallelPlan plan(int dp, int tp, int pp, int zero = 0, int micro_batches = 1) {
  ParallelPlan p;
  p.data = dp;
  p.tensor = tp;
  p.pipeline = pp;
  p.zero_stage = zero;
  p.micro_batches = micro_batches;
  return p;
}

topo::GpuModel a100() {
  return *topo::find_gpu_model("A100-SXM4-80GB");
}

TEST(MemoryTraining, DataParallelByHand) {
  // DP 2, batch 4, 16 tokens: micro-batch b = 4 / 2 = 2 sequences.
  const MemoryBreakdown m = memory_per_gpu(tiny(), training(4, 16), plan(2, 1, 1));
  EXPECT_EQ(m.weights_bytes, 2704.0);     // 1,352 × 2 B
  EXPECT_EQ(m.gradients_bytes, 2704.0);   // 1,352 × 2 B
  EXPECT_EQ(m.optimizer_bytes, 16224.0);  // 1,352 × 12 B
  // Per token, in units of h bytes (memory.hpp), t = 1: norm inputs 4 + QKV input 2 + Q, K, V
  // (2 + 4 x 1/2 KV heads per head) = 4 + projection input 2 + MLP up input 2 + SwiGLU input
  // 2 x f 2 x 2 (gated) = 8 + MLP down input 2 x 2 = 4 (no dropout) = 26, and the softmax's
  // output 2·a·s/h = 2·2·16/8 = 8: 34. s·b·h = 16·2·8 = 256; × 34 = 8,704 per layer; × 2 layers
  EXPECT_EQ(m.activations_bytes, 17408.0);
  EXPECT_EQ(m.kv_cache_bytes, 0.0);
  EXPECT_EQ(m.total_bytes(), 39040.0);  // 2,704 + 2,704 + 16,224 + 17,408
}

ModelSpec model_text(const std::string& fields) {
  return parse_model(parse_json_text(R"({"title": "t", "layers": 2, "hidden": 8, "heads": 2,
                                         "vocab": 10, )" +
                                         fields + "}",
                                     "t.json"),
                     "t.json", "t");
}

TEST(MemoryTraining, ActivationsTensorByTensorGiveKorthikantisCountForGpt) {
  // GPT-shaped (4h FFN of two matrices, multi-head attention, dropout): held whole, norm inputs
  // 4 + QKV input 2 + MLP up input 2 + two masks 2 = 10; split, Q, K, V 6 + projection input 2
  // + GELU input 8 + MLP down input 8 = 24; the attention core (softmax output 2, mask 1,
  // dropout output 2 per a·s) 5·a·s/h = 5·2·16/8 = 20: Korthikanti's 10 + 24 + 20 = 54.
  // DP 2, batch 4, 16 tokens: s·b·h = 256; × 54 = 13,824 per layer; × 2 layers.
  const ModelSpec gpt =
      model_text(R"("kv_heads": 2, "ffn_hidden": 32, "gated_ffn": false, "dropout": true)");
  EXPECT_EQ(memory_per_gpu(gpt, training(4, 16), plan(2, 1, 1)).activations_bytes, 27648.0);
  // Without dropout: 54 - 2 (masks) - 3·a·s/h (12) = 40: 10,240 per layer.
  const ModelSpec no_dropout = model_text(R"("kv_heads": 2, "ffn_hidden": 32, "gated_ffn": false)");
  EXPECT_EQ(memory_per_gpu(no_dropout, training(4, 16), plan(2, 1, 1)).activations_bytes, 20480.0);
}

TEST(MemoryTraining, MoeActivationsCountEachTokensRoutedCopies) {
  // tiny() with 4 experts, top-2, FlashAttention: per token, norm inputs 4 + QKV input 2 + Q, K,
  // V 4 + projection input 2 + router input 2 + 2 routed copies 2 x 2 = 4 + SwiGLU inputs
  // 2 x (2·2·2) = 16 + MLP down inputs 2 x (2·2) = 8: 42. s·b·h = 256 → 10,752, + log-sum-exp
  // 4·2·16·2 = 256: 11,008 per layer; × 2 layers.
  const ModelSpec moe =
      model_text(R"("kv_heads": 1, "ffn_hidden": 16, "experts": 4, "experts_per_token": 2)");
  EXPECT_EQ(memory_per_gpu(moe, training(4, 16), plan(2, 1, 1), {.flash_attention = true})
                .activations_bytes,
            22016.0);
}

TEST(MemoryTraining, AdamStateAsTheJobKeepsIt) {
  // tiny(), 1,352 parameters, DP 2, ZeRO-1: the optimizer shards over 2.
  Job j = training(4, 16);
  j.precision.master_weights = "remainder";  // 2 x 4 + 2 = 10 B: 1,352 x 10 / 2
  EXPECT_EQ(memory_per_gpu(tiny(), j, plan(2, 1, 1, 1)).optimizer_bytes, 6760.0);
  j.precision.optimizer_states = "bf16";  // 2 x 2 + 0 = 4 B: 1,352 x 4 / 2
  j.precision.master_weights = "none";
  const MemoryBreakdown m = memory_per_gpu(tiny(), j, plan(2, 1, 1, 1));
  EXPECT_EQ(m.optimizer_bytes, 2704.0);
  // Nothing else moves: weights and gradients 1,352 x 2 B, activations as DataParallelByHand.
  EXPECT_EQ(m.weights_bytes, 2704.0);
  EXPECT_EQ(m.gradients_bytes, 2704.0);
  EXPECT_EQ(m.activations_bytes, 17408.0);
}

TEST(MemoryTraining, ZeroStagesShardOverDataParallel) {
  const MemoryBreakdown z1 = memory_per_gpu(tiny(), training(4, 16), plan(2, 1, 1, 1));
  EXPECT_EQ(z1.weights_bytes, 2704.0);
  EXPECT_EQ(z1.gradients_bytes, 2704.0);
  EXPECT_EQ(z1.optimizer_bytes, 8112.0);  // 16,224 / 2
  const MemoryBreakdown z2 = memory_per_gpu(tiny(), training(4, 16), plan(2, 1, 1, 2));
  EXPECT_EQ(z2.gradients_bytes, 1352.0);
  EXPECT_EQ(z2.weights_bytes, 2704.0);
  // ZeRO-3: the shards, 1,352 B each, plus its working copies (ZeroThreeWorkingCopiesByHand):
  // 2 gathered layers and 2 layers of unsharded gradients, 2 x 592 x 2 B = 2,368 B each.
  const MemoryBreakdown z3 = memory_per_gpu(tiny(), training(4, 16), plan(2, 1, 1, 3));
  EXPECT_EQ(z3.weights_bytes, 1352.0 + 2368.0);
  EXPECT_EQ(z3.gradients_bytes, 1352.0 + 2368.0);
  EXPECT_EQ(z3.optimizer_bytes, 8112.0);
  EXPECT_EQ(z3.activations_bytes, 17408.0);  // ZeRO leaves activations alone
}

TEST(MemoryTraining, ZeroThreeWorkingCopiesByHand) {
  // tiny(), TP 2, DP 4, ZeRO-3. Per GPU after TP: a layer 592 / 2 = 296 parameters; outside
  // the layers (one stage holds the embedding, LM head and final norm) 168 / 2 = 84; in all
  // 2 x 296 + 84 = 676, sharded over 4: 169 parameters.
  ParallelPlan p = plan(4, 2, 1, 3);
  p.prefetch_depth = 2;
  const MemoryBreakdown m = memory_per_gpu(tiny(), training(4, 16), p);
  // Weights: the shard, 169 x 2 B = 338 B, + (1 + depth 2) gathered layers, 3 x 296 x 2 B =
  // 1,776 B: 2,114 B.
  EXPECT_EQ(m.weights_bytes, 2114.0);
  // Gradients: the shard, 338 B, + 2 unsharded layers (the one being produced, the one being
  // reduce-scattered), 2 x 296 x 2 B = 1,184 B: 1,522 B.
  EXPECT_EQ(m.gradients_bytes, 1522.0);
  EXPECT_EQ(m.optimizer_bytes, 2028.0);  // 169 x 12 B: no working copy
  // Without prefetch only the computing layer is gathered: 338 + 592 = 930 B.
  p.prefetch = false;
  EXPECT_EQ(memory_per_gpu(tiny(), training(4, 16), p).weights_bytes, 930.0);
  // Hybrid sharding over groups of 1 (shard size 1): nothing is gathered, the full 676 params.
  p.prefetch = true;
  p.shard_group = 1;
  EXPECT_EQ(memory_per_gpu(tiny(), training(4, 16), p).weights_bytes, 1352.0);
}

TEST(MemoryTraining, ZeroThreeRefusedWhereTheGatheredLayersDoNotFit) {
  // A plain model of 4 layers of 10e9 parameters (40e9 in all, bf16) on 64 A100 80 GB with
  // ZeRO-3 over all of them. The shards: 40e9 x (2 + 2 + 12) B / 64 = 10e9 B, far below the
  // 77,309,411,328 B usable. Real ZeRO-3 must also hold 2 gathered layers, 2 x 10e9 x 2 B =
  // 40e9 B, and 2 layers of unsharded gradients, 40e9 B more: 90e9 B does not fit.
  const ModelSpec model = parse_model(
      parse_json_text(R"({"title": "wide", "parameters": 40e9, "layers": 4})", "wide.json"),
      "wide.json", "wide");
  const FitResult r = check_fit(model, training(64, 1024), plan(64, 1, 1, 3), a100());
  EXPECT_EQ(r.need.weights_bytes, 40e9 * 2 / 64 + 40e9);
  EXPECT_EQ(r.need.gradients_bytes, 40e9 * 2 / 64 + 40e9);
  EXPECT_EQ(r.need.total_bytes(), 90e9);
  EXPECT_FALSE(r.fits);
}

TEST(MemoryTraining, TensorAndPipelineByHand) {
  // TP 2, PP 2, 4 micro-batches of b = 4 / (1 × 4) = 1 sequence; 1 layer per stage.
  // Busiest stage: 592 / 2 (its layer) + (10·8 + 8) / 2 (LM head + final norm) = 296 + 44 = 340
  const Job job = training(4, 16);
  const MemoryBreakdown m = memory_per_gpu(tiny(), job, plan(1, 2, 2, 0, 4));
  EXPECT_EQ(m.weights_bytes, 680.0);
  EXPECT_EQ(m.gradients_bytes, 680.0);
  EXPECT_EQ(m.optimizer_bytes, 4080.0);
  // s·b·h = 16·1·8 = 128; per token (DataParallelByHand's terms at t = 2): held whole, norm
  // inputs 4 + QKV input 2 + MLP up input 2 = 8; split, (4 + 2 + 8 + 4) / 2 = 9; the softmax's
  // output 2·2·16/(8·2) = 4: 21 → 2,688; × 1 layer × min(PP 2, 4 micro-batches) in flight
  EXPECT_EQ(m.activations_bytes, 5376.0);

  ParallelPlan sp = plan(1, 2, 2, 0, 4);
  sp.sequence_parallel = true;  // 128 × (26 + 8) / 2 = 2,176; × 2 in flight
  EXPECT_EQ(memory_per_gpu(tiny(), job, sp).activations_bytes, 4352.0);
  // full recompute: 2·s·b·h = 256 per layer; × 2 in flight
  ParallelPlan rc = plan(1, 2, 2, 0, 4);
  rc.recompute = Recompute::full;
  EXPECT_EQ(memory_per_gpu(tiny(), job, rc).activations_bytes, 512.0);
}

TEST(MemoryInference, KvCacheAndWorkingActivationsByHand) {
  Job job;
  job.kind = JobKind::decode;
  job.global_batch = 3;
  job.sequence_length = 10;
  job.decode_tokens = 6;
  const MemoryBreakdown m = memory_per_gpu(tiny(), job, plan(1, 1, 1));
  EXPECT_EQ(m.weights_bytes, 2704.0);
  EXPECT_EQ(m.gradients_bytes, 0.0);
  EXPECT_EQ(m.optimizer_bytes, 0.0);
  // 2 layers × 3 sequences × (10 + 6) tokens × 2 (K, V) × 1 KV head × 4 × 2 B = 1,536
  EXPECT_EQ(m.kv_cache_bytes, 1536.0);
  // decode step: 3 tokens × (2·8 + 2·16 gate/up outputs) × 2 B = 288
  EXPECT_EQ(m.activations_bytes, 288.0);

  // TP 2 splits the weights, (2·592 + 168) / 2 = 676 params, but not the single KV head.
  const MemoryBreakdown t2 = memory_per_gpu(tiny(), job, plan(1, 2, 1));
  EXPECT_EQ(t2.weights_bytes, 1352.0);
  EXPECT_EQ(t2.kv_cache_bytes, 1536.0);
}

TEST(MemorySeed, SeventyBInFp16DoesNotFitOneA100ButFitsEightWithTensorParallel) {
  Job job;
  job.kind = JobKind::prefill;
  job.global_batch = 1;
  job.sequence_length = 4096;
  const ModelSpec model = load_model("llama2-70b");
  // Capacity: 0.9 × 80 GiB = 0.9 × 85,899,345,920 = 77,309,411,328 B
  const FitResult one = check_fit(model, job, plan(1, 1, 1), a100());
  EXPECT_FALSE(one.fits);
  EXPECT_EQ(one.capacity_bytes, 0.9 * 85899345920.0);
  EXPECT_EQ(one.need.weights_bytes, 137953296384.0);  // 68,976,648,192 × 2 B ≈ 138 GB
  // 80 layers × 4096 tokens × 2 × 8 KV heads × 128 × 2 B = 1,342,177,280 (1.34 GB)
  EXPECT_EQ(one.need.kv_cache_bytes, 1342177280.0);
  EXPECT_EQ(one.explanation,
            "llama2-70b needs 140 GB per GPU (weights 138 GB, activations 604 MB, KV cache "
            "1.34 GB) > 77.3 GB usable on A100-SXM4-80GB (90% of 80 GiB)");

  const FitResult eight = check_fit(model, job, plan(1, 8, 1), a100());
  EXPECT_TRUE(eight.fits) << eight.explanation;
  EXPECT_EQ(eight.need.weights_bytes, 17244162048.0);  // 137,953,296,384 / 8
  // 80 layers × 4096 tokens × 2 × 1 KV head per GPU (8 / 8) × 128 × 2 B = 167,772,160
  EXPECT_EQ(eight.need.kv_cache_bytes, 167772160.0);
  // 4096 tokens × (2·8192 + 2·28672 / 8) × 2 B = 4096 × 23,552 × 2 = 192,937,984
  EXPECT_EQ(eight.need.activations_bytes, 192937984.0);

  // The seed's own figure: 70e9 × 2 B = 140 GB.
  const ModelSpec plain = load_model("plain-70b");
  const FitResult p1 = check_fit(plain, job, plan(1, 1, 1), a100());
  EXPECT_FALSE(p1.fits);
  EXPECT_EQ(p1.need.weights_bytes, 140e9);
  EXPECT_TRUE(check_fit(plain, job, plan(1, 8, 1), a100()).fits);
}

TEST(MemorySeed, TenGigabytesOfGradients) {
  const ModelSpec model = load_model("gradients-10gb");
  const MemoryBreakdown m = memory_per_gpu(model, training(8, 1024), plan(8, 1, 1));
  EXPECT_EQ(m.gradients_bytes, 10e9);  // 5e9 × 2 B: what each step all-reduces
  EXPECT_EQ(m.weights_bytes, 10e9);
  EXPECT_EQ(m.optimizer_bytes, 60e9);   // 5e9 × 12 B
  EXPECT_EQ(m.activations_bytes, 0.0);  // a plain model without width
}

TEST(MemorySearch, SmallestPlanForSeventyBInference) {
  Job job;
  job.kind = JobKind::prefill;
  job.global_batch = 1;
  job.sequence_length = 4096;
  // 1 GPU: 138 GB. 2 GPUs (DP ≤ batch 1, so TP × PP = 2); TP 1 × PP 2 comes first:
  // 40 layers × 855,654,400 + LM head 262,144,000 + norm 8,192 = 34,488,328,192 params × 2 B
  // = 68,976,656,384 B; + KV 40 × 4096 × 2 × 8 × 128 × 2 B = 671,088,640
  // + working 4096 × (16,384 + 57,344) × 2 B = 603,979,776 → 70.25 GB ≤ 77.3 GB.
  const auto p = smallest_fitting_plan(load_model("llama2-70b"), job, a100(), 8);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->data, 1);
  EXPECT_EQ(p->tensor, 1);
  EXPECT_EQ(p->pipeline, 2);
  EXPECT_EQ(p->zero_stage, 0);
}

TEST(MemorySearch, SmallestPlanPrefersDataParallelWithLowZeroStage) {
  // 5e9 params × 16 B = 80 GB > 77.3 GB on one GPU. Two GPUs, DP 2: ZeRO 0 still 80 GB;
  // ZeRO 1: 10 GB weights + 10 GB gradients + 60 GB / 2 optimizer = 50 GB fits.
  const auto p = smallest_fitting_plan(load_model("gradients-10gb"), training(8, 1024), a100(), 8);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->gpus(), 2);
  EXPECT_EQ(p->data, 2);
  EXPECT_EQ(p->zero_stage, 1);
  EXPECT_EQ(p->micro_batches, 4);  // one-sequence micro-batches: 8 / 2
  EXPECT_FALSE(smallest_fitting_plan(load_model("llama3-405b"), training(8, 4096), a100(), 4));
}

}  // namespace
}  // namespace linksim::work
