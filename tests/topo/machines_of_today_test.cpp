// The machines of today (issue 15): each shipped file loads with its GPU model and shows the
// nvidia-smi classes its wiring implies, worked out from the hardware (not from linksim's
// output): NV# between GPUs on NVLink, PIX through one PCIe switch, NODE across host bridges of
// one NUMA node, SYS across sockets.
#include <gtest/gtest.h>

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "sim/topo/loader.hpp"
#include "sim/topo/routing.hpp"
#include "sim/topo/smi_matrix.hpp"

namespace linksim::topo {
namespace {

// Expected class between device columns a and b (GPUs first, then NICs), a != b.
using Expected = std::function<std::string(int a, int b)>;

void expect_classes(const Topology& t, int gpus, int nics, const Expected& expected) {
  const SmiMatrix m = smi_matrix(t, Router(t));
  ASSERT_EQ(m.columns.size(), static_cast<std::size_t>(gpus + nics)) << t.name;
  ASSERT_EQ(m.rows.size(), m.columns.size()) << t.name;
  for (int a = 0; a < gpus + nics; ++a) {
    for (int b = 0; b < gpus + nics; ++b) {
      const std::string want = a == b ? "X" : expected(a, b);
      EXPECT_EQ(m.rows[a].cells[b], want) << t.name << " " << m.columns[a] << "/" << m.columns[b];
    }
  }
}

void expect_model(const Topology& t, const std::string& model, std::size_t gpus) {
  ASSERT_EQ(t.count(NodeKind::gpu), gpus) << t.name;
  for (NodeId g : t.nodes_of(NodeKind::gpu))
    EXPECT_EQ(t.node(g).gpu->name, model) << t.name;
}

// Classes between two devices on one socket: PIX when they share a PCIe switch, else NODE.
std::string same_socket_or_sys(int socket_a, int socket_b, bool share_switch) {
  if (socket_a != socket_b) return "SYS";
  return share_switch ? "PIX" : "NODE";
}

// An 8-GPU HGX box with the DGX H100 / DGX B200 host: NIC n (columns 8-15) shares GPU n's
// switch, storage NICs k (columns 16-19) sit on socket k/2 behind one host bridge (PHB between
// the two functions of one socket).
Expected hgx_box(const std::string& nv) {
  return [nv](int a, int b) -> std::string {
    if (a < 8 && b < 8) return nv;
    const auto socket = [](int c) { return c < 16 ? (c % 8) / 4 : (c - 16) / 2; };
    const auto pcie_switch = [](int c) { return c < 16 ? c % 8 : -1 - (c - 16) / 2; };
    if (a >= 16 && b >= 16 && socket(a) == socket(b)) return "PHB";
    return same_socket_or_sys(socket(a), socket(b), pcie_switch(a) == pcie_switch(b));
  };
}

TEST(MachinesOfTodayTest, DgxB200IsNv18At900GBps) {
  const Topology t = load_topology("dgx-b200");
  expect_model(t, "B200", 8);
  expect_classes(t, 8, 12, hgx_box("NV18"));
  const Router r(t);
  // 9 + 9 NVLink 5 links over two switches, 50 GB/s each: 18 x 50 = 900 GB/s per direction.
  EXPECT_EQ(r.nvlink_count(0, 7), 18);
  EXPECT_EQ(r.route(0, 7)->paths.size(), 2u);
  EXPECT_DOUBLE_EQ(r.route(0, 7)->bandwidth_Bps(), 900e9);
}

TEST(MachinesOfTodayTest, HgxH800IsNv8At200GBps) {
  const Topology t = load_topology("hgx-h800");
  expect_model(t, "H800-SXM5-80GB", 8);
  expect_classes(t, 8, 12, hgx_box("NV8"));
  // 4 switches x 2 NVLink 4 links x 25 GB/s = 200 GB/s per direction.
  EXPECT_DOUBLE_EQ(Router(t).route(0, 1)->bandwidth_Bps(), 200e9);
}

TEST(MachinesOfTodayTest, HgxH20KeepsTheH100Fabric) {
  const Topology t = load_topology("hgx-h20");
  expect_model(t, "H20", 8);
  expect_classes(t, 8, 12, hgx_box("NV18"));
  EXPECT_DOUBLE_EQ(Router(t).route(0, 1)->bandwidth_Bps(), 450e9);  // 18 x 25 GB/s
}

// Direct-attached GPUs, `per_socket` to a socket, each on its own host bridge, no P2P.
Expected direct_attached(int per_socket) {
  return [per_socket](int a, int b) {
    return same_socket_or_sys(a / per_socket, b / per_socket, false);
  };
}

void expect_host_bounce_at(const Topology& t, double link_Bps) {
  const Router r(t);
  for (NodeId a : t.nodes_of(NodeKind::gpu)) {
    for (NodeId b : t.nodes_of(NodeKind::gpu)) {
      if (a != b) {
        EXPECT_EQ(r.route(a, b)->transport, Transport::host_bounce) << t.name;
      }
    }
  }
  EXPECT_DOUBLE_EQ(t.link(0).bandwidth_Bps, link_Bps) << t.name;
}

TEST(MachinesOfTodayTest, Rtx5090BoxesBounceThroughHostMemoryOverPcie5) {
  const Topology eight = load_topology("rtx5090-8x");
  expect_model(eight, "RTX-5090", 8);
  expect_classes(eight, 8, 0, direct_attached(4));
  expect_host_bounce_at(eight, 64e9);  // PCIe 5.0 x16: 4 GB/s x 16
  const Topology four = load_topology("rtx5090-4x");
  expect_model(four, "RTX-5090", 4);
  expect_classes(four, 4, 0, direct_attached(2));
  expect_host_bounce_at(four, 64e9);
}

TEST(MachinesOfTodayTest, Rtx4090WorkstationIsNodeEverywhere) {
  const Topology t = load_topology("rtx4090-4x");
  expect_model(t, "RTX-4090", 4);
  expect_classes(t, 4, 0, direct_attached(4));
  expect_host_bounce_at(t, 32e9);  // PCIe 4.0 x16: 2 GB/s x 16
}

TEST(MachinesOfTodayTest, Rtx4070TiSuperWorkstationIsThe4090sHost) {
  const Topology t = load_topology("rtx4070tisuper-2x");
  expect_model(t, "RTX-4070-Ti-SUPER", 2);
  expect_classes(t, 2, 0, direct_attached(2));
  expect_host_bounce_at(t, 32e9);
}

TEST(MachinesOfTodayTest, L4ServerUsesPcieP2p) {
  const Topology t = load_topology("l4-8x-pcie");
  expect_model(t, "L4", 8);
  expect_classes(t, 8, 0, direct_attached(4));
  // A datacenter part: P2P within a socket and across AMD's xGMI.
  const Router r(t);
  EXPECT_EQ(r.route(0, 1)->transport, Transport::pcie_p2p);
  EXPECT_EQ(r.route(0, 7)->transport, Transport::pcie_p2p);
}

TEST(MachinesOfTodayTest, Mi300xIsAFullMeshOfDirectInfinityFabricLinks) {
  const Topology t = load_topology("mi300x-8x");
  expect_model(t, "MI300X", 8);
  // GPU pairs: one xgmi link each, which linksim classes as a socket interconnect: SYS. NIC n
  // shares GPU n's switch (PIX); sockets hold GPU0-3 / GPU4-7 and their NICs.
  expect_classes(t, 8, 8, [](int a, int b) -> std::string {
    if (a < 8 && b < 8) return "SYS";
    return same_socket_or_sys((a % 8) / 4, (b % 8) / 4, a % 8 == b % 8);
  });
  const Router r(t);
  int links = 0;
  for (const auto& l : t.links())
    links += l.kind == LinkKind::xgmi && t.node(l.a).kind == NodeKind::gpu ? 1 : 0;
  EXPECT_EQ(links, 28);  // 8 x 7 / 2 pairs, one link each
  for (NodeId a : t.nodes_of(NodeKind::gpu)) {
    for (NodeId b : t.nodes_of(NodeKind::gpu)) {
      if (a == b) continue;
      const auto route = r.route(a, b);
      ASSERT_EQ(route->paths.size(), 1u);
      EXPECT_EQ(route->paths.front().channels.size(), 1u);  // direct, never through a host
      EXPECT_EQ(route->transport, Transport::pcie_p2p);
      // xGMI 3: 64 GB/s per direction (128 GB/s bidirectional per link, AMD).
      EXPECT_DOUBLE_EQ(route->bandwidth_Bps(), 64e9);
    }
  }
}

TEST(MachinesOfTodayTest, Gh200ReachesItsGraceOverC2c) {
  const Topology t = load_topology("gh200-1x");
  expect_model(t, "GH200-96GB", 1);
  const auto route = Router(t).route(0, *t.find("grace"));
  EXPECT_EQ(route->transport, Transport::pcie);
  EXPECT_DOUBLE_EQ(route->bandwidth_Bps(), 450e9);  // 900 GB/s bidirectional / 2
}

TEST(MachinesOfTodayTest, Gb200TrayIsNv18OverTheRacksEighteenSwitches) {
  const Topology t = load_topology("gb200-nvl72-tray");
  expect_model(t, "GB200", 4);
  expect_classes(t, 4, 0, [](int, int) { return std::string("NV18"); });
  const Router r(t);
  // One NVLink 5 link to each of 18 switch chips: 18 paths of 50 GB/s = 900 GB/s.
  EXPECT_EQ(r.route(0, 3)->paths.size(), 18u);
  EXPECT_DOUBLE_EQ(r.route(0, 3)->bandwidth_Bps(), 900e9);
  EXPECT_DOUBLE_EQ(r.route(2, *t.find("grace1"))->bandwidth_Bps(), 450e9);  // C2C
}

TEST(MachinesOfTodayTest, EveryGpuOfTodayShipsInAMachine) {
  std::set<std::string> shipped_models;
  for (const auto& file : shipped_topology_files()) {
    const Topology t = load_topology(file);
    for (NodeId g : t.nodes_of(NodeKind::gpu))
      shipped_models.insert(t.node(g).gpu->name);
  }
  for (const char* name : {"B200", "GB200", "RTX-5090", "RTX-4070-Ti-SUPER", "H800-SXM5-80GB",
                           "H20", "L4", "GH200-96GB", "MI300X"}) {
    EXPECT_EQ(shipped_models.count(name), 1u) << name;
  }
}

}  // namespace
}  // namespace linksim::topo
