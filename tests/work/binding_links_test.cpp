// The links a job report names as binding its step (sim/work/binding_links.hpp), on a two-node
// p4d cluster with hand-made channel usage.
#include "sim/work/binding_links.hpp"

#include <gtest/gtest.h>

#include "sim/topo/loader.hpp"

namespace linksim::work {
namespace {

struct Picked {
  std::vector<topo::ChannelId> nvlinks;  // GPU -> NVSwitch on host 0, in channel order
  topo::ChannelId network = 0;           // the first channel with an end on the fabric
};

Picked pick(const topo::Topology& m) {
  Picked p;
  bool found_network = false;
  for (topo::ChannelId ch = 0; ch < m.channel_count(); ++ch) {
    const auto& from = m.node(m.channel_from(ch));
    const auto& to = m.node(m.channel_to(ch));
    if (from.kind == topo::NodeKind::gpu && from.host == 0 && to.host == 0 &&
        m.channel_name(ch).find("NVLink") != std::string::npos) {
      p.nvlinks.push_back(ch);
    }
    if (!found_network && (from.host == topo::kFabricHost || to.host == topo::kFabricHost)) {
      p.network = ch;
      found_network = true;
    }
  }
  EXPECT_GE(p.nvlinks.size(), 5u);
  EXPECT_TRUE(found_network);
  return p;
}

engine::ChannelRow row(const topo::Topology& m, topo::ChannelId ch, double saturated_s) {
  engine::ChannelRow r;
  r.channel = ch;
  r.name = m.channel_name(ch);
  r.capacity_Bps = m.channel_bandwidth_Bps(ch);
  r.saturated_s = saturated_s;
  return r;
}

TEST(BindingLinks, AlikeLinksAreOneLineAndTheNetworkIsNamed) {
  const topo::Topology m = topo::load_topology("aws-p4d-x2");
  const Picked p = pick(m);
  // Step 1 s. Four NVLinks saturated 0.5 s (alike), one 0.4 s, a network link 0.2 s, and an
  // NVLink at 0.001 s: under 1% of the step, not named.
  std::vector<engine::ChannelRow> rows;
  for (int i = 0; i < 4; ++i)
    rows.push_back(row(m, p.nvlinks[static_cast<std::size_t>(i)], 0.5));
  rows.push_back(row(m, p.nvlinks[4], 0.4));
  rows.push_back(row(m, p.network, 0.2));
  rows.push_back(row(m, p.nvlinks[5], 0.001));
  const std::string first = m.channel_name(p.nvlinks[0]);
  const std::string fifth = m.channel_name(p.nvlinks[4]);
  const std::string net = m.channel_name(p.network);
  // Groups, longest first: [4 NVLinks at 50%], [1 NVLink at 40%], [the network link at 20%].
  EXPECT_EQ(binding_links(m, rows, 1.0),
            (std::vector<std::string>{first + " and 3 more alike: saturated 50% of the step",
                                      fifth + ": saturated 40% of the step",
                                      net + ": saturated 20% of the step"}));
  // With room for two lines the network link still shows: the longest of each place.
  EXPECT_EQ(binding_links(m, rows, 1.0, 2),
            (std::vector<std::string>{first + " and 3 more alike: saturated 50% of the step",
                                      net + ": saturated 20% of the step"}));
}

TEST(BindingLinks, NothingSaturatedNamesNothing) {
  const topo::Topology m = topo::load_topology("aws-p4d-x2");
  const Picked p = pick(m);
  EXPECT_TRUE(binding_links(m, {row(m, p.nvlinks[0], 0.0)}, 1.0).empty());
}

}  // namespace
}  // namespace linksim::work
