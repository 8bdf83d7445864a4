// FP8 training as Transformer Engine runs it (precision.matmul "fp8"; sim/work/layer_ops.cpp,
// docs/compute-model.md "FP8 matmuls"): one GEMM's FP8 time against its BF16 time on an H100
// from the peaks and the generation table, the cast kernels' bytes, no operation above the FP8
// peak, the refusal on an A100, the FP8 weight copies in memory, sequence parallelism's FP8
// all-gathers, and the scenario checks.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "sim/core/error.hpp"
#include "sim/topo/gpu_model.hpp"
#include "sim/topo/loader.hpp"
#include "sim/work/compute_efficiency_table.hpp"
#include "sim/work/job_sim.hpp"
#include "sim/work/layer_roofline.hpp"
#include "sim/work/memory.hpp"
#include "sim/work/model.hpp"
#include "sim/work/scenario.hpp"
#include "tests/support/temp_files.hpp"
#include "tests/support/tiny_model.hpp"

namespace linksim::work {
namespace {

using linksim::testing::TempDir;

// 4 layers, h 1024, 8 heads (MHA, head_dim 128), gated FFN 4096 (SwiGLU), vocab 1000, bf16.
// Linear weights per layer: QKV 1024·3072 + out 1024·1024 + up/gate 1024·8192 + down 4096·1024
// = 16,777,216.
const char* const kModel = linksim::testing::kTinyModelJson;

// H100 SXM5 (sim/topo/gpu_catalog.cpp): 989.4e12 dense bf16, 1,978.9e12 dense fp8, 132 SMs,
// 3,350 GB/s; Hopper row: GEMMs 0.75 of the per-SM peak in BF16 and 0.70 in FP8, HBM 0.90.
constexpr double kBf16 = 989.4e12;
constexpr double kFp8 = 1978.9e12;
constexpr double kSms = 132;
constexpr double kHbm = 3350e9 * 0.9;

Scenario scenario(const TempDir& dir, const std::string& machine, const std::string& job,
                  const std::string& plan, const std::string& precision) {
  dir.write("tiny.json", kModel);
  return load_scenario(dir.write(
      "s.json", R"({"title": "t", "topologies": [")" + machine +
                    R"("], "model": "tiny.json", "plan": )" + plan + R"(, "job": )" + job +
                    (precision.empty() ? "" : R"(, "precision": )" + precision) + "}"));
}

// 8 sequences of 512 tokens: 4,096 tokens a micro-batch (2 micro-batches of 4 sequences each
// would halve it: the weight-cast test uses 2 micro-batches of 8).
const char* kTraining = R"({"kind": "training", "global_batch": 8, "sequence_length": 512})";
const char* kFp8Matmul = R"({"matmul": "fp8"})";

const topo::GpuModel& h100() {
  static const topo::GpuModel gpu = *topo::find_gpu_model("H100-SXM5-80GB");
  return gpu;
}

OpCost find_op(const std::vector<OpCost>& ops, const std::string& name) {
  const auto it =
      std::find_if(ops.begin(), ops.end(), [&](const OpCost& o) { return o.name == name; });
  EXPECT_NE(it, ops.end()) << name;
  return it == ops.end() ? OpCost{} : *it;
}

bool has_op(const std::vector<OpCost>& ops, const std::string& name) {
  return std::any_of(ops.begin(), ops.end(), [&](const OpCost& o) { return o.name == name; });
}

TEST(Fp8Matmul, TheHopperRowGivesFp8GemmsTheirOwnFraction) {
  EXPECT_EQ(architecture_efficiency("hopper").fp8_gemm_fraction, 0.70);
  EXPECT_EQ(architecture_efficiency("ampere").fp8_gemm_fraction, 0);  // no FP8 tensor cores
  EXPECT_EQ(h100().peak_flops.at("fp8"), kFp8);
  EXPECT_EQ(h100().peak_flops.at("bf16"), kBf16);
}

