// The facade of `linksim topo graphs` (sim/app/nccl_graphs.*): the shipped fixtures against
// the machines they describe, and dumps whose GPUs are not the machine's.
#include "sim/app/nccl_graphs.hpp"

#include <gtest/gtest.h>

#include "sim/core/error.hpp"
#include "sim/topo/loader.hpp"
#include "tests/support/temp_files.hpp"
#include "tests/support/thrown_message.hpp"

namespace linksim::app {
namespace {

std::string fixture(const std::string& name) {
  return testing::read_file(testing::source_dir() + "/tests/data/nccl/" + name);
}

std::string error_of(const topo::Topology& machine, const std::string& text) {
  return testing::thrown_message<InputError>(
      [&] { (void)compare_graph_dump(machine, text, "g.xml"); });
}

std::string ring_dump(const std::string& gpus) {
  return "<graphs version=\"1\">\n"
         "  <graph id=\"0\" pattern=\"4\" crossnic=\"0\" nchannels=\"1\" speedintra=\"20\" "
         "speedinter=\"20\" latencyinter=\"0\" typeintra=\"NVL\" typeinter=\"PIX\" "
         "samechannels=\"1\">\n"
         "    <channel>" +
         gpus + "</channel>\n  </graph>\n</graphs>\n";
}

TEST(NcclGraphsAppTest, DgxH100FixtureAgainstLinksim) {
  const auto c = compare_graph_dump(topo::load_topology("dgx-h100"), fixture("dgx-h100-graphs.xml"),
                                    "dgx-h100-graphs.xml");
  ASSERT_EQ(c.graphs.size(), 5u);
  const auto& ring = c.graphs[0];
  EXPECT_TRUE(ring.compared);
  // NCCL: 6 channels at 60 GB/s, duplicated to 12 at 30; linksim runs the same search.
  EXPECT_EQ(ring.nccl_channels, 12);
  EXPECT_EQ(ring.linksim_channels, 12);
  ASSERT_EQ(ring.channels.size(), 12u);
  for (const auto& ch : ring.channels)
    EXPECT_EQ(ch.match, coll::NcclChannelMatch::same);  // 0 1 ... 7 on both sides
  EXPECT_EQ(ring.nccl_type_intra, coll::NcclPathType::nvl);
  EXPECT_EQ(ring.linksim_type_intra, coll::NcclPathType::nvl);
  for (std::size_t g = 1; g < 5; ++g)
    EXPECT_FALSE(c.graphs[g].compared) << g;
  // Channel count, order, speed (30 GB/s on both sides) and type agree; the graphs linksim
  // does not build per channel are not compared, so the dump is the same as far as it goes.
  EXPECT_TRUE(c.same());
}

TEST(NcclGraphsAppTest, PcieFixtureAgainstLinksim) {
  const auto c = compare_graph_dump(topo::load_topology("rtx4090-8x"),
                                    fixture("rtx4090-8x-graphs.xml"), "rtx4090-8x-graphs.xml");
  const auto& ring = c.graphs[0];
  EXPECT_EQ(ring.nccl_channels, 1);
  EXPECT_EQ(ring.linksim_channels, 2);
  ASSERT_EQ(ring.channels.size(), 1u);
  EXPECT_EQ(ring.channels[0].match, coll::NcclChannelMatch::same);
  EXPECT_EQ(ring.nccl_type_intra, coll::NcclPathType::sys);
  EXPECT_EQ(ring.linksim_type_intra, coll::NcclPathType::sys);
}

TEST(NcclGraphsAppTest, GpusMustBeTheMachines) {
  const topo::Topology t = topo::load_topology("rtx4090-2x");
  EXPECT_EQ(error_of(t, ring_dump("<gpu dev=\"0\"/><gpu dev=\"0x1\"/>")), "accepted");
  const std::string far = error_of(t, ring_dump("<gpu dev=\"0\"/><gpu dev=\"0x2\"/>"));
  EXPECT_NE(far.find("g.xml"), std::string::npos) << far;
  EXPECT_NE(far.find("line 3"), std::string::npos) << far;
  EXPECT_NE(far.find("<channel> 0 of graph 0: gpu dev 0x2: expected a GPU of the machine (0 to "
                     "0x1)"),
            std::string::npos)
      << far;
  const std::string twice = error_of(t, ring_dump("<gpu dev=\"0x1\"/><gpu dev=\"0x1\"/>"));
  EXPECT_NE(twice.find("gpu dev 0x1 twice"), std::string::npos) << twice;
  const std::string short_ring = error_of(t, ring_dump("<gpu dev=\"0\"/>"));
  EXPECT_NE(short_ring.find("1 of the machine's 2 GPUs: expected a ring through all of them"),
            std::string::npos)
      << short_ring;
}

}  // namespace
}  // namespace linksim::app
