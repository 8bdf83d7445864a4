// Twin communicators (sim/coll/communicator_twins.hpp): which groups simulate alike, and that a
// twin's choice is the one the group would have simulated itself.
#include "sim/coll/communicator_twins.hpp"

#include <gtest/gtest.h>

#include "sim/coll/collective_sim.hpp"
#include "sim/topo/cluster_builder.hpp"
#include "sim/topo/loader.hpp"
#include "sim/topo/shipped_topologies.hpp"

namespace linksim::coll {
namespace {

std::vector<topo::NodeId> gpus(const topo::Topology& t, std::initializer_list<int> ordinals) {
  const auto all = t.nodes_of(topo::NodeKind::gpu);
  std::vector<topo::NodeId> out;
  for (int o : ordinals)
    out.push_back(all[static_cast<std::size_t>(o)]);
  return out;
}

TEST(CommunicatorTwins, DataParallelGroupsOfTwoDgxA100sAreTwins) {
  const topo::Topology host = topo::load_topology(topo::resolve_topology_path("dgx-a100"));
  const topo::Topology t = topo::build_cluster(host, 2, topo::default_fabric(host));
  // GPU k of each node, each on its own rail NIC: the groups of GPU 0 and of GPU 5 are alike.
  const Communicator dp0(t, gpus(t, {0, 8}));
  const Communicator dp5(t, gpus(t, {5, 13}));
  EXPECT_TRUE(are_twins(dp0, dp5));
  EXPECT_TRUE(are_twins(dp5, dp0));
  // Same size, but one pair is inside a node and the other crosses the network.
  const Communicator inside(t, gpus(t, {0, 1}));
  EXPECT_FALSE(are_twins(dp0, inside));
  // Different sizes.
  const Communicator three(t, gpus(t, {0, 8, 1}));
  EXPECT_FALSE(are_twins(dp0, three));

  // The planner's choice on one twin is the one the other simulates for itself, at the same
  // time to the bit.
  Request r;
  r.op = Op::all_reduce;
  r.size_bytes = 64e6;
  const Outcome o0 = simulate_collective(dp0, r);
  const Outcome o5 = simulate_collective(dp5, r);
  EXPECT_EQ(o0.choice.algorithm, o5.choice.algorithm);
  EXPECT_EQ(o0.choice.protocol, o5.choice.protocol);
  EXPECT_EQ(o0.choice.channels, o5.choice.channels);
  EXPECT_EQ(o0.time_s, o5.time_s);
}

TEST(CommunicatorTwins, ATwinsFiguresAreAdoptedAsTheGroupWouldWorkThemOut) {
  // What one data-parallel group has worked out once (its memo: a job's lowering keeps there
  // each collective's time alone, by slices and in bulk) serves its twin: adopted, the twin's
  // memo returns it without working it out. The figures are the twin's own to the bit (the test
  // above: twins simulate every collective to the same time).
  const topo::Topology host = topo::load_topology(topo::resolve_topology_path("dgx-a100"));
  const topo::Topology t = topo::build_cluster(host, 2, topo::default_fabric(host));
  const Communicator dp0(t, gpus(t, {0, 8}));
  const Communicator dp5(t, gpus(t, {5, 13}));
  const Communicator dp3(t, gpus(t, {3, 11}));
  ASSERT_TRUE(are_twins(dp0, dp5));
  ASSERT_TRUE(are_twins(dp0, dp3));
  dp0.memo("a figure", [] { return 0.25; });
  dp5.adopt_figures(dp0);
  int worked_out = 0;
  EXPECT_EQ(dp5.memo("a figure",
                     [&] {
                       ++worked_out;
                       return 1.0;
                     }),
            0.25);
  EXPECT_EQ(worked_out, 0);
  // A figure the group already has stays its own.
  dp3.memo("a figure", [] { return 0.5; });
  dp3.adopt_figures(dp0);
  EXPECT_EQ(dp3.memo("a figure", [] { return 1.0; }), 0.5);
}

TEST(CommunicatorTwins, PairsOverDifferentLinksAreNot) {
  // NVLink bridges join GPUs 0-1 and 2-3; 1 and 2 meet over PCIe only.
  const topo::Topology t = topo::load_topology(topo::resolve_topology_path("a100-8x-nvlink-pairs"));
  const Communicator bridged01(t, gpus(t, {0, 1}));
  const Communicator bridged23(t, gpus(t, {2, 3}));
  const Communicator pcie12(t, gpus(t, {1, 2}));
  EXPECT_TRUE(are_twins(bridged01, bridged23));
  EXPECT_FALSE(are_twins(bridged01, pcie12));
  // A group is its own twin, and the bridge's two ends swapped are one too: each direction of
  // the bridge stands for the other.
  EXPECT_TRUE(are_twins(bridged01, bridged01));
  const Communicator bridged10(t, gpus(t, {1, 0}));
  EXPECT_TRUE(are_twins(bridged01, bridged10));
}

}  // namespace
}  // namespace linksim::coll
