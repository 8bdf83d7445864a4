// Collectives on small machines, worked by hand.
#include "sim/coll/collective_sim.hpp"

#include <gtest/gtest.h>

#include "sim/coll/nccl_tuner_model.hpp"
#include "sim/coll/sweep.hpp"
#include "sim/core/error.hpp"
#include "sim/topo/link_payload.hpp"
#include "sim/topo/loader.hpp"
#include "sim/topo/shipped_topologies.hpp"
#include "tests/coll/test_machines.hpp"
#include "tests/support/simple_copy_share.hpp"

namespace linksim::coll {
namespace {

// Two A100s joined by 4 NVLink 3 links (100 GB/s per direction) and nothing else.
topo::Topology nvlink_pair() {
  return topo::parse_topology(Json::parse(R"({
    "title": "pair", "nodes": [{"id": "gpu", "kind": "gpu", "count": 2, "model": "A100-SXM4-80GB"}],
    "links": [{"a": "gpu0", "b": "gpu1", "kind": "nvlink", "generation": 3, "lanes": 4}]})"),
                              "pair.json");
}

TEST(CollectiveSimTest, RingAllReduceOnTwoGpusByHand) {
  const topo::Topology t = nvlink_pair();
  const Communicator comm(t, t.nodes_of(topo::NodeKind::gpu));
  EXPECT_EQ(comm.intra_class(), HwClass::nvlink);
  Request r;
  r.op = Op::all_reduce;
  r.size_bytes = 100e6;
  const Choice ring_simple{Algorithm::ring, Protocol::simple, 2};
  // By steps, the bulk form a job's collectives take (slices: slice_pipeline_test.cpp).
  const Outcome o = simulate_choice(comm, r, ring_simple, Granularity::steps);
  // Payload rate of the NVLink 3 link: 100 GB/s x 0.866 = 86.6 GB/s per direction.
  const double link = 100e9 * linksim::testing::kNvlink3Payload;
  // Simple copies payload at 0.9338 of the wire (protocol.cpp): 50 MB per rank per step becomes
  // 50e6 / eta wire bytes. Two steps (2(n-1) = 2), each paying the NVLink Simple hop (3.4 us)
  // plus the link's own 0.2 us, after the Ring/Simple base latency (8.4 us).
  const double eta = linksim::testing::kSimpleCopyShare;
  const double step = 3.4e-6 + 0.2e-6 + 50e6 / eta / link;
  EXPECT_NEAR(o.time_s, 8.4e-6 + 2 * step, 1e-12);
  // nccl-tests: algbw = size / time; busbw = algbw x 2(n-1)/n = algbw for n = 2.
  EXPECT_DOUBLE_EQ(o.algbw_Bps, 100e6 / o.time_s);
  EXPECT_DOUBLE_EQ(o.busbw_Bps, o.algbw_Bps);
  ASSERT_TRUE(o.bottleneck.has_value());
}

TEST(CollectiveSimTest, LlIsCappedAndCarriesHalfPayload) {
  const topo::Topology t = nvlink_pair();
  const Communicator comm(t, t.nodes_of(topo::NodeKind::gpu));
  Request r;
  r.op = Op::all_reduce;
  r.size_bytes = 100e6;
  const Outcome ll =
      simulate_choice(comm, r, Choice{Algorithm::ring, Protocol::ll, 2}, Granularity::steps);
  // LL: wire efficiency 0.5 x 0.857 = 0.4287; the wire runs at 86.6 GB/s, so payload moves at
  // 41.07 GB/s, under Ampere's LL cap of 87.7 GB/s. Steps: 0.6 us hop + 0.2 us link; base 6.6 us.
  const double eta = 0.5 * 370.0 / (450.0 * 0.958);
  const double step = 0.6e-6 + 0.2e-6 + 50e6 / eta / (100e9 * linksim::testing::kNvlink3Payload);
  EXPECT_NEAR(ll.time_s, 6.6e-6 + 2 * step, 1e-12);
}

TEST(CollectiveSimTest, AutomaticChoicePicksLowLatencyForSmallAndSimpleForLarge) {
  const topo::Topology t = topo::load_topology("dgx-a100");
  const Communicator comm(t, t.nodes_of(topo::NodeKind::gpu));
  Request small;
  small.op = Op::all_reduce;
  small.size_bytes = 1024;
  EXPECT_EQ(simulate_collective(comm, small).choice.protocol, Protocol::ll);
  Request large = small;
  large.size_bytes = 1e9;
  const Outcome o = simulate_collective(comm, large);
  EXPECT_EQ(o.choice.algorithm, Algorithm::ring);
  EXPECT_EQ(o.choice.protocol, Protocol::simple);
  // Each GPU's 12 links: 300 GB/s x 0.866 x 0.9048 = 235.1 GB/s of busbw at most; each 1 MiB
  // slice of a channel (107 us at a 24th of that) then pays 3.5 us of synchronisation, so at
  // least 235.1 x 107 / 110.5 = 227.6 GB/s (0.968 of it), less fill and drain: over 0.92.
  EXPECT_LT(o.busbw_Bps,
            300e9 * linksim::testing::kNvlink3Payload * linksim::testing::kSimpleCopyShare);
  EXPECT_GT(o.busbw_Bps,
            0.92 * 300e9 * linksim::testing::kNvlink3Payload * linksim::testing::kSimpleCopyShare);
}

TEST(CollectiveSimTest, NvlsNeedsNvlink4AndAnNvswitch) {
  const topo::Topology a100 = topo::load_topology("dgx-a100");
  const Communicator comm(a100, a100.nodes_of(topo::NodeKind::gpu));
  EXPECT_FALSE(comm.nvls_capable());
  Request r;
  r.op = Op::all_reduce;
  r.size_bytes = 1e9;
  r.algorithm = Algorithm::nvls;
  std::string why;
  EXPECT_TRUE(candidate_choices(comm, r, &why).empty());
  EXPECT_NE(why.find("NVLS needs an NVSwitch with NVLink 4"), std::string::npos) << why;
  EXPECT_THROW(simulate_collective(comm, r), InputError);
}

TEST(CollectiveSimTest, NvlsOnH100ByHand) {
  const topo::Topology t = topo::load_topology("dgx-h100");
  const Communicator comm(t, t.nodes_of(topo::NodeKind::gpu));
  ASSERT_TRUE(comm.nvls_capable());
  Request r;
  r.op = Op::all_reduce;
  r.size_bytes = 8e9;
  r.algorithm = Algorithm::nvls;
  const Outcome o =
      simulate_choice(comm, r, simulate_collective(comm, r).choice, Granularity::steps);
  // By steps: each GPU sends and receives S (n+1)/n = 9e9 bytes through its 18 links (450 GB/s
  // x 0.958 payload), at NVLS efficiency 0.85 x Simple's 0.9338: wire bytes 9e9 / (0.85 x 0.9338).
  const double eta = 0.85 * linksim::testing::kSimpleCopyShare;
  const double data_s = 9e9 / eta / (450e9 * 0.958);
  // One NVLS hop of 25 us, plus the NVLink's own 0.2 us; NVLS has no base latency.
  EXPECT_NEAR(o.time_s, 25e-6 + 0.2e-6 + data_s, 1e-9);
  // busbw = 8e9 / t x 14/8, about 521 GB/s by steps; by slices (the sweep) the chunk
  // pipeline's synchronisation brings it to NVIDIA's "~480GB/s" (accuracy_test.cpp).
  EXPECT_NEAR(o.busbw_Bps / 1e9, 8e9 / (25.2e-6 + data_s) * 1.75 / 1e9, 1e-6);
}

TEST(CollectiveSimTest, SeedMeshRingIsLimitedByItsCut) {
  const topo::Topology t = topo::load_topology("seed-dgx-a100-mesh");
  const Communicator comm(t, t.nodes_of(topo::NodeKind::gpu));
  // Any ring crosses between the top half (GPUs 0-3) and the bottom half (4-7) once each way.
  // The only links across are 2-4 and 3-5, 2 NVLink 3 lanes each: 2 x 2 x 25 = 100 GB/s per
  // direction, 86.6 GB/s of payload (NVLink 3). The search reaches exactly that bound.
  EXPECT_DOUBLE_EQ(comm.ring_bus_bandwidth_Bps(), 100e9 * linksim::testing::kNvlink3Payload);
  EXPECT_EQ(comm.intra_class(), HwClass::pci);  // some pairs relay (NVB): NCCL's PCI row
}

TEST(SweepTest, SizesAndCountsFollowNcclTests) {
  EXPECT_EQ(parse_nccl_size("8G"), std::optional<double>(8589934592.0));
  EXPECT_EQ(parse_nccl_size("64K"), std::optional<double>(65536.0));
  EXPECT_FALSE(parse_nccl_size("8X").has_value());
  const topo::Topology t = topo::load_topology("dgx-a100");
  const Communicator comm(t, t.nodes_of(topo::NodeKind::gpu));
  SweepSpec spec;
  spec.op = Op::all_gather;
  spec.min_bytes = 1000;
  spec.max_bytes = 1000;
  const auto rows = run_sweep(comm, spec);
  ASSERT_EQ(rows.size(), 1u);
  // count = 1000 / 4 = 250; per rank 250 / 8 = 31, rounded down to 16 B (4 floats): 28;
  // size = 28 x 8 x 4 = 896.
  EXPECT_EQ(rows[0].count, 28);
  EXPECT_DOUBLE_EQ(rows[0].size_bytes, 896.0);
  EXPECT_EQ(rows[0].root, -1);
  EXPECT_EQ(rows[0].redop, "none");
  // busbw factor for all_gather: (n-1)/n = 7/8.
  EXPECT_DOUBLE_EQ(busbw_factor(Op::all_gather, 8), 7.0 / 8.0);
  EXPECT_DOUBLE_EQ(busbw_factor(Op::all_reduce, 8), 14.0 / 8.0);
}

TEST(SweepTest, ThirtyOneSizesDoubling) {
  const topo::Topology t = topo::load_topology("dgx-a100");
  const Communicator comm(t, t.nodes_of(topo::NodeKind::gpu));
  SweepSpec spec;
  spec.min_bytes = 8;
  spec.max_bytes = 8.0 * 1024 * 1024 * 1024;
  spec.step_factor = 2;
  const auto rows = run_sweep(comm, spec);
  // 8 B .. 8 GiB doubling: 2^3 .. 2^33 = 31 sizes.
  ASSERT_EQ(rows.size(), 31u);
  for (std::size_t i = 1; i < rows.size(); ++i) {
    EXPECT_GE(rows[i].outcome.time_s, rows[i - 1].outcome.time_s);  // bigger never faster
  }
}

// nccl-tests' pace with a known host launch cost L: max(g L, T) + min(g L, T) / n.
TEST(CollectiveSimTest, HostLaunchFloorByHand) {
  topo::Topology pair = nvlink_pair();
  Outcome o;
  o.time_s = 20e-6;
  o.algbw_Bps = 1e6 / 20e-6;  // 1 MB in 20 us
  o.busbw_Bps = o.algbw_Bps;
  // Unknown launch cost: unchanged.
  EXPECT_DOUBLE_EQ(with_host_launch_floor(o, pair, 8, 20, 1e6).time_s, 20e-6);
  pair.host_launch.per_gpu_s = 5e-6;
  // 8 GPUs on one thread: g L = 40 us > T = 20 us: 40 + 20/20 = 41 us, launch-bound.
  const Outcome bound = with_host_launch_floor(o, pair, 8, 20, 1e6);
  EXPECT_NEAR(bound.time_s, 41e-6, 1e-15);
  EXPECT_TRUE(bound.host_bound);
  EXPECT_NEAR(bound.algbw_Bps, 1e6 / 41e-6, 1e-3);
  EXPECT_NEAR(bound.busbw_Bps, 1e6 / 41e-6, 1e-3);
  // One GPU per thread (mpirun -np N ... -g 1): g L = 5 us < T: 20 + 5/20 = 20.25 us.
  const Outcome free = with_host_launch_floor(o, pair, 1, 20, 1e6);
  EXPECT_NEAR(free.time_s, 20.25e-6, 1e-15);
  EXPECT_FALSE(free.host_bound);
}

// A forced choice the machine or the operation cannot take says why, from the plug-ins.
TEST(CollectiveSimTest, ImpossibleOverridesSayWhy) {
  const auto why_empty = [](const topo::Topology& t, Op op, std::optional<Algorithm> a,
                            std::optional<Protocol> p) {
    const Communicator comm(t, t.nodes_of(topo::NodeKind::gpu));
    Request r;
    r.op = op;
    r.size_bytes = 1e6;
    r.algorithm = a;
    r.protocol = p;
    std::string why;
    EXPECT_TRUE(candidate_choices(comm, r, &why).empty());
    return why;
  };
  EXPECT_EQ(why_empty(testing::a100_nvlink_pair(), Op::alltoall, Algorithm::ring, std::nullopt),
            "no way to run alltoall with algorithm Ring and protocol any on this machine (Ring "
            "does not run alltoall, which runs as P2P)");
  EXPECT_EQ(why_empty(testing::l40s_pcie_pair(), Op::all_gather, std::nullopt, Protocol::ll128),
            "no way to run all_gather with algorithm any and protocol LL128 on this machine (Ring "
            "runs LL, Simple here, as LL128 needs NVLink between every pair; PAT runs one GPU per "
            "node; here: 2 GPUs on 1 node)");
  EXPECT_EQ(why_empty(testing::nvswitch_pair("H100-SXM5-80GB", 4, 18), Op::all_reduce,
                      Algorithm::nvls, Protocol::ll),
            "no way to run all_reduce with algorithm NVLS and protocol LL on this machine (NVLS "
            "runs Simple here)");
}

}  // namespace
}  // namespace linksim::coll

