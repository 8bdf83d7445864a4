// Every shipped machine validates against topologies/schema.json, loads, and cites a source.
#include <gtest/gtest.h>

#include "sim/core/json_view.hpp"
#include "sim/core/schema_check.hpp"
#include "sim/topo/loader.hpp"
#include "sim/topo/summary.hpp"
#include "tests/support/simple_copy_share.hpp"

namespace linksim::topo {
namespace {

TEST(ShippedMachinesTest, EveryFileValidatesAgainstTheSchemaAndLoads) {
  const Json schema = read_json_file(shipped_topology_dir() + "/schema.json");
  const auto files = shipped_topology_files();
  ASSERT_GE(files.size(), 12u);
  for (const auto& f : files) {
    const auto problems = schema_violations(read_json_file(f), schema);
    EXPECT_TRUE(problems.empty()) << f << ": " << (problems.empty() ? "" : problems.front());
    const Topology t = load_topology(f);
    EXPECT_FALSE(t.sources.empty()) << f << " cites no source";
    EXPECT_GE(t.count(NodeKind::gpu), 1u) << f;
  }
}

TEST(ShippedMachinesTest, SchemaRejectsAnUnknownTopLevelField) {
  const Json schema = read_json_file(shipped_topology_dir() + "/schema.json");
  Json doc = read_json_file(shipped_topology_dir() + "/dgx-a100.json");
  doc["colour"] = "green";
  EXPECT_FALSE(schema_violations(doc, schema).empty());
}

TEST(ShippedMachinesTest, DgxA100IsAnNvswitchMachineAt300GBps) {
  const Topology t = load_topology("dgx-a100");
  const Router r(t);
  EXPECT_EQ(t.count(NodeKind::gpu), 8u);
  EXPECT_EQ(t.count(NodeKind::nvswitch), 6u);
  // Every pair: 12 NVLink 3 links * 25 GB/s = 300 GB/s per direction, spread over 6 switches.
  for (NodeId a : t.nodes_of(NodeKind::gpu)) {
    for (NodeId b : t.nodes_of(NodeKind::gpu)) {
      if (a == b) continue;
      auto route = r.route(a, b);
      ASSERT_TRUE(route);
      EXPECT_EQ(route->transport, Transport::nvlink);
      EXPECT_EQ(route->paths.size(), 6u);
      EXPECT_DOUBLE_EQ(route->bandwidth_Bps(), 300e9);
    }
  }
}

TEST(ShippedMachinesTest, DgxH100SplitsItsEighteenLinksFiveFourFourFive) {
  const Topology t = load_topology("dgx-h100");
  const Router r(t);
  auto route = r.route(0, 1);
  ASSERT_TRUE(route);
  ASSERT_EQ(route->paths.size(), 4u);
  // Shares 5/18, 4/18, 4/18, 5/18 of 450 GB/s = 18 links * 25 GB/s: the two 5-link planes
  // (125 GB/s bottleneck) carry 10/18 of the bytes.
  double five_link_share = 0;
  for (const auto& p : route->paths)
    five_link_share += p.bottleneck_Bps == 125e9 ? p.share : 0;
  EXPECT_DOUBLE_EQ(five_link_share, 10.0 / 18.0);
  EXPECT_DOUBLE_EQ(route->bandwidth_Bps(), 450e9);
  EXPECT_EQ(r.nvlink_count(0, 1), 18);
}

TEST(ShippedMachinesTest, SeedMeshRelaysBetweenNonNeighbours) {
  const Topology t = load_topology("seed-dgx-a100-mesh");
  const Router r(t);
  // The seed's figure has no GPU0-GPU4 link; GPU2 neighbours both: one relay.
  auto route = r.route(0, 4);
  ASSERT_TRUE(route);
  EXPECT_EQ(route->transport, Transport::nvlink_relay);
  EXPECT_EQ(route->relays, std::vector<NodeId>{2});
  // GPU0 and GPU7 share no neighbour: two relays would be needed, and NCCL's NVB uses one, so
  // the pair talks over PCIe (AMD sockets carry peer-to-peer).
  EXPECT_EQ(r.route(0, 7)->transport, Transport::pcie_p2p);
  // GPU0-GPU1 is drawn as a direct link.
  EXPECT_EQ(r.route(0, 1)->transport, Transport::nvlink);
}

TEST(ShippedMachinesTest, Rtx4090BoxBouncesThroughHostMemory) {
  const Topology t = load_topology("rtx4090-8x");
  const Router r(t);
  const auto gpus = t.nodes_of(NodeKind::gpu);
  ASSERT_EQ(gpus.size(), 8u);
  for (NodeId a : gpus) {
    for (NodeId b : gpus) {
      if (a != b) {
        EXPECT_EQ(r.route(a, b)->transport, Transport::host_bounce);
      }
    }
  }
}

TEST(ShippedMachinesTest, PcieSwitchBoxUsesP2p) {
  const Topology t = load_topology("pcie-switch-8gpu");
  const Router r(t);
  EXPECT_EQ(r.route(0, 1)->transport, Transport::pcie_p2p);
  EXPECT_EQ(r.path_class(0, 1), PathClass::pix);
  EXPECT_EQ(r.path_class(0, 2), PathClass::pxb);
}

TEST(ShippedMachinesTest, BisectionOfTwoGpusCountsEveryPath) {
  const Topology t = parse_topology(Json::parse(R"({
    "title": "t", "nodes": [
      {"id": "gpu", "kind": "gpu", "count": 2, "model": "A100-SXM4-80GB"},
      {"id": "cpu0", "kind": "cpu", "vendor": "amd"}, {"id": "sw", "kind": "pcie_switch"}],
    "links": [
      {"for": {"g": "0..1"}, "a": "gpu{g}", "b": "sw", "kind": "pcie", "generation": 4},
      {"a": "sw", "b": "cpu0", "kind": "pcie", "generation": 4},
      {"a": "gpu0", "b": "gpu1", "kind": "nvlink", "generation": 3, "lanes": 1}]})"),
                                    "t.json");
  const MachineSummary s = summarize(t, Router(t));
  // Max flow gpu0 -> gpu1: 25 GB/s over the NVLink + 32 GB/s through the switch = 57 GB/s.
  ASSERT_TRUE(s.bisection_Bps);
  EXPECT_DOUBLE_EQ(*s.bisection_Bps, 57e9);
  EXPECT_DOUBLE_EQ(s.nvlink_injection_Bps, 25e9);
  EXPECT_DOUBLE_EQ(s.pcie_injection_Bps, 32e9);
  ASSERT_TRUE(s.slowest_pair);
  // The pair's figure is p2pBandwidthLatencyTest's 160 MB copy over the NVLink's payload rate
  // (NVLink 3: 25 GB/s x 0.866 = 21.65 GB/s), after the 1.3 us launch and the link's 0.2 us:
  // 160e6 / (1.5 us + 7.389 ms) = 21.649 GB/s.
  EXPECT_NEAR(s.slowest_pair->bandwidth_Bps,
              160e6 / (1.5e-6 + 160e6 / (25e9 * linksim::testing::kNvlink3Payload)), 1e-3);
}

}  // namespace
}  // namespace linksim::topo
