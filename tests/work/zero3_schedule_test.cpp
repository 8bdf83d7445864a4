// ZeRO-3 as FSDP runs it (sim/work/job_builder_data_parallel.cpp): per-layer weight gathers with
// a bounded prefetch depth, queued on the shard group's stream; gradient reduce-scatters per
// layer and micro-batch right after the layer's backward. The step is derived by hand from the
// tasks' own durations (compute c per layer, gather g per layer), so these tests hold the
// schedule, not the cost model.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "sim/topo/loader.hpp"
#include "sim/work/job_builder.hpp"
#include "sim/work/job_sim.hpp"
#include "tests/support/temp_files.hpp"

namespace linksim::work {
namespace {

using linksim::testing::TempDir;

// 6 layers, h = 1024, 8 heads, FFN 4096, bf16: 16,779,264 parameters = 33,558,528 B per layer
// (hybrid_sharding_test.cpp), each gathered whole by every rank.
constexpr const char* kModel = R"({"title": "tiny", "sources": ["test"], "layers": 6,
  "hidden": 1024, "heads": 8, "kv_heads": 8, "ffn_hidden": 4096, "vocab": 1000, "dtype": "bf16",
  "published_parameters": 1})";

Scenario scenario(const TempDir& dir, const std::string& job, const std::string& plan) {
  dir.write("tiny.json", kModel);
  return load_scenario(dir.write(
      "s.json", std::string(R"({"title": "t", "topologies": ["dgx-a100"], "model": ")") +
                    dir.path() + R"(/tiny.json", "job": )" + job + R"(, "plan": )" + plan + "}"));
}

// One forward pass (a prefill: no backward, no optimizer) on DP 2 GPUs of a DGX A100 under
// ZeRO-3, built and run without the SM-contention pass, so every task keeps its own duration.
struct Forward {
  TempDir dir;
  Scenario sc;
  ModelSpec model;
  topo::Topology machine;
  std::unique_ptr<JobBuilder> builder;
  engine::Timeline tl;
  std::vector<std::pair<double, double>> compute;  // rank 0's computes, in order: (start, end)
  std::vector<std::pair<double, double>> gathers;  // the DP all-gathers, layer order
  Forward(int tokens, const std::string& plan_extra) {
    sc = scenario(dir,
                  R"({"kind": "prefill", "global_batch": 2, "sequence_length": )" +
                      std::to_string(tokens) + "}",
                  R"({"data": 2, "zero_stage": 3)" + plan_extra + "}");
    model = load_model(sc.model);
    machine = topo::load_topology("dgx-a100");
    builder = std::make_unique<JobBuilder>(machine, model, sc);
    builder->build();
    tl = builder->sim()->run();
    for (const auto& [task, rank] : builder->compute_tasks()) {
      if (rank == 0) compute.emplace_back(tl.task_start_s[task], tl.task_end_s[task]);
    }
    for (const CommRecord& r : builder->records()) {
      if (r.group == "DP" && r.op == coll::Op::all_gather)
        gathers.emplace_back(tl.task_start_s[r.first_task], tl.task_end_s[r.end]);
    }
  }
  // Rank 0's computes: the embedding (e), 2 halves per layer, the LM head (h).
  double e() const { return compute.front().second - compute.front().first; }
  double head() const { return compute.back().second - compute.back().first; }
  // Layer l's compute: its attention half's start to its MLP half's end.
  double layer_start(int l) const { return compute[static_cast<std::size_t>(1 + 2 * l)].first; }
  double layer_end(int l) const { return compute[static_cast<std::size_t>(2 + 2 * l)].second; }
  double c() const { return layer_end(0) - layer_start(0); }
  double g() const { return gathers.front().second - gathers.front().first; }
  double step() const { return tl.makespan_s; }
};

TEST(Zero3Schedule, DepthOneGathersLayerLPlusTwoOnlyAfterLayerLComputedComputeBound) {
  // 8,192 tokens per GPU: a layer computes longer than its 33.6 MB gather takes on NVLink.
  const Forward f(8192, "");
  ASSERT_EQ(f.compute.size(), 2u + 2 * 6);
  ASSERT_EQ(f.gathers.size(), 6u);
  const double e = f.e(), c = f.c(), g = f.g(), h = f.head();
  ASSERT_GT(c, g);
  const double eps = 1e-9 * f.step();
  // By hand, depth 1 (FSDP's limit_all_gathers): gathers 0 and 1 wait only for the GPU's last
  // compute before the pass, the embedding (ends at e): AG0 = [e, e + g], AG1 = [e + g, e + 2g]
  // (one stream: after AG0). Layer 0 computes on [e + g, e + g + c]. AG2 waits for layer 0 to
  // free its weights: it starts at e + g + c, not at e + 2g where the stream is free, and ends
  // before layer 1 does (g < c). So every later layer starts when the previous one ends, and
  // AG(l + 2) starts exactly when layer l ends.
  EXPECT_NEAR(f.gathers[0].first, e, eps);
  EXPECT_NEAR(f.gathers[1].first, e + g, eps);
  for (int l = 0; l + 2 < 6; ++l) {
    EXPECT_NEAR(f.gathers[static_cast<std::size_t>(l + 2)].first, f.layer_end(l), eps) << l;
    EXPECT_NEAR(f.layer_end(l), e + g + (l + 1) * c, eps) << l;
  }
  // Step: e + g (the first gather, exposed) + 6c + h.
  EXPECT_NEAR(f.step(), e + g + 6 * c + h, eps);
}

