// Multi-node NVLink domains (sim/topo/cluster_domain.*, "nvlink_domain" in cluster_loader.*):
// the shared NVSwitch set, names, rails, routes between trays over NVLink and between domains
// over NICs, the shipped GB200 NVL72 clusters, and the bad input of docs/cluster-format.md.
#include "sim/topo/cluster_domain.hpp"

#include <gtest/gtest.h>

#include "sim/core/error.hpp"
#include "sim/topo/cluster_loader.hpp"
#include "sim/topo/fabric_summary.hpp"
#include "sim/topo/loader.hpp"
#include "sim/topo/routing.hpp"
#include "tests/support/temp_files.hpp"
#include "tests/support/thrown_message.hpp"
#include "tests/support/two_gpu_host.hpp"

namespace linksim::topo {
namespace {

using testing::TempDir;

// A tray with round figures: two H100s, each with one NVLink 4 lane (25 GB/s per direction) to
// each of two NVSwitches, each GPU behind its own PCIe switch with one 100 Gb/s NIC, one CPU.
std::string tray_json() {
  return R"({
  "title": "2x H100 on 2 NVSwitches, one NIC per GPU",
  "nodes": [
    {"id": "gpu", "kind": "gpu", "count": 2, "model": "H100-SXM5-80GB"},
    {"id": "nvswitch", "kind": "nvswitch", "count": 2},
    {"id": "sw", "kind": "pcie_switch", "count": 2},
    {"id": "cpu0", "kind": "cpu", "vendor": "intel"},
    {"id": "nic", "kind": "nic", "count": 2, "port_bandwidth": "100 Gb/s"}
  ],
  "links": [
    {"for": {"g": "0..1", "s": "0..1"}, "a": "gpu{g}", "b": "nvswitch{s}", "kind": "nvlink",
     "generation": 4, "lanes": 1},
    {"for": {"g": "0..1"}, "a": "gpu{g}", "b": "sw{g}", "kind": "pcie", "generation": 4},
    {"for": {"g": "0..1"}, "a": "nic{g}", "b": "sw{g}", "kind": "pcie", "generation": 4},
    {"for": {"g": "0..1"}, "a": "sw{g}", "b": "cpu0", "kind": "pcie", "generation": 4}
  ]
})";
}

std::string domain_cluster_json(const std::string& host, int nodes, const std::string& domain) {
  return R"({"title": "t", "cluster": {"host": ")" + host + R"(", "nodes": )" +
         std::to_string(nodes) + R"(, "nvlink_domain": )" + domain + "}}";
}

TEST(NvlinkDomain, TraysShareOneSwitchSet) {
  TempDir dir;
  const Topology tray = load_topology(dir.write("tray.json", tray_json()));
  const Topology d = build_nvlink_domain(tray, 3);
  // Per tray 2 GPUs, 2 PCIe switches, 1 CPU, 2 NICs = 7 nodes, copied 3 times; the 2 NVSwitches
  // once: 3 x 7 + 2 = 23 nodes. Links: the tray's 4 NVLink + 6 PCIe = 10, for each tray: 30.
  EXPECT_EQ(d.nodes().size(), 23u);
  EXPECT_EQ(d.links().size(), 30u);
  EXPECT_EQ(d.count(NodeKind::nvswitch), 2u);
  EXPECT_FALSE(d.find("tray1/nvswitch0"));
  // nvswitch0 takes one lane from each of the 3 x 2 GPUs.
  EXPECT_EQ(d.out_channels(*d.find("nvswitch0")).size(), 6u);
  // GPUs number tray by tray: tray 2's gpu1 is GPU 2 x 2 + 1 = 5.
  EXPECT_EQ(d.node(*d.find("tray2/gpu1")).ordinal, 5);
  // Each tray's node keeps its tray as host; sockets number on (tray 2's CPU is socket 2).
  EXPECT_EQ(d.host_count, 3);
  EXPECT_EQ(d.host_of(*d.find("tray2/nic0")), 2);
  EXPECT_EQ(d.node(*d.find("tray2/cpu0")).cpu->socket, 2);
  const Router router(d);
  const auto r = router.route(*d.find("tray0/gpu0"), *d.find("tray2/gpu1"));
  ASSERT_TRUE(r);
  // Across trays over NVLink: gpu -> nvswitch -> gpu through each of the two switches, half
  // the bytes each.
  EXPECT_EQ(r->transport, Transport::nvlink);
  ASSERT_EQ(r->paths.size(), 2u);
  EXPECT_EQ(r->paths[0].channels.size(), 2u);
  EXPECT_DOUBLE_EQ(r->paths[0].share, 0.5);
  EXPECT_EQ(router.nvlink_count(*d.find("tray0/gpu0"), *d.find("tray2/gpu1")), 2);
}

