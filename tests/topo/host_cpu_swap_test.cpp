// replace_cpus: a cloud instance's own host under a reference baseboard. AWS's p5 is the case
// that needs it: dgx-h100.json's Xeons became two AMD EPYC 7R13.
#include "sim/topo/host_cpu_swap.hpp"

#include <gtest/gtest.h>

#include <string>

#include "sim/core/error.hpp"
#include "sim/topo/loader.hpp"
#include "sim/topo/machine_writer.hpp"
#include "tests/support/temp_files.hpp"
#include "tests/support/thrown_message.hpp"

namespace linksim::topo {
namespace {

using linksim::testing::TempDir;

std::string shipped(const std::string& name) {
  return shipped_topology_dir() + "/" + name + ".json";
}

// A file on `base` (a shipped machine) with `replace` as its replace_cpus.
std::string cpu_doc(const std::string& base, const Json& replace) {
  Json doc = {{"title", "rehosted"}, {"sources", {"test fixture"}}, {"base", shipped(base)}};
  doc["replace_cpus"] = replace;
  return doc.dump();
}

std::string load_error(const std::string& path) {
  return testing::thrown_message<InputError>([&] { load_topology(path); });
}

const Link& link_between(const Topology& t, const std::string& a, const std::string& b) {
  for (const Link& l : t.links()) {
    const std::string la = t.node(l.a).id;
    const std::string lb = t.node(l.b).id;
    if ((la == a && lb == b) || (la == b && lb == a)) return l;
  }
  throw std::logic_error("no link " + a + "-" + b);
}

TEST(HostCpuSwap, ShippedP5IsAnAmdHostWithPcie4RootPortsAndXgmi) {
  const Topology t = load_topology(shipped("aws-p5.48xlarge"));
  const auto cpus = t.nodes_of(NodeKind::cpu);
  ASSERT_EQ(cpus.size(), 2u);
  for (NodeId c : cpus) {
    EXPECT_EQ(t.node(c).cpu->vendor, "amd");
    EXPECT_EQ(t.node(c).model, "EPYC 7R13");
    // 8 channels x DDR4-3200 (3.2 GT/s x 8 B) = 204.8 GB/s.
    EXPECT_DOUBLE_EQ(t.node(c).cpu->memory_bandwidth_Bps, 204.8e9);
  }
  EXPECT_EQ(t.node(cpus[1]).cpu->cores, "48-95,144-191");
  // Root port: PCIe 4.0 x16 = 16 lanes x 2 GB/s = 32 GB/s (the base's 5.0 gave 64).
  const Link& root = link_between(t, "pcisw0", "cpu0");
  EXPECT_EQ(root.generation, 4);
  EXPECT_DOUBLE_EQ(root.bandwidth_Bps, 32e9);
  // The storage NICs' x8 root links: 8 x 2 GB/s = 16 GB/s.
  EXPECT_DOUBLE_EQ(link_between(t, "snic0", "cpu0").bandwidth_Bps, 16e9);
  // Below the switch the GPUs keep PCIe 5.0 x16 = 16 x 4 GB/s = 64 GB/s.
  EXPECT_DOUBLE_EQ(link_between(t, "gpu0", "pcisw0").bandwidth_Bps, 64e9);
  // Sockets: 4 xGMI-2 links x 36 GB/s = 144 GB/s (the base's UPI 2.0 x4 gave 128).
  const Link& socket = link_between(t, "cpu0", "cpu1");
  EXPECT_EQ(socket.kind, LinkKind::xgmi);
  EXPECT_DOUBLE_EQ(socket.bandwidth_Bps, 144e9);
  // The base itself is untouched.
  const Topology dgx = load_topology(shipped("dgx-h100"));
  EXPECT_EQ(dgx.node(dgx.nodes_of(NodeKind::cpu)[0]).cpu->vendor, "intel");
}

// What `linksim fit` calibrates (the file flattened) is the machine the loader gives.
TEST(HostCpuSwap, FlattenedP5LoadsToTheSameCpusAndLinks) {
  const std::string path = shipped("aws-p5.48xlarge");
  const Topology based = load_topology(path);
  const Topology flat =
      parse_topology(self_contained_machine_document(read_json_file(path), path), path);
  ASSERT_EQ(flat.nodes().size(), based.nodes().size());
  ASSERT_EQ(flat.links().size(), based.links().size());
  for (NodeId c : based.nodes_of(NodeKind::cpu)) {
    EXPECT_EQ(flat.node(c).cpu->vendor, based.node(c).cpu->vendor);
    EXPECT_EQ(flat.node(c).model, based.node(c).model);
    EXPECT_EQ(flat.node(c).cpu->cores, based.node(c).cpu->cores);
    EXPECT_EQ(flat.node(c).cpu->memory_bandwidth_Bps, based.node(c).cpu->memory_bandwidth_Bps);
  }
  for (LinkId id = 0; id < based.links().size(); ++id) {
    EXPECT_EQ(flat.link(id).kind, based.link(id).kind) << id;
    EXPECT_EQ(flat.link(id).generation, based.link(id).generation) << id;
    EXPECT_EQ(flat.link(id).bandwidth_Bps, based.link(id).bandwidth_Bps) << id;
    EXPECT_EQ(flat.link(id).latency_s, based.link(id).latency_s) << id;
  }
}

TEST(HostCpuSwap, WithoutMemoryBandwidthOrCoresTheBasesFiguresAreDropped) {
  TempDir dir;
  const Topology t = load_topology(dir.write(
      "a.json", cpu_doc("dgx-h100", {{"vendor", "intel"}, {"model", "Xeon Platinum 8468"}})));
  const NodeId c = t.nodes_of(NodeKind::cpu)[0];
  EXPECT_EQ(t.node(c).model, "Xeon Platinum 8468");
  EXPECT_EQ(t.node(c).cpu->memory_bandwidth_Bps, 0.0);
  EXPECT_EQ(t.node(c).cpu->cores, "");
  // Intel over Intel: the UPI stays (UPI 2.0 x4 = 4 x 32 GB/s = 128 GB/s).
  EXPECT_DOUBLE_EQ(link_between(t, "cpu0", "cpu1").bandwidth_Bps, 128e9);
}

TEST(HostCpuSwap, BadReplacementsAreRefusedAtTheirField) {
  TempDir dir;
  struct Case {
    Json replace;
    std::string expected;
  };
  const std::vector<Case> cases{
      {{{"vendor", "amd"}, {"model", "EPYC 9654"}},
       "at /replace_cpus/vendor: the base joins its sockets by cpu0-cpu1 (UPI x4), which AMD "
       "CPUs do not have; expected \"socket_link\" to say what joins them"},
      {{{"vendor", "amd"}, {"model", "EPYC 9654"}, {"socket_link", {{"kind", "nvlink"}}}},
       "at /replace_cpus/socket_link/kind: \"nvlink\" is not a socket link; expected upi, qpi or "
       "xgmi"},
      {{{"vendor", "amd"},
        {"model", "EPYC 9654"},
        {"socket_link", {{"kind", "xgmi"}, {"generation", 5}}}},
       "at /replace_cpus/socket_link/generation: xGMI generation 5 is not known; expected 2 or 3"},
      {{{"vendor", "intel"}, {"model", "X"}, {"pcie_generation", 9}},
       "at /replace_cpus/pcie_generation: PCIe generation 9 is not known; expected 1 to 6"},
      {{{"vendor", "intel"}, {"model", "X"}, {"cores", {"0-3"}}},
       "at /replace_cpus/cores: expected 2 entries, one per CPU node of the base, got 1"},
      {{{"vendor", "arm"}, {"model", "X"}},
       "at /replace_cpus/vendor: unknown CPU vendor \"arm\"; expected one of intel, amd, nvidia, "
       "ibm, other"},
      {{{"vendor", "intel"}, {"model", "X"}, {"sockets", 2}},
       "at /replace_cpus/sockets: unknown field \"sockets\"; expected one of: vendor, model, "
       "memory_bandwidth, cores, pcie_generation, socket_link"},
  };
  for (const Case& c : cases) {
    const std::string path = dir.write("bad.json", cpu_doc("dgx-h100", c.replace));
    const std::string error = load_error(path);
    EXPECT_NE(error.find(c.expected), std::string::npos) << error;
    EXPECT_EQ(error.rfind(path, 0), 0u) << error;
  }
}

// dgx-b200.json states its UPI's bandwidth: a socket link of another kind cannot inherit it.
TEST(HostCpuSwap, ASocketLinkWithItsOwnFiguresIsNotReplaced) {
  TempDir dir;
  const std::string path = dir.write(
      "b.json", cpu_doc("dgx-b200", {{"vendor", "amd"},
                                     {"model", "EPYC 9654"},
                                     {"socket_link", {{"kind", "xgmi"}, {"generation", 3}}}}));
  EXPECT_EQ(load_error(path),
            path +
                ": at /replace_cpus/socket_link: the base's cpu0-cpu1 (UPI x4) has its own "
                "figures (160 GB/s), which another socket link cannot inherit; expected a base "
                "whose socket links carry their kind's defaults, or a machine file with its own "
                "links");
}

TEST(HostCpuSwap, OnlyBesideABase) {
  TempDir dir;
  Json doc = Json::parse(R"({"title": "t", "sources": ["s"],
      "nodes": [{"id": "gpu0", "kind": "gpu", "model": "H100-SXM5-80GB"},
                {"id": "cpu0", "kind": "cpu", "vendor": "intel"}],
      "links": [{"a": "gpu0", "b": "cpu0", "kind": "pcie", "generation": 5}],
      "replace_cpus": {"vendor": "amd", "model": "EPYC"}})");
  const std::string path = dir.write("own.json", doc.dump());
  EXPECT_EQ(load_error(path),
            path +
                ": at /replace_cpus: replaces parts of a base machine; expected \"base\" "
                "beside it");
}

}  // namespace
}  // namespace linksim::topo
