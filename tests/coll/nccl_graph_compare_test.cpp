// NCCL's graph dump against linksim's (sim/coll/nccl_graph_compare.*), on small graphs made
// here so that every expected line follows from the inputs.
#include "sim/coll/nccl_graph_compare.hpp"

#include <gtest/gtest.h>

namespace linksim::coll {
namespace {

NcclGraph ring_graph(const std::vector<std::vector<std::int64_t>>& orders, double speed_GBps,
                     NcclPathType type = NcclPathType::nvl) {
  NcclGraph g;
  g.id = 0;
  g.nchannels = static_cast<int>(orders.size());
  g.speed_intra_Bps = speed_GBps * 1e9;
  g.speed_inter_Bps = g.speed_intra_Bps;
  g.type_intra = type;
  g.type_inter = NcclPathType::pix;
  for (const auto& order : orders) {
    NcclGraphChannel c;
    for (auto dev : order)
      c.gpus.push_back({dev, static_cast<int>(dev)});
    g.channels.push_back(c);
  }
  return g;
}

NcclGraphDump dump_of(NcclGraph g) {
  NcclGraphDump d;
  d.graphs.push_back(std::move(g));
  return d;
}

TEST(NcclGraphCompareTest, ARotatedRingIsTheSameRing) {
  // 2 3 0 1 is 0 1 2 3 started at GPU 2.
  const auto c = compare_nccl_graphs(dump_of(ring_graph({{2, 3, 0, 1}}, 20)),
                                     dump_of(ring_graph({{0, 1, 2, 3}}, 20)));
  ASSERT_EQ(c.graphs.size(), 1u);
  EXPECT_TRUE(c.same());
  ASSERT_EQ(c.graphs[0].channels.size(), 1u);
  EXPECT_EQ(c.graphs[0].channels[0].match, NcclChannelMatch::same);
  EXPECT_EQ(format_nccl_graph_comparison(c),
            "graph 0 (ring): same (1 channel, 20 GB/s per channel, NVL)\n"
            "same\n");
}

TEST(NcclGraphCompareTest, ASwappedPairIsReportedWithBothOrders) {
  // 0 1 3 2 sends 1 -> 3 and 2 -> 0, which 0 1 2 3 does not: neither a rotation nor a mirror.
  const auto c = compare_nccl_graphs(dump_of(ring_graph({{0, 1, 2, 3}, {0, 1, 3, 2}}, 20)),
                                     dump_of(ring_graph({{0, 1, 2, 3}, {0, 1, 2, 3}}, 20)));
  EXPECT_FALSE(c.same());
  EXPECT_EQ(c.graphs[0].channels[0].match, NcclChannelMatch::same);
  EXPECT_EQ(c.graphs[0].channels[1].match, NcclChannelMatch::different);
  EXPECT_EQ(format_nccl_graph_comparison(c),
            "graph 0 (ring): 1 difference\n"
            "  channel 1 order: NCCL 0 1 3 2, linksim 0 1 2 3\n"
            "different\n");
}

TEST(NcclGraphCompareTest, TheReverseRingIsAnotherRing) {
  // 0 3 2 1 runs 0 1 2 3 backwards: every hop on the other direction of its link.
  const auto c = compare_nccl_graphs(dump_of(ring_graph({{0, 3, 2, 1}}, 20)),
                                     dump_of(ring_graph({{1, 2, 3, 0}}, 20)));
  EXPECT_FALSE(c.same());
  EXPECT_EQ(c.graphs[0].channels[0].match, NcclChannelMatch::reversed);
  EXPECT_EQ(
      c.graphs[0].differences,
      (std::vector<std::string>{"channel 0 order (reversed): NCCL 0 3 2 1, linksim 1 2 3 0"}));
}

TEST(NcclGraphCompareTest, ChannelCountSpeedAndPathType) {
  // NCCL 12 x 30 = 360 GB/s; linksim 16 x 26.94375 = 431.1 GB/s (dgx-h100's figures).
  std::vector<std::vector<std::int64_t>> twelve(12, {0, 1, 2, 3});
  std::vector<std::vector<std::int64_t>> sixteen(16, {0, 1, 2, 3});
  const auto c = compare_nccl_graphs(dump_of(ring_graph(twelve, 30, NcclPathType::nvl)),
                                     dump_of(ring_graph(sixteen, 26.94375, NcclPathType::nvb)));
  const auto& g = c.graphs[0];
  EXPECT_EQ(g.nccl_channels, 12);
  EXPECT_EQ(g.linksim_channels, 16);
  EXPECT_EQ(g.channels.size(), 12u);  // the channels both have
  EXPECT_EQ(g.differences, (std::vector<std::string>{
                               "channels: NCCL 12, linksim 16",
                               "speedintra per channel: NCCL 30 GB/s, linksim 26.944 GB/s",
                               "channels x speedintra: NCCL 360 GB/s, linksim 431.1 GB/s",
                               "typeintra: NCCL NVL, linksim NVB",
                           }));
}

TEST(NcclGraphCompareTest, SpeedsWithinHalfAPercentAreTheSame) {
  // 20 against 20.09: 0.09 / 20.09 = 0.45% <= 0.5%; against 20.11: 0.547% > 0.5%.
  EXPECT_TRUE(
      compare_nccl_graphs(dump_of(ring_graph({{0, 1}}, 20)), dump_of(ring_graph({{0, 1}}, 20.09)))
          .same());
  EXPECT_FALSE(
      compare_nccl_graphs(dump_of(ring_graph({{0, 1}}, 20)), dump_of(ring_graph({{0, 1}}, 20.11)))
          .same());
}

TEST(NcclGraphCompareTest, GraphsLinksimLacksAreNamedNotCompared) {
  NcclGraphDump nccl = dump_of(ring_graph({{0, 1}}, 20));
  NcclGraph tree = ring_graph({{0, 1}}, 20);
  tree.id = 1;
  tree.pattern = NcclGraphPattern::balanced_tree;
  nccl.graphs.push_back(tree);
  NcclGraph collnet;
  collnet.id = 4;
  collnet.pattern = NcclGraphPattern::collnet_direct;
  nccl.graphs.push_back(collnet);
  const auto c = compare_nccl_graphs(nccl, dump_of(ring_graph({{1, 0}}, 20)));
  EXPECT_TRUE(c.same());  // only the ring is compared, and it matches
  EXPECT_EQ(format_nccl_graph_comparison(c),
            "graph 0 (ring): same (1 channel, 20 GB/s per channel, NVL)\n"
            "graph 1 (tree): not compared: NCCL 1 channel, linksim has no such graph\n"
            "graph 4 (collnet direct): not searched by NCCL (0 channels), not modelled by "
            "linksim\n"
            "same\n");
}

TEST(NcclGraphCompareTest, JsonHoldsBothSidesAndEachChannel) {
  const auto c = compare_nccl_graphs(dump_of(ring_graph({{0, 2, 1}}, 20)),
                                     dump_of(ring_graph({{0, 1, 2}}, 10)));
  const Json j = nccl_graph_comparison_json(c);
  EXPECT_EQ(j["same"], false);
  const Json& g = j["graphs"][0];
  EXPECT_EQ(g["id"], 0);
  EXPECT_EQ(g["name"], "ring");
  EXPECT_EQ(g["compared"], true);
  EXPECT_EQ(g["nccl"]["speed_intra_Bps"], 20e9);
  EXPECT_EQ(g["linksim"]["speed_intra_Bps"], 10e9);
  EXPECT_EQ(g["nccl"]["type_intra"], "NVL");
  // 0 2 1 is 0 1 2 backwards.
  EXPECT_EQ(g["channels"][0]["match"], "reversed");
  EXPECT_EQ(g["channels"][0]["nccl"], (Json{0, 2, 1}));
  EXPECT_EQ(g["channels"][0]["linksim"], (Json{0, 1, 2}));
  EXPECT_EQ(g["differences"].size(), 2u);
}

}  // namespace
}  // namespace linksim::coll
