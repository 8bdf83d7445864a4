// The machine model's own bookkeeping (sim/topo/topology.*): channel numbering, neighbours,
// and copies that own their graph.
#include "sim/topo/topology.hpp"

#include <gtest/gtest.h>

namespace linksim::topo {
namespace {

Node node(const std::string& id, NodeKind kind) {
  Node n;
  n.id = id;
  n.kind = kind;
  return n;
}

Link link(NodeId a, NodeId b) {
  Link l;
  l.a = a;
  l.b = b;
  l.kind = LinkKind::pcie;
  return l;
}

// sw (0) joined to gpu0 (1) by link 0 (a = sw) and to gpu1 (2) by link 1 (a = gpu1). Link l is
// channels 2l (a->b) and 2l+1 (b->a): 0 sw->gpu0, 1 gpu0->sw, 2 gpu1->sw, 3 sw->gpu1.
Topology star() {
  Topology t;
  t.add_node(node("sw", NodeKind::pcie_switch));
  t.add_node(node("gpu0", NodeKind::gpu));
  t.add_node(node("gpu1", NodeKind::gpu));
  t.add_link(link(0, 1));
  t.add_link(link(2, 0));
  return t;
}

TEST(TopologyTest, OutChannelsAreEachNodesLeavingChannelsInOrder) {
  const Topology t = star();
  EXPECT_EQ(t.out_channels(0), (std::vector<ChannelId>{0, 3}));
  EXPECT_EQ(t.out_channels(1), std::vector<ChannelId>{1});
  EXPECT_EQ(t.out_channels(2), std::vector<ChannelId>{2});
  for (NodeId n = 0; n < 3; ++n) {
    for (ChannelId c : t.out_channels(n))
      EXPECT_EQ(t.channel_from(c), n) << c;
  }
  EXPECT_THROW(t.out_channels(3), std::logic_error);
}

TEST(TopologyTest, ACopyOwnsItsGraph) {
  const Topology original = star();
  Topology copy = original;
  copy.add_node(node("gpu2", NodeKind::gpu));
  copy.add_link(link(0, 3));  // link 2: channel 4 is sw->gpu2
  EXPECT_EQ(copy.out_channels(0), (std::vector<ChannelId>{0, 3, 4}));
  EXPECT_EQ(original.out_channels(0), (std::vector<ChannelId>{0, 3}));
  Topology assigned;
  assigned = copy;
  EXPECT_EQ(assigned.out_channels(3), std::vector<ChannelId>{5});  // gpu2->sw
}

TEST(TopologyTest, ChannelNamesFollowChannelIds) {
  const Topology t = star();
  const std::vector<std::string> names = channel_names(t);
  ASSERT_EQ(names.size(), 4u);
  EXPECT_EQ(names[0], t.channel_name(0));
  EXPECT_EQ(names[3], t.channel_name(3));
  EXPECT_EQ(names[0].rfind("sw->gpu0 (", 0), 0u) << names[0];
  EXPECT_EQ(names[2].rfind("gpu1->sw (", 0), 0u) << names[2];
}

}  // namespace
}  // namespace linksim::topo
