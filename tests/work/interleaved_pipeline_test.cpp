// Interleaved 1F1B (plan.virtual_stages) and tensor parallelism across nodes, as whole jobs:
// step times worked by hand from the schedule (docs/schedules.md), the errors for plans that
// Megatron-LM would refuse, and the note on a tensor group that spans nodes.
#include <gtest/gtest.h>

#include "sim/core/error.hpp"
#include "sim/topo/loader.hpp"
#include "sim/work/job_sim.hpp"
#include "sim/work/memory.hpp"
#include "tests/support/temp_files.hpp"

namespace linksim::work {
namespace {

using linksim::testing::TempDir;

// A plain model (a parameter count only): 8 layers of 1,048,576 parameters, no hidden size, so
// no attention-score FLOPs, no embedding or LM head work and 0-byte activations between stages
// (each send costs only its latency).
const char* kPlain = R"({"title": "plain", "layers": 8, "parameters": 8388608})";

Scenario plain_scenario(const TempDir& dir, int virtual_stages) {
  dir.write("plain.json", kPlain);
  return load_scenario(
      dir.write("s.json", R"({"title": "t", "topologies": ["dgx-a100"], "model": "plain.json",
        "compute": {"efficiency": 0.5},
        "job": {"kind": "training", "global_batch": 4, "sequence_length": 1024},
        "plan": {"data": 1, "pipeline": 2, "micro_batches": 4, "virtual_stages": )" +
                              std::to_string(virtual_stages) + "}}"));
}

JobResult run(const Scenario& sc) {
  return simulate_job(topo::load_topology("dgx-a100"), load_model(sc.model), sc);
}

// Under compute.efficiency the A100's bf16 peak × 0.5 (layer_roofline.hpp).
double peak() {
  return topo::find_gpu_model("A100-SXM4-80GB")->peak_flops.at("bf16") * 0.5;
}
double hbm() {
  return topo::find_gpu_model("A100-SXM4-80GB")->hbm_bandwidth_Bps;
}

// One micro-batch is 1 sequence of 1,024 tokens. A layer's forward: 1,024 tokens × 2 ×
// 1,048,576 = 2,147,483,648 FLOPs (its 2,097,152 weight bytes take far less at HBM bandwidth);
// its backward twice that. Stage = 4 layers: F = 8,589,934,592 FLOPs, B = 2F. Each stage's
// Adam step after its last backward: 4,194,304 parameters × (16 + 2·2) B at HBM bandwidth.
// δ: one 0-byte stage-to-stage send, as the run reports it (its latency over NVSwitch).
constexpr double kLayerForwardFlops = 2147483648.0;
double optimizer_s() {
  return 4194304.0 * 20 / hbm();
}

TEST(InterleavedPipeline, OneFOneBStepIsMPlusPMinusOneStageUnits) {
  // P = 2, m = 4, v = 1. Stage 0 runs F0 F1 B0 F2 B1 F3 B2 B3, stage 1 F0 B0 F1 B1 F2 B2 F3 B3.
  // End times, in F (B = 2F) and sends δ:
  //   stage 1: F0 2F+δ, B0 4F+δ, F1 5F+δ, B1 7F+δ, F2 8F+3δ, B2 10F+3δ, F3 11F+3δ, B3 13F+3δ
  //   stage 0: F0 F, F1 2F, B0 6F+2δ, F2 7F+2δ, B1 9F+2δ, F3 10F+2δ, B2 12F+4δ, B3 15F+4δ
  // (stage 0's B_i waits for stage 1's B_i + δ; stage 1's F2 for stage 0's F2 + δ). The step:
  // (m + P - 1)(F + B) = 15F, + 4δ, + stage 0's optimizer step.
  TempDir dir;
  const JobResult r = run(plain_scenario(dir, 1));
  const GroupStat& pp = r.by_group.at("PP");
  EXPECT_EQ(pp.collectives, 2 * (2 - 1) * 4);  // 2 (P - 1) m sends
  const double delta = pp.time_s / pp.collectives;
  const double expected = 15 * 4 * kLayerForwardFlops / peak() + 4 * delta + optimizer_s();
  EXPECT_NEAR(r.step_s, expected, 1e-9 * expected);
}

TEST(InterleavedPipeline, TwoChunksStepIsMVPlusPMinusOneChunkUnits) {
  // P = 2, m = 4, v = 2: chunks of 2 layers, f = F/2 = 2 layer forwards, b = 2f. Megatron's
  // order (pipeline_schedule.hpp; warm-up 2(P - s - 1) + (v - 1)P = 4 and 2):
  //   stage 0: F0.0 F1.0 F0.1 F1.1 F2.0 B0.1 F3.0 B1.1 F2.1 B0.0 F3.1 B1.0 B2.1 B3.1 B2.0 B3.0
  //   stage 1: F0.0 F1.0 F0.1 B0.1 F1.1 B1.1 F2.0 B0.0 F3.0 B1.0 F2.1 B2.1 F3.1 B3.1 B2.0 B3.0
  // End times, in f (b = 2f) and sends δ (chunk 1 of stage 0 takes chunk 0 of stage 1's
  // output, the last rank back to the first):
  //   stage 0: f, 2f, 3f+2δ, 4f+2δ, 5f+2δ, 8f+4δ, 9f+4δ, 11f+4δ, 12f+4δ, 14f+4δ, 15f+4δ,
  //            17f+4δ, 20f+4δ, 23f+4δ, 25f+4δ, 27f+6δ
  //   stage 1: 2f+δ, 3f+δ, 4f+3δ, 6f+3δ, ..., 25f+5δ
  // The step: (m·v + P - 1)(f + b) = 27f = 13.5F (against 15F without interleaving: the bubble
  // (P - 1)(F + B) = 3F becomes 1.5F), + 6δ, + the optimizer step.
  TempDir dir;
  const JobResult r = run(plain_scenario(dir, 2));
  const GroupStat& pp = r.by_group.at("PP");
  EXPECT_EQ(pp.collectives, 2 * (2 * 2 - 1) * 4);  // 2 (P·v - 1) m sends
  const double delta = pp.time_s / pp.collectives;
  const double expected = 27 * 2 * kLayerForwardFlops / peak() + 6 * delta + optimizer_s();
  EXPECT_NEAR(r.step_s, expected, 1e-9 * expected);
  // Same compute per GPU: 4 layers × 4 micro-batches × 3 layer-forwards, + the optimizer.
  const double compute = 4 * 4 * 3 * kLayerForwardFlops / peak() + optimizer_s();
  EXPECT_NEAR(r.compute_s, compute, 1e-9 * compute);
  EXPECT_LT(r.step_s, run(plain_scenario(dir, 1)).step_s);
}

TEST(InterleavedPipeline, FirstStageHoldsMegatronsWarmUpOfActivations) {
  // Activations in flight on the first stage, in whole stages' worth: P = 4, m = 8: 1F1B
  // min(4, 8) = 4; v = 2: min(2·3 + 1·4 + 1, 16) / 2 = 5.5 (= P + (P - 1)/v); v = 4, m = 4:
  // min(6 + 12 + 1, 16) / 4 = 4 (the warm-up is every virtual micro-batch).
  const ModelSpec m = load_model("llama2-7b");
  Job job;
  job.global_batch = 8;
  job.sequence_length = 1024;
  ParallelPlan p;
  p.pipeline = 4;
  p.micro_batches = 8;
  const double plain = memory_per_gpu(m, job, p).activations_bytes;
  p.virtual_stages = 2;
  EXPECT_DOUBLE_EQ(memory_per_gpu(m, job, p).activations_bytes, plain * 5.5 / 4);
  p.virtual_stages = 4;
  p.micro_batches = 4;
  job.global_batch = 4;
  const double four = memory_per_gpu(m, job, p).activations_bytes;
  p.virtual_stages = 1;
  EXPECT_DOUBLE_EQ(four, memory_per_gpu(m, job, p).activations_bytes * 4 / 4);
}

TEST(InterleavedPipeline, ChunksMoveWorkWithoutAddingAny) {
  // An architecture model (embedding, LM head and loss on the model's first and last chunks),
  // DP 2 x TP 2 x PP 2 with DDP buckets, NCCL's SM share off so that compute is not slowed by
  // overlap: the same compute and the same gradient bytes with 1 or 2 chunks per stage; each
  // chunk boundary adds a send per micro-batch each way. ZeRO-3 and activation offload run too.
  TempDir dir;
  dir.write("m.json", R"({"title": "m", "layers": 8, "hidden": 1024, "heads": 8,
    "ffn_hidden": 4096, "vocab": 1000})");
  const auto result = [&](int v, const std::string& extra) {
    const Scenario sc = load_scenario(
        dir.write("s.json", R"({"title": "t", "topologies": ["dgx-a100"], "model": "m.json",
          "compute": {"efficiency": 0.5, "comm_sm_share": 0},
          "job": {"kind": "training", "global_batch": 8, "sequence_length": 256},
          "plan": {"data": 2, "tensor": 2, "pipeline": 2, "micro_batches": 4,
                   "bucket_size": "1 MB", "virtual_stages": )" +
                                std::to_string(v) + extra + "}}"));
    return run(sc);
  };
  const JobResult one = result(1, "");
  const JobResult two = result(2, "");
  EXPECT_NEAR(two.compute_s, one.compute_s, 1e-9 * one.compute_s);
  EXPECT_NEAR(two.by_group.at("DP").bytes, one.by_group.at("DP").bytes,
              1e-9 * one.by_group.at("DP").bytes);
  // Per (replica, TP rank): 2 (P - 1) m = 8 sends, against 2 (P·v - 1) m = 24.
  EXPECT_EQ(one.by_group.at("PP").collectives, 4 * 8);
  EXPECT_EQ(two.by_group.at("PP").collectives, 4 * 24);
  EXPECT_LT(two.step_s, one.step_s);
  for (const char* extra : {R"(, "zero_stage": 3)", R"(, "activation_offload": true)"}) {
    const JobResult a = result(1, extra);
    const JobResult b = result(2, extra);
    EXPECT_NEAR(b.compute_s, a.compute_s, 1e-9 * a.compute_s) << extra;
  }
}

// The error a scenario's plan gets from simulate_job, whole: file, JSON path and message.
std::string error_of(const TempDir& dir, const std::string& model, const std::string& plan,
                     const std::string& topology = "dgx-a100", int global_batch = 16) {
  const std::string path =
      dir.write("bad.json", R"({"title": "t", "topologies": [")" + topology + R"("], "model": ")" +
                                model + R"(", "compute": {"efficiency": 0.5},
        "job": {"kind": "training", "global_batch": )" +
                                std::to_string(global_batch) + R"(, "sequence_length": 128},
        "plan": )" + plan + "}");
  const Scenario sc = load_scenario(path);
  try {
    simulate_job(topo::load_topology(topology), load_model(sc.model), sc);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(InterleavedPipeline, PlansMegatronRefusesAreErrorsNamingFileAndField) {
  TempDir dir;
  dir.write("plain.json", kPlain);
  const std::string file = dir.path() + "/bad.json";
  // 8 layers over pipeline 2: 4 per stage, which 3 chunks do not divide.
  EXPECT_EQ(error_of(dir, "plain.json",
                     R"({"data": 1, "pipeline": 2, "micro_batches": 4, "virtual_stages": 3})"),
            file +
                ": at /plan/virtual_stages: virtual_stages 3 does not divide the 4 layers per "
                "stage (8 layers over pipeline 2); expected a divisor of 4");
  // 8 layers do not split over 3 stages.
  EXPECT_EQ(error_of(dir, "plain.json",
                     R"({"data": 1, "pipeline": 3, "micro_batches": 3, "virtual_stages": 2})",
                     "dgx-a100", 12),
            file +
                ": at /plan/virtual_stages: virtual_stages 2: plain's 8 layers do not split "
                "evenly over pipeline 3; expected pipeline to divide the layers when the stages "
                "are interleaved");
  EXPECT_EQ(error_of(dir, "plain.json", R"({"data": 1, "micro_batches": 4, "virtual_stages": 2})"),
            file +
                ": at /plan/virtual_stages: virtual_stages 2 needs pipeline parallelism "
                "(pipeline >= 2); pipeline is 1: expected 1, or a pipeline of 2 or more stages");
  EXPECT_EQ(error_of(dir, "plain.json",
                     R"({"data": 1, "pipeline": 4, "micro_batches": 6, "virtual_stages": 2})",
                     "dgx-a100", 12),
            file +
                ": at /plan/micro_batches: 6 micro-batches under the interleaved schedule "
                "(virtual_stages 2) with pipeline 4: Megatron-LM runs them in groups of pipeline "
                "size; expected a multiple of 4");
  // Degrees beyond the machine (checked before anything else).
  EXPECT_EQ(error_of(dir, "plain.json",
                     R"({"data": 4, "pipeline": 4, "micro_batches": 4, "virtual_stages": 2})"),
            file +
                ": at /plan: the plan uses data 4 x tensor 1 x pipeline 4 = 16 GPUs but dgx-a100 "
                "has 8; expected the degrees to multiply to at most 8 (or run it on more nodes)");
}

TEST(InterleavedPipeline, InferenceRefusesVirtualStages) {
  TempDir dir;
  dir.write("plain.json", kPlain);
  const std::string path =
      dir.write("bad.json", R"({"title": "t", "topologies": ["dgx-a100"], "model": "plain.json",
        "compute": {"efficiency": 0.5}, "job": {"kind": "prefill", "global_batch": 2},
        "plan": {"pipeline": 2, "micro_batches": 2, "virtual_stages": 2}})");
  const Scenario sc = load_scenario(path);
  try {
    simulate_job(topo::load_topology("dgx-a100"), load_model(sc.model), sc);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              path +
                  ": at /plan/virtual_stages: virtual_stages 2 interleaves the 1F1B schedule of "
                  "a training job; a prefill job runs forwards only: expected 1");
  }
}

