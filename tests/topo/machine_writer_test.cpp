// The machine writer: what it writes loads back as the machine it describes, in the format's
// fixed key order (docs/topology-format.md).
#include "sim/topo/machine_writer.hpp"

#include <gtest/gtest.h>

#include "sim/core/error.hpp"
#include "sim/topo/loader.hpp"
#include "tests/support/temp_files.hpp"

namespace linksim::topo {
namespace {

// Two A100s on one Intel socket: gpu0 on PCIe 4.0 x16, gpu1 on PCIe 3.0 x8, and a 4-link
// NVLink 3 bridge between them whose bandwidth a calibration set to 90 GB/s; NCCL scales and a
// host launch cost as linksim fit writes them.
MachineDocument two_gpus() {
  MachineDocument m;
  m.schema = "./schema.json";
  m.title = "two GPUs";
  m.sources = {"hand-built test fixture"};
  NodeEntry cpu = node_entry("cpu0", "cpu");
  cpu.vendor = "intel";
  cpu.socket = 0;
  cpu.numa_node = 0;
  m.nodes.push_back(cpu);
  for (const char* id : {"gpu0", "gpu1"}) {
    m.nodes.push_back(node_entry(id, "gpu"));
    m.nodes.back().model = "A100-SXM4-80GB";
  }
  m.links.push_back(pcie_link_entry("gpu0", "cpu0", 4, 16));
  m.links.push_back(pcie_link_entry("gpu1", "cpu0", 3, 8));
  LinkEntry bridge = nvlink_link_entry("gpu0", "gpu1", 3, 4);
  bridge.figures.bandwidth_Bps = 90e9;
  bridge.figures.basis = "effective";
  bridge.figures.source = "test";
  m.links.push_back(bridge);
  CollectiveCalibration c;
  c.all.latency = 2.5;
  c.all.bandwidth = 0.75;
  c.by_op[CollectiveOp::all_reduce].latency = 1.5;
  c.by_op[CollectiveOp::all_reduce].bandwidth = 0.5;
  c.by_op[CollectiveOp::all_reduce].bandwidth_range = Range{0.25, 0.625};
  c.source = "test fit";
  m.collective = c;
  HostLaunch h;
  h.per_gpu_s = 4e-6;
  h.source = "test fit";
  m.host_launch = h;
  return m;
}

void expect_two_gpus(const Topology& t) {
  EXPECT_EQ(t.count(NodeKind::gpu), 2u);
  EXPECT_EQ(t.count(NodeKind::cpu), 1u);
  ASSERT_EQ(t.links().size(), 3u);
  // PCIe 4.0: 2 GB/s per lane per direction x 16 lanes = 32 GB/s.
  EXPECT_EQ(t.link(0).bandwidth_Bps, 32e9);
  // PCIe 3.0: 1 GB/s per lane x 8 lanes = 8 GB/s.
  EXPECT_EQ(t.link(1).bandwidth_Bps, 8e9);
  // NVLink 3 would be 25 GB/s x 4 = 100 GB/s; the written "90 GB/s" overrides it.
  EXPECT_EQ(t.link(2).bandwidth_Bps, 90e9);
  EXPECT_EQ(t.link(2).lanes, 4);
  // The scales are binary fractions (2.5, 0.75, 1.5, 0.5, 0.25, 0.625): they print and read
  // back exactly.
  EXPECT_EQ(t.collective.all.latency, 2.5);
  EXPECT_EQ(t.collective.all.bandwidth, 0.75);
  EXPECT_EQ(t.collective.for_op(CollectiveOp::all_reduce).latency, 1.5);
  EXPECT_EQ(t.collective.for_op(CollectiveOp::all_reduce).bandwidth, 0.5);
  ASSERT_TRUE(t.collective.for_op(CollectiveOp::all_reduce).bandwidth_range.has_value());
  EXPECT_EQ(t.collective.for_op(CollectiveOp::all_reduce).bandwidth_range->lo, 0.25);
  EXPECT_EQ(t.collective.for_op(CollectiveOp::all_reduce).bandwidth_range->hi, 0.625);
  // An operation without its own scales falls back to the all-operations ones.
  EXPECT_EQ(t.collective.for_op(CollectiveOp::broadcast).latency, 2.5);
  EXPECT_EQ(t.collective.source, "test fit");
  // "4 us" reads back as 4e-6 s.
  EXPECT_DOUBLE_EQ(t.host_launch.per_gpu_s, 4e-6);
}

TEST(MachineWriter, TwoGpusLoadBackFromTheDocument) {
  expect_two_gpus(parse_topology(write_machine_document(two_gpus()), "two.json"));
}

TEST(MachineWriter, TwoGpusLoadBackFromAFile) {
  const linksim::testing::TempDir dir;
  const std::string path = dir.write("two.json", write_machine_document(two_gpus()).dump(2));
  const Topology t = load_topology(path);
  EXPECT_EQ(t.title, "two GPUs");
  expect_two_gpus(t);
}

// A tiny machine, its text worked out by hand from docs/topology-format.md and the writer's key
// order: a counted gpu node, a cpu, one "for" link with a host bridge and a fitted latency
// (1.5e-6 s is "1.5 us"), and a host launch cost with its range.
TEST(MachineWriter, TinyMachineText) {
  MachineDocument m;
  m.title = "tiny";
  m.notes = {"n"};
  NodeEntry gpus = node_entry("gpu", "gpu");
  gpus.count = 2;
  gpus.model = "RTX-4090";
  m.nodes.push_back(gpus);
  NodeEntry cpu = node_entry("cpu0", "cpu");
  cpu.vendor = "amd";
  cpu.socket = 0;
  cpu.cores = "0-15";
  m.nodes.push_back(cpu);
  NodeEntry nic = node_entry("nic0", "nic");
  nic.port_bandwidth_Bps = 12.5e9;  // 100 Gb/s = 100000 Mb/s
  m.nodes.push_back(nic);
  LinkEntry pcie = pcie_link_entry("gpu{g}", "cpu0", 4, 16);
  pcie.loop = {{"g", "0..1"}};
  pcie.host_bridge = 1;
  pcie.figures.latency_s = 1.5e-6;
  pcie.figures.latency_range_s = Range{1e-6, 2e-6};
  pcie.figures.basis = "effective";
  pcie.figures.source = "fit";
  m.links.push_back(pcie);
  HostLaunch h;
  h.per_gpu_s = 3e-6;
  h.range_s = Range{2e-6, 4e-6};
  m.host_launch = h;
  const std::string expected = R"({
  "title": "tiny",
  "notes": [
    "n"
  ],
  "nodes": [
    {
      "id": "gpu",
      "kind": "gpu",
      "count": 2,
      "model": "RTX-4090"
    },
    {
      "id": "cpu0",
      "kind": "cpu",
      "vendor": "amd",
      "socket": 0,
      "cores": "0-15"
    },
    {
      "id": "nic0",
      "kind": "nic",
      "port_bandwidth": "100000 Mb/s"
    }
  ],
  "links": [
    {
      "for": {
        "g": "0..1"
      },
      "a": "gpu{g}",
      "b": "cpu0",
      "kind": "pcie",
      "generation": 4,
      "width": 16,
      "host_bridge": 1,
      "latency": "1.5 us",
      "latency_range": [
        "1 us",
        "2 us"
      ],
      "basis": "effective",
      "source": "fit"
    }
  ],
  "host_launch": {
    "per_gpu": "3 us",
    "range": [
      "2 us",
      "4 us"
    ]
  }
})";
  EXPECT_EQ(write_machine_document(m).dump(2), expected);
}

