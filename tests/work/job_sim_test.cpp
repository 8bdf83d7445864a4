// Jobs on machines: the seed's numbers, the step's parts adding up, communication volumes
// against their closed forms, and bad scenarios.
#include "sim/work/job_sim.hpp"

#include <gtest/gtest.h>

#include "sim/core/error.hpp"
#include "sim/report/job_report.hpp"
#include "sim/topo/loader.hpp"
#include "sim/work/gradient_sync_sim.hpp"
#include "sim/work/model_costs.hpp"
#include "sim/work/plan_check.hpp"
#include "tests/support/temp_files.hpp"
#include "tests/support/tiny_model.hpp"

namespace linksim::work {
namespace {

using linksim::testing::TempDir;

TEST(JobSimTest, SeedGradientExampleSimpleModel) {
  const Scenario sc = load_scenario("seed-gradient-sync");
  const auto pcie = simulate_gradient_sync(topo::load_topology("rtx4090-8x"), sc);
  // 10 GB / 32 GB/s = 0.3125 s after 0.1 s of compute: step 0.4125 s, share 0.3125 / 0.4125.
  EXPECT_NEAR(pcie.simple.step_s, 0.4125, 1e-12);
  EXPECT_NEAR(pcie.simple.comm_share, 0.3125 / 0.4125, 1e-12);  // 75.8% (the seed: 75%)
  const auto nvlink = simulate_gradient_sync(topo::load_topology("dgx-a100"), sc);
  // 10 GB / 300 GB/s = 0.0333 s: step 0.1333 s, share 0.0333 / 0.1333 = 25% (the seed: 23%).
  EXPECT_NEAR(nvlink.simple.step_s, 0.1 + 10.0 / 300.0, 1e-12);
  EXPECT_NEAR(nvlink.simple.comm_share, (10.0 / 300.0) / (0.1 + 10.0 / 300.0), 1e-12);
  // The simulated all-reduce moves 2(n-1)/n of the data per GPU over slower-than-line links:
  // slower than the simple model on both, and PCIe stays several times worse than NVLink.
  EXPECT_GT(pcie.realistic.step_s, pcie.simple.step_s);
  EXPECT_GT(nvlink.realistic.step_s, nvlink.simple.step_s);
  EXPECT_GT(pcie.realistic.comm_share, 2 * nvlink.realistic.comm_share);
  EXPECT_FALSE(pcie.realistic.advice.empty());
}

TEST(JobSimTest, StepPartsAddUp) {
  const Scenario sc = load_scenario("default");
  const ModelSpec model = load_model(sc.model);
  for (const char* machine : {"dgx-a100", "rtx4090-8x"}) {
    const JobResult r = simulate_job(topo::load_topology(machine), model, sc);
    // Per GPU: busy = compute U comm = compute + exposed comm; idle = step - busy. Averaged.
    EXPECT_NEAR(r.compute_s + r.exposed_comm_s + r.idle_s, r.step_s, 1e-9 * r.step_s) << machine;
    EXPECT_LE(r.exposed_comm_s, r.comm_s + 1e-12);
    EXPECT_GT(r.compute_s, 0);
    // 16 sequences x 2048 tokens per step.
    EXPECT_DOUBLE_EQ(r.tokens_per_step, 16.0 * 2048);
  }
}

TEST(JobSimTest, SameInputSameOutput) {
  const Scenario sc = load_scenario("default");
  const ModelSpec model = load_model(sc.model);
  const topo::Topology t = topo::load_topology("dgx-a100");
  EXPECT_EQ(report::job_json(simulate_job(t, model, sc), sc).dump(),
            report::job_json(simulate_job(t, model, sc), sc).dump());
}

Scenario tiny_scenario(const TempDir& dir, const std::string& plan, const std::string& job) {
  return load_scenario(testing::write_tiny_scenario(dir, "dgx-a100", job, plan));
}

TEST(JobSimTest, DataParallelVolumeIsTheGradient) {
  TempDir dir;
  const Scenario sc =
      tiny_scenario(dir, R"({"data": 8, "bucket_size": "1 GB"})",
                    R"({"kind": "training", "global_batch": 8, "sequence_length": 128})");
  const ModelSpec model = load_model(sc.model);
  const JobResult r = simulate_job(topo::load_topology("dgx-a100"), model, sc);
  // DDP all-reduces every gradient once: parameter_count x 2 bytes (bf16), in one bucket here.
  ASSERT_TRUE(r.by_group.count("DP"));
  EXPECT_DOUBLE_EQ(r.by_group.at("DP").bytes, parameter_count(model) * 2);
  EXPECT_EQ(r.by_group.at("DP").collectives, 1);
  EXPECT_EQ(r.by_group.count("TP"), 0u);
}

TEST(JobSimTest, TensorParallelVolumeIsFourActivationsPerLayer) {
  TempDir dir;
  const Scenario sc =
      tiny_scenario(dir, R"({"data": 1, "tensor": 8})",
                    R"({"kind": "training", "global_batch": 2, "sequence_length": 128})");
  const ModelSpec model = load_model(sc.model);
  const JobResult r = simulate_job(topo::load_topology("dgx-a100"), model, sc);
  // Megatron: 2 all-reduces in the forward and 2 in the backward of every layer, each of the
  // micro-batch's activations: tokens x hidden x 2 B = (2 x 128) x 1024 x 2 = 524,288 B.
  // 4 layers x 4 = 16 all-reduces, 16 x 524,288 = 8,388,608 B.
  ASSERT_TRUE(r.by_group.count("TP"));
  EXPECT_EQ(r.by_group.at("TP").collectives, 16);
  EXPECT_DOUBLE_EQ(r.by_group.at("TP").bytes, 8388608.0);
}

TEST(JobSimTest, PipelineSendsActivationsSevenTimesPerForward) {
  const Scenario sc = load_scenario("seed-70b-inference-pp8");
  const ModelSpec model = load_model(sc.model);
  const JobResult r = simulate_job(topo::load_topology("dgx-a100"), model, sc);
  // 8 stages: 7 boundaries, each crossed by 2048 tokens x 8192 x 2 B = 33,554,432 B.
  ASSERT_TRUE(r.by_group.count("PP"));
  EXPECT_EQ(r.by_group.at("PP").collectives, 7);
  EXPECT_DOUBLE_EQ(r.by_group.at("PP").bytes, 7 * 33554432.0);
}

TEST(JobSimTest, ExpertParallelAllToAllVolume) {
  TempDir dir;
  const std::string path = dir.write("moe.json", R"({"title": "t", "topologies": ["dgx-h100"],
    "model": "mixtral-8x7b", "job": {"kind": "prefill", "global_batch": 8, "sequence_length": 2048},
    "plan": {"data": 8, "expert": 8}})");
  const Scenario sc = load_scenario(path);
  const ModelSpec model = load_model(sc.model);
  const JobResult r = simulate_job(topo::load_topology("dgx-h100"), model, sc);
  // One all-to-all per MoE layer carrying dispatch and combine: 2 x tokens x hidden x 2 B x
  // top-2 = 2 x 2048 x 4096 x 2 x 2 = 67,108,864 B per layer; 32 layers = 2,147,483,648 B.
  ASSERT_TRUE(r.by_group.count("EP"));
  EXPECT_EQ(r.by_group.at("EP").collectives, 32);
  EXPECT_DOUBLE_EQ(r.by_group.at("EP").bytes, 2147483648.0);
}

TEST(JobSimTest, SequenceParallelSwapsAllReduceForReduceScatterAndAllGather) {
  TempDir dir;
  const Scenario sc =
      tiny_scenario(dir, R"({"data": 1, "tensor": 8, "sequence_parallel": true})",
                    R"({"kind": "training", "global_batch": 2, "sequence_length": 128})");
  const ModelSpec model = load_model(sc.model);
  const JobResult r = simulate_job(topo::load_topology("dgx-a100"), model, sc);
  // 4 layers x 4 exchanges, each a reduce-scatter then an all-gather of 524,288 B.
  EXPECT_EQ(r.by_collective.count("all_reduce"), 0u);
  EXPECT_EQ(r.by_collective.at("reduce_scatter").collectives, 16);
  EXPECT_EQ(r.by_collective.at("all_gather").collectives, 16);
  EXPECT_DOUBLE_EQ(r.by_group.at("TP").bytes, 32 * 524288.0);
}

TEST(JobSimTest, PcieMachineIsCommunicationBoundWhereNvlinkIsNot) {
  // ZeRO-3 without prefetch: every gather is exposed, and over host-staged PCIe that is a large
  // share of the step. With prefetch (the default) the gathers hide behind compute on both
  // machines, PCIe still exposing more of them.
  Scenario sc = load_scenario("llama2-7b-4090-vs-a100");
  sc.plan.prefetch = false;
  const ModelSpec model = load_model(sc.model);
  const topo::Topology rtx = topo::load_topology("rtx4090-8x");
  const topo::Topology a100 = topo::load_topology("dgx-a100");
  const JobResult pcie = simulate_job(rtx, model, sc);
  const JobResult nvl = simulate_job(a100, model, sc);
  EXPECT_GT(pcie.comm_share, 0.3);
  EXPECT_LT(nvl.comm_share, pcie.comm_share);
  ASSERT_FALSE(pcie.advice.empty());
  EXPECT_NE(pcie.advice.front().find("NVLink"), std::string::npos);
  sc.plan.prefetch = true;
  const JobResult pcie_prefetch = simulate_job(rtx, model, sc);
  EXPECT_LT(simulate_job(a100, model, sc).comm_share, pcie_prefetch.comm_share);
  EXPECT_LT(pcie_prefetch.comm_share, pcie.comm_share);
}

TEST(JobSimTest, FourHundredBillionNeedsSeveralNodesAndRunsOnTwo) {
  const Scenario sc = load_scenario("llama3-405b");
  const ModelSpec model = load_model(sc.model);
  Scenario one = sc;
  one.plan.pipeline = 1;  // TP 8 on one node: 810 GB of weights over 8 GPUs
  try {
    simulate_job(topo::load_topology("dgx-h100"), model, one);
    FAIL() << "expected DoesNotFit";
  } catch (const DoesNotFit& e) {
    EXPECT_EQ(e.location(), "/plan");
    EXPECT_NE(e.message().find("which takes several nodes: run it on a cluster"), std::string::npos)
        << e.what();
  }
  // The shipped plan: TP 8 inside each node, two pipeline stages, on 2 of the 4 Azure nodes:
  // 16 GPUs, and it pays for the two nodes it takes (2 x USD 98.32 per hour).
  const JobResult r = simulate_job(topo::load_topology("azure-nd-h100-v5-x4"), model, sc);
  EXPECT_EQ(r.gpus, 16);
  ASSERT_TRUE(r.price_per_hour_usd);
  EXPECT_DOUBLE_EQ(*r.price_per_hour_usd, 2 * 98.32);
  EXPECT_GT(r.step_s, 0);
  EXPECT_NEAR(r.compute_s + r.exposed_comm_s + r.idle_s, r.step_s, 1e-9 * r.step_s);
}

TEST(JobSimTest, DataFillsMachinesOfEachSize) {
  const Scenario sc = load_scenario("llama3-8b-2xp4d-or-1xp5");
  const ModelSpec model = load_model(sc.model);
  // 2x p4d: 16 GPUs, DP 16; 1x p5: 8 GPUs, DP 8; both at the global batch of 64.
  EXPECT_EQ(simulate_job(topo::load_topology("aws-p4d-x2"), model, sc).gpus, 16);
  EXPECT_EQ(simulate_job(topo::load_topology("aws-p5.48xlarge"), model, sc).gpus, 8);
}

TEST(JobSimTest, TensorGroupsMaySpanNodesWithANote) {
  // Issue 33: a tensor group wider than a node is no longer refused; it runs over the network
  // with a note (tests/work/interleaved_pipeline_test.cpp runs such jobs).
  Scenario sc = load_scenario("llama3-405b");
  sc.plan.tensor = 16;
  sc.plan.pipeline = 1;
  const topo::Topology cluster = topo::load_topology("azure-nd-h100-v5-x4");
  EXPECT_FALSE(plan_problem(cluster, load_model(sc.model), sc.job, sc.plan));
  EXPECT_EQ(tensor_spans_nodes_warning(cluster, sc.plan),
            "unusual: TP 16 spans nodes of 8 GPUs; its all-reduces cross the network every layer");
  sc.plan.tensor = 8;
  EXPECT_FALSE(tensor_spans_nodes_warning(cluster, sc.plan));
}

TEST(JobSimTest, MicroBatchesBeyondTheTaskBoundAreRefusedBeforeBuilding) {
  // tiny (4 layers), data 2 x tensor 1: 4 layers x 2 halves x 2 passes x 2 GPUs = 32 compute
  // tasks per micro-batch. 100,000 micro-batches would be 3.2e6 > 2e6; the most allowed is
  // 2e6 / 32 = 62,500.
  TempDir dir;
  const Scenario sc =
      tiny_scenario(dir, R"({"data": 2, "micro_batches": 100000})",
                    R"({"kind": "training", "global_batch": 200000, "sequence_length": 128})");
  try {
    simulate_job(topo::load_topology("dgx-a100"), load_model(sc.model), sc);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.location(), "/plan/micro_batches");
    EXPECT_EQ(e.message(),
              "100000 micro-batches x 4 layers x 2 halves x 2 pass(es) x 2 GPUs per stage built "
              "would be 3.2e+06 compute tasks; linksim simulates at most 2e+06 per step: "
              "expected at most 62500 micro-batches here");
  }
  // 62,500 is allowed by the check (the plan is fine; not simulated here).
  Scenario ok = sc;
  ok.plan.micro_batches = 62500;
  ok.job.global_batch = 125000;
  EXPECT_FALSE(
      plan_problem(topo::load_topology("dgx-a100"), load_model(sc.model), ok.job, ok.plan));
}

