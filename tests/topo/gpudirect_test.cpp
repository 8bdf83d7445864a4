// GPUDirect RDMA or host staging (sim/topo/gpudirect.hpp) and the network routes it shapes
// (network_route.cpp): which links a transfer between hosts crosses, and what that costs.
#include "sim/topo/gpudirect.hpp"

#include <gtest/gtest.h>

#include <array>

#include "sim/core/error.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/topo/cluster_builder.hpp"
#include "sim/topo/fabric_summary.hpp"
#include "sim/topo/link_payload.hpp"
#include "sim/topo/loader.hpp"
#include "sim/topo/routing.hpp"
#include "tests/support/temp_files.hpp"
#include "tests/support/two_gpu_host.hpp"

namespace linksim::topo {
namespace {

// Two A100s and two 100 Gb/s InfiniBand NICs under one PCIe switch, whose uplink to the CPU is
// narrower than the NICs together: every PCIe link 1 us; GPU and NIC ports 20 GB/s, the uplink
// 16 GB/s (effective figures, used as they are). GPU -> NIC is PIX.
constexpr const char* kSharedSwitchHost = R"({
  "title": "2x A100 and 2 NICs on one PCIe switch",
  "nodes": [
    {"id": "gpu", "kind": "gpu", "count": 2, "model": "A100-SXM4-80GB"},
    {"id": "sw0", "kind": "pcie_switch"},
    {"id": "cpu0", "kind": "cpu", "vendor": "intel"},
    {"id": "nic", "kind": "nic", "count": 2, "port_bandwidth": "100 Gb/s"}
  ],
  "links": [
    {"for": {"g": "0..1"}, "a": "gpu{g}", "b": "sw0", "kind": "pcie", "generation": 4,
     "bandwidth": "20 GB/s", "basis": "effective", "latency": "1 us"},
    {"for": {"n": "0..1"}, "a": "nic{n}", "b": "sw0", "kind": "pcie", "generation": 4,
     "bandwidth": "20 GB/s", "basis": "effective", "latency": "1 us"},
    {"a": "sw0", "b": "cpu0", "kind": "pcie", "generation": 4,
     "bandwidth": "16 GB/s", "basis": "effective", "latency": "1 us"}
  ]
})";

// One GPU under a PCIe switch, its NIC on the CPU's root complex: GPU -> NIC is PHB. `model`
// picks the GPU.
std::string phb_host(const std::string& model) {
  return R"({"title": "NIC on the CPU", "nodes": [
    {"id": "gpu", "kind": "gpu", "count": 2, "model": ")" +
         model + R"("},
    {"id": "sw0", "kind": "pcie_switch"},
    {"id": "cpu0", "kind": "cpu", "vendor": "intel"},
    {"id": "nic0", "kind": "nic", "port_bandwidth": "100 Gb/s"}],
  "links": [
    {"for": {"g": "0..1"}, "a": "gpu{g}", "b": "sw0", "kind": "pcie", "generation": 3},
    {"a": "sw0", "b": "cpu0", "kind": "pcie", "generation": 3},
    {"a": "nic0", "b": "cpu0", "kind": "pcie", "generation": 3}]})";
}

// A Grace Hopper: the GPU meets its CPU over C2C, the NIC hangs off the CPU (NCCL's P2C).
constexpr const char* kC2cHost = R"({"title": "GH200 with a NIC", "nodes": [
    {"id": "gpu0", "kind": "gpu", "model": "GH200-96GB"},
    {"id": "grace", "kind": "cpu", "vendor": "nvidia"},
    {"id": "nic0", "kind": "nic", "port_bandwidth": "400 Gb/s"}],
  "links": [
    {"a": "gpu0", "b": "grace", "kind": "c2c"},
    {"a": "nic0", "b": "grace", "kind": "pcie", "generation": 5}]})";

class GpuDirect : public ::testing::Test {
 protected:
  testing::TempDir dir;

  Topology cluster(const std::string& host_json, GdrLevel level) {
    FabricSpec spec;
    spec.gpudirect_rdma = level;
    spec.switch_latency_s = 1e-6;  // each NIC-to-leaf link: 0 + 1 us / 2
    spec.nic_latency_s = 0;
    return build_cluster(load_topology(dir.write("host.json", host_json)), 2, spec);
  }
  static std::vector<std::string> hops(const Topology& t, const Path& p) {
    std::vector<std::string> out{t.node(t.channel_from(p.channels.front())).id};
    for (ChannelId c : p.channels)
      out.push_back(t.node(t.channel_to(c)).id);
    return out;
  }
  // node0/gpu{g} -> node1/gpu{g} for g = 0, 1 at once, 1.2 GB each: when the last one ends.
  static double two_transfers_s(const Topology& c) {
    const Router router(c);
    engine::Simulation sim(payload_capacities_Bps(c), 4);
    for (int g = 0; g < 2; ++g) {
      const auto r = router.route(*c.find("node0/gpu" + std::to_string(g)),
                                  *c.find("node1/gpu" + std::to_string(g)));
      std::vector<engine::PathShare> shares;
      for (const Path& p : r->paths)
        shares.push_back({sim.add_path(p.channels, p.latency_s), p.share});
      sim.add_transfer(1.2e9, shares, g, 2 + g, {});
    }
    return sim.run().makespan_s;
  }
};

