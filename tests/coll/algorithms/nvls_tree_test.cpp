// The NVLSTree plug-in (sim/coll/algorithms/nvls_tree.cpp): where NCCL enables it, and an
// all-reduce by hand on two nodes of two H100s behind one NVSwitch, each GPU with its own NIC.
#include <gtest/gtest.h>

#include "sim/coll/algorithm_registry.hpp"
#include "sim/coll/collective_sim.hpp"
#include "sim/coll/nccl_selection.hpp"
#include "sim/topo/cluster_builder.hpp"
#include "sim/topo/loader.hpp"
#include "tests/support/h100_nic_hosts.hpp"
#include "tests/support/temp_files.hpp"
#include "tests/support/two_gpu_host.hpp"

namespace linksim::coll {
namespace {

const CollectiveAlgorithm& nvls_tree() {
  return AlgorithmRegistry::builtin().get(*AlgorithmRegistry::builtin().find("NVLSTree"));
}

class NvlsTreeOnTwoNodes : public ::testing::Test {
 protected:
  testing::TempDir dir;
  topo::Topology host = topo::load_topology(dir.write("host.json", testing::nvswitch_nic_host()));
  topo::Topology cluster = topo::build_cluster(host, 2, topo::FabricSpec{});
  Communicator comm{cluster, cluster.nodes_of(topo::NodeKind::gpu)};
};

TEST_F(NvlsTreeOnTwoNodes, SimpleOnlyOnSixteenChannels) {
  Request r;
  r.size_bytes = 1e6;
  EXPECT_EQ(nvls_tree().why_ineligible(comm), std::nullopt);
  EXPECT_EQ(nvls_tree().protocols(comm, r), std::vector<Protocol>{Protocol::simple});
  EXPECT_EQ(nvls_tree().channels(comm, Protocol::simple, 1), 16);  // nvls.cc: 16 on SM90
  EXPECT_EQ(nvls_tree().base_latency_s(Protocol::simple), 0.0);
  EXPECT_DOUBLE_EQ(nvls_tree().hop_latency_s(Protocol::simple, HwClass::net), 20.9e-6);
}

TEST_F(NvlsTreeOnTwoNodes, AllReduceByHand) {
  Request r;
  r.op = Op::all_reduce;
  r.size_bytes = 1e9;
  const Outcome o =
      simulate_choice(comm, r, Choice{nvls_tree().id(), Protocol::simple, 16}, Granularity::steps);
  // H = 2 heads a node (both GPUs have a NIC). Two nodes: tree 0 has node 1 under node 0, its
  // mirror node 0 under node 1, so between each pair of heads both trees' edges carry
  // S / 2H = 250 MB each way: a head sends 2 x 250 MB = 500 MB through its NIC. Its cap:
  // perChMaxNVLSTreeBw (Hopper, 2 nodes) 57.7 GB/s x n / (2 (n - 1)) x edges / 2 = 57.7 x 4 /
  // 6 x 2 / 2 = 38.47 GB/s, under the NIC's 400 Gb/s x 0.96 = 48 GB/s: 500e6 / 38.47e9 = 13.0
  // ms.
  // NVLink: each GPU sends and receives S (1 + 1/H) = 1.5 GB at 450 x 0.958 GB/s, Simple's
  // 0.9338 and NVLS's 0.85: 4.38 ms, hidden under the network.
  // Latency: one NVLS step (25 us), then two tree hops (up, down) of 20.9 us plus the route's
  // 1.13 us (four PCIe hops of 0.25 us, one switch of 0.13 us).
  ASSERT_EQ(comm.rings().size(), 2u);
  EXPECT_NEAR(comm.route(2, 0).latency_s(), 1.13e-6, 1e-12);
  const double cap_Bps = 57.7e9 * 4 / 6;
  EXPECT_NEAR(o.time_s, 25e-6 + 2 * (20.9e-6 + 1.13e-6) + 500e6 / cap_Bps, 1e-10);
  // nccl-tests' busbw: algbw x 2 (n - 1) / n = 1e9 / t x 1.5; without latency that is 57.7 x
  // 2 = 115.4 GB/s, NCCL's own figure (nCh 2 x 57.7).
  EXPECT_GT(o.busbw_Bps, 113e9);
  EXPECT_LT(o.busbw_Bps, 115.4e9);
}

TEST(NvlsTreeAlgorithmTest, FourNodesByHand) {
  // NCCL's double binary tree over 4 nodes: tree 0 is 0 <- 2 <- {1, 3}, its mirror 3 <- 1 <-
  // {0, 2}. Nodes 1 and 2 are inner in one tree: 3 edges there and 1 in the other, 4 in all;
  // nodes 0 and 3 have 2. Each edge carries S / 2H = S / 4 each way, so an inner head sends
  // and receives S. Its cap, Hopper on 3+ nodes: 45.5 GB/s x n / (2 (n - 1)) x 4 / 2 = 45.5 x
  // 8 / 14 x 2 = 52 GB/s, above the NIC's 48: the NIC binds, S / 48 GB/s (the outer heads send
  // S / 2 under a cap of 26 GB/s: sooner). NVLink as on two nodes: 4.48 ms, hidden. Latency:
  // one NVLS step (25 us), then the depth of 2 up and back down, 4 hops of 20.9 + 1.13 us.
  testing::TempDir dir;
  const topo::Topology host =
      topo::load_topology(dir.write("host.json", testing::nvswitch_nic_host()));
  const topo::Topology cluster = topo::build_cluster(host, 4, topo::FabricSpec{});
  const Communicator comm(cluster, cluster.nodes_of(topo::NodeKind::gpu));
  Request r;
  r.op = Op::all_reduce;
  r.size_bytes = 1e9;
  const Outcome o =
      simulate_choice(comm, r, Choice{nvls_tree().id(), Protocol::simple, 16}, Granularity::steps);
  EXPECT_NEAR(o.time_s, 25e-6 + 4 * (20.9e-6 + 1.13e-6) + 1e9 / 48e9, 1e-10);
}

TEST_F(NvlsTreeOnTwoNodes, ACandidateUnlessNvlsIsDisabled) {
  Request r;
  r.op = Op::all_reduce;
  r.size_bytes = 1e9;
  auto offers = [&](const Request& req) {
    int found = 0;
    for (const Choice& c : candidate_choices(comm, req)) {
      if (c.algorithm == nvls_tree().id()) ++found;
    }
    return found;
  };
  EXPECT_EQ(offers(r), 1);  // Simple only
  // NCCL_NVLS_ENABLE=0 takes out every NVLS algorithm (nccl_selection.hpp).
  r.allowed_algorithms = without_nvls({});
  EXPECT_EQ(offers(r), 0);
}

TEST(NvlsTreeAlgorithmTest, IneligibleOnOneNodeAndWithoutNvlinkSharp) {
  const topo::Topology h100 = topo::load_topology("dgx-h100");
  const Communicator one(h100, h100.nodes_of(topo::NodeKind::gpu));
  EXPECT_EQ(nvls_tree().why_ineligible(one),
            "NVLSTree needs several nodes of NVSwitch hosts with NVLink 4 or later (Hopper or "
            "newer) and at least 2 NVLS heads (GPUs with their own NIC) per node; here: a single "
            "node (there NCCL runs NVLS)");
  testing::TempDir dir;
  const topo::Topology a100 =
      topo::load_topology(dir.write("host.json", linksim::testing::two_gpu_host_json()));
  const topo::Topology cluster = topo::build_cluster(a100, 2, topo::FabricSpec{});
  const Communicator two(cluster, cluster.nodes_of(topo::NodeKind::gpu));
  EXPECT_EQ(nvls_tree().why_ineligible(two),
            "NVLSTree needs several nodes of NVSwitch hosts with NVLink 4 or later (Hopper or "
            "newer) and at least 2 NVLS heads (GPUs with their own NIC) per node; here: no "
            "NVSwitch, NVLink 3, ampere GPUs have no NVLink SHARP");
}

}  // namespace
}  // namespace linksim::coll