TEST(JobSimTest, BadPlans) {
  TempDir dir;
  const Scenario sc =
      tiny_scenario(dir, R"({"data": 16, "tensor": 1})",
                    R"({"kind": "training", "global_batch": 16, "sequence_length": 128})");
  const ModelSpec model = load_model(sc.model);
  try {
    simulate_job(topo::load_topology("dgx-a100"), model, sc);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.message(),
              "the plan uses data 16 x tensor 1 x pipeline 1 = 16 GPUs but dgx-a100 has 8; "
              "expected the degrees to multiply to at most 8 (or run it on more nodes)");
  }
  // 3 sequences cannot split over 8 data-parallel replicas.
  const Scenario heads =
      tiny_scenario(dir, R"({"data": 8})", R"({"kind": "training", "global_batch": 3})");
  try {
    simulate_job(topo::load_topology("dgx-a100"), model, heads);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.location(), "/job/global_batch");
  }
}

TEST(ScenarioTest, BadScenarioFiles) {
  TempDir dir;
  auto error_of = [&](const std::string& text) {
    const std::string path = dir.write("bad.json", text);
    try {
      load_scenario(path);
    } catch (const InputError& e) {
      return std::string(e.what()).substr(path.size());
    }
    return std::string("(loaded)");
  };
  EXPECT_EQ(error_of(R"({"title": "t", "topologies": ["no-such-machine"], "model": "x",
                        "job": {"kind": "training"}, "plan": {}})"),
            ": at /topologies/0: unknown machine \"no-such-machine\": not a shipped topology (see "
            "`linksim topo list`) nor a file");
  EXPECT_EQ(error_of(R"({"title": "t", "topologies": ["dgx-a100"], "model": "x",
                        "job": {"kind": "fishing"}, "plan": {}})"),
            ": at /job/kind: unknown job kind \"fishing\"; expected training, prefill, decode, "
            "serving or gradient_sync");
  EXPECT_EQ(error_of(R"({"title": "t", "topologies": ["dgx-a100"], "model": "x",
                        "job": {"kind": "training"}, "plan": {"data": 0}})"),
            ": at /plan/data: expected a positive integer");
  EXPECT_EQ(error_of(R"({"title": "t", "topologies": ["dgx-a100"], "model": "x",
                        "job": {"kind": "training"}, "plan": {"prefetch": "yes"}})")
                .substr(0, 48),
            ": at /plan/prefetch: expected true or false, got");
  EXPECT_EQ(error_of(R"({"title": "t", "topologies": ["dgx-a100"], "model": "x",
                        "job": {"kind": "training"}, "plan": {}, "colour": 1})")
                .substr(0, 37),
            ": at /colour: unknown field \"colour\";");
}