TEST(Fp8Matmul, OneQkvGemmOnAnH100InFp8AndInBf16) {
  TempDir dir;
  const Scenario bf16 = scenario(dir, "dgx-h100", kTraining, R"({"data": 1})", "");
  const ModelSpec m = load_model(bf16.model);
  const OpCost b = find_op(LayerRoofline(m, bf16, h100()).layer_operations(false), "qkv");
  TempDir dir8;
  const Scenario fp8 = scenario(dir8, "dgx-h100", kTraining, R"({"data": 1})", kFp8Matmul);
  const OpCost f = find_op(LayerRoofline(m, fp8, h100()).layer_operations(false), "qkv");
  // QKV: M 4,096 tokens, N 3,072, K 1,024 on 132 SMs (the same tiles in both precisions):
  //   128×256: 32·12 = 384 tiles, 3 waves × 2·128·256·1024 = 201,326,592 FLOPs per SM
  //   128×128: 768 tiles, 6 waves × 33,554,432 = 201,326,592
  //   64×128: 1,536 tiles, 12 waves × 16,777,216 = 201,326,592
  //   16×128: 6,144 tiles, ceil(46.55) = 47 waves × 4,194,304 = 197,132,288: the least
  // bf16: 197,132,288 · 132 / (989.4e12 · 0.75) = 3.5067e-5 s; bytes x 8,388,608 + W 6,291,456
  //   + y 25,165,824 = 39,845,888 B in 1.32e-5 s: compute-bound.
  // fp8: 197,132,288 · 132 / (1,978.9e12 · 0.70) = 1.8786e-5 s; bytes x 4,194,304 (E4M3) + W
  //   3,145,728 (TE's FP8 copy) + y 25,165,824 (bf16) = 32,505,856 B in 1.08e-5 s: compute-bound.
  EXPECT_EQ(b.flops, 2 * 4096.0 * 3072 * 1024);
  EXPECT_EQ(f.flops, b.flops);
  EXPECT_EQ(b.bytes, 39845888.0);
  EXPECT_EQ(f.bytes, 32505856.0);
  EXPECT_NEAR(b.seconds, 197132288.0 * kSms / (kBf16 * 0.75), 1e-18);
  EXPECT_NEAR(f.seconds, 197132288.0 * kSms / (kFp8 * 0.70), 1e-18);
  // Twice the peak, the same tiles: the ratio is the peaks' ratio times the fractions',
  // 1,978.9 · 0.70 / (989.4 · 0.75) = 1.867 (Transformer Engine's H200 benchmark: 1.92).
  EXPECT_NEAR(b.seconds / f.seconds, kFp8 * 0.70 / (kBf16 * 0.75), 1e-12);
  // Backward: dX (E5M2 dY by the FP8 weight transpose) and dW (FP8 Xᵀ by FP8 dYᵀ, bf16 out).
  const auto back = LayerRoofline(m, fp8, h100()).layer_operations(true);
  // dX: M 4,096, N 1,024, K 3,072: bytes 4096·3072 + 3072·1024 + 4096·1024·2 = 12,582,912 +
  // 3,145,728 + 8,388,608 = 24,117,248.
  EXPECT_EQ(find_op(back, "qkv dX").bytes, 24117248.0);
  // dW: M 1,024, N 3,072, K 4,096: bytes 1024·4096 + 4096·3072 + 1024·3072·2 = 4,194,304 +
  // 12,582,912 + 6,291,456 = 23,068,672.
  EXPECT_EQ(find_op(back, "qkv dW").bytes, 23068672.0);
}

TEST(Fp8Matmul, AttentionAndTheLmHeadStayBf16) {
  TempDir dir;
  const Scenario bf16 = scenario(dir, "dgx-h100", kTraining, R"({"data": 1})", "");
  const ModelSpec m = load_model(bf16.model);
  TempDir dir8;
  const Scenario fp8 = scenario(dir8, "dgx-h100", kTraining, R"({"data": 1})", kFp8Matmul);
  const LayerRoofline b(m, bf16, h100()), f(m, fp8, h100());
  for (bool backward : {false, true}) {
    EXPECT_EQ(find_op(f.layer_operations(backward), "attention").seconds,
              find_op(b.layer_operations(backward), "attention").seconds);
    EXPECT_EQ(f.last_stage_s(backward), b.last_stage_s(backward));  // Megatron's own LM head
    EXPECT_EQ(f.first_stage_s(backward), b.first_stage_s(backward));
    EXPECT_EQ(find_op(f.layer_operations(backward), "attention norm").seconds,
              find_op(b.layer_operations(backward), "attention norm").seconds);
  }
  EXPECT_LT(f.half_layer_s(false), b.half_layer_s(false));
  EXPECT_LT(f.half_layer_s(true), b.half_layer_s(true));
}

