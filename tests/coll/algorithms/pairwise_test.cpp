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
  const double eta = 370.0 / (450.0 * 0.958);
  const double latency_s = 8.4e-6 + 3.4e-6 + 0.2e-6;
  EXPECT_NEAR(simulate_choice(comm, request(Op::sendrecv, 100e6), simple).time_s,
              latency_s + 100e6 / eta / (100e9 * 0.958), 1e-12);
  // all-to-all: each rank's buffer is S, S / n = 50 MB for its one peer.
  EXPECT_NEAR(simulate_choice(comm, request(Op::alltoall, 100e6), simple).time_s,
              latency_s + 50e6 / eta / (100e9 * 0.958), 1e-12);
}

}  // namespace
}  // namespace linksim::coll
