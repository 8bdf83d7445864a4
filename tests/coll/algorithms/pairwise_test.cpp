// The P2P plug-in (sim/coll/algorithms/pairwise.cpp): protocol by size, and its lowerings by
// hand.
#include <gtest/gtest.h>

#include "sim/coll/algorithm_registry.hpp"
#include "sim/coll/collective_sim.hpp"
#include "tests/coll/test_machines.hpp"

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
  // 95.8 GB/s, after the Ring/Simple base (8.4 us), hop (3.4 us) and the link's 0.2 us.
  const double eta = 0.914;  // Simple's copy share (protocol.cpp)
  const double latency_s = 8.4e-6 + 3.4e-6 + 0.2e-6;
  EXPECT_NEAR(simulate_choice(comm, request(Op::sendrecv, 100e6), simple).time_s,
              latency_s + 100e6 / eta / (100e9 * 0.958), 1e-12);
  // all-to-all: each rank's buffer is S, S / n = 50 MB for its one peer.
  EXPECT_NEAR(simulate_choice(comm, request(Op::alltoall, 100e6), simple).time_s,
              latency_s + 50e6 / eta / (100e9 * 0.958), 1e-12);
}

// scatter_perf, gather_perf, alltoallv_perf and hypercube_perf run as grouped sends and
// receives (nccl-tests src/scatter.cu, gather.cu, alltoallv.cu, hypercube.cu @a0b82b22). On the
// pair, with the same latency and link figures as above:
TEST(PairwiseAlgorithmTest, ScatterGatherAlltoallvHypercubeOnTwoGpusByHand) {
  const topo::Topology t = testing::a100_nvlink_pair();
  const Communicator comm(t, t.nodes_of(topo::NodeKind::gpu));
  const Choice simple{Algorithm::pairwise, Protocol::simple, 2};
  const double eta = 0.914;  // Simple's copy share (protocol.cpp)
  const double latency_s = 8.4e-6 + 3.4e-6 + 0.2e-6;
  const double half_s = latency_s + 50e6 / eta / (100e9 * 0.958);  // one 50 MB send
  // scatter from root 0: the root sends rank 1 its S / n = 50 MB part; gather: rank 1 sends
  // its 50 MB to the root (root 1 the same, the other way).
  EXPECT_NEAR(simulate_choice(comm, request(Op::scatter, 100e6), simple).time_s, half_s, 1e-12);
  Request gather = request(Op::gather, 100e6);
  gather.root = 1;
  EXPECT_NEAR(simulate_choice(comm, gather, simple).time_s, half_s, 1e-12);
  // alltoallv: rank i sends rank j the share d / (n(n-1)/2) of S, d = (j - i) mod n; on two
  // ranks d = 1 of a sum of 1, so each sends all of S = 100 MB to the other, both at once.
  EXPECT_NEAR(simulate_choice(comm, request(Op::alltoallv, 100e6), simple).time_s,
              latency_s + 100e6 / eta / (100e9 * 0.958), 1e-12);
  // hypercube: log2(2) = 1 step, each rank swapping its S / n = 50 MB part with rank ^ 1.
  EXPECT_NEAR(simulate_choice(comm, request(Op::hypercube, 100e6), simple).time_s, half_s, 1e-12);
  // They are P2P operations, and the per-peer size picks LL: S / n <= 32 KiB.
  using P = std::vector<Protocol>;
  EXPECT_EQ(p2p().protocols(comm, request(Op::scatter, 65536)), P{Protocol::ll});
  EXPECT_EQ(p2p().protocols(comm, request(Op::gather, 65538)), P{Protocol::simple});
}

}  // namespace
}  // namespace linksim::coll