TEST(Fp8Matmul, CastKernelBytes) {
  TempDir dir;
  // 2 micro-batches of 8 × 512 = 4,096 tokens: the weights are cast once a step, half a cast
  // per micro-batch.
  const Scenario sc = scenario(
      dir, "dgx-h100", R"({"kind": "training", "global_batch": 16, "sequence_length": 512})",
      R"({"data": 1, "micro_batches": 2})", kFp8Matmul);
  const ModelSpec m = load_model(sc.model);
  const LayerRoofline r(m, sc, h100());
  const auto fwd = r.layer_operations(false);
  // Forward, training: read bf16 (2 B), write FP8 (1 B) and its FP8 transpose (1 B): 4 B an
  // element. The attention output's input (T × h) and the MLP down projection's (T × f), the
  // TERowParallelLinear inputs; QKV's and the MLP up projection's come out of the norm in FP8.
  EXPECT_EQ(find_op(fwd, "attention out fp8 cast").bytes, 4096.0 * 1024 * 4);  // 16,777,216
  EXPECT_EQ(find_op(fwd, "mlp down fp8 cast").bytes, 4096.0 * 4096 * 4);       // 67,108,864
  EXPECT_FALSE(has_op(fwd, "qkv fp8 cast"));
  // The weights: 16,777,216 × 4 B (bf16 read, FP8 and FP8 transpose written) / 2 micro-batches.
  const OpCost w = find_op(fwd, "fp8 weight cast");
  EXPECT_EQ(w.bytes, 16777216.0 * 4 / 2);  // 33,554,432
  EXPECT_NEAR(w.seconds, 33554432.0 / kHbm, 1e-18);
  // Backward: each GEMM's output gradient cast to E5M2 and transposed (4 B an element), the
  // saved FP8 norm outputs transposed for QKV's and the MLP up projection's dW (2 B).
  const auto bwd = r.layer_operations(true);
  EXPECT_EQ(find_op(bwd, "attention out dY fp8 cast").bytes, 4096.0 * 1024 * 4);
  EXPECT_EQ(find_op(bwd, "qkv dY fp8 cast").bytes, 4096.0 * 3072 * 4);  // 50,331,648
  EXPECT_EQ(find_op(bwd, "qkv input fp8 transpose").bytes, 4096.0 * 1024 * 2);
  EXPECT_EQ(find_op(bwd, "mlp down dY fp8 cast").bytes, 4096.0 * 1024 * 4);
  EXPECT_EQ(find_op(bwd, "mlp up dY fp8 cast").bytes, 4096.0 * 8192 * 4);  // 134,217,728
  EXPECT_EQ(find_op(bwd, "mlp up input fp8 transpose").bytes, 4096.0 * 1024 * 2);
  EXPECT_FALSE(has_op(bwd, "fp8 weight cast"));
  // Full recomputation runs the forward's casts again, but not the weights' (TE keeps them).
  TempDir dir2;
  const Scenario full = scenario(
      dir2, "dgx-h100", R"({"kind": "training", "global_batch": 16, "sequence_length": 512})",
      R"({"data": 1, "micro_batches": 2, "recompute": "full"})", kFp8Matmul);
  const auto again = LayerRoofline(m, full, h100()).layer_operations(true);
  EXPECT_TRUE(has_op(again, "attention out fp8 cast"));
  EXPECT_FALSE(has_op(again, "fp8 weight cast"));
}

TEST(Fp8Matmul, SequenceParallelGradientsAreCastBeforeTheirFp8Gather) {
  TempDir dir;
  const Scenario sc =
      scenario(dir, "dgx-h100", kTraining, R"({"data": 1, "tensor": 2, "sequence_parallel": true})",
               kFp8Matmul);
  const ModelSpec m = load_model(sc.model);
  const auto bwd = LayerRoofline(m, sc, h100()).layer_operations(true);
  // This rank's 2,048 tokens cast (2 B read, 1 B written), gathered in FP8, then all 4,096
  // transposed (1 B read, 1 B written): 2048·1024·3 + 4096·1024·2 = 14,680,064 B.
  EXPECT_EQ(find_op(bwd, "attention out dY fp8 cast").bytes, 14680064.0);
  // Column-parallel QKV's output gradient is this rank's (h + 2kv) / 2 columns of every token.
  EXPECT_EQ(find_op(bwd, "qkv dY fp8 cast").bytes, 4096.0 * 1536 * 4);
}