TEST(ScenarioTest, UnknownModelIsNamed) {
  TempDir dir;
  const std::string path = dir.write("s.json", R"({"title": "t", "topologies": ["dgx-a100"],
    "model": "llama9-1t", "job": {"kind": "training"}, "plan": {"data": 8}})");
  // The scenario and /model are named when it loads, not later by the model loader.
  try {
    load_scenario(path);
    FAIL() << "loaded";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(path + ": at /model: unknown model \"llama9-1t\"", 0), 0u)
        << e.what();
  }
}

// Channel busy intervals are what a trace draws and nothing else reads: recorded only when
// asked, with the rest of the result the same either way.
TEST(JobSimTest, ChannelIntervalsOnlyWhenAskedAndTheResultIsTheSame) {
  const Scenario sc = load_scenario("default");
  const ModelSpec model = load_model(sc.model);
  const topo::Topology t = topo::load_topology("dgx-a100");
  JobOptions traced;
  traced.record_channel_intervals = true;
  const JobResult with = simulate_job(t, model, sc, traced);
  const JobResult without = simulate_job(t, model, sc);
  std::size_t busy_with = 0;
  std::size_t busy_without = 0;
  for (const auto& c : with.timeline->channels)
    busy_with += c.busy.size();
  for (const auto& c : without.timeline->channels)
    busy_without += c.busy.size();
  EXPECT_GT(busy_with, 0u);
  EXPECT_EQ(busy_without, 0u);
  EXPECT_EQ(report::job_json(with, sc).dump(), report::job_json(without, sc).dump());
}

}  // namespace
}  // namespace linksim::work