// The collective block always carries "by_op" and "source", and the LL scales only where they
// differ from 1: 0.75 is written as is.
TEST(MachineWriter, CollectiveBlockText) {
  CollectiveCalibration c;
  c.all.latency = 2;
  c.all.bandwidth = 0.5;
  c.all.ll = 0.75;
  EXPECT_EQ(collective_calibration_json(c).dump(),
            R"({"latency_scale":2.0,"bandwidth_scale":0.5,"ll_scale":0.75,"by_op":{},)"
            R"("source":""})");
}

// Editing a read document keeps its keys in place and appends what is new.
TEST(MachineWriter, EditingKeepsTheDocumentsOrder) {
  Json doc = Json::parse(R"({"title": "t", "notes": ["a"], "nodes": [], "links": []})");
  append_sources(doc, {"s"});
  append_notes(doc, {"b"});
  EXPECT_EQ(doc.dump(), R"({"title":"t","notes":["a","b"],"nodes":[],"links":[],"sources":["s"]})");
  Json entry = Json::parse(R"({"for": {"g": "0..3"}, "a": "gpu{g}", "b": "sw", "kind": "pcie",
                               "generation": 4, "host_bridge": 0})");
  // 0..3 is four links.
  EXPECT_EQ(link_entry_expansion(JsonView(entry, "m.json")), 4u);
  EXPECT_EQ(concrete_link_entry(entry, "gpu2", "sw", 1).dump(),
            R"({"a":"gpu2","b":"sw","kind":"pcie","generation":4,"host_bridge":1})");
  Json bad = Json::parse(R"({"for": {"g": "0-3"}, "a": "gpu{g}", "b": "sw", "kind": "pcie"})");
  EXPECT_THROW(link_entry_expansion(JsonView(bad, "m.json")), InputError);
}

}  // namespace
}  // namespace linksim::topo