TEST(Fp8Matmul, SequenceParallelAllGathersCarryFp8) {
  TempDir dir, dir8;
  const std::string plan = R"({"data": 1, "tensor": 2, "sequence_parallel": true})";
  const Scenario bf16 = scenario(dir, "dgx-h100", kTraining, plan, "");
  const Scenario fp8 = scenario(dir8, "dgx-h100", kTraining, plan, kFp8Matmul);
  const ModelSpec m = load_model(bf16.model);
  const topo::Topology machine = topo::load_topology("dgx-h100");
  const JobResult b = simulate_job(machine, m, bf16);
  const JobResult f = simulate_job(machine, m, fp8);
  // TE gathers the norm's FP8 output (forward) and the FP8 output gradient (backward): half the
  // bf16 bytes; the reduce-scatters stay bf16. 4 layers × 2 halves × 2 passes × 4,096 tokens ×
  // 1,024 × 2 B = 134,217,728 B gathered in bf16.
  EXPECT_EQ(b.by_collective.at("all_gather").bytes, 134217728.0);
  EXPECT_EQ(f.by_collective.at("all_gather").bytes, 134217728.0 / 2);
  EXPECT_EQ(f.by_collective.at("reduce_scatter").bytes, b.by_collective.at("reduce_scatter").bytes);
  EXPECT_LT(f.step_s, b.step_s);
}