TEST(NvlinkDomain, AClusterOfDomainsHasOneHostPerDomain) {
  TempDir dir;
  const std::string tray = dir.write("tray.json", tray_json());
  const Topology c =
      load_topology(dir.write("c.json", domain_cluster_json(tray, 4, R"({"hosts": 2})")));
  ASSERT_TRUE(c.is_cluster());
  // 4 trays, 2 per domain: 2 hosts of 2 x 2 = 4 GPUs, and 2 x 2 = 4 compute NICs (rails).
  EXPECT_EQ(c.host_count, 2);
  EXPECT_EQ(c.cluster->host->host_count, 2);
  EXPECT_EQ(c.cluster->gpus_per_host, 4);
  EXPECT_EQ(c.cluster->rails, 4);
  EXPECT_EQ(c.count(NodeKind::gpu), 8u);
  EXPECT_EQ(c.count(NodeKind::nvswitch), 4u);  // 2 per domain, not 2 per tray
  EXPECT_EQ(c.host_of(*c.find("node1/tray1/gpu0")), 1);
  EXPECT_EQ(c.host_of(*c.find("node1/nvswitch1")), 1);
  // NIC k of tray t is rail 2t + k: node1's tray1/nic1 is rail 3.
  EXPECT_EQ(c.node(*c.find("node1/tray1/nic1")).nic->rail, 3);
  const Router router(c);
  const auto inside = router.route(*c.find("node0/tray0/gpu0"), *c.find("node0/tray1/gpu1"));
  ASSERT_TRUE(inside);
  EXPECT_EQ(inside->transport, Transport::nvlink);
  EXPECT_TRUE(inside->nics.empty());
  const auto across = router.route(*c.find("node0/tray0/gpu0"), *c.find("node1/tray0/gpu0"));
  ASSERT_TRUE(across);
  EXPECT_EQ(across->transport, Transport::network);
}

TEST(NvlinkDomain, ScaleOutCountsDomains) {
  TempDir dir;
  const std::string tray = dir.write("tray.json", tray_json());
  const Topology c =
      load_topology(dir.write("c.json", domain_cluster_json(tray, 4, R"({"hosts": 2})")));
  const Topology three = scale_out(c, 3);
  // 3 domains of 2 trays of 2 GPUs: 12 GPUs, still 2 trays per host.
  EXPECT_EQ(three.host_count, 3);
  EXPECT_EQ(three.cluster->host->host_count, 2);
  EXPECT_EQ(three.count(NodeKind::gpu), 12u);
}

TEST(NvlinkDomain, ShippedNvl72RackIsOneDomainOf72Gpus) {
  const Topology rack = load_topology("gb200-nvl72");
  ASSERT_TRUE(rack.is_cluster());
  // 18 trays x 4 GPUs = 72 GPUs, on the rack's 18 switch chips, in one host.
  EXPECT_EQ(rack.host_count, 1);
  EXPECT_EQ(rack.cluster->host->host_count, 18);
  EXPECT_EQ(rack.count(NodeKind::gpu), 72u);
  EXPECT_EQ(rack.count(NodeKind::nvswitch), 18u);
  EXPECT_EQ(rack.cluster->rails, 72);  // 18 trays x 4 ConnectX-7
  const Router router(rack);
  const NodeId first = *rack.find("node0/tray0/gpu0");
  const NodeId last = *rack.find("node0/tray17/gpu3");
  const auto r = router.route(first, last);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->transport, Transport::nvlink);
  // One NVLink 5 lane to each of the 18 chips at each end: NV18, 18 paths of 1/18 each.
  EXPECT_EQ(router.nvlink_count(first, last), 18);
  ASSERT_EQ(r->paths.size(), 18u);
  EXPECT_DOUBLE_EQ(r->paths[0].share, 1.0 / 18);
  const std::string text = describe_fabric(rack, summarize_fabric(rack));
  EXPECT_NE(text.find("Cluster: 1 NVLink domain of 18x gb200-nvl72-tray-cx7 (72 GPUs), 72 rails"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("NVLink domain: 72 GPUs on 18 shared NVSwitches"), std::string::npos) << text;
}

