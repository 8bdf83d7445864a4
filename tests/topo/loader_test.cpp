// Loader and validator: every bad-input case names the file, the JSON pointer (or line and
// column) and what was expected.
#include "sim/topo/loader.hpp"

#include <gtest/gtest.h>

#include "sim/core/error.hpp"
#include "tests/support/temp_files.hpp"
#include "tests/support/thrown_message.hpp"

namespace linksim::topo {
namespace {

using linksim::testing::TempDir;

// Two A100s behind one PCIe switch on one AMD socket, with a 4-link NVLink bridge.
Json two_gpu_doc() {
  return Json::parse(R"({
    "title": "two GPUs",
    "sources": ["hand-written test fixture"],
    "nodes": [
      {"id": "gpu", "kind": "gpu", "count": 2, "model": "A100-SXM4-80GB"},
      {"id": "cpu0", "kind": "cpu", "vendor": "amd"},
      {"id": "sw", "kind": "pcie_switch"}
    ],
    "links": [
      {"for": {"g": "0..1"}, "a": "gpu{g}", "b": "sw", "kind": "pcie", "generation": 4},
      {"a": "sw", "b": "cpu0", "kind": "pcie", "generation": 4},
      {"a": "gpu0", "b": "gpu1", "kind": "nvlink", "generation": 3, "lanes": 4}
    ]
  })");
}

// Loads `doc` from a file and returns the error text, or "accepted" when it loads.
std::string load_error(const TempDir& dir, const Json& doc) {
  const std::string path = dir.write("machine.json", doc.dump(2));
  return testing::thrown_message<InputError>([&] { load_topology(path); });
}

TEST(LoaderTest, LoadsAValidMachineWithDefaultsFromTheLinkKind) {
  TempDir dir;
  const Topology t = load_topology(dir.write("m.json", two_gpu_doc().dump()));
  EXPECT_EQ(t.title, "two GPUs");
  EXPECT_EQ(t.name, "m");
  ASSERT_EQ(t.nodes().size(), 4u);  // gpu0, gpu1, cpu0, sw
  EXPECT_EQ(t.node(1).id, "gpu1");
  EXPECT_EQ(t.node(1).ordinal, 1);
  ASSERT_EQ(t.links().size(), 4u);  // 2 from the "for" loop, 1 uplink, 1 NVLink
  // PCIe 4.0 x16 default: 2 GB/s per lane * 16 lanes = 32 GB/s per direction (seed's figure).
  EXPECT_DOUBLE_EQ(t.link(0).bandwidth_Bps, 32e9);
  EXPECT_EQ(t.link(0).provenance.basis, "theoretical");
  // NVLink 3: 25 GB/s per link per direction * 4 links = 100 GB/s.
  EXPECT_DOUBLE_EQ(t.link(3).bandwidth_Bps, 100e9);
  EXPECT_EQ(t.channel_count(), 8u);
  EXPECT_EQ(t.channel_name(Topology::channel(3, false)), "gpu1->gpu0 (NVLink 3 x4)");
}

TEST(LoaderTest, OverridesBandwidthAndLatencyPerLink) {
  TempDir dir;
  Json doc = two_gpu_doc();
  doc["links"][2]["bandwidth"] = "56.25 GB/s";
  doc["links"][2]["latency"] = "0.5 us";
  const Topology t = load_topology(dir.write("m.json", doc.dump()));
  EXPECT_DOUBLE_EQ(t.link(3).bandwidth_Bps, 56.25e9);
  EXPECT_DOUBLE_EQ(t.link(3).latency_s, 0.5e-6);
  EXPECT_EQ(t.link(3).provenance.basis, "effective");
}

TEST(LoaderTest, MalformedJsonNamesLineAndColumn) {
  TempDir dir;
  const std::string path = dir.write("bad.json", "{\"title\": \"x\",\n  \"nodes\": [}\n");
  try {
    load_topology(path);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), path);
    // The stray '}' is the 13th character of line 2.
    EXPECT_EQ(e.location(), "line 2, column 13");
    EXPECT_NE(e.message().find("malformed JSON"), std::string::npos) << e.what();
  }
}

TEST(LoaderTest, UnknownNodeKind) {
  TempDir dir;
  Json doc = two_gpu_doc();
  doc["nodes"][2]["kind"] = "gpu_switch";
  const std::string file = dir.path() + "/machine.json";
  EXPECT_EQ(load_error(dir, doc),
            file +
                ": at /nodes/2/kind: unknown node kind \"gpu_switch\"; expected one of gpu, "
                "nvswitch, pcie_switch, cpu, nic, net_switch");
}

