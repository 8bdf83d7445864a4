// NCCL's graph dump read and written (sim/coll/nccl_graph.*): the hand-written fixtures of
// tests/data/nccl (from search.cc's dump code), byte-for-byte round trips, and bad input.
#include "sim/coll/nccl_graph.hpp"

#include <gtest/gtest.h>

#include "sim/core/error.hpp"
#include "tests/support/temp_files.hpp"
#include "tests/support/thrown_message.hpp"

namespace linksim::coll {
namespace {

std::string fixture(const std::string& name) {
  return testing::read_file(testing::source_dir() + "/tests/data/nccl/" + name);
}

// The error's full text for a dump that must fail.
std::string error_of(const std::string& text) {
  return testing::thrown_message<InputError>([&] { (void)parse_nccl_graph_dump(text, "g.xml"); });
}

constexpr const char* kHead =
    "<graphs version=\"1\">\n"
    "  <graph id=\"0\" pattern=\"4\" crossnic=\"0\" nchannels=\"1\" speedintra=\"20\" "
    "speedinter=\"20\" latencyinter=\"0\" typeintra=\"NVL\" typeinter=\"PIX\" "
    "samechannels=\"1\">\n";

TEST(NcclGraphTest, ReadsTheDgxH100Fixture) {
  const NcclGraphDump d = parse_nccl_graph_dump(fixture("dgx-h100-graphs.xml"), "dgx");
  EXPECT_EQ(d.version, 1);
  // init.cc's dump order: ring, tree, collnet direct, collnet chain, NVLS.
  ASSERT_EQ(d.graphs.size(), 5u);
  EXPECT_EQ(d.graphs[0].id, 0);
  EXPECT_EQ(d.graphs[1].id, 1);
  EXPECT_EQ(d.graphs[2].id, 4);
  EXPECT_EQ(d.graphs[3].id, 2);
  EXPECT_EQ(d.graphs[4].id, 3);
  const NcclGraph& ring = d.graphs[0];
  EXPECT_EQ(ring.pattern, NcclGraphPattern::ring);
  EXPECT_EQ(static_cast<int>(ring.pattern), 4);
  EXPECT_FALSE(ring.crossnic);
  EXPECT_EQ(ring.nchannels, 12);
  ASSERT_EQ(ring.channels.size(), 12u);
  EXPECT_DOUBLE_EQ(ring.speed_intra_Bps, 30e9);  // "30" GB/s
  EXPECT_DOUBLE_EQ(ring.speed_inter_Bps, 30e9);
  EXPECT_EQ(ring.type_intra, NcclPathType::nvl);
  EXPECT_EQ(ring.type_inter, NcclPathType::pix);
  EXPECT_TRUE(ring.same_channels);
  ASSERT_EQ(ring.channels[11].gpus.size(), 8u);
  EXPECT_EQ(ring.channels[11].gpus[7].dev, 7);  // dev="0x7"
  EXPECT_EQ(ring.channels[11].gpus[7].rank, 7);
  EXPECT_TRUE(ring.channels[0].nets.empty());
  EXPECT_EQ(d.graphs[1].pattern, NcclGraphPattern::balanced_tree);
  EXPECT_EQ(d.graphs[2].pattern, NcclGraphPattern::collnet_direct);
  EXPECT_EQ(d.graphs[2].nchannels, 0);
  EXPECT_EQ(d.graphs[2].type_intra, NcclPathType::loc);
  EXPECT_EQ(d.graphs[3].pattern, NcclGraphPattern::tree);
  const NcclGraph& nvls = d.graphs[4];
  EXPECT_EQ(nvls.pattern, NcclGraphPattern::nvls);
  ASSERT_EQ(nvls.channels.size(), 8u);
  ASSERT_EQ(nvls.channels[5].gpus.size(), 1u);  // NVLS channels name their head only
  EXPECT_EQ(nvls.channels[5].gpus[0].dev, 5);
  EXPECT_FALSE(nvls.same_channels);
}

TEST(NcclGraphTest, ReadsThePcieFixture) {
  const NcclGraphDump d = parse_nccl_graph_dump(fixture("rtx4090-8x-graphs.xml"), "rtx");
  ASSERT_EQ(d.graphs.size(), 5u);
  EXPECT_EQ(d.graphs[0].nchannels, 1);
  EXPECT_DOUBLE_EQ(d.graphs[0].speed_intra_Bps, 15e9);
  EXPECT_EQ(d.graphs[0].type_intra, NcclPathType::sys);
  EXPECT_EQ(d.graphs[4].nchannels, 0);  // no NVLS on a PCIe box
}

// The writer's layout is ncclTopoDumpXmlRec's: the fixtures, written independently of it from
// NCCL's code, come back byte for byte.
TEST(NcclGraphTest, FixturesRoundTripByteForByte) {
  for (const char* name : {"dgx-h100-graphs.xml", "rtx4090-8x-graphs.xml"}) {
    const std::string text = fixture(name);
    EXPECT_EQ(to_nccl_graph_xml(parse_nccl_graph_dump(text, name)), text) << name;
  }
}

TEST(NcclGraphTest, WritesNcclsNumberFormats) {
  NcclGraphDump d;
  NcclGraph g;
  g.id = 0;
  g.nchannels = 1;
  g.speed_intra_Bps = 26.94375e9;  // "%g" of a float: 6 significant digits, 26.9438
  g.speed_inter_Bps = 12.5e9;
  g.latency_inter_s = 2.5e-6;  // microseconds in the file
  g.type_intra = NcclPathType::phb;
  g.type_inter = NcclPathType::net;
  NcclGraphChannel c;
  c.nets = {0, 0x10};
  c.gpus = {{0, 0}, {0x1f, 31}, {2, -1}};
  g.channels.push_back(c);
  d.graphs.push_back(g);
  EXPECT_EQ(to_nccl_graph_xml(d),
            "<graphs version=\"1\">\n"
            "  <graph id=\"0\" pattern=\"4\" crossnic=\"0\" nchannels=\"1\" "
            "speedintra=\"26.9438\" speedinter=\"12.5\" latencyinter=\"2.5\" typeintra=\"PHB\" "
            "typeinter=\"NET\" samechannels=\"0\">\n"
            "    <channel>\n"
            "      <net dev=\"0\"/>\n"
            "      <gpu dev=\"0\" rank=\"0\"/>\n"
            "      <gpu dev=\"0x1f\" rank=\"31\"/>\n"
            "      <gpu dev=\"0x2\"/>\n"
            "      <net dev=\"0x10\"/>\n"
            "    </channel>\n"
            "  </graph>\n"
            "</graphs>\n");
  // And back: the entry and exit NICs, a GPU without a rank, microseconds to seconds.
  const NcclGraphDump back = parse_nccl_graph_dump(to_nccl_graph_xml(d), "w");
  ASSERT_EQ(back.graphs.size(), 1u);
  EXPECT_EQ(back.graphs[0].channels[0].nets, (std::vector<std::int64_t>{0, 0x10}));
  EXPECT_EQ(back.graphs[0].channels[0].gpus[1].dev, 31);
  EXPECT_EQ(back.graphs[0].channels[0].gpus[2].rank, -1);
  EXPECT_DOUBLE_EQ(back.graphs[0].latency_inter_s, 2.5e-6);
  EXPECT_EQ(back.graphs[0].type_inter, NcclPathType::net);
}

TEST(NcclGraphTest, AnEmptyDumpIsOneElement) {
  EXPECT_EQ(to_nccl_graph_xml(NcclGraphDump{}), "<graphs version=\"1\"/>\n");
  EXPECT_TRUE(parse_nccl_graph_dump("<graphs version=\"1\"/>", "e").graphs.empty());
}

TEST(NcclGraphTest, DevIsHexadecimalAsNcclReadsIt) {
  // NCCL reads dev with strtol(.., 16): "10" is sixteen, as is "0x10".
  const std::string text = std::string(kHead) +
                           "    <channel><gpu dev=\"10\"/><gpu dev=\"0x10\"/><gpu dev=\"a\"/>"
                           "</channel>\n  </graph>\n</graphs>\n";
  const auto d = parse_nccl_graph_dump(text, "g.xml");
  const auto& gpus = d.graphs[0].channels[0].gpus;
  ASSERT_EQ(gpus.size(), 3u);
  EXPECT_EQ(gpus[0].dev, 16);
  EXPECT_EQ(gpus[1].dev, 16);
  EXPECT_EQ(gpus[2].dev, 10);
}

TEST(NcclGraphTest, LatencyInterMayBeMissing) {
  // NCCL's loader defaults it to 0 ("latencyinter not found in graph, using 0.0").
  const auto d = parse_nccl_graph_dump(
      "<graphs version=\"1\"><graph id=\"1\" pattern=\"1\" crossnic=\"0\" nchannels=\"0\" "
      "speedintra=\"0\" speedinter=\"0\" typeintra=\"LOC\" typeinter=\"LOC\" "
      "samechannels=\"0\"/></graphs>",
      "g.xml");
  EXPECT_DOUBLE_EQ(d.graphs[0].latency_inter_s, 0);
}

TEST(NcclGraphTest, BadInputNamesFileLineElementAndWhatWasExpected) {
  EXPECT_NE(error_of("<graphs version=\"1\">").find("g.xml"), std::string::npos);
  EXPECT_NE(error_of("<graphs version=\"1\">").find("expected well-formed XML"), std::string::npos);
  EXPECT_NE(error_of("<system version=\"1\"/>").find("expected a <graphs> root"),
            std::string::npos);
  EXPECT_NE(error_of("<graphs version=\"2\"/>").find("version: expected 1"), std::string::npos);
  // Line 7 is the third <channel> (channel 2) of a graph that says it has 1.
  const std::string channel_text = std::string(kHead) +
                                   "    <channel><gpu dev=\"0\"/></channel>\n"
                                   "    <channel><gpu dev=\"0\"/></channel>\n"
                                   "\n"
                                   "\n"
                                   "    <channel><gpu dev=\"zz\"/></channel>\n"
                                   "  </graph>\n</graphs>\n";
  const std::string e = error_of(channel_text);
  EXPECT_NE(e.find("g.xml"), std::string::npos) << e;
  EXPECT_NE(e.find("line 7"), std::string::npos) << e;
  EXPECT_NE(e.find("<gpu> in <channel> 2 of graph 0"), std::string::npos) << e;
  EXPECT_NE(e.find("expected a hexadecimal device number"), std::string::npos) << e;
  const std::string count_text = std::string(kHead) +
                                 "    <channel><gpu dev=\"0\"/></channel>\n"
                                 "    <channel><gpu dev=\"0\"/></channel>\n"
                                 "  </graph>\n</graphs>\n";
  const std::string count = error_of(count_text);
  EXPECT_NE(count.find("line 2"), std::string::npos) << count;
  EXPECT_NE(count.find("nchannels=\"1\" but 2 <channel> elements"), std::string::npos) << count;
}

TEST(NcclGraphTest, BadAttributesAreRefused) {
  auto graph = [](const std::string& attrs) {
    return "<graphs version=\"1\">\n<graph " + attrs + "/>\n</graphs>";
  };
  const std::string ok =
      "id=\"0\" pattern=\"4\" crossnic=\"0\" nchannels=\"0\" speedintra=\"20\" "
      "speedinter=\"20\" typeintra=\"NVL\" typeinter=\"PIX\" samechannels=\"1\"";
  EXPECT_EQ(error_of(graph(ok)), "accepted");
  auto with = [&](const std::string& from, const std::string& to) {
    std::string a = ok;
    a.replace(a.find(from), from.size(), to);
    return error_of(graph(a));
  };
  EXPECT_NE(with("pattern=\"4\"", "pattern=\"7\"").find("expected 1 to 6"), std::string::npos);
  EXPECT_NE(with("pattern=\"4\"", "").find("expected a pattern attribute"), std::string::npos);
  EXPECT_NE(with("typeintra=\"NVL\"", "typeintra=\"NODE\"").find("expected a path type"),
            std::string::npos);
  EXPECT_NE(with("speedintra=\"20\"", "speedintra=\"-1\"").find("expected a number"),
            std::string::npos);
  EXPECT_NE(
      with("speedintra=\"20\"", "speedintra=\"1e999\"").find("expected a number from 0 to 1e+06"),
      std::string::npos);
  EXPECT_NE(with("nchannels=\"0\"", "nchannels=\"65\"").find("expected 0 to 64"),
            std::string::npos);
  EXPECT_NE(with("id=\"0\"", "id=\"x\"").find("<graph> 0: id=\"x\": expected an integer"),
            std::string::npos);
  EXPECT_NE(with("samechannels=\"1\"", "samechannels=\"2\"").find("expected 0 or 1"),
            std::string::npos);
  const std::string child =
      std::string(kHead) + "    <channel><cpu dev=\"0\"/></channel>\n  </graph>\n</graphs>\n";
  EXPECT_NE(error_of(child).find("<cpu> in <channel> 0 of graph 0: expected <gpu> or <net>"),
            std::string::npos);
  const std::string no_dev =
      std::string(kHead) + "    <channel><gpu rank=\"0\"/></channel>\n  </graph>\n</graphs>\n";
  EXPECT_NE(error_of(no_dev).find("expected a dev attribute"), std::string::npos);
}

}  // namespace
}  // namespace linksim::coll
