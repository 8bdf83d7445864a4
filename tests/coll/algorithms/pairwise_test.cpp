// The P2P plug-in (sim/coll/algorithms/pairwise.cpp): protocol by size, and its lowerings by
// hand.
#include <gtest/gtest.h>

#include "sim/coll/algorithm_registry.hpp"
#include "sim/coll/collective_sim.hpp"
#include "sim/coll/pipeline_constants.hpp"
#include "sim/topo/cluster_builder.hpp"
#include "sim/topo/loader.hpp"
#include "tests/coll/test_machines.hpp"
#include "tests/support/simple_copy_share.hpp"
#include "tests/support/temp_files.hpp"
#include "tests/support/two_gpu_host.hpp"

namespace linksim::coll {
namespace {

const CollectiveAlgorithm& p2p() {
  return AlgorithmRegistry::builtin().get(Algorithm::pairwise);
}

Request request(Op op, double size_bytes) {
  Request r;
  r.op = op;
  r.size_bytes = size_bytes;
  return r;
}

TEST(PairwiseAlgorithmTest, ProtocolBySizeUnlessForced) {
  const topo::Topology t = testing::a100_nvlink_pair();
  const Communicator comm(t, t.nodes_of(topo::NodeKind::gpu));
  using P = std::vector<Protocol>;
  // LL up to 2 channels x 16 KiB = 32768 B per peer. all-to-all on 2 ranks sends S / 2 a peer.
  EXPECT_EQ(p2p().protocols(comm, request(Op::alltoall, 65536)), P{Protocol::ll});
  EXPECT_EQ(p2p().protocols(comm, request(Op::alltoall, 65538)), P{Protocol::simple});
  EXPECT_EQ(p2p().protocols(comm, request(Op::sendrecv, 32768)), P{Protocol::ll});
  EXPECT_EQ(p2p().protocols(comm, request(Op::sendrecv, 32769)), P{Protocol::simple});
  // Forced: any the communicator enables (LL128 only where every pair is NVLink).
  Request forced = request(Op::sendrecv, 1e6);
  forced.protocol = Protocol::ll;
  EXPECT_EQ(p2p().protocols(comm, forced), (P{Protocol::ll, Protocol::ll128, Protocol::simple}));
  const topo::Topology pcie = testing::l40s_pcie_pair();
  const Communicator pcie_comm(pcie, pcie.nodes_of(topo::NodeKind::gpu));
  EXPECT_EQ(p2p().protocols(pcie_comm, forced), (P{Protocol::ll, Protocol::simple}));
  EXPECT_EQ(p2p().channels(comm, Protocol::simple, 1e9), 2);
}

TEST(PairwiseAlgorithmTest, SendrecvAndAlltoallOnTwoGpusByHand) {
  const topo::Topology t = testing::a100_nvlink_pair();
  const Communicator comm(t, t.nodes_of(topo::NodeKind::gpu));
  const Choice simple{Algorithm::pairwise, Protocol::simple, 2};
  // Each rank sends to the other at once, one direction of the link each: S / eta wire bytes at
  // 86.6 GB/s, after the Ring/Simple base (8.4 us), hop (3.4 us) and the link's 0.2 us.
  const double eta = linksim::testing::kSimpleCopyShare;  // Simple's copy share (protocol.cpp)
  const double latency_s = 8.4e-6 + 3.4e-6 + 0.2e-6;
  EXPECT_NEAR(simulate_choice(comm, request(Op::sendrecv, 100e6), simple).time_s,
              latency_s + 100e6 / eta / (100e9 * linksim::testing::kNvlink3Payload), 1e-12);
  // all-to-all: each rank's buffer is S, S / n = 50 MB for its one peer.
  EXPECT_NEAR(simulate_choice(comm, request(Op::alltoall, 100e6), simple).time_s,
              latency_s + 50e6 / eta / (100e9 * linksim::testing::kNvlink3Payload), 1e-12);
}

// scatter_perf, gather_perf, alltoallv_perf and hypercube_perf run as grouped sends and
// receives (nccl-tests src/scatter.cu, gather.cu, alltoallv.cu, hypercube.cu @a0b82b22). On the
// pair, with the same latency and link figures as above:
TEST(PairwiseAlgorithmTest, ScatterGatherAlltoallvHypercubeOnTwoGpusByHand) {
  const topo::Topology t = testing::a100_nvlink_pair();
  const Communicator comm(t, t.nodes_of(topo::NodeKind::gpu));
  const Choice simple{Algorithm::pairwise, Protocol::simple, 2};
  const double eta = linksim::testing::kSimpleCopyShare;  // Simple's copy share (protocol.cpp)
  const double latency_s = 8.4e-6 + 3.4e-6 + 0.2e-6;
  const double half_s =
      latency_s + 50e6 / eta / (100e9 * linksim::testing::kNvlink3Payload);  // one 50 MB send
  // scatter from root 0: the root sends rank 1 its S / n = 50 MB part; gather: rank 1 sends
  // its 50 MB to the root (root 1 the same, the other way).
  EXPECT_NEAR(simulate_choice(comm, request(Op::scatter, 100e6), simple).time_s, half_s, 1e-12);
  Request gather = request(Op::gather, 100e6);
  gather.root = 1;
  EXPECT_NEAR(simulate_choice(comm, gather, simple).time_s, half_s, 1e-12);
  // alltoallv: rank i sends rank j the share d / (n(n-1)/2) of S, d = (j - i) mod n; on two
  // ranks d = 1 of a sum of 1, so each sends all of S = 100 MB to the other, both at once.
  EXPECT_NEAR(simulate_choice(comm, request(Op::alltoallv, 100e6), simple).time_s,
              latency_s + 100e6 / eta / (100e9 * linksim::testing::kNvlink3Payload), 1e-12);
  // hypercube: log2(2) = 1 step, each rank swapping its S / n = 50 MB part with rank ^ 1.
  EXPECT_NEAR(simulate_choice(comm, request(Op::hypercube, 100e6), simple).time_s, half_s, 1e-12);
  // They are P2P operations, and the per-peer size picks LL: S / n <= 32 KiB.
  using P = std::vector<Protocol>;
  EXPECT_EQ(p2p().protocols(comm, request(Op::scatter, 65536)), P{Protocol::ll});
  EXPECT_EQ(p2p().protocols(comm, request(Op::gather, 65538)), P{Protocol::simple});
}

// Across nodes (p2p_channels.hpp): two hosts of the two-GPU test host (one 100 Gb/s InfiniBand
// NIC per GPU, 12 GB/s of payload per direction: cluster_collective_test.cpp), one rank on
// each, so the one remote peer sets the count: one NIC of 12.5 GB/s under the GPU's PCIe 4
// (24 GB/s), max(1, divUp(12, 14)) = 1 channel; sendrecv of S >= 1 MiB runs Simple in 128 KiB
// chunks, at most NCCL_STEPS = 8 of them unconsumed. One chunk is w = 131072 / 12e9 = 10.92 us
// on the NIC, then the CTA's slice synchronisation s before the next; it reaches the peer the
// NET step latency h plus the route's own latency L after that. So chunk k + 8 cannot start
// before chunk k arrived: 8 chunks per round T = w + s + h + L when 8 (w + s) < T (the window
// binds), else one chunk per w + s (the link binds). Between 32 MiB and 64 MiB, 256 chunks
// more: 256 / 8 x T, or 256 x (w + s); the fill and the base latency cancel.
class PairwiseAcrossNodes : public ::testing::Test {
 protected:
  static double extra_time_s(double nic_latency_s, double* round_s, double* chunk_s) {
    const topo::Topology host =
        topo::load_topology(dir().write("host.json", linksim::testing::two_gpu_host_json()));
    topo::FabricSpec fabric;
    fabric.nic_latency_s = nic_latency_s;
    const topo::Topology cluster = topo::build_cluster(host, 2, fabric);
    const auto gpus = cluster.nodes_of(topo::NodeKind::gpu);
    const Communicator comm(cluster, {gpus[0], gpus[2]});
    const Choice simple{Algorithm::pairwise, Protocol::simple, 1};
    const double w = 131072 / 12e9;
    const double s = slice_sync_s(Protocol::simple, HwClass::net);
    const double h = p2p().hop_latency_s(Protocol::simple, HwClass::net);
    const double l = comm.route(0, 1).latency_s();
    *round_s = w + s + h + l;
    *chunk_s = w + s;
    return simulate_choice(comm, request(Op::sendrecv, 64.0 * 1024 * 1024), simple).time_s -
           simulate_choice(comm, request(Op::sendrecv, 32.0 * 1024 * 1024), simple).time_s;
  }
  static linksim::testing::TempDir& dir() {
    static linksim::testing::TempDir d;
    return d;
  }
};

TEST_F(PairwiseAcrossNodes, InFlightWindowBindsWhenTheRoundTripIsLong) {
  // NICs of 100 us each: w 10.92 us, s 3.5 us (Simple's fitted slice sync), h 14 us (NCCL's
  // NET Simple hwLat), L = 2 x 100 us + 1.13 us of links and switch = 201.13 us, T = 229.55 us;
  // 8 (w + s) = 115.4 us < T: the window binds, 8 x 128 KiB per 229.55 us = 4.6 GB/s of the
  // NIC's 12. 32 MiB more takes 32 T = 7.346 ms (the NIC alone would take 256 x 14.42 us).
  double round_s = 0, chunk_s = 0;
  const double extra_s = extra_time_s(100e-6, &round_s, &chunk_s);
  EXPECT_NEAR(round_s, 229.55e-6, 0.01e-6);
  EXPECT_LT(8 * chunk_s, round_s);
  EXPECT_NEAR(extra_s, 32 * round_s, 1e-9);
}

TEST_F(PairwiseAcrossNodes, NicBindsWhenTheWindowCoversTheRoundTrip) {
  // NICs of 1 us: L = 2 x 1 + 1.13 = 3.13 us, T = 31.55 us <= 8 (w + s) = 115.4 us: 8 chunks
  // cover the round trip, so the CTA's w + s per chunk sets the pace, 256 x 14.42 us =
  // 3.692 ms for 32 MiB more (12 GB/s x w / (w + s) = 9.09 GB/s).
  double round_s = 0, chunk_s = 0;
  const double extra_s = extra_time_s(1e-6, &round_s, &chunk_s);
  EXPECT_NEAR(chunk_s, 14.42e-6, 0.01e-6);
  EXPECT_GE(8 * chunk_s, round_s);
  EXPECT_NEAR(extra_s, 256 * chunk_s, 1e-9);
}

TEST_F(PairwiseAcrossNodes, ChannelsAndProtocolFollowTheSendsSize) {
  const topo::Topology host =
      topo::load_topology(dir().write("host.json", linksim::testing::two_gpu_host_json()));
  const topo::Topology cluster = topo::build_cluster(host, 2, topo::FabricSpec{});
  const Communicator comm(cluster, cluster.nodes_of(topo::NodeKind::gpu));
  // 4 ranks on 2 nodes: remote 1 channel (above), local NVLink 4 lanes 8: per peer 1, so every
  // send runs on 1; LL up to 1 x 16 KiB per peer, S / 4 for all-to-all.
  EXPECT_EQ(p2p().channels(comm, Protocol::simple, 1e9), 1);
  using P = std::vector<Protocol>;
  EXPECT_EQ(p2p().protocols(comm, request(Op::alltoall, 65536)), P{Protocol::ll});
  EXPECT_EQ(p2p().protocols(comm, request(Op::alltoall, 65540)), P{Protocol::simple});
  EXPECT_EQ(p2p().protocols(comm, request(Op::sendrecv, 16384)), P{Protocol::ll});
  EXPECT_EQ(p2p().protocols(comm, request(Op::sendrecv, 16385)), P{Protocol::simple});
}

}  // namespace
}  // namespace linksim::coll
