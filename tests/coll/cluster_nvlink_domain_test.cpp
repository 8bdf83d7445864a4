// Collectives on multi-node NVLink domains (sim/topo/cluster_domain.*): NCCL's node count is
// the domain count, so a GB200 NVL72 rack is one node of 72 ranks on NVLink (Ring over NVLink,
// NVLS eligible) and two racks are two nodes joined through NICs.
#include <gtest/gtest.h>

#include "sim/coll/algorithm_registry.hpp"
#include "sim/coll/communicator.hpp"
#include "sim/topo/loader.hpp"

namespace linksim::coll {
namespace {

TEST(NvlinkDomainCollective, OneRackIsOneNvlinkNodeOf72Ranks) {
  const topo::Topology rack = topo::load_topology("gb200-nvl72");
  const Communicator comm(rack, rack.nodes_of(topo::NodeKind::gpu));
  EXPECT_EQ(comm.size(), 72);
  EXPECT_EQ(comm.node_count(), 1);
  EXPECT_EQ(comm.ranks_per_node(), 72);
  EXPECT_FALSE(comm.crosses_nodes(0, 71));  // tray 0 and tray 17: one node
  EXPECT_EQ(comm.intra_class(), HwClass::nvlink);
  EXPECT_TRUE(comm.nvls_capable());
  // The ring in rank order: rank i sends to i + 1 over its 18 NVLink 5 lanes (50 GB/s each per
  // direction, x 0.958 NVLink payload), 1/18 of the bytes on each: a ring step of one byte
  // takes (1/18) / (50e9 x 0.958) s, so busBw = 18 x 47.9 = 862.2 GB/s.
  EXPECT_DOUBLE_EQ(comm.ring_bus_bandwidth_Bps(), 18 * 50e9 * 0.958);
}

TEST(NvlinkDomainCollective, TheRackRingsAsAnEightGpuB200Box) {
  // DGX B200: 8 GPUs, each with 9 NVLink 5 lanes to each of 2 switch chips: 18 lanes per GPU,
  // the same 862.2 GB/s ring as the rack's.
  const topo::Topology box = topo::load_topology("dgx-b200");
  const Communicator b200(box, box.nodes_of(topo::NodeKind::gpu));
  const topo::Topology rack = topo::load_topology("gb200-nvl72");
  const Communicator nvl72(rack, rack.nodes_of(topo::NodeKind::gpu));
  EXPECT_DOUBLE_EQ(b200.ring_bus_bandwidth_Bps(), 18 * 50e9 * 0.958);
  EXPECT_DOUBLE_EQ(nvl72.ring_bus_bandwidth_Bps(), b200.ring_bus_bandwidth_Bps());
}

TEST(NvlinkDomainCollective, TwoRacksAreTwoNodes) {
  const topo::Topology two = topo::load_topology("gb200-nvl72-x2");
  const Communicator comm(two, two.nodes_of(topo::NodeKind::gpu));
  EXPECT_EQ(comm.node_count(), 2);
  EXPECT_EQ(comm.ranks_per_node(), 72);
  EXPECT_FALSE(comm.crosses_nodes(0, 71));
  EXPECT_TRUE(comm.crosses_nodes(0, 72));
  // Every GPU of a domain reaches NICs of its own tray, so one ring enters at each: 72 rings.
  EXPECT_EQ(comm.rings().size(), 72u);
  // NVLS across the two domains would need NVLSTree.
  EXPECT_FALSE(comm.nvls_capable());
}

}  // namespace
}  // namespace linksim::coll
