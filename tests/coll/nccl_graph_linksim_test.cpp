// linksim's rings as NCCL's ring graph (sim/coll/nccl_graph_linksim.*), on shipped machines,
// with the figures worked out by hand.
#include "sim/coll/nccl_graph_linksim.hpp"

#include <gtest/gtest.h>

#include "sim/topo/loader.hpp"

namespace linksim::coll {
namespace {

std::vector<std::int64_t> devs(const NcclGraphChannel& c) {
  std::vector<std::int64_t> d;
  for (const auto& g : c.gpus)
    d.push_back(g.dev);
  return d;
}

TEST(NcclGraphLinksimTest, DgxH100IsTwelveChannelsOfOneRing) {
  const topo::Topology t = topo::load_topology("dgx-h100");
  const Communicator comm(t, t.nodes_of(topo::NodeKind::gpu));
  const NcclGraph g = linksim_ring_graph(comm);
  // Each GPU has 5+4+4+5 = 18 NVLink 4 lanes to the NVSwitches, 25 GB/s each per direction,
  // 0.958 of it payload: 18 x 25e9 x 0.958 = 431.1e9 B/s, and every ring through the switches
  // loads each GPU's uplink once, so the first ring (rank order) is chosen and no other helps.
  // NCCL's search sees 18 x 20.6 = 370.8 GB/s (nccl_channel_search_test.cpp): 6 rings at 60,
  // duplicated to 12 at 30; the dump holds those 12 at 30 GB/s, as NCCL's own would.
  EXPECT_EQ(g.id, 0);
  EXPECT_EQ(g.pattern, NcclGraphPattern::ring);
  EXPECT_EQ(g.nchannels, 12);
  ASSERT_EQ(g.channels.size(), 12u);
  for (const auto& c : g.channels)
    EXPECT_EQ(devs(c), (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(g.channels[3].gpus[5].rank, 5);
  EXPECT_DOUBLE_EQ(g.speed_intra_Bps, 30e9);
  EXPECT_DOUBLE_EQ(g.speed_inter_Bps, g.speed_intra_Bps);
  EXPECT_EQ(g.type_intra, NcclPathType::nvl);
  EXPECT_EQ(g.type_inter, NcclPathType::pix);
  EXPECT_TRUE(g.same_channels);
  EXPECT_FALSE(g.crossnic);
}

TEST(NcclGraphLinksimTest, Rtx4090EightIsTwoChannelsAcrossSockets) {
  const topo::Topology t = topo::load_topology("rtx4090-8x");
  const Communicator comm(t, t.nodes_of(topo::NodeKind::gpu));
  const NcclGraph g = linksim_ring_graph(comm);
  // Each GPU's PCIe 4.0 x16 link: 16 x 2 GB/s = 32e9 x 0.82 payload = 26.24e9 B/s per
  // direction, the bottleneck (xGMI-2 x4: 4 x 36e9 x 0.80 = 115.2e9). NCCL's figure for it is
  // 16 lanes x 120 / 80 = 24 GB/s: 20 fits once, 18 and 15 once, 12 twice (2 x 12 = 24 covers
  // it): 2 search channels at 12, run 4.
  EXPECT_EQ(g.nchannels, 2);
  ASSERT_EQ(g.channels.size(), 2u);
  EXPECT_EQ(devs(g.channels[1]), (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_DOUBLE_EQ(g.speed_intra_Bps, 12e9);
  // GPU3 -> GPU4 and GPU7 -> GPU0 cross the sockets: SYS, the worst hop.
  EXPECT_EQ(g.type_intra, NcclPathType::sys);
  EXPECT_EQ(nccl_path_type_between(comm, 0, 1), NcclPathType::phb);  // NODE is NCCL's PHB
  EXPECT_EQ(nccl_path_type_between(comm, 3, 4), NcclPathType::sys);
  EXPECT_EQ(nccl_path_type_between(comm, 2, 2), NcclPathType::loc);
}

TEST(NcclGraphLinksimTest, DumpHoldsOnlyTheRingGraph) {
  const topo::Topology t = topo::load_topology("rtx4090-8x");
  const Communicator comm(t, t.nodes_of(topo::NodeKind::gpu));
  const NcclGraphDump d = linksim_nccl_graphs(comm);
  EXPECT_EQ(d.version, 1);
  ASSERT_EQ(d.graphs.size(), 1u);
  EXPECT_EQ(d.graphs[0].id, 0);
}

TEST(NcclGraphLinksimTest, WriteThenReadGivesTheSameGraph) {
  const topo::Topology t = topo::load_topology("dgx-1v");
  const Communicator comm(t, t.nodes_of(topo::NodeKind::gpu));
  const NcclGraphDump d = linksim_nccl_graphs(comm);
  const std::string xml = to_nccl_graph_xml(d);
  const NcclGraphDump back = parse_nccl_graph_dump(xml, "linksim");
  ASSERT_EQ(back.graphs.size(), 1u);
  const NcclGraph& a = d.graphs[0];
  const NcclGraph& b = back.graphs[0];
  EXPECT_EQ(b.nchannels, a.nchannels);
  ASSERT_EQ(b.channels.size(), a.channels.size());
  for (std::size_t c = 0; c < a.channels.size(); ++c) {
    EXPECT_EQ(devs(b.channels[c]), devs(a.channels[c]));
    for (std::size_t i = 0; i < a.channels[c].gpus.size(); ++i)
      EXPECT_EQ(b.channels[c].gpus[i].rank, a.channels[c].gpus[i].rank);
  }
  // The file holds "%g" of a float: 6 significant digits.
  EXPECT_NEAR(b.speed_intra_Bps, a.speed_intra_Bps, 1e-5 * a.speed_intra_Bps);
  EXPECT_EQ(b.type_intra, a.type_intra);
  EXPECT_EQ(b.type_inter, a.type_inter);
  EXPECT_EQ(to_nccl_graph_xml(back), xml);  // and written again, the same bytes
}

}  // namespace
}  // namespace linksim::coll