TEST(Zero3Schedule, DepthOneGathersBackToBackWhenGatherBound) {
  // 64 tokens per GPU: a layer computes in less than its gather takes. The gathers run back to
  // back on the stream, AG_j = [e + j g, e + (j + 1) g] (layer j - 2 ended at e + (j - 1) g + c
  // < e + j g, so the depth bound never waits), each layer computes right after its gather:
  // step = e + 6g + c + h.
  const Forward f(64, "");
  const double e = f.e(), c = f.c(), g = f.g(), h = f.head();
  ASSERT_LT(c, g);
  const double eps = 1e-9 * f.step();
  for (int j = 0; j < 6; ++j) {
    EXPECT_NEAR(f.gathers[static_cast<std::size_t>(j)].first, e + j * g, eps) << j;
    EXPECT_NEAR(f.layer_start(j), e + (j + 1) * g, eps) << j;
  }
  EXPECT_NEAR(f.step(), e + 6 * g + c + h, eps);
}

TEST(Zero3Schedule, DeeperPrefetchLetsTheGatherRunFurtherAhead) {
  // Depth 2: gathers 0, 1 and 2 wait only for the embedding; AG(l + 3) waits for layer l. In
  // the compute-bound case AG2 now starts at e + 2g, right after AG1, instead of at the end of
  // layer 0, and AG3 starts when layer 0 ends (e + g + c). The step is the same, e + g + 6c + h:
  // with even layers depth 1 already hides every gather but the first.
  const Forward f(8192, R"(, "prefetch_depth": 2)");
  const double e = f.e(), c = f.c(), g = f.g(), h = f.head();
  const double eps = 1e-9 * f.step();
  EXPECT_NEAR(f.gathers[2].first, e + 2 * g, eps);
  for (int l = 0; l + 3 < 6; ++l)
    EXPECT_NEAR(f.gathers[static_cast<std::size_t>(l + 3)].first, f.layer_end(l), eps) << l;
  EXPECT_NEAR(f.step(), e + g + 6 * c + h, eps);
}

TEST(Zero3Schedule, WithoutPrefetchEveryGatherIsExposed) {
  // prefetch false: layer l's gather starts when layer l - 1 ends; step = e + 6 (g + c) + h.
  const Forward f(8192, R"(, "prefetch": false)");
  const double e = f.e(), c = f.c(), g = f.g(), h = f.head();
  const double eps = 1e-9 * f.step();
  for (int l = 1; l < 6; ++l)
    EXPECT_NEAR(f.gathers[static_cast<std::size_t>(l)].first, f.layer_end(l - 1), eps) << l;
  EXPECT_NEAR(f.step(), e + 6 * (g + c) + h, eps);
}

TEST(Zero3Schedule, TrainingReduceScattersEveryLayerOfEveryMicroBatchAfterItsBackward) {
  TempDir dir;
  const Scenario sc =
      scenario(dir, R"({"kind": "training", "global_batch": 4, "sequence_length": 512})",
               R"({"data": 2, "zero_stage": 3, "micro_batches": 2})");
  const ModelSpec model = load_model(sc.model);
  const topo::Topology machine = topo::load_topology("dgx-a100");
  JobBuilder b(machine, model, sc);
  b.build();
  const engine::Timeline tl = b.sim()->run();
  std::vector<const CommRecord*> rs;
  int gathers = 0;
  for (const CommRecord& r : b.records()) {
    if (r.group != "DP") continue;
    if (r.op == coll::Op::reduce_scatter) rs.push_back(&r);
    if (r.op == coll::Op::all_gather) ++gathers;
  }
  // Per micro-batch, 6 gathers in the forward and 6 in the backward (reshard after forward),
  // and 6 reduce-scatters: 2 x 12 = 24 gathers, 2 x 6 = 12 reduce-scatters.
  EXPECT_EQ(gathers, 24);
  ASSERT_EQ(rs.size(), 12u);
  // Rank 0's computes: per micro-batch the embedding, 12 forward halves, the LM head (forward
  // and backward), 12 backward halves, the embedding's gradient; then the optimizer step. The
  // 1F1B order on one stage is F0 B0 F1 B1. Each reduce-scatter starts once its layer's
  // backward (the second half) has ended, and (one stream per process group) after the
  // gather issued before it.
  std::vector<double> ends;
  for (const auto& [task, rank] : b.compute_tasks()) {
    if (rank == 0) ends.push_back(tl.task_end_s[task]);
  }
  ASSERT_EQ(ends.size(), 2u * (1 + 12 + 1 + 1 + 12 + 1) + 1);
  for (int mb = 0; mb < 2; ++mb) {
    const std::size_t backward = static_cast<std::size_t>(mb) * 28 + 15;  // its first half
    for (int l = 0; l < 6; ++l) {
      const CommRecord& r = *rs[static_cast<std::size_t>(mb * 6 + l)];
      // The last layer's backward ends after the embedding's gradient (first stage).
      const double layer_end =
          ends[backward + 2 * static_cast<std::size_t>(l) + 1 + (l == 5 ? 1 : 0)];
      EXPECT_GE(tl.task_start_s[r.first_task], layer_end - 1e-15) << mb << " " << l;
    }
  }
  // The reduce-scatter of the last layer also carries the embedding and LM head gradients:
  // 33,558,528 + (2 x 1,000 x 1,024 + 1,024) x 2 B = 37,656,576 B.
  EXPECT_DOUBLE_EQ(rs[0]->size_bytes, 33558528.0);
  EXPECT_DOUBLE_EQ(rs[5]->size_bytes, 37656576.0);
}

}  // namespace
}  // namespace linksim::work
