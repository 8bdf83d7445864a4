// The Ring plug-in (sim/coll/algorithms/ring.cpp): its channel rule and a lowering by hand.
#include <gtest/gtest.h>

#include "sim/coll/algorithm_registry.hpp"
#include "sim/coll/collective_sim.hpp"
#include "tests/coll/test_machines.hpp"
#include "tests/support/simple_copy_share.hpp"

namespace linksim::coll {
namespace {

const CollectiveAlgorithm& ring() {
  return AlgorithmRegistry::builtin().get(Algorithm::ring);
}

TEST(RingAlgorithmTest, ChannelRuleFollowsNcclThresholds) {
  const topo::Topology t = testing::a100_nvlink_pair();
  const Communicator comm(t, t.nodes_of(topo::NodeKind::gpu));
  // NCCL's search sees 4 links x 20 GB/s = 80 (SM80): 2 rings at 40 cover it, duplicated to 4
  // at 20; pass 2 fits 30 only twice. Run 2 x 4 = 8 channels.
  ASSERT_EQ(comm.max_channels(), 8);
  // Simple: 512 threads x 64 B = 32 KiB a channel; one channel is dropped while the message is
  // under channels x 32 KiB: 3 x 32768 = 98304 B keeps 3, a byte less drops to 2.
  EXPECT_EQ(ring().channels(comm, Protocol::simple, 98304), 3);
  EXPECT_EQ(ring().channels(comm, Protocol::simple, 98303), 2);
  EXPECT_EQ(ring().channels(comm, Protocol::simple, 1), 1);
  EXPECT_EQ(ring().channels(comm, Protocol::simple, 1e9), 8);
  // Ring LL: 8 B per thread per rank: 512 x 8 x 2 = 8192 B a channel: 32768 B keeps 4.
  EXPECT_EQ(ring().channels(comm, Protocol::ll, 32768), 4);
  // LL128: 640 x 8 = 5120 B a channel: 10240 B keeps 2.
  EXPECT_EQ(ring().channels(comm, Protocol::ll128, 10240), 2);
}

TEST(RingAlgorithmTest, BroadcastOnTwoGpusByHand) {
  const topo::Topology t = testing::a100_nvlink_pair();
  const Communicator comm(t, t.nodes_of(topo::NodeKind::gpu));
  Request r;
  r.op = Op::broadcast;
  r.size_bytes = 100e6;
  const Outcome o =
      simulate_choice(comm, r, Choice{Algorithm::ring, Protocol::simple, 2}, Granularity::steps);
  // By steps: a chain of one hop, no fill (n - 2 = 0 hops); the root sends the whole buffer
  // once, as S / eta wire bytes at the link's 86.6 GB/s payload rate (eta 0.9338, Simple's copy
  // share), after the Ring/Simple base (8.4 us), the NVLink Simple hop (3.4 us) and the link's
  // own 0.2 us. (By slices: slice_pipeline_test.cpp.)
  const double eta = linksim::testing::kSimpleCopyShare;
  EXPECT_NEAR(o.time_s,
              8.4e-6 + 3.4e-6 + 0.2e-6 + 100e6 / eta / (100e9 * linksim::testing::kNvlink3Payload),
              1e-12);
}

TEST(RingAlgorithmTest, AllReduceOnTwoGpusByStepsByHand) {
  const topo::Topology t = testing::a100_nvlink_pair();
  const Communicator comm(t, t.nodes_of(topo::NodeKind::gpu));
  Request r;
  r.op = Op::all_reduce;
  r.size_bytes = 100e6;
  const Outcome o =
      simulate_choice(comm, r, Choice{Algorithm::ring, Protocol::simple, 2}, Granularity::steps);
  // By steps: 2(n - 1) = 2 steps of S / n = 50 MB per rank. Each rank streams both steps to the
  // other at once, S / eta wire bytes in each direction at the link's 86.6 GB/s payload rate,
  // after the Ring/Simple base (8.4 us) and one hop latency per step (the NVLink Simple hop
  // 3.4 us plus the link's own 0.2 us): 8.4 + 2 x 3.6 us. Two barrier-separated steps of 50 MB
  // take the same: 2 x (3.6 us + 50 MB / eta / 86.6 GB/s).
  const double eta = linksim::testing::kSimpleCopyShare;
  EXPECT_NEAR(
      o.time_s,
      8.4e-6 + 2 * (3.4e-6 + 0.2e-6) + 100e6 / eta / (100e9 * linksim::testing::kNvlink3Payload),
      1e-12);
}

TEST(RingAlgorithmTest, RefusesAnOperationItDoesNotServe) {
  const topo::Topology t = testing::a100_nvlink_pair();
  const Communicator comm(t, t.nodes_of(topo::NodeKind::gpu));
  Request r;
  r.op = Op::alltoall;
  r.size_bytes = 1e6;
  EXPECT_THROW(simulate_choice(comm, r, Choice{Algorithm::ring, Protocol::simple, 2}),
               std::logic_error);
}

}  // namespace
}  // namespace linksim::coll