TEST_F(GpuDirect, PixUsesGpuDirectRdma) {
  const Topology c = cluster(kSharedSwitchHost, GdrLevel::automatic);
  const Router router(c);
  const GdrCheck send =
      check_gdr(router, *c.find("node0/gpu0"), *c.find("node0/nic0"), true, GdrLevel::automatic);
  EXPECT_TRUE(send.direct);
  EXPECT_EQ(send.distance, NetDistance::pix);
  EXPECT_EQ(send.reason, "GPU-NIC path PIX is within NCCL's default GDR level P2C");
  const auto r = router.route(*c.find("node0/gpu0"), *c.find("node1/gpu0"));
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->staging_cpus.empty());
  // Both NICs are one switch away: half the bytes on each rail.
  ASSERT_EQ(r->paths.size(), 2u);
  EXPECT_EQ(hops(c, r->paths[0]),
            (std::vector<std::string>{"node0/gpu0", "node0/sw0", "node0/nic0", "leaf0",
                                      "node1/nic0", "node1/sw0", "node1/gpu0"}));
  // 4 PCIe links of 1 us, 2 NIC-to-leaf links of 0.5 us.
  EXPECT_DOUBLE_EQ(r->paths[0].latency_s, 5e-6);
  // Each transfer sends half its bytes through each NIC: per NIC port 2 x R / 2 <= 12 GB/s
  // (100 Gb/s x 0.96 InfiniBand payload), so R = 12 GB/s; the switch uplink is not crossed.
  // 5 us + 1.2e9 / 12e9 = 0.100005 s.
  EXPECT_NEAR(two_transfers_s(c), 0.100005, 1e-12);
}

TEST_F(GpuDirect, OffStagesThroughTheGpusSocket) {
  const Topology c = cluster(kSharedSwitchHost, GdrLevel::off);
  const Router router(c);
  const GdrCheck recv =
      check_gdr(router, *c.find("node1/gpu0"), *c.find("node1/nic0"), false, GdrLevel::off);
  EXPECT_FALSE(recv.direct);
  EXPECT_EQ(recv.staging_cpu, c.find("node1/cpu0"));
  EXPECT_EQ(recv.reason, "GPUDirect RDMA is off on this cluster (gpudirect_rdma \"off\")");
  const auto r = router.route(*c.find("node0/gpu0"), *c.find("node1/gpu0"));
  ASSERT_TRUE(r);
  std::vector<std::string> staging;
  for (NodeId n : r->staging_cpus)
    staging.push_back(c.node(n).id);
  EXPECT_EQ(staging, (std::vector<std::string>{"node0/cpu0", "node1/cpu0"}));
  ASSERT_EQ(r->paths.size(), 2u);
  // Up into host memory and down to the NIC, on both hosts (NCCL's addInterStep via the CPU).
  EXPECT_EQ(hops(c, r->paths[0]),
            (std::vector<std::string>{"node0/gpu0", "node0/sw0", "node0/cpu0", "node0/sw0",
                                      "node0/nic0", "leaf0", "node1/nic0", "node1/sw0",
                                      "node1/cpu0", "node1/sw0", "node1/gpu0"}));
  // 8 PCIe links of 1 us, 2 NIC-to-leaf links of 0.5 us.
  EXPECT_DOUBLE_EQ(r->paths[0].latency_s, 9e-6);
  // Both transfers now cross the 16 GB/s uplink each way on each host, whole (both halves):
  // 2 R <= 16 GB/s, so R = 8 GB/s, below the NICs' 12. 9 us + 1.2e9 / 8e9 = 0.150009 s.
  EXPECT_NEAR(two_transfers_s(c), 0.150009, 1e-12);
}

TEST_F(GpuDirect, PhbIsBeyondNcclsDefaultLevel) {
  const Topology c = cluster(phb_host("A100-SXM4-80GB"), GdrLevel::automatic);
  const Router router(c);
  const NodeId gpu = *c.find("node0/gpu0");
  const NodeId nic = *c.find("node0/nic0");
  const GdrCheck send = check_gdr(router, gpu, nic, true, GdrLevel::automatic);
  EXPECT_FALSE(send.direct);
  EXPECT_EQ(send.distance, NetDistance::phb);
  EXPECT_EQ(send.reason, "GPU-NIC path PHB is beyond NCCL's default GDR level P2C");
  // NCCL_NET_GDR_LEVEL=PHB (the cluster's "phb") allows it.
  const GdrCheck phb = check_gdr(router, gpu, nic, true, GdrLevel::phb);
  EXPECT_TRUE(phb.direct);
  EXPECT_EQ(phb.reason, "GPU-NIC path PHB is within the cluster's GDR level PHB (gpudirect_rdma)");
  // The staged route crosses the same links here (the NIC sits on the GPU's own socket).
  const auto r = router.route(gpu, *c.find("node1/gpu0"));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->paths.size(), 1u);
  EXPECT_EQ(
      hops(c, r->paths[0]),
      (std::vector<std::string>{"node0/gpu0", "node0/sw0", "node0/cpu0", "node0/nic0", "leaf0",
                                "node1/nic0", "node1/cpu0", "node1/sw0", "node1/gpu0"}));
  EXPECT_EQ(r->staging_cpus.size(), 2u);
}