TEST(TensorAcrossNodes, RunsWithItsNetworkCostAndANote) {
  // TP 16 on two 8-GPU p4d nodes: one tensor group over both nodes. Every layer half's
  // all-reduce crosses EFA, so the step is far slower than TP 8 x DP 2 inside the nodes.
  TempDir dir;
  dir.write("m.json", R"({"title": "m", "layers": 2, "hidden": 2048, "heads": 16,
    "ffn_hidden": 8192, "vocab": 1000})");
  const auto scenario = [&](const std::string& plan) {
    return load_scenario(
        dir.write("s.json", R"({"title": "t", "topologies": ["aws-p4d-x2"], "model": "m.json",
          "compute": {"efficiency": 0.5},
          "job": {"kind": "training", "global_batch": 2, "sequence_length": 512},
          "plan": )" + plan + "}"));
  };
  const topo::Topology cluster = topo::load_topology("aws-p4d-x2");
  const Scenario across = scenario(R"({"data": 1, "tensor": 16})");
  const JobResult r = simulate_job(cluster, load_model(across.model), across);
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_EQ(r.notes[0],
            "unusual: TP 16 spans nodes of 8 GPUs; its all-reduces cross the network every "
            "layer");
  EXPECT_GT(r.by_group.at("TP").collectives, 0);
  const Scenario inside = scenario(R"({"data": 2, "tensor": 8})");
  const JobResult in = simulate_job(cluster, load_model(inside.model), inside);
  EXPECT_TRUE(in.notes.empty());
  EXPECT_GT(r.by_group.at("TP").time_s / r.by_group.at("TP").collectives,
            in.by_group.at("TP").time_s / in.by_group.at("TP").collectives);
}

TEST(TensorAcrossNodes, AnAbsurdPlanRunsWithTheNote) {
  // TP 64 over 8 DGX A100 nodes: legal (64 heads), absurd, run with the note.
  TempDir dir;
  dir.write("m.json", R"({"title": "m", "layers": 2, "hidden": 4096, "heads": 64,
    "ffn_hidden": 16384, "vocab": 32000})");
  const std::string path =
      dir.write("s.json", R"({"title": "t", "topologies": ["dgx-a100"], "model": "m.json",
        "job": {"kind": "training", "global_batch": 1, "sequence_length": 2048},
        "plan": {"data": 1, "tensor": 64}})");
  const auto r =
      linksim::testing::run_linksim("run " + linksim::testing::shell_quote(path) + " --nodes 8");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("  note: unusual: TP 64 spans nodes of 8 GPUs; its all-reduces cross the "
                       "network every layer\n"),
            std::string::npos)
      << r.out;
}

}  // namespace
}  // namespace linksim::work
