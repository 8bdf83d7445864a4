// The derived compute model (sim/work/gemm_time.hpp, layer_ops.hpp, compute_efficiency_table.hpp;
// docs/compute-model.md): GEMM tiles, waves and split-K worked by hand, FlashAttention's FLOPs
// and IO, Adam's bytes, and over every shipped scenario that nothing runs above the GPU's peak.
#include <gtest/gtest.h>

#include <algorithm>

#include "sim/topo/gpu_model.hpp"
#include "sim/topo/loader.hpp"
#include "sim/work/compute_efficiency_table.hpp"
#include "sim/work/gemm_time.hpp"
#include "sim/work/job_sim.hpp"
#include "sim/work/layer_ops.hpp"
#include "sim/work/layer_roofline.hpp"
#include "sim/work/model_costs.hpp"
#include "sim/work/precision.hpp"
#include "tests/support/temp_files.hpp"
#include "tests/support/tiny_model.hpp"

namespace linksim::work {
namespace {

using linksim::testing::TempDir;

// A100-SXM4-80GB: 312e12 dense bf16 FLOP/s on 108 SMs, 2,039 GB/s; Ampere row: GEMMs at 0.80
// of the per-SM peak, attention at 0.70, HBM at 0.90.
GpuRates a100_rates() {
  GpuRates r;
  r.peak_flops = 312e12;
  r.sm_count = 108;
  r.gemm_fraction = 0.80;
  r.attention_fraction = 0.70;
  r.hbm_Bps = 2039e9;
  r.hbm_fraction = 0.90;
  return r;
}

TEST(GemmTime, A4096CubedBf16GemmOnAnA100) {
  const GemmTime t = gemm_time({1, 4096, 4096, 4096, 2, 2, 2}, a100_rates());
  // Tiles (all ≥ 108, no split-K), per SM 2·tm·tn·4096 FLOPs per tile-wave:
  //   128×256: 32·16 = 512 tiles, ceil(4.74) = 5 waves × 32,768 tile area = 163,840
  //   128×128: 1,024 tiles, ceil(9.48) = 10 waves × 16,384 = 163,840
  //   64×128: 2,048 tiles, ceil(18.96) = 19 waves × 8,192 = 155,648
  //   16×128: 8,192 tiles, ceil(75.85) = 76 waves × 2,048 = 155,648 (tie: the earlier, 64×128)
  // compute = 19 × 2·64·128·4096 / (312e12 / 108 × 0.8) = 19 × 67,108,864 × 108 / 249.6e12
  //         = 5.5171e-4 s; memory = 3 × 4096² × 2 B = 100,663,296 B / (2039e9 × 0.9) = 5.49e-5 s.
  EXPECT_EQ(t.tile.m, 64);
  EXPECT_EQ(t.tile.n, 128);
  EXPECT_EQ(t.waves, 19);
  EXPECT_EQ(t.split_k, 1);
  const double compute = 19 * 67108864.0 * 108 / (312e12 * 0.8);
  EXPECT_NEAR(t.compute_s, compute, 1e-15);
  EXPECT_NEAR(t.memory_s, 100663296.0 / (2039e9 * 0.9), 1e-15);
  EXPECT_NEAR(t.seconds, compute, 1e-15);
  // Below the dense peak: 2·4096³ = 137,438,953,472 FLOPs in 5.517e-4 s is 249.1 TFLOP/s.
  EXPECT_LT(2 * 4096.0 * 4096 * 4096 / t.seconds, 312e12);
}

TEST(GemmTime, OneAndAHalfWavesTakeTwo) {
  // 8 SMs at 1e12 FLOP/s each, every fraction 1, memory free. M = 16 tokens, N = 12 × 128,
  // K = 4096: with M = 16 every tile is one row of tiles, so only N decides:
  //   128×256: 6 tiles < 8 SMs: split-K min(floor(8/6), floor(4096/256)) = 1: 1 wave × 32,768
  //   128×128, 64×128, 16×128: 12 tiles = 1.5 waves -> 2 waves; 16×128's 2 × 2,048 is least.
  // compute = 2 waves × 2·16·128·4096 = 2 × 16,777,216 FLOPs at 1e12 = 3.3554432e-5 s.
  GpuRates r;
  r.peak_flops = 8e12;
  r.sm_count = 8;
  r.hbm_Bps = 1e18;
  const GemmTime t = gemm_time({1, 16, 12 * 128, 4096, 2, 2, 2}, r);
  EXPECT_EQ(t.tile.m, 16);
  EXPECT_EQ(t.waves, 2);
  EXPECT_NEAR(t.compute_s, 2 * 16777216.0 / 1e12, 1e-18);
}

TEST(GemmTime, ASkinnyDecodeGemmSplitsKAndIsMemoryBound) {
  // 16 tokens through Llama 2 70B's QKV shard at TP 8 on an A100: N = (8192 + 2·1024) / 8 =
  // 1,280, K = 8,192. 16×128: 10 tiles, split-K min(floor(108/10), floor(8192/256)) = 10:
  // 100 CTAs, 1 wave of 2·16·128·819.2 = 3,355,443.2 FLOPs per SM: 1.45e-6 s. Bytes: x 16·8192·2
  // = 262,144, W 8192·1280·2 = 20,971,520, y 16·1280·2 = 40,960, split-K partials
  // 2·10·16·1280·4 = 1,638,400: 22,913,024 B / (2039e9 × 0.9) = 1.2486e-5 s: memory-bound.
  const GemmTime t = gemm_time({1, 16, 1280, 8192, 2, 2, 2}, a100_rates());
  EXPECT_EQ(t.tile.m, 16);
  EXPECT_EQ(t.split_k, 10);
  EXPECT_EQ(t.waves, 1);
  EXPECT_NEAR(t.compute_s, 3355443.2 * 108 / (312e12 * 0.8), 1e-18);
  EXPECT_NEAR(t.seconds, 22913024.0 / (2039e9 * 0.9), 1e-18);
}

TEST(GemmTime, WithoutAnSmCountNoQuantization) {
  GpuRates r = a100_rates();
  r.sm_count = 0;
  // 2·4096³ = 137,438,953,472 FLOPs at 312e12 × 0.8.
  EXPECT_NEAR(gemm_time({1, 4096, 4096, 4096, 2, 2, 2}, r).compute_s,
              137438953472.0 / (312e12 * 0.8), 1e-15);
}

TEST(ComputeModel, AdamBytesPerParameter) {
  const Precision defaults;
  // bf16: moments r/w 16 + gradient 2 + fp32 master r/w 8 + bf16 copy written 2 = 28.
  EXPECT_EQ(adam_step_bytes_per_param(defaults, "bf16"), 28);
  // fp32: moments 16 + gradient 4 + weights r/w 8 = 28; fp8: 16 + 1 + 8 + 1 = 26.
  EXPECT_EQ(adam_step_bytes_per_param(defaults, "fp32"), 28);
  EXPECT_EQ(adam_step_bytes_per_param(defaults, "fp8"), 26);
  // Apex's remainders: moments 16 + gradient 2 + remainder r/w 4 + bf16 weight r/w 4 = 26.
  Precision remainder;
  remainder.master_weights = "remainder";
  EXPECT_EQ(adam_step_bytes_per_param(remainder, "bf16"), 26);
  // bf16 moments, no master: moments r/w 2 x 2 x 2 = 8 + gradient 2 + weight r/w 4 = 14.
  Precision bf16_states;
  bf16_states.optimizer_states = "bf16";
  bf16_states.master_weights = "none";
  EXPECT_EQ(adam_step_bytes_per_param(bf16_states, "bf16"), 14);
}

TEST(ComputeModel, OptimizerStateBytesPerParameter) {
  // Two fp32 moments (8) + an fp32 master (4) = 12; an fp32 model's weights are the master: 8.
  EXPECT_EQ(optimizer_bytes_per_param(Precision{}, "bf16"), 12);
  EXPECT_EQ(optimizer_bytes_per_param(Precision{}, "fp32"), 8);
  Precision p;
  p.master_weights = "remainder";  // 8 + the 16 low bits, 2 = 10 (NeMo's bf16 default)
  EXPECT_EQ(optimizer_bytes_per_param(p, "bf16"), 10);
  p.optimizer_states = "bf16";  // bf16 moments 2 + 2, master none: 4 (NeMo, optim.dtype bf16)
  p.master_weights = "none";
  EXPECT_EQ(optimizer_bytes_per_param(p, "bf16"), 4);
  p.master_weights = "";  // bf16 moments beside a default fp32 master: 4 + 4 = 8
  EXPECT_EQ(optimizer_bytes_per_param(p, "bf16"), 8);
}

TEST(ComputeModel, EveryCatalogGpuHasItsGenerationsRow) {
  for (const auto& [name, gpu] : topo::gpu_catalog()) {
    const ArchitectureEfficiency& row = architecture_efficiency(gpu.architecture);
    EXPECT_EQ(row.architecture, gpu.architecture) << name;
    for (double f : {row.gemm_fraction, row.attention_fraction, row.attention_backward_fraction,
                     row.hbm_fraction}) {
      EXPECT_GT(f, 0) << name;
      EXPECT_LE(f, 1) << name;
    }
    EXPECT_FALSE(row.source.empty()) << name;
  }
  EXPECT_EQ(architecture_efficiency("unheard-of").architecture, "default");
}

// 4 layers, h 1024, 8 heads (MHA, head_dim 128), gated FFN 4096, vocab 1000, bf16.
const char* const kModel = linksim::testing::kTinyModelJson;

Scenario tiny_scenario(const TempDir& dir, const std::string& job, const std::string& rest = "") {
  dir.write("tiny.json", kModel);
  return load_scenario(
      dir.write("s.json", R"({"title": "t", "topologies": ["dgx-a100"], "model": "tiny.json",
                              "plan": {"data": 1}, "job": )" +
                              job + rest + "}"));
}

OpCost find_op(const std::vector<OpCost>& ops, const std::string& name) {
  const auto it =
      std::find_if(ops.begin(), ops.end(), [&](const OpCost& o) { return o.name == name; });
  EXPECT_NE(it, ops.end()) << name;
  return it == ops.end() ? OpCost{} : *it;
}

TEST(ComputeModel, FlashAttentionForwardOnTheTinyModel) {
  TempDir dir;
  const Scenario sc =
      tiny_scenario(dir, R"({"kind": "training", "global_batch": 8, "sequence_length": 128})");
  const ModelSpec m = load_model(sc.model);
  const topo::GpuModel gpu = *topo::find_gpu_model("A100-SXM4-80GB");
  const LayerRoofline roofline(m, sc, gpu);
  const OpCost a = find_op(roofline.layer_operations(false), "attention");
  // 8 × 128 = 1,024 tokens, causal context 64: 4 · 1024 · 64 · 1024 = 268,435,456 FLOPs.
  // IO: Q, K, V 1024 · 3072 · 2 = 6,291,456; O 1024 · 1024 · 2 = 2,097,152; LSE 1024 · 8 · 4 =
  // 32,768: 8,421,376 B. Compute 268,435,456 / (312e12 · 0.7) = 1.23e-6 s < memory
  // 8,421,376 / (2039e9 · 0.9) = 4.59e-6 s.
  EXPECT_EQ(a.flops, 268435456.0);
  EXPECT_EQ(a.bytes, 8421376.0);
  EXPECT_NEAR(a.seconds, 8421376.0 / (2039e9 * 0.9), 1e-18);
  // Backward: 2.5× the FLOPs; Q, K, V, O, dO read and dQ, dK, dV written: 2 · 6,291,456 + 2 ·
  // 2,097,152 + 32,768 = 16,809,984 B.
  const OpCost b = find_op(roofline.layer_operations(true), "attention");
  EXPECT_EQ(b.flops, 2.5 * 268435456.0);
  EXPECT_EQ(b.bytes, 16809984.0);
}

TEST(ComputeModel, FlashAttentionBackwardRunsBelowItsForwardOnAnH100) {
  // One 4,096-token sequence: long enough that the attention core is compute-bound on an H100.
  TempDir dir;
  const Scenario sc =
      tiny_scenario(dir, R"({"kind": "training", "global_batch": 1, "sequence_length": 4096})");
  const ModelSpec m = load_model(sc.model);
  const topo::GpuModel gpu = *topo::find_gpu_model("H100-SXM5-80GB");
  const double peak = gpu.peak_flops.at("bf16");
  const LayerRoofline roofline(m, sc, gpu);
  // Forward: 4 · 4096 · 2048 (causal context) · 1024 = 34,359,738,368 FLOPs at the Hopper row's
  // forward fraction 0.60: 34,359,738,368 / (989.4e12 · 0.60) = 5.79e-5 s, above its IO
  // (Q, K, V 25,165,824 + O 8,388,608 + LSE 131,072 = 33,685,504 B / (3.35e12 · 0.9) = 1.12e-5 s).
  const OpCost a = find_op(roofline.layer_operations(false), "attention");
  EXPECT_EQ(a.flops, 34359738368.0);
  EXPECT_EQ(a.bytes, 33685504.0);
  EXPECT_NEAR(a.seconds, 34359738368.0 / (peak * 0.60), 1e-15);
  // Backward: 2.5 × the FLOPs at the backward fraction 0.55: 85,899,345,920 / (989.4e12 · 0.55)
  // = 1.58e-4 s, 2.5 × 0.60 / 0.55 = 2.73 × the forward's time, not 2.5 ×.
  const OpCost b = find_op(roofline.layer_operations(true), "attention");
  EXPECT_EQ(b.flops, 2.5 * 34359738368.0);
  EXPECT_NEAR(b.seconds, 2.5 * 34359738368.0 / (peak * 0.55), 1e-15);
  EXPECT_NEAR(b.seconds / a.seconds, 2.5 * 0.60 / 0.55, 1e-12);
}

TEST(ComputeModel, DecodeReadsTheLmHeadAndIsBoundByHbm) {
  TempDir dir;
  const Scenario sc = tiny_scenario(
      dir, R"({"kind": "decode", "global_batch": 1, "sequence_length": 128, "decode_tokens": 2})");
  const ModelSpec m = load_model(sc.model);
  const topo::GpuModel gpu = *topo::find_gpu_model("A100-SXM4-80GB");
  const LayerRoofline roofline(m, sc, gpu);
  // LM head: 1 token × 1000 × 1024: x 2,048 B, W 2,048,000 B, logits 2,000 B = 2,052,048 B.
  // Tiles 16×128: ceil(1000/128) = 8, split-K min(floor(108/8), floor(1024/256)) = 4: 32 CTAs,
  // 1 wave of 2·16·128·256 = 1,048,576 FLOPs: 4.5e-7 s; the split's fp32 partials 2 · 4 · 1000
  // · 4 = 32,000 B. Memory-bound: 2,084,048 B / (2039e9 · 0.9) = 1.14e-6 s.
  const OpCost head = find_op(roofline.last_stage_operations(false), "lm head");
  EXPECT_NEAR(head.seconds, 2084048.0 / (2039e9 * 0.9), 1e-18);
  // The whole token's compute on the GPU is at least every weight and KV byte it reads over the
  // datasheet bandwidth: 4 layers × (16,777,216 linear + 2,048 norm) × 2 B + the LM head's
  // 2,048,000 B + KV 4 × 129 × 2·1024·2 B.
  const JobResult r = simulate_job(topo::load_topology("dgx-a100"), m, sc);
  const double read = 4 * 16779264.0 * 2 + 2048000 + 4 * 129 * 4096.0;
  EXPECT_GE(r.compute_s, read / gpu.hbm_bandwidth_Bps);
  EXPECT_GE(r.compute_s, read / (gpu.hbm_bandwidth_Bps * 0.9));
}

// Over every shipped scenario and machine: no operation of the derived model (layers forward
// and backward, first and last stage) runs above the GPU's dense peak for the dtype or moves
// bytes above its datasheet bandwidth, in training, prefill and decode (serving: both, at
// batch 1 and at its largest batch); and a decode step's compute is at least its weight and KV
// bytes over the datasheet bandwidth.
TEST(ComputeModel, NoShippedScenarioRunsAbovePeak) {
  int checked = 0;
  for (const auto& file : shipped_scenario_files()) {
    const Scenario base = load_scenario(file);
    if (base.gradient_sync) continue;
    const ModelSpec m = load_model(base.model);
    for (const auto& name : base.topologies) {
      const topo::Topology machine = topo::load_topology(name);
      const topo::GpuModel& gpu = *machine.node(machine.nodes_of(topo::NodeKind::gpu).front()).gpu;
      std::vector<Scenario> cases;
      Scenario sc = base;
      if (sc.plan.data_fills) {
        sc.plan.data = static_cast<int>(machine.count(topo::NodeKind::gpu)) /
                       (sc.plan.tensor * sc.plan.pipeline);
        sc.plan.data_fills = false;
      }
      if (sc.job.kind == JobKind::serving) {
        for (int batch : {1, sc.job.serving.max_batch}) {
          Scenario d = sc;
          d.plan.data = 1;
          d.job.kind = JobKind::decode;
          d.job.global_batch = batch;
          d.job.sequence_length = sc.job.serving.input_tokens.max;
          d.job.decode_tokens = sc.job.serving.output_tokens.max;
          cases.push_back(d);
          Scenario p = d;
          p.job.kind = JobKind::prefill;
          p.job.global_batch = 1;
          cases.push_back(p);
        }
      } else {
        cases.push_back(sc);
      }
      const double peak =
          gpu.peak_flops.count(m.dtype) ? gpu.peak_flops.at(m.dtype) : gpu.peak_flops.at("bf16");
      for (const Scenario& c : cases) {
        const LayerRoofline roofline(m, c, gpu);
        std::vector<OpCost> ops;
        for (bool backward : {false, true}) {
          if (backward && c.job.kind != JobKind::training) continue;
          for (auto&& list :
               {roofline.layer_operations(backward), roofline.first_stage_operations(backward),
                roofline.last_stage_operations(backward)}) {
            ops.insert(ops.end(), list.begin(), list.end());
          }
        }
        for (const OpCost& op : ops) {
          const std::string what = file + " on " + name + ": " + op.name;
          ASSERT_GT(op.seconds, 0) << what;
          EXPECT_LE(op.flops / op.seconds, peak * (1 + 1e-12)) << what;
          EXPECT_LE(op.bytes / op.seconds, gpu.hbm_bandwidth_Bps * (1 + 1e-12)) << what;
          ++checked;
        }
        if (c.job.kind != JobKind::decode) continue;
        // Layers' and LM head's weights and the KV cache, over TP, at the datasheet bandwidth.
        const double kv_per_token = layer_costs(m).kv_bytes_per_token *
                                    kv_cache_bytes_per_element(c.job.precision, m.dtype) /
                                    dtype_bytes(m.dtype);
        const double kv = m.layers * (c.job.sequence_length + c.job.decode_tokens / 2.0) *
                          c.job.global_batch * kv_per_token;
        const double read =
            (m.layers * roofline.layer_weight_bytes() +
             static_cast<double>(m.vocab) * m.hidden * roofline.element_bytes() + kv) /
            c.plan.tensor;
        const double token_s = m.layers * 2 * roofline.half_layer_s(false) +
                               roofline.first_stage_s(false) + roofline.last_stage_s(false);
        EXPECT_GE(token_s * gpu.hbm_bandwidth_Bps, read * (1 - 1e-9)) << file << " on " << name;
      }
    }
  }
  EXPECT_GT(checked, 100);
}

}  // namespace
}  // namespace linksim::work
