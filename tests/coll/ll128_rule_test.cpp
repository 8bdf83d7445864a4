// When NCCL allows LL128 (tuning.cc: SM70 or newer, NVLink inside the node, and across nodes a
// GPU-NIC path of at most PXB, or PXN on SM90 and newer): Communicator::ll128_enabled.
#include <gtest/gtest.h>

#include <string>

#include "sim/coll/communicator.hpp"
#include "sim/topo/cluster_builder.hpp"
#include "sim/topo/loader.hpp"
#include "sim/topo/shipped_topologies.hpp"
#include "tests/support/temp_files.hpp"

namespace linksim::coll {
namespace {

// Two GPUs of `model` joined by NVLink, both under one PCIe switch; the NIC on that switch
// (PIX from either GPU) or on the CPU's root complex (PHB).
std::string nvlink_pair_host(const std::string& model, int nvlink_generation, bool nic_on_switch) {
  return R"({"title": "NVLink pair", "nodes": [
    {"id": "gpu", "kind": "gpu", "count": 2, "model": ")" +
         model + R"("},
    {"id": "sw0", "kind": "pcie_switch"},
    {"id": "cpu0", "kind": "cpu", "vendor": "intel"},
    {"id": "nic0", "kind": "nic", "port_bandwidth": "100 Gb/s"}],
  "links": [
    {"a": "gpu0", "b": "gpu1", "kind": "nvlink", "generation": )" +
         std::to_string(nvlink_generation) + R"(, "lanes": 4},
    {"for": {"g": "0..1"}, "a": "gpu{g}", "b": "sw0", "kind": "pcie", "generation": 4},
    {"a": "sw0", "b": "cpu0", "kind": "pcie", "generation": 4},
    {"a": "nic0", "b": ")" +
         std::string(nic_on_switch ? "sw0" : "cpu0") + R"(", "kind": "pcie", "generation": 4}]})";
}

class Ll128Rule : public ::testing::Test {
 protected:
  testing::TempDir dir;

  bool ll128(const std::string& host_json, int hosts) {
    const topo::Topology host = topo::load_topology(dir.write("host.json", host_json));
    const topo::Topology t = hosts == 1 ? host : topo::build_cluster(host, hosts, {});
    const Communicator comm(t, t.nodes_of(topo::NodeKind::gpu));
    return comm.ll128_enabled();
  }
};

TEST_F(Ll128Rule, OneNodeNeedsOnlyNvlink) {
  // One node: typeInter stays PIX, so NVLink between the GPUs is enough, wherever the NIC is.
  EXPECT_TRUE(ll128(nvlink_pair_host("A100-SXM4-80GB", 3, false), 1));
}

TEST_F(Ll128Rule, AcrossNodesTheNicMustSitWithinPxb) {
  // A100 (SM80): NIC on the GPUs' switch is PIX <= PXB: on; on the CPU it is PHB > PXB: off.
  EXPECT_TRUE(ll128(nvlink_pair_host("A100-SXM4-80GB", 3, true), 2));
  EXPECT_FALSE(ll128(nvlink_pair_host("A100-SXM4-80GB", 3, false), 2));
}

TEST_F(Ll128Rule, HopperAllowsUpToPxnButNotPhb) {
  // H100 (SM90, NCCL_LL128_C2C=1): up to PXN is allowed, PHB still is not.
  EXPECT_TRUE(ll128(nvlink_pair_host("H100-SXM5-80GB", 4, true), 2));
  EXPECT_FALSE(ll128(nvlink_pair_host("H100-SXM5-80GB", 4, false), 2));
}

TEST_F(Ll128Rule, ShippedClustersKeepIt) {
  // p4de: each EFA adapter shares a PCIe switch with two GPUs (PIX): LL128 stays on.
  const topo::Topology t = topo::load_topology(topo::resolve_topology_path("aws-p4de-x2"));
  const Communicator comm(t, t.nodes_of(topo::NodeKind::gpu));
  EXPECT_EQ(comm.inter_distance(), topo::NetDistance::pix);
  EXPECT_TRUE(comm.ll128_enabled());
}

}  // namespace
}  // namespace linksim::coll
