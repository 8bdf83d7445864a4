// A job on one plane of each set of identical planes (sim/work/job_planes.hpp) against the same
// job on every plane: the same step, split and channel usage to rounding, with copies times
// fewer flows, and every plane when some traffic cannot leave them out.
#include "sim/work/job_planes.hpp"

#include <gtest/gtest.h>

#include <string>

#include "sim/report/job_report.hpp"
#include "sim/topo/loader.hpp"
#include "sim/work/job_sim.hpp"
#include "tests/support/temp_files.hpp"
#include "tests/support/tiny_model.hpp"

namespace linksim::work {
namespace {

using linksim::testing::TempDir;

Scenario tiny_scenario(const TempDir& dir, const std::string& machine, const std::string& plan,
                       const std::string& extra = "") {
  return load_scenario(testing::write_tiny_scenario(
      dir, machine, R"({"kind": "training", "global_batch": 8, "sequence_length": 512})", plan,
      extra));
}

struct BothRuns {
  JobResult reduced;
  JobResult full;
};

BothRuns run_both(const topo::Topology& machine, const Scenario& sc) {
  const ModelSpec model = load_model(sc.model);
  JobOptions reduced;
  reduced.leave_out_planes = true;
  JobOptions full;
  full.leave_out_planes = false;
  return {simulate_job(machine, model, sc, reduced), simulate_job(machine, model, sc, full)};
}

// Step, split, per-collective times, bottlenecks and every channel's usage agree to rounding.
void expect_same_outcome(const BothRuns& r, const std::string& what) {
  const double step = r.full.step_s;
  EXPECT_NEAR(r.reduced.step_s / step, 1.0, 1e-12) << what;
  EXPECT_NEAR(r.reduced.compute_s, r.full.compute_s, 1e-12 * step) << what;
  EXPECT_NEAR(r.reduced.exposed_comm_s, r.full.exposed_comm_s, 1e-12 * step) << what;
  EXPECT_NEAR(r.reduced.comm_s, r.full.comm_s, 1e-12 * step) << what;
  EXPECT_NEAR(r.reduced.idle_s, r.full.idle_s, 1e-12 * step) << what;
  EXPECT_EQ(r.reduced.bottlenecks, r.full.bottlenecks) << what;
  ASSERT_EQ(r.reduced.by_group.size(), r.full.by_group.size()) << what;
  for (const auto& [group, m] : r.full.by_group) {
    EXPECT_NEAR(r.reduced.by_group.at(group).time_s, m.time_s, 1e-12 * step) << what << group;
  }
  const auto& a = r.reduced.timeline->channels;
  const auto& b = r.full.timeline->channels;
  ASSERT_EQ(a.size(), b.size()) << what;
  for (std::size_t c = 0; c < a.size(); ++c) {
    EXPECT_NEAR(a[c].bytes, b[c].bytes, 1e-9 * (1 + b[c].bytes)) << what << " channel " << c;
    EXPECT_NEAR(a[c].busy_s, b[c].busy_s, 1e-12 * step) << what << " channel " << c;
    EXPECT_NEAR(a[c].saturated_s, b[c].saturated_s, 1e-12 * step) << what << " channel " << c;
  }
}

TEST(JobPlanesTest, PipelineAndTensorParallelOnSixPlanes) {
  // dgx-a100: every GPU pair's route splits over 6 identical NVSwitch planes, and a TP 2 x PP 2
  // x DP 2 job moves only over those routes (Ring/Tree all-reduces, stage sends), so its reduced
  // run starts exactly 1/6 of the flows: each transfer has one path instead of six.
  const TempDir dir;
  const Scenario sc = tiny_scenario(dir, "dgx-a100",
                                    R"({"data": 2, "tensor": 2, "pipeline": 2,
                                        "micro_batches": 4})");
  const BothRuns r = run_both(topo::load_topology("dgx-a100"), sc);
  EXPECT_EQ(r.full.timeline->flow_starts, 6 * r.reduced.timeline->flow_starts);
  EXPECT_GT(r.reduced.timeline->flow_starts, 0u);
  expect_same_outcome(r, "tp2 pp2 dp2");
}

TEST(JobPlanesTest, LlProtocolCapsKeepTheirShare) {
  // Forced LL: every rank's LL throughput cap is shared by its flows on all six planes, so the
  // reduced run keeps 1/6 of each cap (Lowering). Same outcome.
  const TempDir dir;
  const Scenario sc = tiny_scenario(dir, "dgx-a100", R"({"data": 4, "tensor": 2})",
                                    R"(, "overrides": {"protocol": "LL"})");
  const BothRuns r = run_both(topo::load_topology("dgx-a100"), sc);
  EXPECT_EQ(r.full.timeline->flow_starts, 6 * r.reduced.timeline->flow_starts);
  expect_same_outcome(r, "LL");
}

TEST(JobPlanesTest, HostCopiesOffThePlanesStayBeside) {
  // Activation offload copies go over PCIe to the CPU socket, a channel no plane crosses: they
  // run beside the reduced planes, one flow each in both runs.
  const TempDir dir;
  const Scenario sc =
      tiny_scenario(dir, "dgx-a100", R"({"data": 4, "tensor": 2, "activation_offload": true})");
  const BothRuns r = run_both(topo::load_topology("dgx-a100"), sc);
  EXPECT_LT(r.reduced.timeline->flow_starts, r.full.timeline->flow_starts);
  ASSERT_TRUE(r.full.by_group.count("offload"));
  expect_same_outcome(r, "offload");
}

TEST(JobPlanesTest, NvlsNeedsEveryPlane) {
  // NVLS picks switch ports itself (not over rank routes): a job with an NVLS all-reduce is
  // built on every plane, so both runs are the same graph.
  const TempDir dir;
  const Scenario sc = tiny_scenario(dir, "dgx-h100", R"({"data": 1, "tensor": 8})",
                                    R"(, "overrides": {"algorithm": "NVLS"})");
  const BothRuns r = run_both(topo::load_topology("dgx-h100"), sc);
  EXPECT_EQ(r.reduced.timeline->flow_starts, r.full.timeline->flow_starts);
  EXPECT_EQ(r.reduced.step_s, r.full.step_s);
}

TEST(JobPlanesTest, ShippedDefaultScenarioReportsTheSame) {
  // The README's default (ZeRO-3 data parallel on dgx-a100, rtx4090-8x, dgx-h100): the JSON
  // report of the reduced run is the full run's, byte for byte.
  const Scenario sc = load_scenario("default");
  const ModelSpec model = load_model(sc.model);
  for (const char* machine : {"dgx-a100", "dgx-h100", "rtx4090-8x"}) {
    const topo::Topology t = topo::load_topology(machine);
    JobOptions full;
    full.leave_out_planes = false;
    EXPECT_EQ(report::job_json(simulate_job(t, model, sc), sc).dump(),
              report::job_json(simulate_job(t, model, sc, full), sc).dump())
        << machine;
  }
}

TEST(JobPlanesTest, FillCopiesTheKeptChannelsUsage) {
  // Channels 0, 1 kept; 2 copies 0, 3 copies 1; 4 is off the planes and keeps its own; 5 is
  // past the topology's channels (a rank cap), so it carried 1/2 of its bytes.
  coll::PlaneCopies planes;
  planes.copies = 2;
  planes.keep_path = {true, false};
  const auto off = coll::PlaneCopies::kOffPlanes;
  planes.copy_of = {0, 1, 0, 1, off};
  engine::Timeline tl;
  tl.channels.resize(6);
  tl.channels[5] = {3, 1, 1, {}, {}};
  tl.channels[0] = {10, 1, 0.5, {{0, 1}}, {}};
  tl.channels[1] = {20, 2, 0.25, {}, {}};
  tl.channels[4] = {7, 3, 0, {}, {}};
  fill_left_out_planes(planes, tl);
  EXPECT_EQ(tl.channels[2].bytes, 10);
  EXPECT_EQ(tl.channels[2].saturated_s, 0.5);
  ASSERT_EQ(tl.channels[2].busy.size(), 1u);
  EXPECT_EQ(tl.channels[2].busy[0].end_s, 1);
  EXPECT_EQ(tl.channels[3].busy_s, 2);
  EXPECT_EQ(tl.channels[4].bytes, 7);
  EXPECT_EQ(tl.channels[5].bytes, 6);  // 3 x 2 copies
  EXPECT_EQ(tl.channels[5].busy_s, 1);
}

}  // namespace
}  // namespace linksim::work
