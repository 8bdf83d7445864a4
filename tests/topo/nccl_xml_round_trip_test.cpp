// NCCL topology XML round trip (issue 37: "export keeps CPU model, vendor, NIC class, bus IDs
// and GUIDs; the round trip is lossless"): every NCCL topology file under tests/data (NCCL's
// own dumps and the real files of tests/data/real/nccl-xml), imported and exported back, gives
// the file's elements again, each with the attributes NCCL reads as the file states them. Where
// the import cannot represent a fact (NVLinks to GPUs outside the file, devices that are no
// GPU, NIC or bridge, a missing link speed), its assumptions list must say so; a file it cannot
// read at all must be refused, naming what is missing.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
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

// An element of NCCL's XML, read by a scanner as small as NCCL's own (xml.cc): tags with
// double-quoted attributes, comments and declarations skipped. tinyxml2 stays inside sim/topo.
struct XmlElement {
  std::string name;
  std::map<std::string, std::string> attrs;
  std::vector<std::unique_ptr<XmlElement>> subs;
};

std::unique_ptr<XmlElement> parse_xml(const std::string& text) {
  static const std::regex tag(
      R"re(<(/?)([A-Za-z_][A-Za-z0-9_]*)((?:\s+[A-Za-z_]+\s*=\s*"[^"]*")*)\s*(/?)>)re");
  static const std::regex attribute(R"re(([A-Za-z_]+)\s*=\s*"([^"]*)")re");
  auto root = std::make_unique<XmlElement>();
  std::vector<XmlElement*> open{root.get()};
  std::size_t at = 0;
  while ((at = text.find('<', at)) != std::string::npos) {
    if (text.compare(at, 4, "<!--") == 0) {
      at = text.find("-->", at);
      continue;
    }
    if (text.compare(at, 2, "<?") == 0) {
      at = text.find("?>", at);
      continue;
    }
    std::smatch m;
    const std::string rest = text.substr(at, text.find('>', at) - at + 1);
    if (!std::regex_match(rest, m, tag)) {
      ADD_FAILURE() << "unreadable tag: " << rest;
      return root;
    }
    at += rest.size();
    if (m[1] == "/") {
      open.pop_back();
      continue;
    }
    auto e = std::make_unique<XmlElement>();
    e->name = m[2];
    const std::string attrs = m[3];
    for (auto it = std::sregex_iterator(attrs.begin(), attrs.end(), attribute);
         it != std::sregex_iterator(); ++it)
      e->attrs[(*it)[1]] = (*it)[2];
    XmlElement* raw = e.get();
    open.back()->subs.push_back(std::move(e));
    if (m[4] != "/") open.push_back(raw);
  }
  return root;
}

// The attributes NCCL reads (xml.cc, topo.cc), per element.
const std::map<std::string, std::vector<std::string>>& nccl_attributes() {
  static const std::map<std::string, std::vector<std::string>> attributes{
      {"cpu", {"numaid", "affinity", "arch", "vendor", "familyid", "modelid"}},
      {"pci",
       {"busid", "class", "vendor", "device", "subsystem_vendor", "subsystem_device", "link_speed",
        "link_width"}},
      {"gpu", {"dev", "sm", "rank", "gdr"}},
      {"net", {"name", "dev", "guid", "speed", "port", "gdr", "maxconn", "latency"}},
      {"nvlink", {"target", "count", "tclass"}},
  };
  return attributes;
}

// One element as NCCL reads it: the attributes it states of those NCCL reads, and where it is
// (its parent's key). Keyed by what identifies it: a CPU by NUMA node, a <pci> by bus id, a
// <gpu> by its <pci>, a <net> by name and device number, an <nvlink> by its GPU and target.
struct Entry {
  std::string element;
  std::string parent;
  std::map<std::string, std::string> attrs;
};
using Entries = std::map<std::string, Entry>;

void collect(const XmlElement& e, const std::string& parent, Entries& out) {
  std::string key;
  const auto& a = e.attrs;
  const auto get = [&](const char* k) { return a.count(k) ? a.at(k) : std::string(); };
  if (e.name == "cpu") key = "cpu numaid=" + get("numaid");
  if (e.name == "pci") key = "pci " + get("busid");
  if (e.name == "gpu") key = "gpu in " + parent;
  if (e.name == "net") key = fmt::format("net {} dev {}", get("name"), get("dev"));
  if (e.name == "nvlink") key = fmt::format("nvlink {} -> {}", parent, get("target"));
  if (!key.empty()) {
    Entry entry{e.name, parent, {}};
    for (const auto& name : nccl_attributes().at(e.name)) {
      if (a.count(name)) entry.attrs[name] = a.at(name);
    }
    EXPECT_TRUE(out.emplace(key, entry).second) << "two elements are " << key;
  }
  // A <nic> is only a wrapper: its <net> belongs to the <pci> around it.
  const std::string below = key.empty() ? parent : key;
  for (const auto& s : e.subs)
    collect(*s, below, out);
}

Entries entries_of(const std::string& xml) {
  Entries out;
  collect(*parse_xml(xml), "", out);
  return out;
}

// A cpumap's CPUs ("0000ffff,00000000": 32-47): words of 32, most significant first.
std::set<int> cpus_of_mask(const std::string& mask) {
  std::vector<std::uint32_t> words;
  std::stringstream in(mask);
  for (std::string word; std::getline(in, word, ',');)
    words.push_back(static_cast<std::uint32_t>(std::stoul(word, nullptr, 16)));
  std::set<int> cpus;
  for (std::size_t w = 0; w < words.size(); ++w) {
    for (int b = 0; b < 32; ++b) {
      if ((words[words.size() - 1 - w] >> b) & 1u) cpus.insert(static_cast<int>(w) * 32 + b);
    }
  }
  return cpus;
}

// NCCL reads link_speed by its GT/s figure ("8 GT/s" and "8.0 GT/s PCIe" are one speed:
// topo.cc kvDictPciGen), latency as a float, and affinity as a CPU set (a lone NUMA node's map
// comes back without sysfs's leading zero words: the machine file holds the CPUs, not the
// width of the machine's cpumaps).
bool same_value(const std::string& attribute, const std::string& want, const std::string& got) {
  if (attribute == "affinity") return cpus_of_mask(want) == cpus_of_mask(got);
  if (attribute == "link_speed" || attribute == "latency") {
    try {
      return std::stod(want) == std::stod(got);
    } catch (const std::exception&) {
      return false;
    }
  }
  return want == got;
}

struct Case {
  std::string gpu_model;
  std::string nvlink;        // for a PCI-only file
  std::string refused;       // non-empty: the import refuses the file with a message containing it
  std::size_t elements = 0;  // <cpu>, <pci>, <gpu>, <net> and <nvlink> elements, counted by hand
};

// Every NCCL topology file of the corpus, with the GPU model it holds (the XML names only the
// SM version). A file not listed here fails the test: each new capture must join the round trip.
const std::map<std::string, Case>& corpus() {
  static const std::map<std::string, Case> cases{
      // 1 CPU, 2 switches, 4 GPUs (<pci> and <gpu>), 4 NVLink entries each.
      {"nccl/dgx1v-4gpu-topo.xml", {"V100-SXM2-32GB", "", "", 1 + 2 + 4 * 2 + 16}},
      // 2 CPUs, 4 switches, 8 GPUs and 4 NICs, all <pci>.
      {"real/nccl-xml/aws-ofi-nccl-p4d-24xl-topo.xml", {"A100-SXM4-40GB", "nvswitch", "", 18}},
      {"real/nccl-xml/aws-ofi-nccl-p4de-24xl-topo.xml", {"A100-SXM4-80GB", "nvswitch", "", 18}},
      // Neither names any device's class: which <pci> is a GPU is the running machine's to say.
      {"real/nccl-xml/aws-ofi-nccl-g5.48xl-topo.xml", {"A10G", "", "has no class"}},
      {"real/nccl-xml/aws-ofi-nccl-p5.48xl-topo.xml",
       {"H100-SXM5-80GB", "nvswitch", "has no class"}},
      // A full dump, its model from its GPUs' PCI id (no --gpu): 2 CPUs, 20 switches, 8 GPUs
      // and 5 NICs as <pci>, 8 <gpu> with 6 <nvlink> each, 5 <net>: 2 + 33 + 8 + 48 + 5.
      {"real/nccl-xml/simai-topo-8a100-4cx6.xml", {"", "", "", 2 + 33 + 8 + 48 + 5}},
      // Microsoft's and Oracle's PCI-only files name their NICs by class alone, with no PCI id
      // or speed (NCCL reads the speed from its network plugin on the running machine).
      {"real/nccl-xml/azhpc-images-ndv4-topo.xml",
       {"A100-SXM4-40GB", "nvswitch", "is a NIC whose speed the file does not give"}},
      {"real/nccl-xml/azhpc-images-ndv5-topo.xml",
       {"H100-SXM5-80GB", "nvswitch", "is a NIC whose speed the file does not give"}},
      {"real/nccl-xml/azhpc-images-ndv2-topo.xml",
       {"V100-SXM2-32GB", "none", "is a NIC whose speed the file does not give"}},
      {"real/nccl-xml/oci-hpc-topo-flattened.xml",
       {"A100-SXM4-40GB", "nvswitch", "is a NIC whose speed the file does not give"}},
      {"real/nccl-xml/oci-hpc-topo-flattened-b4.xml",
       {"A100-SXM4-80GB", "nvswitch", "is a NIC whose speed the file does not give"}},
      // NC A100 v4's dump: each GPU's <nvlink> targets the GPU itself.
      {"real/nccl-xml/azhpc-images-ncv4-topo.xml",
       {"", "", "an nvlink whose target is its own GPU"}},
      // Full dumps, their models from their GPUs' PCI ids, counted with grep: OCI's H100.8, 2
      // CPUs, 40 <pci>, 8 <gpu>, 16 <net>, 32 <nvlink> (4 per GPU, one per NVSwitch), both as
      // dumped on the host and inside a container.
      {"real/nccl-xml/oci-hpc-H100-topology.xml", {"", "", "", 2 + 40 + 8 + 16 + 32}},
      {"real/nccl-xml/oci-hpc-H100-topology-kubernetes.xml", {"", "", "", 2 + 40 + 8 + 16 + 32}},
      // 8x B200 (10de:2901 is not in pci.ids 2026.08.22, so the model is given): 2 CPUs,
      // 11 <pci>, 8 <gpu>, 13 <net>, 8 <nvlink>.
      {"real/nccl-xml/modal-gvisor-nccl-topo-b200.xml", {"B200", "", "", 2 + 11 + 8 + 13 + 8}},
      // 8x RTX 3090: 2 CPUs, 11 <pci>, 8 <gpu>, 1 <net>; 2x RTX 4090: 2 CPUs, 3 <pci>, 2 <gpu>,
      // 2 <net>.
      {"real/nccl-xml/panlichen-nccl-tests-topo.xml", {"", "", "", 2 + 11 + 8 + 1}},
      {"real/nccl-xml/rwkvinllama-topo.xml", {"", "", "", 2 + 3 + 2 + 2}},
  };
  return cases;
}

// tests/data's NCCL topology files (root <system>), relative to tests/data.
std::vector<std::string> topology_files() {
  namespace fs = std::filesystem;
  const fs::path data = source_dir() + "/tests/data";
  std::vector<std::string> out;
  for (const auto& f : fs::recursive_directory_iterator(data)) {
    if (f.path().extension() != ".xml") continue;
    const auto root = parse_xml(read_file(f.path().string()));
    if (root->subs.empty() || root->subs.front()->name != "system") continue;
    out.push_back(fs::relative(f.path(), data).generic_string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool says(const std::vector<std::string>& assumed, const std::string& text) {
  return std::any_of(assumed.begin(), assumed.end(),
                     [&](const std::string& a) { return a.find(text) != std::string::npos; });
}

// Why an element of `file` may be missing from the export: the assumption that says so, or "".
std::string reported_loss(const Entry& e, const std::vector<std::string>& assumed,
                          const Entries& original) {
  if (e.element == "nvlink" && !original.count("pci " + e.attrs.at("target")) &&
      says(assumed, "NVLink entries to GPUs that are not in the file are left out")) {
    return "outside GPU";
  }
  if (e.element == "pci" && says(assumed, "PCI devices that are no GPU, NIC or bridge")) {
    const std::string cls = e.attrs.count("class") ? e.attrs.at("class") : "";
    if (cls.rfind("0x03", 0) != 0 && cls.rfind("0x02", 0) != 0 && cls.rfind("0x0604", 0) != 0) {
      return "other device";
    }
  }
  return "";
}

// The differences between `file` and its export, one line each.
std::vector<std::string> round_trip_differences(const std::string& file, const Case& c,
                                                std::vector<std::string>& assumed) {
  NcclXmlImportOptions options;
  options.gpu_model = c.gpu_model;
  options.nvlink = c.nvlink;
  options.source = file;
  const std::string text = read_file(source_dir() + "/tests/data/" + file);
  const NcclXmlImport imported = import_nccl_xml(text, options);
  assumed = imported.assumed;
  // Through the machine file, as `topo import -o machine.json` then `topo export` go.
  const Json document = Json::parse(imported.document.dump(2));
  const std::string exported = to_nccl_xml(parse_topology(document, file + " (imported)"));
  const Entries want = entries_of(text);
  const Entries got = entries_of(exported);
  EXPECT_EQ(want.size(), c.elements) << "the scanner did not read the file as counted";
  const bool pci_only = std::none_of(want.begin(), want.end(),
                                     [](const auto& kv) { return kv.second.element == "gpu"; });
  std::vector<std::string> diffs;
  for (const auto& [key, w] : want) {
    const auto g = got.find(key);
    if (g == got.end()) {
      if (reported_loss(w, assumed, want).empty()) diffs.push_back(key + ": missing");
      continue;
    }
    if (g->second.parent != w.parent) {
      diffs.push_back(fmt::format("{}: under {}, was under {}", key, g->second.parent, w.parent));
    }
    for (const auto& [attribute, value] : w.attrs) {
      const auto v = g->second.attrs.find(attribute);
      if (attribute == "link_speed" && value.empty() &&
          says(assumed, "where the XML gives no link_speed")) {
        continue;  // NCCL's own "" (virtual machines): said to be the GPU model's generation
      }
      if (attribute == "link_width" && value == "0" && says(assumed, "link_width=\"0\"")) {
        continue;  // NCCL's own 0 (virtual machines): said to be read as x16, as NCCL reads it
      }
      if (v == g->second.attrs.end()) {
        diffs.push_back(fmt::format("{}: {} missing (was \"{}\")", key, attribute, value));
      } else if (!same_value(attribute, value, v->second)) {
        diffs.push_back(fmt::format("{}: {}=\"{}\", was \"{}\"", key, attribute, v->second, value));
      }
    }
  }
  // A dump comes back with nothing added. A PCI-only file gains what NCCL would add from the
  // running machine, as the assumptions say: <gpu>, <net> and <nvlink> elements.
  for (const auto& [key, g] : got) {
    if (want.count(key)) continue;
    const bool filled = g.element == "gpu" || g.element == "net" || g.element == "nvlink";
    if (!(pci_only && filled)) diffs.push_back(key + ": added");
  }
  return diffs;
}

TEST(NcclXmlRoundTripTest, EveryCorpusFileRoundTripsOrTheImportSaysWhy) {
  const auto files = topology_files();
  ASSERT_GE(files.size(), 16u);
  for (const auto& file : files) {
    SCOPED_TRACE(file);
    const auto c = corpus().find(file);
    if (c == corpus().end()) {
      ADD_FAILURE() << file << " is an NCCL topology file the round trip does not know: add it "
                    << "to corpus() with its GPU model";
      continue;
    }
    if (!c->second.refused.empty()) {
      const std::string error = testing::thrown_message<InputError>([&] {
        std::vector<std::string> assumed;
        round_trip_differences(file, c->second, assumed);
      });
      EXPECT_NE(error.find(c->second.refused), std::string::npos) << error;
      continue;
    }
    std::vector<std::string> assumed;
    const auto diffs = round_trip_differences(file, c->second, assumed);
    EXPECT_TRUE(diffs.empty()) << fmt::format("{}", fmt::join(diffs, "\n"));
  }
}

// What each round trip keeps, read by hand off the files: p4d's CPUs are Intel family 6 model
// 85 (Skylake-SP) with 3-word cpumaps, its switches "ffff:ff:01.0" (made up by AWS), its NICs
// Ethernet-class EFA devices (0x020000, not the 0x020700 of InfiniBand); the DGX-1V dump's CPU is
// model 79 (Broadwell) and its GPUs 10de:1db1.
TEST(NcclXmlRoundTripTest, TheCorpusFilesKeepCpuModelNicClassAndBusIds) {
  const auto export_of = [](const std::string& file, const Case& c) {
    NcclXmlImportOptions options;
    options.gpu_model = c.gpu_model;
    options.nvlink = c.nvlink;
    options.source = file;
    const auto imported = import_nccl_xml(read_file(source_dir() + "/tests/data/" + file), options);
    return to_nccl_xml(parse_topology(imported.document, file));
  };
  const std::string p4d = export_of("real/nccl-xml/aws-ofi-nccl-p4d-24xl-topo.xml",
                                    corpus().at("real/nccl-xml/aws-ofi-nccl-p4d-24xl-topo.xml"));
  EXPECT_NE(p4d.find("<cpu numaid=\"1\" affinity=\"ffffff00,0000ffff,ff000000\" arch=\"x86_64\" "
                     "vendor=\"GenuineIntel\" familyid=\"6\" modelid=\"85\">"),
            std::string::npos)
      << p4d;
  EXPECT_NE(p4d.find("<pci busid=\"ffff:ff:01.0\" class=\"0x060400\" vendor=\"0xffff\""),
            std::string::npos);
  EXPECT_NE(p4d.find("<pci busid=\"0000:10:1b.0\" class=\"0x020000\" vendor=\"0x1d0f\" "
                     "device=\"0xefa0\" subsystem_vendor=\"0x1d0f\" subsystem_device=\"0xefa0\" "
                     "link_speed=\"8.0 GT/s PCIe\" link_width=\"16\">"),
            std::string::npos);
  const std::string dgx1v =
      export_of("nccl/dgx1v-4gpu-topo.xml", corpus().at("nccl/dgx1v-4gpu-topo.xml"));
  EXPECT_NE(dgx1v.find("familyid=\"6\" modelid=\"79\""), std::string::npos);
  EXPECT_NE(dgx1v.find("<pci busid=\"0000:0b:00.0\" class=\"0x030200\" vendor=\"0x10de\" "
                       "device=\"0x1db1\""),
            std::string::npos);
}

// A Sapphire Rapids node's dump (Intel family 6 model 143), an InfiniBand NIC (class 0x020700)
// with two ports sharing one GUID prefix, and NCCL attributes other than linksim's defaults
// (gdr 0, rank 8, maxconn 65536, a latency): each comes back as stated, the two ports in one
// <pci><nic>, where a plain export would write model 85, class 0x020700 for every NIC, bus ids
// 0000:01:00.0 onwards and GUIDs 0x1, 0x2.
TEST(NcclXmlRoundTripTest, ADumpKeepsWhatItStates) {
  const std::string xml =
      "<system version=\"1\">\n"
      "  <cpu numaid=\"0\" affinity=\"0000ffff\" arch=\"x86_64\" vendor=\"GenuineIntel\" "
      "familyid=\"6\" modelid=\"143\">\n"
      "    <pci busid=\"0000:1a:00.0\" class=\"0x060400\" vendor=\"0x1000\" device=\"0xc030\" "
      "subsystem_vendor=\"0x1000\" subsystem_device=\"0x100b\" link_speed=\"32.0 GT/s PCIe\" "
      "link_width=\"16\">\n"
      "      <pci busid=\"0000:1b:00.0\" class=\"0x030200\" vendor=\"0x10de\" device=\"0x2330\" "
      "subsystem_vendor=\"0x10de\" subsystem_device=\"0x16c1\" link_speed=\"32.0 GT/s PCIe\" "
      "link_width=\"16\">\n"
      "        <gpu dev=\"0\" sm=\"90\" rank=\"8\" gdr=\"0\"/>\n"
      "      </pci>\n"
      "      <pci busid=\"0000:1c:00.0\" class=\"0x020700\" vendor=\"0x15b3\" device=\"0x1021\" "
      "subsystem_vendor=\"0x15b3\" subsystem_device=\"0x0041\" link_speed=\"32.0 GT/s PCIe\" "
      "link_width=\"16\">\n"
      "        <nic>\n"
      "          <net name=\"mlx5_0\" dev=\"0\" speed=\"400000\" port=\"1\" latency=\"1.500000\" "
      "guid=\"0xa088c20300f1e2d4\" maxconn=\"65536\" gdr=\"1\"/>\n"
      "          <net name=\"mlx5_1\" dev=\"1\" speed=\"400000\" port=\"2\" latency=\"0.000000\" "
      "guid=\"0xa088c20300f1e2d5\" maxconn=\"65536\" gdr=\"1\"/>\n"
      "        </nic>\n"
      "      </pci>\n"
      "    </pci>\n"
      "  </cpu>\n"
      "</system>\n";
  NcclXmlImportOptions options;
  options.gpu_model = "H100-SXM5-80GB";
  options.source = "spr.xml";
  const NcclXmlImport imported = import_nccl_xml(xml, options);
  const std::string exported = to_nccl_xml(parse_topology(imported.document, "spr.json"));
  EXPECT_EQ(exported, xml);
  // The machine file holds them in its own fields.
  const Json& cpu = imported.document["nodes"][1];
  EXPECT_EQ(cpu["cpuid"].dump(),
            R"({"arch":"x86_64","vendor":"GenuineIntel","family":6,"model":143})");
  EXPECT_EQ(imported.document["nodes"][0]["nccl"].dump(), R"({"dev":0,"rank":8,"gdr":0})");
}

// nvidia-smi's NODE (two host bridges of one CPU) has no level in NCCL's XML. A made-up bus id
// carries it as the PCI domain (one root complex each), which the import reads back: dgx-a100's
// GPU pairs across host bridges stay NODE, not PHB.
TEST(NcclXmlRoundTripTest, HostBridgesSurviveAsPciDomains) {
  const Topology original = load_topology("dgx-a100");
  NcclXmlImportOptions options;
  options.gpu_model = original.node(original.nodes_of(NodeKind::gpu).front()).model;
  options.source = "dgx-a100.xml";
  const NcclXmlImport imported = import_nccl_xml(to_nccl_xml(original), options);
  const Topology back = parse_topology(imported.document, "dgx-a100 (imported)");
  // Each GPU and NIC: its CPU, and which of its CPU's host bridges it shares with whom, as the
  // set of devices entering by the same one.
  const auto bridges = [](const Topology& t) {
    std::map<std::pair<std::string, int>, std::set<std::string>> by_bridge;
    std::map<NodeId, std::pair<std::string, int>> top;  // device below a CPU -> cpu, bridge
    for (const Link& l : t.links()) {
      if (l.kind != LinkKind::pcie) continue;
      const bool a_cpu = t.node(l.a).kind == NodeKind::cpu;
      const bool b_cpu = t.node(l.b).kind == NodeKind::cpu;
      if (a_cpu != b_cpu) top[a_cpu ? l.b : l.a] = {t.node(a_cpu ? l.a : l.b).id, l.host_bridge};
    }
    // Devices below a switch enter by their switch's bridge.
    for (bool changed = true; changed;) {
      changed = false;
      for (const Link& l : t.links()) {
        if (l.kind != LinkKind::pcie) continue;
        for (auto [up, down] : {std::pair{l.a, l.b}, std::pair{l.b, l.a}}) {
          if (top.count(up) && !top.count(down) && t.node(down).kind != NodeKind::cpu &&
              t.node(up).kind == NodeKind::pcie_switch) {
            top[down] = top[up];
            changed = true;
          }
        }
      }
    }
    std::set<std::set<std::string>> groups;
    for (const auto& [node, where] : top) {
      const Node& n = t.node(node);
      if (n.kind == NodeKind::gpu || n.kind == NodeKind::nic) by_bridge[where].insert(n.id);
    }
    for (const auto& [where, members] : by_bridge)
      groups.insert(members);
    return groups;
  };
  const auto want = bridges(original);
  EXPECT_GT(want.size(), 2u);  // dgx-a100 has several host bridges per socket
  EXPECT_EQ(bridges(back), want);
}

}  // namespace
}  // namespace linksim::topo
