// The step split of sim/work/job_sim.* on the cases issue 15 found wrong: tensor-parallel decode
// and pure data parallelism must file their collectives as exposed communication (not idle), and
// ZeRO-3 prefetch must hide weight gathers behind compute.
#include <gtest/gtest.h>

#include "sim/topo/loader.hpp"
#include "sim/work/job_sim.hpp"
#include "tests/support/temp_files.hpp"
#include "tests/support/tiny_model.hpp"

namespace linksim::work {
namespace {

using linksim::testing::TempDir;

// A 4x RTX 4090 workstation: one socket, every GPU on its own PCIe 4.0 x16 root port, no P2P
// (GeForce), as topologies/rtx4090-8x.json with one socket.
const char* kFourByFourNinety = R"json({"title": "4x RTX 4090 (test)", "nodes": [
  {"id": "gpu", "kind": "gpu", "count": 4, "model": "RTX-4090"},
  {"id": "cpu0", "kind": "cpu", "vendor": "amd", "model": "EPYC 7543",
   "memory_bandwidth": "204.8 GB/s", "socket": 0, "numa_node": 0, "cores": "0-31"}],
  "links": [{"for": {"g": "0..3"}, "a": "gpu{g}", "b": "cpu0", "kind": "pcie", "generation": 4,
             "width": 16, "host_bridge": "{g}"}]
})json";

// Llama 3 70B with fp8 weights, so that TP=4 fits in 4 x 24 GB.
const char* kSeventyFp8 = R"json({"title": "70B fp8 (test)", "sources": ["models/llama3-70b.json"],
  "layers": 80, "hidden": 8192, "heads": 64, "kv_heads": 8, "ffn_hidden": 28672,
  "vocab": 128256, "dtype": "fp8", "published_parameters": 70600000000.0
})json";

struct Case {
  TempDir dir;
  Scenario sc;
  ModelSpec model;
  Case(const std::string& machine, const std::string& job, const std::string& plan) {
    dir.write("model.json", kSeventyFp8);
    const std::string path = dir.write(
        "s.json", R"({"title": "t", "topologies": [")" + machine + R"("], "model": ")" +
                      dir.path() + R"(/model.json", "job": )" + job + R"(, "plan": )" + plan + "}");
    sc = load_scenario(path);
    model = load_model(sc.model);
  }
};

TEST(JobSimSplit, TensorParallelDecodeAllReducesAreExposedNotIdle) {
  // Issue 15's reproducer: 70B, TP=4 on 4x RTX 4090, batch 1. Every layer half is compute then
  // an all-reduce that the next half waits for, on four identical ranks: nothing hides the
  // all-reduces and no rank waits on another's compute. So per GPU exposed communication is the
  // all-reduces' summed durations (each GPU takes part in all of them, one after another), idle
  // is 0, and compute + exposed = the token time.
  TempDir topo_dir;
  const topo::Topology machine =
      topo::load_topology(topo_dir.write("rtx4090-4x.json", kFourByFourNinety));
  Case c("dgx-a100", R"({"kind": "decode", "global_batch": 1, "sequence_length": 1024,
                       "decode_tokens": 128})",
         R"({"data": 1, "tensor": 4})");
  const JobResult r = simulate_job(machine, c.model, c.sc);
  ASSERT_TRUE(r.by_group.count("TP"));
  EXPECT_EQ(r.by_group.at("TP").collectives, 160);  // 80 layers x 2 halves
  const double tp_s = r.by_group.at("TP").time_s;
  EXPECT_NEAR(r.exposed_comm_s, tp_s, 1e-9 * r.step_s);
  EXPECT_NEAR(r.comm_s, tp_s, 1e-9 * r.step_s);
  EXPECT_NEAR(r.hidden_comm_s, 0, 1e-9 * r.step_s);
  EXPECT_NEAR(r.idle_s, 0, 1e-9 * r.step_s);
  EXPECT_NEAR(r.compute_s + r.exposed_comm_s + r.idle_s, r.step_s, 1e-9 * r.step_s);
}

TEST(JobSimSplit, DataParallelGradientWaitIsCommunicationNotIdle) {
  // Pure DDP on one bucket: 8 identical replicas compute their backward, all-reduce the
  // gradients (the last bucket after the backward ends, nothing beside it), then step. No
  // rank waits on another's compute: idle is 0, and every second of all-reduce is either
  // beside the backward (hidden) or exposed.
  TempDir dir;
  dir.write("tiny.json", linksim::testing::kTinyModelJson);
  const Scenario sc = load_scenario(dir.write(
      "s.json", R"({"title": "t", "topologies": ["rtx4090-8x"], "model": ")" + dir.path() +
                    R"(/tiny.json", "job": {"kind": "training", "global_batch": 8,
                    "sequence_length": 128}, "plan": {"data": 8, "bucket_size": "1 GB"}})"));
  const JobResult r = simulate_job(topo::load_topology("rtx4090-8x"), load_model(sc.model), sc);
  ASSERT_EQ(r.by_group.at("DP").collectives, 1);
  EXPECT_NEAR(r.idle_s, 0, 1e-9 * r.step_s);
  // One bucket after the whole backward: the all-reduce is all exposed.
  EXPECT_NEAR(r.exposed_comm_s, r.by_group.at("DP").time_s, 1e-9 * r.step_s);
  EXPECT_NEAR(r.compute_s + r.exposed_comm_s, r.step_s, 1e-9 * r.step_s);
}

TEST(JobSimSplit, ZeroThreePrefetchHidesWeightGathers) {
  // The default scenario (Llama 2 7B, ZeRO-3 over 8 GPUs). Without prefetch every layer's
  // gather waits for the previous layer and the layer waits for it: all exposed. With it, the
  // next layer's gather runs beside this layer's compute: less exposed, some hidden, a shorter
  // step, and the same gathers (count and bytes).
  const Scenario with = load_scenario("default");
  Scenario without = with;
  without.plan.prefetch = false;
  const ModelSpec model = load_model(with.model);
  const topo::Topology machine = topo::load_topology("dgx-a100");
  const JobResult a = simulate_job(machine, model, with);
  const JobResult b = simulate_job(machine, model, without);
  EXPECT_EQ(a.by_collective.at("all_gather").collectives,
            b.by_collective.at("all_gather").collectives);
  EXPECT_EQ(a.by_collective.at("all_gather").bytes, b.by_collective.at("all_gather").bytes);
  EXPECT_LT(a.exposed_comm_s, b.exposed_comm_s);
  EXPECT_GT(a.hidden_comm_s, b.hidden_comm_s);
  EXPECT_LT(a.step_s, b.step_s);
}

}  // namespace
}  // namespace linksim::work
