// The one-node ring search's shape (ring_shape.hpp): what makes two communicators' searches the
// same, and the process-wide store that runs each shape's search once.
#include "sim/coll/ring_shape.hpp"

#include <gtest/gtest.h>

#include "sim/coll/communicator.hpp"
#include "sim/topo/cluster_builder.hpp"
#include "sim/topo/loader.hpp"
#include "tests/support/temp_files.hpp"
#include "tests/support/two_gpu_host.hpp"

namespace linksim::coll {
namespace {

class RingShapeTest : public ::testing::Test {
 protected:
  testing::TempDir dir;
  topo::Topology host = topo::load_topology(dir.write("host.json", testing::two_gpu_host_json()));
  topo::Topology cluster = topo::build_cluster(host, 2, topo::FabricSpec{});

  std::vector<topo::NodeId> host_gpus(int h) {
    const auto gpus = cluster.nodes_of(topo::NodeKind::gpu);
    return {gpus[2 * h], gpus[2 * h + 1]};
  }
  static RingShape shape_of(const Communicator& c) {
    return ring_shape(
        c.size(), [&](int i, int j) -> const topo::Route& { return c.route(i, j); },
        c.capacities_Bps());
  }
};

TEST_F(RingShapeTest, NamesChannelsInTheOrderTheyFirstAppearSoEveryHostHasOneShape) {
  // Two ranks: the pair (0, 1) has one path of share 1 over one channel (gpu0 -> gpu1, named 0),
  // the pair (1, 0) one path of share 1 over the other direction (named 1); the host file gives
  // the NVLink bundle 100 GB/s of payload each way ("effective"). Host 1's GPUs cross their own
  // channels, under other ids, in the same pattern: the same shape.
  const RingShape expected{2, 1, 1, 1, 0, 1, 1, 1, 1, 100e9, 100e9};
  const Communicator on_host0(cluster, host_gpus(0));
  const Communicator on_host1(cluster, host_gpus(1));
  EXPECT_NE(on_host0.route(0, 1).paths.front().channels,
            on_host1.route(0, 1).paths.front().channels);
  EXPECT_EQ(shape_of(on_host0), expected);
  EXPECT_EQ(shape_of(on_host1), expected);
  // ... so they get the same rings: rank order both ways round is one ring (0 -> 1 -> 0), whose
  // step loads each direction with one byte at 100 GB/s.
  ASSERT_EQ(on_host1.rings().size(), 1u);
  EXPECT_EQ(on_host1.rings().front().order, (std::vector<int>{0, 1}));
  EXPECT_EQ(on_host1.ring_bus_bandwidth_Bps(), on_host0.ring_bus_bandwidth_Bps());
  EXPECT_DOUBLE_EQ(on_host0.ring_bus_bandwidth_Bps(), 100e9);
}

TEST(SharedRingChoice, SearchesEachShapeOnceAndServesTheStoredChoiceAfter) {
  // Shapes no communicator has (a negative rank count), so that the process-wide store holds
  // nothing for them before this test.
  int searches = 0;
  const auto search = [&] {
    ++searches;
    return RingChoice{{{0, 2, 1}}, 0.5};
  };
  const RingShape shape{-3, 0.25};
  const RingChoice first = shared_ring_choice(shape, search);
  const RingChoice again = shared_ring_choice(shape, search);
  EXPECT_EQ(searches, 1);
  EXPECT_EQ(again.orders, first.orders);
  EXPECT_EQ(again.step_time, 0.5);
  shared_ring_choice(RingShape{-3, 0.5}, search);  // another shape: its own search
  EXPECT_EQ(searches, 2);
}

}  // namespace
}  // namespace linksim::coll
