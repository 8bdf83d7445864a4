// The Tree plug-in (sim/coll/algorithms/tree.cpp): its channel rule and all-reduce by hand.
#include <gtest/gtest.h>

#include "sim/coll/algorithm_registry.hpp"
#include "sim/coll/collective_sim.hpp"
#include "sim/topo/loader.hpp"
#include "tests/coll/test_machines.hpp"

namespace linksim::coll {
namespace {

const CollectiveAlgorithm& tree() {
  return AlgorithmRegistry::builtin().get(Algorithm::tree);
}

TEST(TreeAlgorithmTest, ChannelRuleRunsSixHundredFortyThreads) {
  const topo::Topology t = testing::a100_nvlink_pair();
  const Communicator comm(t, t.nodes_of(topo::NodeKind::gpu));
  ASSERT_EQ(comm.max_channels(), 8);  // NCCL's search: ring_test.cpp
  // Simple: 640 threads x 64 B = 40960 B a channel: 98304 B < 3 x 40960 drops to 2;
  // 122880 B = 3 x 40960 keeps 3.
  EXPECT_EQ(tree().channels(comm, Protocol::simple, 98304), 2);
  EXPECT_EQ(tree().channels(comm, Protocol::simple, 122880), 3);
  // LL: 640 x 8 = 5120 B a channel (no per-rank factor, unlike Ring LL): 10240 B keeps 2.
  EXPECT_EQ(tree().channels(comm, Protocol::ll, 10240), 2);
}

TEST(TreeAlgorithmTest, TellsThePlannerWhatItsBusiestRankSends) {
  // On one node the chain's inner ranks send the buffer up and the result down: 2 S on 8
  // GPUs. On two GPUs there is no inner rank: the default, S (n - 1) / n = S / 2.
  const topo::Topology a100 = topo::load_topology("dgx-a100");
  const Communicator eight(a100, a100.nodes_of(topo::NodeKind::gpu));
  Request r;
  r.op = Op::all_reduce;
  r.size_bytes = 1e9;
  EXPECT_EQ(tree().least_bytes_sent_by_a_rank(eight, r), 2e9);
  const topo::Topology t = testing::a100_nvlink_pair();
  const Communicator two(t, t.nodes_of(topo::NodeKind::gpu));
  EXPECT_EQ(tree().least_bytes_sent_by_a_rank(two, r), 0.5e9);
}

TEST(TreeAlgorithmTest, AllReduceOnTwoGpusByHand) {
  const topo::Topology t = testing::a100_nvlink_pair();
  const Communicator comm(t, t.nodes_of(topo::NodeKind::gpu));
  Request r;
  r.op = Op::all_reduce;
  r.size_bytes = 100e6;
  const Outcome o =
      simulate_choice(comm, r, Choice{Algorithm::tree, Protocol::simple, 2}, Granularity::steps);
  // By steps: the chain 0-1 carries the whole buffer both ways at once. Each rank's Tree/Simple cap
  // is 2 channels x 24 GB/s (Ampere) = 48 GB/s of payload, under the link's 95.8 x 0.9338 = 89.5,
  // so it binds: S / 48 GB/s. Latency: Tree/Simple base 8.4 us, the fill of 2(n-1) - 1 = 1 hop (4.0
  // us), then the transfer's own hop (4.0 us) and the link's 0.2 us.
  EXPECT_NEAR(o.time_s, 8.4e-6 + 4.0e-6 + 4.0e-6 + 0.2e-6 + 100e6 / 48e9, 1e-12);
}

}  // namespace
}  // namespace linksim::coll