// No operation of an FP8 job runs above the GPU's dense FP8 peak, the non-FP8 matmuls
// (attention, LM head) above the bf16 peak, or moves bytes above the datasheet bandwidth, on
// every FP8 GPU of the catalog, in training with and without TP/SP and full recomputation, and
// in prefill.
TEST(Fp8Matmul, NoOperationRunsAboveTheFp8Peak) {
  int checked = 0;
  for (const auto& [name, gpu] : topo::gpu_catalog()) {
    if (!gpu.peak_flops.contains("fp8") ||
        architecture_efficiency(gpu.architecture).fp8_gemm_fraction <= 0) {
      continue;
    }
    for (const std::string& plan :
         {R"({"data": 1})", R"({"data": 1, "tensor": 2, "sequence_parallel": true})",
          R"({"data": 1, "micro_batches": 2, "recompute": "full"})"}) {
      for (const std::string& job :
           {std::string(kTraining),
            std::string(R"({"kind": "prefill", "global_batch": 8, "sequence_length": 512})")}) {
        TempDir dir;
        const Scenario sc = scenario(dir, "dgx-h100", job, plan, kFp8Matmul);
        const ModelSpec m = load_model(sc.model);
        const LayerRoofline r(m, sc, gpu);
        for (bool backward : {false, true}) {
          if (backward && sc.job.kind != JobKind::training) continue;
          std::vector<OpCost> ops = r.layer_operations(backward);
          for (auto&& list :
               {r.first_stage_operations(backward), r.last_stage_operations(backward)})
            ops.insert(ops.end(), list.begin(), list.end());
          for (const OpCost& op : ops) {
            const std::string what = name + " " + plan + " " + job + ": " + op.name;
            ASSERT_GT(op.seconds, 0) << what;
            const bool linear = op.kind == OpKind::matmul;
            const double peak = gpu.peak_flops.at(linear ? "fp8" : "bf16");
            EXPECT_LE(op.flops / op.seconds, peak * (1 + 1e-12)) << what;
            EXPECT_LE(op.bytes / op.seconds, gpu.hbm_bandwidth_Bps * (1 + 1e-12)) << what;
            ++checked;
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 200);
}

TEST(Fp8Matmul, RefusedOnAnA100WithoutFp8TensorCores) {
  TempDir dir;
  const Scenario sc = scenario(dir, "dgx-a100", kTraining, R"({"data": 1})", kFp8Matmul);
  const ModelSpec m = load_model(sc.model);
  const std::string why =
      "FP8 matmuls need FP8 tensor cores (Hopper, Ada, Blackwell); A100-SXM4-80GB (ampere) has "
      "none: its GPU model (sim/topo/gpu_catalog.cpp, or the topology's gpu_models) gives no "
      "\"fp8\" peak_flops. Expected precision.matmul absent or bf16, or a GPU with FP8";
  try {
    simulate_job(topo::load_topology("dgx-a100"), m, sc);
    ADD_FAILURE() << "expected DoesNotFit";
  } catch (const DoesNotFit& e) {
    EXPECT_EQ(e.file(), sc.file);
    EXPECT_EQ(e.location(), "/precision/matmul");
    EXPECT_EQ(e.message(), why);
  }
  const topo::GpuModel a100 = *topo::find_gpu_model("A100-SXM4-80GB");
  EXPECT_EQ(fp8_matmul_problem(m, sc, a100), why);
  EXPECT_THROW(LayerRoofline(m, sc, a100), InputError);
  EXPECT_FALSE(fp8_matmul_problem(m, sc, h100()).has_value());
}

TEST(Fp8Matmul, MemoryAddsTheFp8WeightCopies) {
  TempDir dir, dir8;
  const Scenario bf16 = scenario(dir, "dgx-h100", kTraining, R"({"data": 1})", "");
  const Scenario fp8 = scenario(dir8, "dgx-h100", kTraining, R"({"data": 1})", kFp8Matmul);
  const ModelSpec m = load_model(bf16.model);
  const MemoryBreakdown b = memory_per_gpu(m, bf16.job, bf16.plan);
  const MemoryBreakdown f = memory_per_gpu(m, fp8.job, fp8.plan);
  // TE's FP8 copy and FP8 transpose of every linear weight: 4 layers × 16,777,216 × 2 B.
  EXPECT_EQ(f.weights_bytes - b.weights_bytes, 4 * 16777216.0 * 2);
  EXPECT_EQ(f.gradients_bytes, b.gradients_bytes);
  EXPECT_EQ(f.optimizer_bytes, b.optimizer_bytes);
  // TE saves the linear layers' inputs in FP8: s·b·h·(2 + 5/t) less per layer without sequence
  // parallelism, t = 1: 8 × 512 × 1024 × 7 = 29,360,128 B, on 4 layers of one micro-batch.
  EXPECT_EQ(b.activations_bytes - f.activations_bytes, 4 * 29360128.0);
  // Prefill: the FP8 copy only, 1 B a weight.
  Job prefill = fp8.job;
  prefill.kind = JobKind::prefill;
  Job prefill_bf16 = prefill;
  prefill_bf16.precision.matmul.clear();
  EXPECT_EQ(memory_per_gpu(m, prefill, fp8.plan).weights_bytes -
                memory_per_gpu(m, prefill_bf16, fp8.plan).weights_bytes,
            4 * 16777216.0);
}

TEST(Fp8Matmul, TheModelsDtypeIsTheDefaultAndChangesNothing) {
  TempDir dir, dir2;
  const Scenario plain = scenario(dir, "dgx-h100", kTraining, R"({"data": 1})", "");
  const Scenario named =
      scenario(dir2, "dgx-h100", kTraining, R"({"data": 1})", R"({"matmul": "bf16"})");
  const ModelSpec m = load_model(plain.model);
  EXPECT_EQ(LayerRoofline(m, named, h100()).half_layer_s(true),
            LayerRoofline(m, plain, h100()).half_layer_s(true));
  EXPECT_FALSE(LayerRoofline(m, named, h100()).fp8_matmuls());
}

void expect_refused(const std::string& job, const std::string& plan, const std::string& precision,
                    const std::string& rest, const std::string& message) {
  TempDir dir;
  dir.write("tiny.json", kModel);
  const std::string file = dir.write(
      "s.json", R"({"title": "t", "topologies": ["dgx-h100"], "model": "tiny.json", "plan": )" +
                    plan + R"(, "job": )" + job + R"(, "precision": )" + precision + rest + "}");
  try {
    load_scenario(file);
    ADD_FAILURE() << "expected InputError: " << message;
  } catch (const InputError& e) {
    EXPECT_EQ(e.location(), "/precision/matmul");
    EXPECT_EQ(e.message(), message);
  }
}

TEST(Fp8Matmul, TheScenarioRefusesWhatIsNotModelled) {
  expect_refused(kTraining, R"({"data": 1})", R"({"matmul": "fp16"})", "",
                 "expected \"fp8\" or the model's dtype (bf16), got fp16");
  expect_refused(R"({"kind": "decode", "global_batch": 1, "sequence_length": 16})",
                 R"({"data": 1})", kFp8Matmul, "",
                 "\"fp8\" applies to a training or prefill job, not decode");
  expect_refused(kTraining, R"({"data": 1})", kFp8Matmul, R"(, "compute": {"efficiency": 0.5})",
                 "\"fp8\" needs the derived compute model (FP8 GEMMs beside bf16 attention and "
                 "casts); compute.efficiency is one rate for every matmul: expected no "
                 "compute.efficiency");
}

}  // namespace
}  // namespace linksim::work