TEST(LoaderTest, UnknownField) {
  TempDir dir;
  Json doc = two_gpu_doc();
  doc["nodes"][0]["colour"] = "red";
  const std::string file = dir.path() + "/machine.json";
  const std::string err = load_error(dir, doc);
  EXPECT_EQ(err.rfind(file + ": at /nodes/0/colour: unknown field \"colour\"; expected one of: id, "
                             "kind, count, model",
                      0),
            0u)
      << err;
}

TEST(LoaderTest, UnknownLinkKind) {
  TempDir dir;
  Json doc = two_gpu_doc();
  doc["links"][2]["kind"] = "nvlinc";
  EXPECT_NE(load_error(dir, doc).find("at /links/2/kind: unknown link kind \"nvlinc\"; expected "
                                      "one of nvlink, pcie, upi"),
            std::string::npos);
}

TEST(LoaderTest, LinkToAMissingNode) {
  TempDir dir;
  Json doc = two_gpu_doc();
  doc["links"][1]["b"] = "cpu9";
  const std::string file = dir.path() + "/machine.json";
  EXPECT_EQ(load_error(dir, doc), file + ": at /links/1/b: link to a missing node \"cpu9\"");
}

TEST(LoaderTest, LinkToAMissingNodeNamesTheLoopBinding) {
  TempDir dir;
  Json doc = two_gpu_doc();
  doc["links"][0]["for"]["g"] = "0..2";
  const std::string file = dir.path() + "/machine.json";
  EXPECT_EQ(load_error(dir, doc),
            file + ": at /links/0/a: link to a missing node \"gpu2\" (with g=2)");
}

TEST(LoaderTest, DuplicateIds) {
  TempDir dir;
  Json doc = two_gpu_doc();
  doc["nodes"].push_back(Json{{"id", "sw"}, {"kind", "pcie_switch"}});
  const std::string file = dir.path() + "/machine.json";
  EXPECT_EQ(load_error(dir, doc),
            file + ": at /nodes/3/id: duplicate node id \"sw\" (already defined at /nodes/2)");
}

TEST(LoaderTest, DuplicateIdsFromACount) {
  TempDir dir;
  Json doc = two_gpu_doc();
  doc["nodes"].push_back(Json{{"id", "gpu1"}, {"kind", "pcie_switch"}});
  const std::string file = dir.path() + "/machine.json";
  EXPECT_EQ(load_error(dir, doc),
            file + ": at /nodes/3/id: duplicate node id \"gpu1\" (already defined at /nodes/0)");
}

TEST(LoaderTest, ZeroNegativeAndAbsurdBandwidths) {
  TempDir dir;
  const std::string file = dir.path() + "/machine.json";
  Json doc = two_gpu_doc();
  doc["links"][2]["bandwidth"] = "0 GB/s";
  EXPECT_EQ(load_error(dir, doc),
            file + ": at /links/2/bandwidth: bandwidth must be positive, got \"0 GB/s\"");
  doc["links"][2]["bandwidth"] = "-5 GB/s";
  EXPECT_EQ(load_error(dir, doc),
            file + ": at /links/2/bandwidth: bandwidth must be positive, got \"-5 GB/s\"");
  doc["links"][2]["bandwidth"] = "900 TB/s";
  EXPECT_EQ(load_error(dir, doc),
            file +
                ": at /links/2/bandwidth: bandwidth \"900 TB/s\" is absurd; expected between 1 "
                "MB/s and 10 TB/s per direction");
  doc["links"][2]["bandwidth"] = 25;
  EXPECT_EQ(load_error(dir, doc),
            file +
                ": at /links/2/bandwidth: expected a bandwidth string such as \"25 GB/s\" or "
                "\"200 Gb/s\", got a number");
}

