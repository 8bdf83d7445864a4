// NCCL's own cost model, which decides what NCCL runs on one node (nccl_tuner_model.hpp),
// worked by hand from tuning.cc's tables.
#include "sim/coll/nccl_tuner_model.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/coll/collective_sim.hpp"
#include "sim/topo/loader.hpp"
#include "sim/topo/shipped_topologies.hpp"

namespace linksim::coll {
namespace {

constexpr double kUs = 1e-6;
constexpr double kMiB = 1024.0 * 1024.0;

Request all_reduce(double bytes) {
  Request r;
  r.op = Op::all_reduce;
  r.size_bytes = bytes;
  return r;
}

double model_us(const Communicator& comm, const Request& r, Algorithm a, Protocol p) {
  const auto t = nccl_model_time_s(comm, r, Choice{a, p, 1});
  EXPECT_TRUE(t);
  return t ? *t / kUs : 0;
}

TEST(NcclTunerModel, DgxA100RingRowsByHand) {
  const topo::Topology t = topo::load_topology("dgx-a100");
  const Communicator comm(t, t.nodes_of(topo::NodeKind::gpu));
  // The ring graph: 12 channels at 20 GB/s over NVLink (nccl_channel_search_test.cpp).
  ASSERT_EQ(comm.ring_search().search_channels, 12);
  ASSERT_EQ(comm.ring_search().channel_GBps, 20.0);
  // 8 ranks, all-reduce: nsteps = 14, busBw to algBw x 8/14.
  // Simple: busBw 12 x 20 = 240 -> 137.142857 GB/s; latency 8.4 + 14 x 3.4 = 56 us.
  // LL128: min(240 x 0.92, 12 x 20) = 220.8 -> 126.171429 GB/s; latency 14 + 14 x 1.9 = 40.6.
  // LL: min(llMaxBw 87.7, 240 x 0.5) = 87.7 -> 50.114286 GB/s; latency 6.6 + 14 x 0.6 = 15.
  const Request r64 = all_reduce(64 * kMiB);
  EXPECT_NEAR(model_us(comm, r64, Algorithm::ring, Protocol::simple),
              56.0 + 64 * kMiB / (1000 * 240.0 * 8 / 14), 1e-9);
  EXPECT_NEAR(model_us(comm, r64, Algorithm::ring, Protocol::ll128),
              40.6 + 64 * kMiB / (1000 * 220.8 * 8 / 14), 1e-9);
  EXPECT_NEAR(model_us(comm, r64, Algorithm::ring, Protocol::ll),
              15.0 + 64 * kMiB / (1000 * 87.7 * 8 / 14), 1e-9);
  // Tree LL128 at 64 MiB: min(240 x .92, 12 x perChMaxTreeBw 24) = 220.8, x 7/9 = 171.73,
  // under 12 x 20; algBw x 0.5; the correction for log2(64 MiB / 64) = 20 is 0.9. Latency
  // 14 + 2 x 7 x 1.25 = 31.5 us.
  EXPECT_NEAR(model_us(comm, r64, Algorithm::tree, Protocol::ll128),
              31.5 + 64 * kMiB / (1000 * 220.8 * 7 / 9 * 0.5 * 0.9), 1e-9);
  // Simple beats LL128 once 56 + S / 137.14 < 40.6 + S / 126.17 (S in kB): S > 24.6 MB. So
  // LL128 at 16 MiB (173.6 us against 178.3), Simple at 32 MiB (300.7 against 306.5).
  const auto pick = [&](double bytes) {
    const Request r = all_reduce(bytes);
    const auto candidates = candidate_choices(comm, r);
    const auto i = nccl_tuner_pick(comm, r, candidates);
    EXPECT_TRUE(i);
    return i ? candidates[i->index] : Choice{};
  };
  EXPECT_EQ(pick(16 * kMiB).protocol, Protocol::ll128);
  EXPECT_EQ(pick(32 * kMiB).protocol, Protocol::simple);
  EXPECT_EQ(pick(32 * kMiB).algorithm, Algorithm::ring);
  // LL until LL128 wins: 15 + S / 50.11 > 40.6 + S / 126.17 from S = 2.13 MB.
  EXPECT_EQ(pick(2 * kMiB).protocol, Protocol::ll);
  EXPECT_EQ(pick(4 * kMiB).protocol, Protocol::ll128);
}

TEST(NcclTunerModel, NvlsGraphOnAnH100NodeByHand) {
  // 8 GPUs of 18 NVLinks at NCCL's 20.6 GB/s: 370.8 GB/s each. Each GPU carries (8 + 1) x the
  // speed: 60 (540) and 50 (450) do not fit, 40 (360) does. Pass 2 raises bwInter from 40 while
  // it is under 80: 50, then 60, the fastest speed.
  const NcclTunerGraph g = nccl_nvls_graph(8, 18 * 20.6, 90);
  EXPECT_EQ(g.channels, 8);
  EXPECT_EQ(g.intra_GBps, 40.0);
  EXPECT_EQ(g.inter_GBps, 60.0);
  // Nothing fits a GPU with less than 9 x 3 GB/s.
  EXPECT_EQ(nccl_nvls_graph(8, 26.0, 90).channels, 0);
}

TEST(NcclTunerModel, DgxH100PicksNvlsForLargeAllReduces) {
  const topo::Topology t = topo::load_topology("dgx-h100");
  const Communicator comm(t, t.nodes_of(topo::NodeKind::gpu));
  // NVLS: 40 x 0.85 x 7/8 x 2 = 59.5 GB/s a channel (under bwInter 60), 8 channels: busBw 476,
  // algBw 476 x 8/14 = 272; latency 25 us. Ring/Simple: 12 x 30 = 360 -> 205.7, 56 us.
  const Request r = all_reduce(8192 * kMiB);
  EXPECT_NEAR(model_us(comm, r, Algorithm::nvls, Protocol::simple),
              25.0 + 8192 * kMiB / (1000 * 476.0 * 8 / 14), 1e-6);
  EXPECT_NEAR(model_us(comm, r, Algorithm::ring, Protocol::simple),
              56.0 + 8192 * kMiB / (1000 * 360.0 * 8 / 14), 1e-6);
  const auto candidates = candidate_choices(comm, r);
  const auto i = nccl_tuner_pick(comm, r, candidates);
  ASSERT_TRUE(i);
  EXPECT_EQ(candidates[i->index].algorithm, Algorithm::nvls);
  // The runner-up is Ring/Simple, with the model's time above.
  ASSERT_TRUE(i->runner_up);
  EXPECT_EQ(candidates[*i->runner_up].algorithm, Algorithm::ring);
  EXPECT_EQ(candidates[*i->runner_up].protocol, Protocol::simple);
  EXPECT_NEAR(i->runner_up_model_s * 1e6, 56.0 + 8192 * kMiB / (1000 * 360.0 * 8 / 14), 1e-6);
}

TEST(NcclTunerModel, NoPickWhereACandidateHasNoRow) {
  // Pairwise (alltoall) has no row in NCCL's model: the planner simulates instead.
  const topo::Topology t = topo::load_topology("dgx-a100");
  const Communicator comm(t, t.nodes_of(topo::NodeKind::gpu));
  Request r;
  r.op = Op::alltoall;
  r.size_bytes = kMiB;
  EXPECT_FALSE(nccl_tuner_pick(comm, r, candidate_choices(comm, r)));
}

TEST(NcclTunerModel, PickIsTheLowestPredictionOnEveryShippedNode) {
  // Properties of the model on every shipped one-node machine, for the tuned operations at
  // sizes from 1 KiB to 4 GiB: where every candidate is Ring, Tree or NVLS there is a pick;
  // it is the lowest predicted time (no candidate below it, the runner-up not below it); and
  // each candidate's predicted time grows with the size (latency plus size over bandwidth).
  int picks = 0;
  for (const std::string& file : topo::shipped_topology_files()) {
    const topo::Topology t = topo::load_topology(file);
    const Communicator comm(t, t.nodes_of(topo::NodeKind::gpu));
    if (comm.node_count() != 1 || comm.size() < 2) continue;
    for (Op op : {Op::all_reduce, Op::all_gather, Op::reduce_scatter, Op::broadcast}) {
      std::vector<double> previous_s;
      for (double bytes = 1024; bytes <= 4.0 * 1024 * kMiB; bytes *= 16) {
        Request r;
        r.op = op;
        r.size_bytes = bytes;
        const auto candidates = candidate_choices(comm, r);
        bool tuned = !candidates.empty();
        for (const Choice& c : candidates) {
          tuned = tuned && (c.algorithm == Algorithm::ring || c.algorithm == Algorithm::tree ||
                            c.algorithm == Algorithm::nvls);
        }
        const auto pick = nccl_tuner_pick(comm, r, candidates);
        ASSERT_EQ(pick.has_value(), tuned) << file << " " << to_string(op) << " " << bytes;
        if (!pick) continue;
        ++picks;
        std::vector<double> now_s;
        for (const Choice& c : candidates) {
          const double t_s = *nccl_model_time_s(comm, r, c);
          EXPECT_GE(t_s, pick->model_s) << file << " " << to_string(op) << " " << bytes;
          now_s.push_back(t_s);
        }
        if (pick->runner_up) {
          EXPECT_GE(pick->runner_up_model_s, pick->model_s);
        }
        if (previous_s.size() == now_s.size()) {
          for (std::size_t i = 0; i < now_s.size(); ++i)
            EXPECT_GT(now_s[i], previous_s[i]) << file << " " << to_string(op) << " " << bytes;
        }
        previous_s = now_s;
      }
    }
  }
  EXPECT_GT(picks, 100);  // most shipped machines are one node: the property is exercised
}

TEST(NcclTunerModel, TwoP4deNodesByHand) {
  // 2 x p4de (16 A100s, four 12.5 GB/s EFA NICs a node, Intel hosts), all-reduce, nRanks 16,
  // nNodes 2, ppn 8, nsteps 30, nInterSteps 2. The ring graph: 4 channels at 12 GB/s
  // (NcclChannelSearch.AcrossNodesFourEfaNicsOnAmpere); the tree graph raises bwIntra while
  // it is under twice bwInter: 15, 18, 20, 24.
  const topo::Topology t = topo::load_topology("aws-p4de-x2");
  const Communicator comm(t, t.nodes_of(topo::NodeKind::gpu));
  const NcclModelInputs in = nccl_model_inputs(comm);
  EXPECT_EQ(in.nodes, 2);
  EXPECT_EQ(in.ppn, 8);
  EXPECT_EQ(in.ring.channels, 4);
  EXPECT_DOUBLE_EQ(in.ring.intra_GBps, 12.0);
  EXPECT_DOUBLE_EQ(in.tree.intra_GBps, 24.0);
  EXPECT_DOUBLE_EQ(in.tree.inter_GBps, 12.0);
  // aws-ofi-nccl reports 75 us to NCCL on p4de; every graph carries it as latencyInter.
  EXPECT_DOUBLE_EQ(in.ring.latency_inter_us, 75.0);
  EXPECT_DOUBLE_EQ(in.tree.latency_inter_us, 75.0);
  const Request r = all_reduce(256 * kMiB);
  // Ring/Simple: busBw 4 x 12 = 48 (bwIntra on two nodes), algBw 48 x 16 / 30 = 25.6.
  // Latency 8.4 + 28 x max(3.4 NVLink hop, 3 x 1.0 net overhead) + 2 x (14.0 NET hop + 75
  // latencyInter + 75 flush) = 8.4 + 95.2 + 328 = 431.6, x1.4 for the plateau (256 MiB / (8
  // channels x 16 ranks) >= 64 B): 604.24.
  EXPECT_NEAR(model_us(comm, r, Algorithm::ring, Protocol::simple),
              431.6 * 1.4 + 256 * kMiB / (1000 * 25.6), 1e-6);
  // Tree/Simple: busBw min(4 x 24 x 0.92 = 88.32, 4 x 23.6 perChMaxTreeBw) = 88.32, algBw
  // 44.16, x0.9 at log2(256 MiB / 64) = 22: 39.744. Latency 8.4 + 2 (7 x 4.0 + 1 x (14.0 + 75
  // + 75)) = 8.4 + 2 x 192 = 392.4.
  EXPECT_NEAR(model_us(comm, r, Algorithm::tree, Protocol::simple),
              392.4 + 256 * kMiB / (1000 * 88.32 / 2 * 0.9), 1e-6);
  // Tree/LL: no flush, so latencyInter once: 6.8 + 2 (7 x 0.6 + 1 x (5.0 + 75)) = 175.2.
  EXPECT_NEAR(nccl_inter_latency_us(in, Algorithm::tree, Protocol::ll, in.tree), 5.0 + 75, 1e-9);
  // NCCL picks the tree, as the measured 2 x p4de sweep's busbw above a NIC's shows.
  const auto candidates = candidate_choices(comm, r);
  const auto pick = nccl_tuner_pick(comm, r, candidates);
  ASSERT_TRUE(pick);
  EXPECT_EQ(candidates[pick->index].algorithm, Algorithm::tree);
}

TEST(NcclTunerModel, TheTreesBwIntraStaysWithinEachGpusNvlinks) {
  // 2 x p5 (16 H100s, eight 50 GB/s NICs a node): the ring graph is 8 channels at 45 GB/s (the
  // NVLinks, 18 x 20.6 = 370.8 GB/s in NCCL's figures, carry only 7 at 48:
  // NcclChannelSearch.AcrossNodesEachChannelCrossesEveryGpusNvlinks). Pass 2 would raise the
  // tree's bwIntra towards twice bwInter (90), but every channel takes bwIntra out of each
  // GPU's NVLinks: the next speed, 48, needs 8 x 48 = 384 > 370.8. So bwIntra stays 45.
  const topo::Topology t = topo::load_topology("aws-p5-x2");
  const Communicator comm(t, t.nodes_of(topo::NodeKind::gpu));
  const NcclModelInputs in = nccl_model_inputs(comm);
  EXPECT_EQ(in.tree.channels, 8);
  EXPECT_DOUBLE_EQ(in.tree.intra_GBps, 45.0);
  EXPECT_DOUBLE_EQ(in.tree.inter_GBps, 45.0);
  // Tree/Simple busBw min(8 x 45 x 0.92 = 331.2, 8 x 41.4 perChMaxTreeBw = 331.2) = 331.2,
  // algBw 165.6 (x1.0 at 1 GiB, past the correction table). NVLSTree/Simple: 8 heads, bwIntra
  // 40 (9 x 40 <= 370.8), bwInter 48: 8 x min(40, 48) = 320, under 2.30's NVLS efficiency and
  // per-channel cap; either way it beats the tree from here, so NCCL runs NVLSTree: the p5
  // pair measures 233-260 GB/s algbw from 1 GiB, above the 225 GB/s any tree through a node's
  // NVLink chain can carry (docs/ACCURACY.md).
  // Latency as on the p4de pair (NcclTunerModel.TwoP4deNodesByHand, the same 75 us plugin):
  // 8.4 + 2 (7 x 4.0 + 1 x (14.0 + 75 + 75)) = 392.4 us.
  const Request r = all_reduce(1024.0 * kMiB);
  EXPECT_NEAR(model_us(comm, r, Algorithm::tree, Protocol::simple),
              392.4 + 1024.0 * kMiB / (1000 * 331.2 / 2), 1e-6);
  const auto candidates = candidate_choices(comm, r);
  const auto pick = nccl_tuner_pick(comm, r, candidates);
  ASSERT_TRUE(pick);
  EXPECT_EQ(to_string(pick->choice.algorithm), "NVLSTree");
  EXPECT_EQ(pick->choice.protocol, Protocol::simple);
}

TEST(NcclTunerModel, RingPlateauCountsTheChannelsNcclMinAndMaxLeave) {
  // 2 x p4de, Ring/Simple all-reduce (NcclTunerModel.TwoP4deNodesByHand): latency 431.6 us,
  // algBw 25.6 GB/s; the plateau (x1.4) from size / (channels x 16 ranks) >= 64 B, over the
  // communicator's 8 channels: from 8 KiB.
  const topo::Topology t = topo::load_topology("aws-p4de-x2");
  const Communicator comm(t, t.nodes_of(topo::NodeKind::gpu));
  Request r = all_reduce(4096);
  // 4096 / (8 x 16) = 32 B: no plateau.
  EXPECT_NEAR(model_us(comm, r, Algorithm::ring, Protocol::simple), 431.6 + 4096 / 25600.0, 1e-6);
  // NCCL_MAX_NCHANNELS=2: 4096 / (2 x 16) = 128 B: the plateau.
  r.max_channels = 2;
  EXPECT_NEAR(model_us(comm, r, Algorithm::ring, Protocol::simple), 431.6 * 1.4 + 4096 / 25600.0,
              1e-6);
  // 8192 / (8 x 16) = 64 B: the plateau; NCCL_MIN_NCHANNELS=16: 8192 / (16 x 16) = 32 B: none.
  // The bandwidth stays the ring graph's 4 channels either way.
  r = all_reduce(8192);
  EXPECT_NEAR(model_us(comm, r, Algorithm::ring, Protocol::simple), 431.6 * 1.4 + 8192 / 25600.0,
              1e-6);
  r.min_channels = 16;
  EXPECT_NEAR(model_us(comm, r, Algorithm::ring, Protocol::simple), 431.6 + 8192 / 25600.0, 1e-6);
}

TEST(NcclTunerModel, NetworkPluginLatencyByFabricAndFile) {
  // The latency each cluster's network plugin reports to NCCL (aws-ofi-nccl's platform table):
  // p5 75 us, p5en and p6-b200 35 us; the p3dn files describe 2019 runs, whose plugin reported
  // none (set in the file over the efa kind's 75 us); NCCL's InfiniBand transport reports 0.
  // On one node no graph has a network: 0.
  const std::pair<const char*, double> expected[] = {
      {"aws-p5-x2", 75.0},  {"aws-p5en-x2", 35.0}, {"aws-p6-b200-x4", 35.0},
      {"aws-p3dn-x2", 0.0}, {"aws-p4de-x2", 75.0}, {"dgx-h100-superpod-su", 0.0},
      {"dgx-h100", 0.0}};
  for (const auto& [name, us] : expected) {
    SCOPED_TRACE(name);
    const topo::Topology t = topo::load_topology(name);
    const Communicator comm(t, t.nodes_of(topo::NodeKind::gpu));
    EXPECT_DOUBLE_EQ(comm.plugin_latency_us(), us);
    const NcclModelInputs in = nccl_model_inputs(comm);
    EXPECT_DOUBLE_EQ(in.ring.latency_inter_us, us);
    EXPECT_DOUBLE_EQ(in.nvls.latency_inter_us, us);
  }
}

TEST(NcclTunerModel, AwsOfiRegionTunerOverridesTheModelFromThreeNodes) {
  // 4 x p6-b200 (32 ranks, 8 a node) on EFA: aws-ofi-nccl's region tuner holds 256 MiB in its
  // Ring/LL128 region (AwsOfiTunerRegions.P6FourNodesAllReduceByHand), and NCCL runs it whatever
  // its model says; the model's own pick is then the runner-up, never slower in the model.
  const topo::Topology p6 = topo::load_topology("aws-p6-b200-x4");
  const Communicator four(p6, p6.nodes_of(topo::NodeKind::gpu));
  const Request r = all_reduce(256 * kMiB);
  const auto candidates = candidate_choices(four, r);
  const auto pick = nccl_tuner_pick(four, r, candidates);
  ASSERT_TRUE(pick);
  EXPECT_EQ(pick->picked_by, "aws-ofi-nccl's region tuner");
  EXPECT_EQ(pick->choice.algorithm, Algorithm::ring);
  EXPECT_EQ(pick->choice.protocol, Protocol::ll128);
  if (pick->runner_up) EXPECT_LE(pick->runner_up_model_s, pick->model_s);
  // Two p5 nodes: the plugin leaves two nodes or fewer to NCCL's model.
  const topo::Topology p5 = topo::load_topology("aws-p5-x2");
  const Communicator two(p5, p5.nodes_of(topo::NodeKind::gpu));
  const auto own = nccl_tuner_pick(two, r, candidate_choices(two, r));
  ASSERT_TRUE(own);
  EXPECT_TRUE(own->picked_by.empty());
}

TEST(NcclTunerModel, PickIsTheLowestPredictionOnEveryShippedCluster) {
  // Across nodes every algorithm that runs an all-reduce has a row, so on every shipped cluster
  // each all-reduce gets a pick (the planner simulates that one alone), and it is the lowest
  // prediction among the candidates.
  int picks = 0;
  for (const std::string& file : topo::shipped_cluster_files()) {
    const topo::Topology t = topo::load_topology(file);
    const Communicator comm(t, t.nodes_of(topo::NodeKind::gpu));
    if (comm.node_count() == 1) continue;  // one NVLink domain of trays is one NCCL node
    for (double bytes = 1024; bytes <= 1024 * kMiB; bytes *= 32) {
      const Request r = all_reduce(bytes);
      const auto candidates = candidate_choices(comm, r);
      const auto pick = nccl_tuner_pick(comm, r, candidates);
      ASSERT_TRUE(pick) << file << " " << bytes;
      ++picks;
      // Where aws-ofi-nccl's region tuner overrode the model, NCCL's own pick is the runner-up.
      const double lowest =
          !pick->picked_by.empty() && pick->runner_up ? pick->runner_up_model_s : pick->model_s;
      for (const Choice& c : candidates) {
        EXPECT_GE(*nccl_model_time_s(comm, r, c), lowest) << file << " " << bytes;
      }
    }
  }
  EXPECT_GT(picks, 10);
}

}  // namespace
}  // namespace linksim::coll
