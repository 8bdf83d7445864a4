// Routes across a cluster's fabric (routing.hpp, network_route): the NIC each end uses, PXN
// through a peer GPU, and ECMP against spreading over the spines.
#include <gtest/gtest.h>

#include "sim/topo/cluster_builder.hpp"
#include "sim/topo/loader.hpp"
#include "sim/topo/routing.hpp"
#include "tests/support/temp_files.hpp"
#include "tests/support/two_gpu_host.hpp"

namespace linksim::topo {
namespace {

class ClusterRouting : public ::testing::Test {
 protected:
  testing::TempDir dir;
  Topology host = load_topology(dir.write("host.json", testing::two_gpu_host_json()));

  Topology cluster(NicChoice nic, SpineChoice spine) {
    FabricSpec spec;
    spec.nic_choice = nic;
    spec.spine_choice = spine;
    return build_cluster(host, 2, spec);
  }
  static std::vector<std::string> names(const Topology& t, const std::vector<NodeId>& ids) {
    std::vector<std::string> out;
    for (NodeId n : ids)
      out.push_back(t.node(n).id);
    return out;
  }
  static std::vector<std::string> hops(const Topology& t, const Path& p) {
    std::vector<std::string> out{t.node(t.channel_from(p.channels.front())).id};
    for (ChannelId c : p.channels)
      out.push_back(t.node(t.channel_to(c)).id);
    return out;
  }
};

TEST_F(ClusterRouting, SameRailGoesThroughOneLeaf) {
  const Topology c = cluster(NicChoice::pxn, SpineChoice::spread);
  const Router router(c);
  const auto r = router.route(*c.find("node0/gpu0"), *c.find("node1/gpu0"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->transport, Transport::network);
  EXPECT_EQ(names(c, r->nics), (std::vector<std::string>{"node0/nic0", "node1/nic0"}));
  EXPECT_TRUE(r->proxies.empty());
  ASSERT_EQ(r->paths.size(), 1u);
  EXPECT_EQ(hops(c, r->paths[0]),
            (std::vector<std::string>{"node0/gpu0", "node0/sw0", "node0/nic0", "leaf0",
                                      "node1/nic0", "node1/sw0", "node1/gpu0"}));
  // The slowest link is the NIC port: 12.5 GB/s x 0.96.
  EXPECT_DOUBLE_EQ(r->bandwidth_Bps(), 12e9);
}

TEST_F(ClusterRouting, PxnForwardsOverNvlinkToTheDestinationsRail) {
  const Topology c = cluster(NicChoice::pxn, SpineChoice::spread);
  const Router router(c);
  // gpu1's own NIC is rail 1; node1/gpu0's is rail 0: PXN hands over to node0/gpu0.
  const auto r = router.route(*c.find("node0/gpu1"), *c.find("node1/gpu0"));
  ASSERT_TRUE(r);
  EXPECT_EQ(names(c, r->proxies), (std::vector<std::string>{"node0/gpu0"}));
  EXPECT_EQ(names(c, r->nics), (std::vector<std::string>{"node0/nic0", "node1/nic0"}));
  ASSERT_EQ(r->paths.size(), 1u);
  EXPECT_EQ(hops(c, r->paths[0]),
            (std::vector<std::string>{"node0/gpu1", "node0/gpu0", "node0/sw0", "node0/nic0",
                                      "leaf0", "node1/nic0", "node1/sw0", "node1/gpu0"}));
}

TEST_F(ClusterRouting, NearestNicCrossesTheSpinesSpreadOrHashed) {
  {
    const Topology c = cluster(NicChoice::nearest, SpineChoice::spread);
    const Router router(c);
    const auto r = router.route(*c.find("node0/gpu1"), *c.find("node1/gpu0"));
    ASSERT_TRUE(r);
    EXPECT_TRUE(r->proxies.empty());
    EXPECT_EQ(names(c, r->nics), (std::vector<std::string>{"node0/nic1", "node1/nic0"}));
    // leaf1 -> spine0 or spine1 -> leaf0: two paths, half the bytes each.
    ASSERT_EQ(r->paths.size(), 2u);
    EXPECT_DOUBLE_EQ(r->paths[0].share, 0.5);
    EXPECT_EQ(hops(c, r->paths[1])[4], "spine1");
  }
  {
    const Topology c = cluster(NicChoice::nearest, SpineChoice::ecmp);
    const Router router(c);
    const auto r = router.route(*c.find("node0/gpu1"), *c.find("node1/gpu0"));
    ASSERT_TRUE(r);
    ASSERT_EQ(r->paths.size(), 1u);  // one spine, by the hash of the endpoints
    EXPECT_DOUBLE_EQ(r->paths[0].share, 1.0);
  }
}

TEST_F(ClusterRouting, InsideAHostRoutesAreTheMachines) {
  const Topology c = cluster(NicChoice::pxn, SpineChoice::spread);
  const Router router(c);
  const auto r = router.route(*c.find("node1/gpu0"), *c.find("node1/gpu1"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->transport, Transport::nvlink);
  EXPECT_EQ(names(c, router.nearest_nics(*c.find("node1/gpu1"))),
            (std::vector<std::string>{"node1/nic1"}));
}

}  // namespace
}  // namespace linksim::topo