TEST(LoaderTest, CpuListsRunForwardsWithinLinuxsCpus) {
  // As `topo import` checks nvidia-smi's CPU Affinity: ranges run forwards and CPUs stay below
  // 8192 (Linux's most, x86-64 MAXSMP); "0-39,80-119" and "8191" load.
  TempDir dir;
  const std::string file = dir.path() + "/machine.json";
  Json doc = two_gpu_doc();
  doc["nodes"][1]["cores"] = "0-39,80-119";
  EXPECT_EQ(load_error(dir, doc), "accepted");
  doc["nodes"][1]["cores"] = "8191";
  EXPECT_EQ(load_error(dir, doc), "accepted");
  doc["nodes"][1]["cores"] = "99999-1";
  EXPECT_EQ(load_error(dir, doc), file +
                                      ": at /nodes/1/cores: CPU list \"99999-1\": the range "
                                      "99999-1 runs backwards; expected low-high such as 0-31");
  doc["nodes"][1]["cores"] = "0-8192";
  EXPECT_EQ(load_error(dir, doc),
            file +
                ": at /nodes/1/cores: CPU list \"0-8192\": CPU 8192 is beyond the 8192 CPUs "
                "Linux numbers; expected CPU numbers such as 0-31,64-95");
  doc["nodes"][1]["cores"] = "0-3;4";
  EXPECT_EQ(load_error(dir, doc),
            file +
                ": at /nodes/1/cores: CPU list \"0-3;4\": expected CPU numbers and ranges "
                "such as 0-31,64-95, got \"0-3;4\"");
}

TEST(LoaderTest, ZeroAndAbsurdLatencies) {
  TempDir dir;
  const std::string file = dir.path() + "/machine.json";
  Json doc = two_gpu_doc();
  doc["links"][1]["latency"] = "0 us";
  EXPECT_EQ(load_error(dir, doc),
            file + ": at /links/1/latency: latency must be positive, got \"0 us\"");
  doc["links"][1]["latency"] = "5 s";
  EXPECT_EQ(
      load_error(dir, doc),
      file + ": at /links/1/latency: latency \"5 s\" is absurd; expected at most 1 ms per hop");
  doc["links"][1]["latency"] = "soon";
  EXPECT_EQ(load_error(dir, doc),
            file +
                ": at /links/1/latency: expected a time such as \"1.2 us\", \"500 ns\" or \"3 "
                "ms\", got \"soon\"");
}

TEST(LoaderTest, GpusThatCannotReachEachOther) {
  TempDir dir;
  Json doc = two_gpu_doc();
  doc["links"][0]["for"]["g"] = "0..0";
  doc["links"].erase(2);
  const std::string file = dir.path() + "/machine.json";
  EXPECT_EQ(load_error(dir, doc),
            file +
                ": at /links: GPUs cannot reach each other: no path of links joins gpu0 and "
                "gpu1; expected every GPU to be connected");
}

TEST(LoaderTest, UnknownGpuModel) {
  TempDir dir;
  Json doc = two_gpu_doc();
  doc["nodes"][0]["model"] = "Z100";
  const std::string file = dir.path() + "/machine.json";
  const std::string err = load_error(dir, doc);
  EXPECT_EQ(err.rfind(file + ": at /nodes/0/model: unknown GPU model \"Z100\"; known models: ", 0),
            0u)
      << err;
  EXPECT_NE(err.find("A100-SXM4-80GB"), std::string::npos);
}

TEST(LoaderTest, WrongTypes) {
  TempDir dir;
  const std::string file = dir.path() + "/machine.json";
  Json doc = two_gpu_doc();
  doc["nodes"][0]["count"] = "two";
  EXPECT_EQ(load_error(dir, doc), file + ": at /nodes/0/count: expected an integer, got a string");
  doc = two_gpu_doc();
  doc["links"] = Json::object();
  EXPECT_EQ(load_error(dir, doc), file + ": at /links: expected an array, got an object");
  doc = two_gpu_doc();
  doc["nodes"][1]["pcie_p2p"] = "yes";
  EXPECT_EQ(load_error(dir, doc),
            file + ": at /nodes/1/pcie_p2p: expected true or false, got a string");
}

TEST(LoaderTest, MoreNvlinksThanTheGpuHas) {
  TempDir dir;
  Json doc = two_gpu_doc();
  doc["links"][2]["lanes"] = 13;
  const std::string file = dir.path() + "/machine.json";
  EXPECT_EQ(load_error(dir, doc),
            file +
                ": at /links: gpu0 uses 13 NVLinks but a A100-SXM4-80GB has 12; expected at "
                "most 12");
}

TEST(LoaderTest, LinkKindMustFitItsEndpoints) {
  TempDir dir;
  Json doc = two_gpu_doc();
  doc["links"][1]["kind"] = "nvlink";
  doc["links"][1]["generation"] = 3;
  const std::string file = dir.path() + "/machine.json";
  EXPECT_EQ(load_error(dir, doc),
            file +
                ": at /links/1: a nvlink link cannot join sw (pcie_switch) and cpu0 (cpu): "
                "NVLink joins GPUs and NVSwitches");
}