TEST_F(GpuDirect, TuringWithoutNvlinkSendsStagedReceivesDirect) {
  // Two T4s (no NVLink) under one switch with the NIC: PIX, but NCCL
  // disables GDR reads before Ampere without an NVLink peer.
  const std::string host = R"({"title": "2x T4", "nodes": [
    {"id": "gpu", "kind": "gpu", "count": 2, "model": "T4"},
    {"id": "sw0", "kind": "pcie_switch"},
    {"id": "cpu0", "kind": "cpu", "vendor": "intel"},
    {"id": "nic0", "kind": "nic", "port_bandwidth": "100 Gb/s"}],
  "links": [
    {"for": {"g": "0..1"}, "a": "gpu{g}", "b": "sw0", "kind": "pcie", "generation": 3},
    {"a": "nic0", "b": "sw0", "kind": "pcie", "generation": 3},
    {"a": "sw0", "b": "cpu0", "kind": "pcie", "generation": 3}]})";
  const Topology c = cluster(host, GdrLevel::automatic);
  const Router router(c);
  const NodeId gpu = *c.find("node0/gpu0");
  const NodeId nic = *c.find("node0/nic0");
  const GdrCheck send = check_gdr(router, gpu, nic, true, GdrLevel::automatic);
  EXPECT_FALSE(send.direct);
  EXPECT_EQ(send.reason,
            "T4 is older than Ampere and has no NVLink peer: NCCL does not let the "
            "NIC read its memory (NCCL_NET_GDR_READ's default)");
  EXPECT_TRUE(check_gdr(router, gpu, nic, false, GdrLevel::automatic).direct);
  const auto r = router.route(gpu, *c.find("node1/gpu0"));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->paths.size(), 1u);
  EXPECT_EQ(
      hops(c, r->paths[0]),
      (std::vector<std::string>{"node0/gpu0", "node0/sw0", "node0/cpu0", "node0/sw0", "node0/nic0",
                                "leaf0", "node1/nic0", "node1/sw0", "node1/gpu0"}));
  ASSERT_EQ(r->staging_cpus.size(), 1u);
  EXPECT_EQ(c.node(r->staging_cpus.front()).id, "node0/cpu0");
}

TEST_F(GpuDirect, C2cIsP2cAndDirectByDefault) {
  const Topology c = cluster(kC2cHost, GdrLevel::automatic);
  const Router router(c);
  const NodeId gpu = *c.find("node0/gpu0");
  const NodeId nic = *c.find("node0/nic0");
  EXPECT_EQ(net_distance(router, gpu, nic), NetDistance::p2c);
  EXPECT_TRUE(check_gdr(router, gpu, nic, true, GdrLevel::automatic).direct);
  // NCCL_NET_GDR_LEVEL=PXB (5) is below P2C (6).
  EXPECT_FALSE(check_gdr(router, gpu, nic, true, GdrLevel::pxb).direct);
}

// The file's field: "auto" by default, one of NCCL's levels or "off", else an error naming the
// file and the JSON path.
TEST_F(GpuDirect, ClusterFileStatesIt) {
  const std::string host = dir.write("h.json", testing::two_gpu_host_json());
  const auto load = [&](const std::string& fabric) {
    return load_topology(dir.write("c.json", testing::cluster_json(host, 2, fabric)));
  };
  EXPECT_EQ(load("{}").cluster->fabric.gpudirect_rdma, GdrLevel::automatic);
  const Topology off = load(R"({"gpudirect_rdma": "off"})");
  EXPECT_EQ(off.cluster->fabric.gpudirect_rdma, GdrLevel::off);
  // The fabric summary names a level other than NCCL's default.
  EXPECT_NE(describe_fabric(off, summarize_fabric(off))
                .find("Routing: NIC choice pxn, spine choice spread, GPUDirect RDMA off\n"),
            std::string::npos);
  const Topology automatic = load("{}");
  EXPECT_NE(describe_fabric(automatic, summarize_fabric(automatic))
                .find("Routing: NIC choice pxn, spine choice spread\n"),
            std::string::npos);
  EXPECT_EQ(load(R"({"gpudirect_rdma": "phb"})").cluster->fabric.gpudirect_rdma, GdrLevel::phb);
  try {
    load(R"({"gpudirect_rdma": "yes"})");
    FAIL() << "expected an error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              dir.path() +
                  "/c.json: at /cluster/fabric/gpudirect_rdma: unknown GPUDirect RDMA level "
                  "\"yes\"; expected one of auto, off, pix, pxb, phb, sys");
  }
}

}  // namespace
}  // namespace linksim::topo