TEST(NvlinkDomain, ShippedTwoRacksAreTwoDomainsOnNdr) {
  const Topology two = load_topology("gb200-nvl72-x2");
  EXPECT_EQ(two.host_count, 2);
  EXPECT_EQ(two.count(NodeKind::gpu), 144u);
  EXPECT_EQ(two.cluster->fabric.kind, FabricKind::infiniband);
  EXPECT_EQ(two.cluster->fabric.shape, FabricShape::rail_optimized);
  const FabricSummary s = summarize_fabric(two);
  // Per GPU one 400 Gb/s NDR port on average (4 per tray of 4 GPUs): 50 GB/s x 0.96 = 48 GB/s;
  // per domain 72 x 48 = 3456 GB/s. Bisection: one domain's NICs, 3456 GB/s, and the leaves'
  // uplinks (72 leaves of 2 x 48 GB/s down, non-blocking: 6912 GB/s, half of it 3456) agree.
  EXPECT_DOUBLE_EQ(s.per_gpu_scale_out_Bps, 48e9);
  EXPECT_DOUBLE_EQ(s.per_host_scale_out_Bps, 72 * 48e9);
  // (The uplinks are 5184 figures summed in floating point: equal to within a few B/s.)
  EXPECT_NEAR(s.bisection_Bps, 72 * 48e9, 1e3);
  EXPECT_EQ(s.leaves, 72);
}

class NvlinkDomainBadInput : public ::testing::Test {
 protected:
  TempDir dir;
  std::string tray = dir.write("tray.json", tray_json());

  std::string message_of(const std::string& text) {
    return testing::thrown_message<InputError>([&] { load_topology(dir.write("c.json", text)); });
  }
};

TEST_F(NvlinkDomainBadInput, HostsMustBePositive) {
  for (const char* n : {"0", "-2"}) {
    const std::string m =
        message_of(domain_cluster_json(tray, 4, std::string(R"({"hosts": )") + n + "}"));
    EXPECT_NE(m.find("c.json: at /cluster/nvlink_domain/hosts: expected a host count per NVLink "
                     "domain from 1 to 65536, got " +
                     std::string(n)),
              std::string::npos)
        << m;
  }
}

TEST_F(NvlinkDomainBadInput, HostsMustDivideTheNodeCount) {
  const std::string m = message_of(domain_cluster_json(tray, 4, R"({"hosts": 3})"));
  EXPECT_NE(m.find("c.json: at /cluster/nvlink_domain/hosts: 3 hosts per NVLink domain do not "
                   "divide the cluster's 4 nodes"),
            std::string::npos)
      << m;
}

TEST_F(NvlinkDomainBadInput, AHostWithoutNvswitchHasNothingToShare) {
  const std::string plain = dir.write("plain.json", testing::two_gpu_host_json());
  const std::string m = message_of(domain_cluster_json(plain, 4, R"({"hosts": 2})"));
  EXPECT_NE(m.find("c.json: at /cluster/nvlink_domain: the host \"plain\" has no NVSwitch node"),
            std::string::npos)
      << m;
}

TEST_F(NvlinkDomainBadInput, RailsAreTheDomainsNics) {
  // 2 trays of 2 NICs per domain: 4 rails, not the tray's 2.
  const std::string m = message_of(R"({"title": "t", "cluster": {"host": ")" + tray +
                                   R"(", "nodes": 4, "rails": 2, "nvlink_domain": {"hosts": 2}}})");
  EXPECT_NE(m.find("at /cluster/rails"), std::string::npos) << m;
  EXPECT_NE(m.find("has 4 compute NICs, so 4 rails, not 2"), std::string::npos) << m;
}

}  // namespace
}  // namespace linksim::topo