TEST(LoaderTest, CloudInstanceTakesItsBaseMachine) {
  TempDir dir;
  dir.write("base.json", two_gpu_doc().dump());
  const std::string path = dir.write("cloud.json", R"({
    "title": "a cloud instance", "sources": ["test"], "base": "base.json",
    "instance": {"provider": "aws", "name": "x.large", "price_per_hour_usd": 12.5,
                 "price_as_of": "2026-11", "price_source": "a made-up page",
                 "network": "100 Gb/s", "network_bandwidth": "100 Gb/s"}
  })");
  const Topology t = load_topology(path);
  EXPECT_EQ(t.title, "a cloud instance");
  EXPECT_EQ(t.base, "base");
  EXPECT_EQ(t.count(NodeKind::gpu), 2u);
  ASSERT_TRUE(t.instance.has_value());
  EXPECT_EQ(t.instance->price_per_hour_usd, std::optional<double>(12.5));
  EXPECT_EQ(t.instance->price_as_of, "2026-11");
  EXPECT_EQ(t.instance->price_source, "a made-up page");
  // 100 Gb/s / 8 = 12.5 GB/s.
  EXPECT_DOUBLE_EQ(t.instance->network_bandwidth_Bps, 12.5e9);
}

TEST(LoaderTest, APriceSaysWhenAndWhereItWasTheListPrice) {
  TempDir dir;
  dir.write("base.json", two_gpu_doc().dump());
  const auto error_of = [&](const std::string& instance) {
    const std::string path =
        dir.write("cloud.json", R"({"title": "t", "sources": ["test"], "base": "base.json",
                                    "instance": )" +
                                    instance + "}");
    try {
      load_topology(path);
    } catch (const InputError& e) {
      return e.location() + ": " + e.message();
    }
    return std::string("loaded");
  };
  EXPECT_EQ(error_of(R"({"provider": "aws", "name": "x", "price_per_hour_usd": 1,
                         "price_source": "p"})"),
            "/instance/price_per_hour_usd: a price needs \"price_as_of\" beside it (price_as_of: "
            "the date it was the list price, YYYY, YYYY-MM or YYYY-MM-DD; price_source: the page "
            "it was read from)");
  EXPECT_EQ(error_of(R"({"provider": "aws", "name": "x", "price_per_hour_usd": 1,
                         "price_as_of": "2025"})"),
            "/instance/price_per_hour_usd: a price needs \"price_source\" beside it (price_as_of: "
            "the date it was the list price, YYYY, YYYY-MM or YYYY-MM-DD; price_source: the page "
            "it was read from)");
  EXPECT_EQ(error_of(R"({"provider": "aws", "name": "x", "price_per_hour_usd": 1,
                         "price_as_of": "June 2025", "price_source": "p"})"),
            "/instance/price_as_of: expected a date: YYYY, YYYY-MM or YYYY-MM-DD");
  EXPECT_EQ(error_of(R"({"provider": "aws", "name": "x", "price_as_of": "2025"})"),
            "/instance/price_as_of: only beside price_per_hour_usd");
  EXPECT_EQ(error_of(R"({"provider": "aws", "name": "x", "price_per_hour_usd": 1,
                         "price_as_of": "2025-06-01", "price_source": "p"})"),
            "loaded");
}

TEST(LoaderTest, ReplaceModelsSwapsTheBaseMachinesGpus) {
  TempDir dir;
  dir.write("base.json", two_gpu_doc().dump());
  // Same NVLink (12 NVLink 3 links) and PCIe 4.0: the links stay; model_swap_test.cpp covers
  // swaps that change the interconnect.
  Json doc = Json::parse(R"({"title": "what if 40GB", "base": "base.json",
                            "replace_models": {"A100-SXM4-80GB": "A100-SXM4-40GB"}})");
  const Topology t = load_topology(dir.write("h.json", doc.dump()));
  EXPECT_EQ(t.node(0).model, "A100-SXM4-40GB");
  EXPECT_EQ(t.node(1).gpu->name, "A100-SXM4-40GB");
  doc["replace_models"] = Json{{"V100-SXM2-16GB", "A100-SXM4-40GB"}};
  const std::string path = dir.write("bad.json", doc.dump());
  try {
    load_topology(path);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              path +
                  ": at /replace_models/V100-SXM2-16GB: the base machine has no GPU of model "
                  "\"V100-SXM2-16GB\" to replace");
  }
}

TEST(LoaderTest, MissingFile) {
  try {
    load_topology("/nonexistent/machine.json");
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "/nonexistent/machine.json: cannot open file for reading");
  }
}

}  // namespace
}  // namespace linksim::topo
