// Real NCCL topology files (tests/data/real/nccl-xml, sources in its README.md): the PCI-only
// files aws-ofi-nccl ships for p4d, p4de, g5 and p5 (issue 37, item 1), and a full dump of an
// 8x A100 server from Alibaba's SimAI. Each either imports with
// the facts read off the file by hand, or fails with the exact message naming what it lacks.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/topo/loader.hpp"
#include "sim/topo/nccl_xml.hpp"
#include "tests/support/temp_files.hpp"
#include "tests/support/thrown_message.hpp"

namespace linksim::topo {
namespace {

using linksim::testing::read_file;
using linksim::testing::source_dir;

// The import of tests/data/`file`, named by that path in errors.
NcclXmlImport import_real(const std::string& file, const std::string& gpu_model,
                          const std::string& nvlink) {
  NcclXmlImportOptions options;
  options.gpu_model = gpu_model;
  options.nvlink = nvlink;
  options.source = file;
  return import_nccl_xml(read_file(source_dir() + "/tests/data/" + file), options);
}

std::string import_error(const std::string& file, const std::string& gpu_model,
                         const std::string& nvlink) {
  return testing::thrown_message<InputError>([&] { import_real(file, gpu_model, nvlink); });
}

// Each GPU's and NIC's PCIe switch, by node id ("gpu0" -> "pcie_switch0").
std::map<std::string, std::string> switch_of(const Topology& t) {
  std::map<std::string, std::string> out;
  const auto endpoint = [](const Node& n) {
    return n.kind == NodeKind::gpu || n.kind == NodeKind::nic;
  };
  for (const Link& l : t.links()) {
    const Node& a = t.node(l.a);
    const Node& b = t.node(l.b);
    if (b.kind == NodeKind::pcie_switch && endpoint(a)) out[a.id] = b.id;
    if (a.kind == NodeKind::pcie_switch && endpoint(b)) out[b.id] = a.id;
  }
  return out;
}

std::string joined(const std::vector<std::string>& lines) {
  return fmt::format("{}", fmt::join(lines, "\n"));
}

const char* kP4d = "real/nccl-xml/aws-ofi-nccl-p4d-24xl-topo.xml";
const char* kP4de = "real/nccl-xml/aws-ofi-nccl-p4de-24xl-topo.xml";
const char* kG5 = "real/nccl-xml/aws-ofi-nccl-g5.48xl-topo.xml";
const char* kP5 = "real/nccl-xml/aws-ofi-nccl-p5.48xl-topo.xml";
const char* kSimAi = "real/nccl-xml/simai-topo-8a100-4cx6.xml";

// Read by hand from the p4d and p4de files (the same tree; p4de's GPUs are device 0x20b2, the
// 80 GB A100): two <cpu> (NUMA 0 and 1, Intel family 6 model 85), each with two PCIe switches
// (class 0x060400); under each switch two GPUs (class 0x030200, bus ids ..:1c.0 and ..:1d.0) and
// one EFA NIC (class 0x020000, 1d0f:efa0, ..:1b.0); every link "8 GT/s" x16. Bus id order:
// switch 0 holds 10:1c, 10:1d and NIC 10:1b, switch 1 20:.., switch 2 90:.., switch 3 a0:...
void expect_p4d_tree(const Topology& t) {
  EXPECT_EQ(t.count(NodeKind::gpu), 8u);
  EXPECT_EQ(t.count(NodeKind::nic), 4u);
  EXPECT_EQ(t.count(NodeKind::cpu), 2u);
  EXPECT_EQ(t.count(NodeKind::pcie_switch), 4u);
  EXPECT_EQ(switch_of(t), (std::map<std::string, std::string>{{"gpu0", "pcie_switch0"},
                                                              {"gpu1", "pcie_switch0"},
                                                              {"nic0", "pcie_switch0"},
                                                              {"gpu2", "pcie_switch1"},
                                                              {"gpu3", "pcie_switch1"},
                                                              {"nic1", "pcie_switch1"},
                                                              {"gpu4", "pcie_switch2"},
                                                              {"gpu5", "pcie_switch2"},
                                                              {"nic2", "pcie_switch2"},
                                                              {"gpu6", "pcie_switch3"},
                                                              {"gpu7", "pcie_switch3"},
                                                              {"nic3", "pcie_switch3"}}));
  // Switches 0 and 1 hang from the NUMA 0 CPU, 2 and 3 from NUMA 1; PCIe 3.0 x16 everywhere.
  std::map<std::string, std::string> cpu_of_switch;
  int pcie_links = 0;
  for (const Link& l : t.links()) {
    if (l.kind != LinkKind::pcie) continue;
    ++pcie_links;
    EXPECT_EQ(l.generation, 3);
    EXPECT_EQ(l.width, 16);
    if (t.node(l.b).kind == NodeKind::cpu) cpu_of_switch[t.node(l.a).id] = t.node(l.b).id;
  }
  EXPECT_EQ(pcie_links, 4 + 8 + 4);
  EXPECT_EQ(cpu_of_switch, (std::map<std::string, std::string>{{"pcie_switch0", "cpu0"},
                                                               {"pcie_switch1", "cpu0"},
                                                               {"pcie_switch2", "cpu1"},
                                                               {"pcie_switch3", "cpu1"}}));
  // The NICs: 100 Gb/s each, from their PCI id (the file gives no speed).
  for (NodeId n : t.nodes_of(NodeKind::nic))
    EXPECT_EQ(t.node(n).nic->port_bandwidth_Bps, 12.5e9) << t.node(n).id;
}

// Read by hand from SimAI's dump: two <cpu> (NUMA 0 and 1, GenuineIntel family 6 model 106),
// ten PCIe switches (class 0x060400) under each; eight <gpu> (device 0x20b2: A100 SXM4 80GB),
// each with six <nvlink> of count 2 to the NVSwitches 0000:c0..c5:00.0 (12 links); five NICs
// (class 0x020000, <net> mlx5_bond_0..4 at speed 200000 Mb/s = 25 GB/s), bond_0 directly under
// the first CPU. No --gpu: the model comes from the GPUs' PCI id.
TEST(NcclXmlRealFilesTest, SimAiA100DumpImportsWithItsModelFromThePciIds) {
  const NcclXmlImport imported = import_real(kSimAi, "", "");
  EXPECT_NE(joined(imported.assumed)
                .find("the GPUs' model A100-SXM4-80GB (no --gpu) from the PCI id 10de:20b2 every "
                      "GPU states (pci.ids: \"GA100 [A100 SXM4 80GB]\")"),
            std::string::npos)
      << joined(imported.assumed);
  const Topology t = parse_topology(imported.document, "simai");
  EXPECT_EQ(t.count(NodeKind::gpu), 8u);
  EXPECT_EQ(t.count(NodeKind::nic), 5u);
  EXPECT_EQ(t.count(NodeKind::cpu), 2u);
  EXPECT_EQ(t.count(NodeKind::pcie_switch), 20u);
  EXPECT_EQ(t.count(NodeKind::nvswitch), 6u);
  for (NodeId g : t.nodes_of(NodeKind::gpu)) {
    EXPECT_EQ(t.node(g).model, "A100-SXM4-80GB");
    int nvlinks = 0;
    for (const Link& l : t.links())
      if (l.kind == LinkKind::nvlink && (l.a == g || l.b == g)) nvlinks += l.lanes;
    EXPECT_EQ(nvlinks, 12) << t.node(g).id;
  }
  for (NodeId n : t.nodes_of(NodeKind::nic))
    EXPECT_EQ(t.node(n).nic->port_bandwidth_Bps, 25e9) << t.node(n).id;
  // The round trip: the XML NCCL would dump for the imported machine (its bus ids, classes and
  // ids as the dump states them) imports to the same machine file, but for the title and
  // sources, which name the file read.
  NcclXmlImportOptions again;
  again.source = "round-trip.xml";
  Json first = imported.document;
  Json second = import_nccl_xml(to_nccl_xml(t), again).document;
  for (Json* doc : {&first, &second}) {
    doc->erase("title");
    doc->erase("sources");
  }
  EXPECT_EQ(first, second);
}

TEST(NcclXmlRealFilesTest, AwsP4dImportsItsPciTreeWithNvlinkFromTheOption) {
  const NcclXmlImport imported = import_real(kP4d, "A100-SXM4-40GB", "nvswitch");
  const Topology t = parse_topology(imported.document, "p4d (imported)");
  expect_p4d_tree(t);
  // affinity 000000ff,ffff0000,00ffffff: CPUs 0-23 and 48-71; ffffff00,0000ffff,ff000000:
  // 24-47 and 72-95.
  std::map<std::string, std::string> cores;
  for (const auto& node : imported.document["nodes"]) {
    if (node["kind"] != "cpu") continue;
    cores[node["id"]] = node["cores"];
    EXPECT_EQ(node["vendor"], "intel");
  }
  EXPECT_EQ(cores,
            (std::map<std::string, std::string>{{"cpu0", "0-23,48-71"}, {"cpu1", "24-47,72-95"}}));
  // --nvlink nvswitch: each GPU's 12 NVLink 3 links to one NVSwitch node.
  EXPECT_EQ(t.count(NodeKind::nvswitch), 1u);
  int nvlinks = 0;
  for (const Link& l : t.links()) {
    if (l.kind != LinkKind::nvlink) continue;
    ++nvlinks;
    EXPECT_EQ(l.lanes, 12);
    EXPECT_EQ(l.generation, 3);
  }
  EXPECT_EQ(nvlinks, 8);
  EXPECT_EQ(
      joined(imported.assumed),
      "8 GPUs from <pci> class 0x03.... (the file has no <gpu> elements), numbered gpu0 to gpu7 "
      "in bus id order; their model from --gpu\n"
      "4 NICs from <pci> class 0x02.... (PCI id 0x1d0f:0xefa0; the file gives no <nic> speed or "
      "name), named nic<n> in bus id order: 100 Gb/s each, AWS EC2 instance pages: 100 Gb/s per "
      "EFA device 1d0f:efa0 (p4d.24xlarge and p4de.24xlarge: 400 Gbps on 4 devices)\n"
      "each GPU's 12 NVLink 3 links (from the GPU model) to one NVSwitch fabric node, nvswitch0 "
      "(--nvlink nvswitch; the file has no NVLinks, nor says how many NVSwitch chips there are)\n"
      "CPUs joined all to all by the vendor's socket link at its default figures (the XML has no "
      "socket links)\n"
      "link latencies are the per-kind defaults (docs/topology-format.md)");
}

TEST(NcclXmlRealFilesTest, AwsP4deImportsWithoutNvlinkWhenToldNone) {
  const NcclXmlImport imported = import_real(kP4de, "A100-SXM4-80GB", "none");
  const Topology t = parse_topology(imported.document, "p4de (imported)");
  expect_p4d_tree(t);
  EXPECT_EQ(t.count(NodeKind::nvswitch), 0u);
  for (const Link& l : t.links())
    EXPECT_NE(l.kind, LinkKind::nvlink);
  EXPECT_NE(joined(imported.assumed)
                .find("no NVLink between the GPUs (--nvlink none; the file has no NVLinks and the "
                      "GPU model has them)"),
            std::string::npos);
}

TEST(NcclXmlRealFilesTest, AwsP4dWithoutNvlinkOptionNamesWhatIsMissing) {
  EXPECT_EQ(import_error(kP4d, "A100-SXM4-40GB", ""),
            "real/nccl-xml/aws-ofi-nccl-p4d-24xl-topo.xml: the file gives its 8 GPUs as <pci> "
            "entries only (no <gpu> elements), so it does not say how the 12 NVLinks of each "
            "A100-SXM4-40GB are joined (NCCL reads them from the driver); say it with --nvlink "
            "nvswitch (every GPU's NVLinks to an NVSwitch fabric) or --nvlink none");
}

// g5.48xlarge's file: nine bare <pci busid> elements (lines 14-17 under NUMA 0, 19-23 under
// NUMA 1), no class on any: which are the 8 A10Gs and which the EFA NIC is the running machine's
// to say.
TEST(NcclXmlRealFilesTest, AwsG5FileSaysNoClassesAndIsRefused) {
  EXPECT_EQ(import_error(kG5, "A10G", ""),
            "real/nccl-xml/aws-ofi-nccl-g5.48xl-topo.xml: at line 14: <pci busid=\"0000:00:16.0\"> "
            "has no class (nor have 8 more <pci> elements): the file has no <gpu> elements and "
            "places these PCI devices without saying which are GPUs (class 0x03....), NICs "
            "(0x02....) or PCIe switches (0x060400); NCCL reads that from the machine it runs on. "
            "Add each one's class, as NCCL dumps it, to a copy of the file");
}

// p5.48xlarge's file: 8 bare switches (first at line 17), each with 4 bare devices: 40 <pci>
// without class.
TEST(NcclXmlRealFilesTest, AwsP5FileSaysNoClassesAndIsRefused) {
  EXPECT_EQ(import_error(kP5, "H100-SXM5-80GB", "nvswitch"),
            "real/nccl-xml/aws-ofi-nccl-p5.48xl-topo.xml: at line 17: <pci busid=\"0000:45:00.0\"> "
            "has no class (nor have 39 more <pci> elements): the file has no <gpu> elements and "
            "places these PCI devices without saying which are GPUs (class 0x03....), NICs "
            "(0x02....) or PCIe switches (0x060400); NCCL reads that from the machine it runs on. "
            "Add each one's class, as NCCL dumps it, to a copy of the file");
}

// A PCI-only file in the p4d layout, the NIC's PCI id and the GPU's class as given.
std::string pci_only_xml(const std::string& gpu_class, const std::string& nic_id) {
  return "<system version=\"1\">\n"
         "  <cpu numaid=\"0\" vendor=\"GenuineIntel\">\n"
         "    <pci busid=\"0000:01:00.0\" class=\"0x060400\" link_speed=\"16 GT/s\" "
         "link_width=\"16\">\n"
         "      <pci busid=\"0000:02:00.0\" class=\"" +
         gpu_class +
         "\" link_speed=\"16 GT/s\" link_width=\"16\"/>\n"
         "      <pci busid=\"0000:03:00.0\" class=\"0x020000\" " +
         nic_id +
         " link_speed=\"16 GT/s\" link_width=\"16\"/>\n"
         "    </pci>\n"
         "  </cpu>\n"
         "</system>\n";
}

std::string inline_error(const std::string& xml, const std::string& gpu_model,
                         const std::string& nvlink) {
  NcclXmlImportOptions options;
  options.gpu_model = gpu_model;
  options.nvlink = nvlink;
  options.source = "t.xml";
  return testing::thrown_message<InputError>([&] { import_nccl_xml(xml, options); });
}

TEST(NcclXmlRealFilesTest, APciOnlyNicOfUnknownSpeedIsRefused) {
  EXPECT_EQ(inline_error(pci_only_xml("0x030000", "vendor=\"0x15b3\" device=\"0x101b\""), "L4", ""),
            "t.xml: at line 5: <pci busid=\"0000:03:00.0\" class=\"0x020000\"> is a NIC whose "
            "speed the file does not give (NCCL takes it from its network plugin), and linksim "
            "knows no speed for its PCI id 0x15b3:0x101b. Give it as NCCL dumps it: <nic><net "
            "name=\"...\" speed=\"<Mb/s>\"/></nic> inside the <pci>");
}

TEST(NcclXmlRealFilesTest, APciOnlyGpuWithoutNvlinkNeedsNoOption) {
  const std::string efa = "vendor=\"0x1d0f\" device=\"0xefa0\"";
  // The L4 has no NVLink: nothing is missing, with class 0x030000 (VGA) as with 0x030200.
  EXPECT_EQ(inline_error(pci_only_xml("0x030000", efa), "L4", ""), "accepted");
  EXPECT_EQ(inline_error(pci_only_xml("0x030200", efa), "L4", "none"), "accepted");
  EXPECT_EQ(inline_error(pci_only_xml("0x030000", efa), "L4", "nvswitch"),
            "t.xml: --nvlink nvswitch: the GPU model L4 has no NVLink");
}

TEST(NcclXmlRealFilesTest, NvlinkOptionIsRefusedForAFileThatGivesItsGpus) {
  EXPECT_EQ(import_error("nccl/dgx1v-4gpu-topo.xml", "V100-SXM2-32GB", "nvswitch"),
            "nccl/dgx1v-4gpu-topo.xml: --nvlink nvswitch: the file gives its GPUs' NVLinks itself "
            "(<gpu> elements); --nvlink is for a PCI-only file");
  EXPECT_EQ(import_error("nccl/dgx1v-4gpu-topo.xml", "V100-SXM2-32GB", "all"),
            "--nvlink: \"all\": expected nvswitch or none");
}

}  // namespace
}  // namespace linksim::topo
