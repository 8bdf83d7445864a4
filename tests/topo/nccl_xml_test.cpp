// NCCL's topology XML (sim/topo/nccl_xml.*): the export in the layout of NCCL's own dump
// (NVIDIA/nccl src/graph/xml.cc ncclTopoDumpXmlRec: 2-space indent, "/>" for leaves), export
// then import giving the same links and bandwidths, an NCCL-style dump importing, bad input.
#include "sim/topo/nccl_xml.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <set>

#include "sim/core/error.hpp"
#include "sim/topo/loader.hpp"
#include "tests/support/temp_files.hpp"
#include "tests/support/thrown_message.hpp"

namespace linksim::topo {
namespace {

using linksim::testing::read_file;
using linksim::testing::source_dir;

TEST(NcclXmlTest, ExportsInNcclsDumpLayout) {
  // rtx2080ti-2x: two sockets (NUMA 0 and 1, UPI), both RTX 2080 Ti (Turing: sm 75) behind one
  // PCIe 3.0 x16 switch on NUMA node 1, cores 24-47,72-95. The mask is sysfs's cpumap: words of
  // 32 CPUs, most significant first: 64-95 -> bits 72-95 = ffffff00; 32-63 -> bits 32-47 =
  // 0000ffff; 0-31 -> bits 24-31 = ff000000.
  const Topology t = load_topology("rtx2080ti-2x");
  const std::string xml = to_nccl_xml(t);
  EXPECT_NE(xml.find("  <cpu numaid=\"1\" affinity=\"ffffff00,0000ffff,ff000000\" arch=\"x86_64\" "
                     "vendor=\"GenuineIntel\" familyid=\"6\" modelid=\"85\">\n"
                     "    <pci busid=\"0000:01:00.0\" class=\"0x060400\" link_speed=\"8.0 GT/s "
                     "PCIe\" link_width=\"16\">\n"
                     "      <pci busid=\"0000:02:00.0\" class=\"0x030200\" link_speed=\"8.0 GT/s "
                     "PCIe\" link_width=\"16\">\n"
                     "        <gpu dev=\"0\" sm=\"75\" rank=\"0\" gdr=\"1\"/>\n"
                     "      </pci>\n"),
            std::string::npos)
      << xml;
  EXPECT_EQ(xml.rfind("<system version=\"1\">\n", 0), 0u);
  EXPECT_EQ(xml.substr(xml.size() - 10), "</system>\n");
}

TEST(NcclXmlTest, NvlinksNameTheirTargetsBusIdAndClass) {
  // dgx-h100: each GPU reaches the 4 NVSwitch chips with 5, 5, 4, 4 links (18 in all).
  const std::string xml = to_nccl_xml(load_topology("dgx-h100"));
  EXPECT_NE(xml.find("<gpu dev=\"0\" sm=\"90\" rank=\"0\" gdr=\"1\">\n"), std::string::npos);
  int switch_links = 0;
  for (std::size_t at = 0; (at = xml.find("tclass=\"0x068000\"", at)) != std::string::npos; ++at)
    ++switch_links;
  EXPECT_EQ(switch_links, 8 * 4);  // 8 GPUs x 4 switch chips
  // A NIC: 400 Gb/s = 400000 Mb/s, NCCL's unit.
  EXPECT_NE(xml.find("<net name=\"nic0\" dev=\"0\" speed=\"400000\" port=\"1\""),
            std::string::npos);
}

// A link as kind, per-direction bandwidth and its two ends, each end by kind and ordinal
// (switches by kind only: their names and order are the file's own).
std::multiset<std::string> link_signatures(const Topology& t, bool with_sockets) {
  std::multiset<std::string> out;
  const auto end = [&](NodeId n) {
    const Node& node = t.node(n);
    const bool is_switch = node.kind == NodeKind::pcie_switch || node.kind == NodeKind::nvswitch;
    return is_switch ? std::string(to_string(node.kind))
                     : fmt::format("{}{}", to_string(node.kind), node.ordinal);
  };
  for (const Link& l : t.links()) {
    const bool socket_link = t.node(l.a).kind == NodeKind::cpu && t.node(l.b).kind == NodeKind::cpu;
    if (socket_link && !with_sockets) continue;
    std::string a = end(l.a);
    std::string b = end(l.b);
    if (b < a) std::swap(a, b);
    out.insert(fmt::format("{} {} {} {:.6g}", to_string(l.kind), a, b, l.bandwidth_Bps));
  }
  return out;
}

void expect_round_trip(const std::string& name) {
  const Topology original = load_topology(name);
  NcclXmlImportOptions options;
  options.gpu_model = original.node(original.nodes_of(NodeKind::gpu).front()).model;
  options.source = name + ".xml";
  const NcclXmlImport imported = import_nccl_xml(to_nccl_xml(original), options);
  const Topology back = parse_topology(imported.document, name + " (imported)");
  // Socket links are not in NCCL's XML; every other link comes back with its bandwidth.
  const auto want = link_signatures(original, false);
  const auto got = link_signatures(back, false);
  std::vector<std::string> missing;
  std::vector<std::string> extra;
  std::set_difference(want.begin(), want.end(), got.begin(), got.end(),
                      std::back_inserter(missing));
  std::set_difference(got.begin(), got.end(), want.begin(), want.end(), std::back_inserter(extra));
  EXPECT_TRUE(missing.empty() && extra.empty())
      << name << "\nmissing: " << fmt::format("{}", fmt::join(missing, "; "))
      << "\nextra: " << fmt::format("{}", fmt::join(extra, "; "));
  EXPECT_EQ(back.count(NodeKind::gpu), original.count(NodeKind::gpu));
  EXPECT_EQ(back.count(NodeKind::nic), original.count(NodeKind::nic));
  EXPECT_EQ(back.count(NodeKind::cpu), original.count(NodeKind::cpu));
  for (NodeId n : original.nodes_of(NodeKind::nic)) {
    EXPECT_TRUE(back.find(original.node(n).id)) << original.node(n).id;  // names kept
  }
}

// Not rtx3090-4x-nvlink-pairs: its NVLink bridge links carry a bandwidth of their own (56.25
// GB/s for 4 lanes), which NCCL's XML cannot hold (NCCL rates an NVLink by the GPU's SM alone),
// so it comes back at the NVLink 3 default of 4 x 25 GB/s.
TEST(NcclXmlTest, ExportThenImportGivesTheSameLinksAndBandwidths) {
  for (const char* name : {"dgx-h100", "dgx-a100", "dgx-1v", "rtx2080ti-2x", "a100-8x-nvlink-pairs",
                           "aws-p4de.24xlarge"})
    expect_round_trip(name);
}

TEST(NcclXmlTest, ANcclStyleDumpImports) {
  // tests/data/nccl/dgx1v-4gpu-topo.xml: 4 V100s of a DGX-1V (NVLink 2: 25 GB/s per link per
  // direction), pairs 0-1 x1, 0-2 x1, 0-3 x2, 1-2 x2, 1-3 x1, 2-3 x2; each GPU's 4th entry
  // points at a GPU outside the job (85, 86, 89, 8a) and is left out.
  const std::string path = source_dir() + "/tests/data/nccl/dgx1v-4gpu-topo.xml";
  NcclXmlImportOptions options;
  options.gpu_model = "V100-SXM2-32GB";
  options.source = path;
  const NcclXmlImport imported = import_nccl_xml(read_file(path), options);
  const Topology t = parse_topology(imported.document, "dgx1v-4gpu (imported)");
  EXPECT_EQ(t.count(NodeKind::gpu), 4u);
  EXPECT_EQ(t.count(NodeKind::pcie_switch), 2u);
  std::map<std::string, double> nvlink_Bps;
  for (const Link& l : t.links()) {
    if (l.kind == LinkKind::nvlink)
      nvlink_Bps[t.node(l.a).id + "-" + t.node(l.b).id] = l.bandwidth_Bps;
  }
  EXPECT_EQ(nvlink_Bps, (std::map<std::string, double>{{"gpu0-gpu1", 25e9},
                                                       {"gpu0-gpu2", 25e9},
                                                       {"gpu0-gpu3", 50e9},
                                                       {"gpu1-gpu2", 50e9},
                                                       {"gpu1-gpu3", 25e9},
                                                       {"gpu2-gpu3", 50e9}}));
  // The CPU: cores from the mask 0fffff00,000fffff.
  EXPECT_EQ(imported.document["nodes"][4]["cores"], "0-19,40-59");
  EXPECT_NE(fmt::format("{}", fmt::join(imported.assumed, "\n"))
                .find("4 NVLink entries to GPUs that are not in the file are left out"),
            std::string::npos);
}

std::string error_of(const std::string& xml) {
  NcclXmlImportOptions options;
  options.gpu_model = "H100-SXM5-80GB";
  options.source = "t.xml";
  return testing::thrown_message<InputError>([&] { import_nccl_xml(xml, options); });
}

TEST(NcclXmlTest, MalformedXmlNamesTheLine) {
  // tinyxml2 names the line of the element whose end tag does not match: <cpu> on line 2.
  EXPECT_EQ(error_of("<system version=\"1\">\n  <cpu numaid=\"0\">\n  </cpux>\n</system>\n"),
            "t.xml: at line 2: malformed XML: XML_ERROR_MISMATCHED_ELEMENT");
  // An attribute without its closing quote, on line 3.
  EXPECT_EQ(
      error_of("<system version=\"1\">\n  <cpu numaid=\"0\">\n    <pci busid=\"0000:01:00.0>\n"
               "  </cpu>\n</system>\n"),
      "t.xml: at line 3: malformed XML: XML_ERROR_PARSING_ATTRIBUTE");
}

TEST(NcclXmlTest, BadContentNamesTheLine) {
  EXPECT_EQ(error_of("<graphs version=\"1\"/>\n"),
            "t.xml: at line 1: root element <graphs>: expected NCCL's <system version=\"1\">");
  EXPECT_EQ(
      error_of("<system version=\"1\">\n  <cpu numaid=\"0\">\n    <pci busid=\"0000:01:00.0\" "
               "class=\"0x030200\">\n      <gpu sm=\"90\"/>\n    </pci>\n  </cpu>\n</system>\n"),
      "t.xml: at line 4: <gpu> has no dev attribute");
  EXPECT_EQ(
      error_of("<system version=\"1\">\n  <cpu numaid=\"0\">\n    <pci busid=\"0000:01:00.0\" "
               "class=\"0x030200\">\n      <gpu dev=\"0\">\n        <nvlink target=\"x\" "
               "count=\"2\" tclass=\"0x020700\"/>\n      </gpu>\n    </pci>\n  </cpu>\n"
               "</system>\n"),
      "t.xml: at line 5: nvlink target \"x\" (tclass \"0x020700\"): expected a GPU's bus id "
      "or an NVSwitch (tclass 0x068000)");
  EXPECT_EQ(error_of("<system version=\"1\">\n  <cpu numaid=\"zero\"/>\n</system>\n"),
            "t.xml: at line 2: <cpu> numaid=\"zero\": expected an integer");
}

// A CPU's arch and vendor are kept in the machine file as stated, so they must be text a JSON
// document can hold: the fuzzer's arch of "x86_64" and 0x90 bytes (invalid UTF-8) reached the
// schema validator. Line 2 is the <cpu>.
TEST(NcclXmlTest, IdentityTextThatIsNotPrintableAsciiIsRefused) {
  EXPECT_EQ(error_of("<system version=\"1\">\n  <cpu numaid=\"0\" arch=\"x86_64\x90\x90\"/>\n"
                     "</system>\n"),
            "t.xml: at line 2: <cpu> arch: expected printable ASCII text of at most 256 "
            "characters, as NCCL writes it");
}

// One GPU under one CPU, the <pci> element on line 3 and the <gpu> on line 4, with `pci_attrs`
// and `gpu_attrs` as given.
std::string one_gpu_xml(const std::string& pci_attrs, const std::string& gpu_attrs) {
  return "<system version=\"1\">\n  <cpu numaid=\"0\" vendor=\"GenuineIntel\">\n"
         "    <pci busid=\"0000:01:00.0\" class=\"0x030200\" " +
         pci_attrs + ">\n      <gpu " + gpu_attrs + "/>\n    </pci>\n  </cpu>\n</system>\n";
}

// Issue 38, item 3: dev="-1" was imported as a GPU named "gpu-1". dev is a CUDA device number.
TEST(NcclXmlTest, ANegativeDeviceNumberIsRefused) {
  const std::string pci = "link_speed=\"16.0 GT/s PCIe\" link_width=\"16\"";
  EXPECT_EQ(error_of(one_gpu_xml(pci, "dev=\"-1\" sm=\"90\"")),
            "t.xml: at line 4: <gpu> dev=\"-1\": expected a CUDA device number, 0 or more");
  EXPECT_EQ(error_of(one_gpu_xml(pci, "dev=\"0\" sm=\"90\"")), "accepted");
}

// Issue 38, item 3: a negative link_width, or more lanes than PCIe has, was taken as "no width"
// and silently replaced by x16.
TEST(NcclXmlTest, ALinkWidthThatIsNoLaneCountIsRefused) {
  EXPECT_EQ(error_of(one_gpu_xml("link_speed=\"16.0 GT/s PCIe\" link_width=\"-8\"", "dev=\"0\"")),
            "t.xml: at line 3: <pci> link_width=\"-8\": expected a PCIe lane count from 1 to 32, "
            "or 0 where the width is unknown");
  EXPECT_EQ(error_of(one_gpu_xml("link_speed=\"16.0 GT/s PCIe\" link_width=\"64\"", "dev=\"0\"")),
            "t.xml: at line 3: <pci> link_width=\"64\": expected a PCIe lane count from 1 to 32, "
            "or 0 where the width is unknown");
}

// link_width="0" is what NCCL itself dumps where sysfs has no max_link_width (virtual machines:
// link_speed="" link_width="0"), and NCCL reads it as x16 (topo.cc ncclTopoAddPci). Refusing it
// would refuse NCCL's own files, so it is read as NCCL reads it, and the assumption says so.
TEST(NcclXmlTest, AZeroLinkWidthIsUnknownAndReadAsNcclReadsIt) {
  NcclXmlImportOptions options;
  options.gpu_model = "A100-SXM4-80GB";
  options.source = "t.xml";
  const NcclXmlImport imported = import_nccl_xml(
      one_gpu_xml("link_speed=\"16.0 GT/s PCIe\" link_width=\"0\"", "dev=\"0\""), options);
  ASSERT_FALSE(imported.assumed.empty());
  EXPECT_EQ(imported.assumed.front(),
            "link_width=\"0\" (first at line 3: the width is unknown) read as x16, as NCCL reads "
            "it");
  const Topology t = parse_topology(imported.document, "t.json");
  int pcie_links = 0;
  for (const Link& l : t.links()) {
    if (l.kind != LinkKind::pcie) continue;
    ++pcie_links;
    EXPECT_EQ(l.width, 16);
  }
  EXPECT_EQ(pcie_links, 1);  // gpu0 to cpu0
}

}  // namespace
}  // namespace linksim::topo