namespace linksim::coll {
namespace {

TEST(CollectiveSimTest, SkippingByBoundPicksWhatSimulatingEveryCandidatePicks) {
  // Asked to simulate every candidate (Request::simulate_every_candidate; also where NCCL's
  // cost model has no row for one), the planner keeps the fastest candidate and skips one
  // whose bandwidth bound cannot beat the best so far; the pick must be the fastest of all
  // candidates, each simulated, at every size.
  for (const char* machine : {"aws-p4d-x2", "aws-p5-x2"}) {
    const topo::Topology t = topo::load_topology(topo::resolve_topology_path(machine));
    const Communicator comm(t, t.nodes_of(topo::NodeKind::gpu));
    ASSERT_GT(comm.node_count(), 1) << machine;
    for (double size = 1024; size <= 256.0 * 1024 * 1024; size *= 16) {
      Request r;
      r.op = Op::all_reduce;
      r.size_bytes = size;
      r.simulate_every_candidate = true;
      const auto candidates = candidate_choices(comm, r);
      double fastest_s = 0;
      for (const Choice& c : candidates) {
        const double t_s = simulate_choice(comm, r, c).time_s;
        if (fastest_s == 0 || t_s < fastest_s) fastest_s = t_s;
      }
      EXPECT_EQ(simulate_collective(comm, r).time_s, fastest_s) << machine << " " << size;
    }
  }
}

TEST(CollectiveSimTest, OneNodeRunsNcclsPickNotTheFastest) {
  // On a DGX A100 at 64 MiB NCCL's model prefers Ring/Simple to Ring/LL128 (the arithmetic is
  // in nccl_tuner_model_test.cpp), while LL128 simulates faster: the planner runs NCCL's pick.
  const topo::Topology t = topo::load_topology("dgx-a100");
  const Communicator comm(t, t.nodes_of(topo::NodeKind::gpu));
  Request r;
  r.op = Op::all_reduce;
  r.size_bytes = 64.0 * 1024 * 1024;
  const Outcome o = simulate_collective(comm, r);
  EXPECT_EQ(o.choice.algorithm, Algorithm::ring);
  EXPECT_EQ(o.choice.protocol, Protocol::simple);
  const Choice ll128{Algorithm::ring, Protocol::ll128,
                     channels_for(comm, Algorithm::ring, Protocol::ll128, r.size_bytes)};
  EXPECT_LT(simulate_choice(comm, r, ll128).time_s, o.time_s);
}

TEST(CollectiveSimTest, AcrossNodesRunsNcclsPickNotTheFastest) {
  // On two p5 nodes at 32 MiB NCCL's model prefers Ring/LL128 to Tree/LL128 (its graphs, 8
  // channels at 45 GB/s: nccl_tuner_model_test.cpp; from 64 MiB it runs NVLSTree), while
  // Tree/LL128 simulates faster: the planner runs NCCL's pick, and runs the fastest when asked
  // to simulate every candidate.
  const topo::Topology t = topo::load_topology(topo::resolve_topology_path("aws-p5-x2"));
  const Communicator comm(t, t.nodes_of(topo::NodeKind::gpu));
  Request r;
  r.op = Op::all_reduce;
  r.size_bytes = 32.0 * 1024 * 1024;
  const Outcome picked = simulate_collective(comm, r);
  EXPECT_EQ(picked.choice.algorithm, Algorithm::ring);
  EXPECT_EQ(picked.choice.protocol, Protocol::ll128);
  ASSERT_TRUE(picked.nccl_model_s);
  EXPECT_EQ(picked.simulated_candidates, 0);
  r.simulate_every_candidate = true;
  const Outcome fastest = simulate_collective(comm, r);
  EXPECT_EQ(fastest.choice.algorithm, Algorithm::tree);
  EXPECT_EQ(fastest.choice.protocol, Protocol::ll128);
  EXPECT_LT(fastest.time_s, picked.time_s);
  EXPECT_FALSE(fastest.nccl_model_s);
}

}  // namespace
}  // namespace linksim::coll
