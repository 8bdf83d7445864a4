// Collectives across nodes (communicator.cpp's node rings, algorithms/tree.cpp's double binary
// trees) on two copies of a two-GPU host, where the NIC ports are the bottleneck.
#include <gtest/gtest.h>

#include "sim/coll/collective_sim.hpp"
#include "sim/coll/communicator.hpp"
#include "sim/topo/cluster_builder.hpp"
#include "sim/topo/loader.hpp"
#include "tests/support/simple_copy_share.hpp"
#include "tests/support/temp_files.hpp"
#include "tests/support/two_gpu_host.hpp"

namespace linksim::coll {
namespace {

class ClusterCollective : public ::testing::Test {
 protected:
  testing::TempDir dir;
  topo::Topology host = topo::load_topology(dir.write("host.json", testing::two_gpu_host_json()));
  topo::Topology cluster = topo::build_cluster(host, 2, topo::FabricSpec{});
  Communicator comm{cluster, cluster.nodes_of(topo::NodeKind::gpu)};

  Outcome run(Algorithm a, double bytes) {
    Request r;
    r.op = Op::all_reduce;
    r.size_bytes = bytes;
    r.algorithm = a;
    r.protocol = Protocol::simple;
    return simulate_collective(comm, r);
  }
};

TEST_F(ClusterCollective, OneRingPerGpuWithANicEachLeavingByItsRail) {
  EXPECT_EQ(comm.node_count(), 2);
  EXPECT_EQ(comm.ranks_per_node(), 2);
  ASSERT_EQ(comm.rings().size(), 2u);
  EXPECT_EQ(comm.rings()[0].order, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(comm.rings()[1].order, (std::vector<int>{1, 0, 3, 2}));
  // Each ring crosses each way once, through one NIC per host, each ring on its own NIC: a NIC
  // port carries half a ring step's bytes at 12 GB/s, so the two rings reach 2 x 12 = 24 GB/s.
  EXPECT_DOUBLE_EQ(comm.ring_bus_bandwidth_Bps(), 24e9);
  EXPECT_EQ(comm.intra_class(), HwClass::nvlink);
}

TEST_F(ClusterCollective, RingAllReduceRunsAtTheNicPorts) {
  // 1 GiB, Simple (a payload share of 1 on the network): busbw -> 24 GB/s, less the slices'
  // synchronisation: each ring's slice is 1 MiB per channel, 2 MiB for its 2 channels, 175 us
  // at 12 GB/s, then 3.5 us: 24 x 175 / 178.5 = 23.5 GB/s, less fill and drain.
  const Outcome o = run(Algorithm::ring, 1073741824.0);
  EXPECT_LT(o.busbw_Bps, 24e9 * 175 / 178.5);
  EXPECT_GT(o.busbw_Bps, 24e9 * 0.95);
}

TEST_F(ClusterCollective, TreeAllReduceMovesHalfTheRingsNetworkBytes) {
  // Each channel (one per ring, headed by the GPU its NIC serves) sends S/4 per tree each way
  // between the two heads, two trees: S/2 per NIC per direction, t = S / 2 / 12 GB/s, so
  // algbw = 24 GB/s and busbw = 24 x 2 (n - 1) / n = 24 x 1.5 = 36 GB/s, less the slices'
  // synchronisation: each direction of a NIC port carries two trees' streams (one tree's sums
  // up, the other's results down), 6 GB/s each, in 512 KiB slices (one Simple step), 87.38 us
  // each, then 3.5 us (kSimpleSliceSyncS): 36 x 87.38 / 90.88 = 34.61 GB/s, less the fill.
  const double slice_s = 524288.0 / 6e9;
  const double steady_Bps = 36e9 * slice_s / (slice_s + ::linksim::testing::kSimpleSliceSyncS);
  const Outcome o = run(Algorithm::tree, 1073741824.0);
  EXPECT_LT(o.busbw_Bps, steady_Bps);
  EXPECT_GT(o.busbw_Bps, steady_Bps * 0.99);
}

TEST_F(ClusterCollective, NvlsIsIneligibleAcrossNodes) {
  Request r;
  r.op = Op::all_reduce;
  r.size_bytes = 1 << 20;
  r.algorithm = Algorithm::nvls;
  std::string why;
  EXPECT_TRUE(candidate_choices(comm, r, &why).empty());
  EXPECT_NE(why.find("2 nodes (across nodes NVLS needs NVLSTree)"), std::string::npos) << why;
}

TEST(RingAcrossNodes, TheProxyHidesTheNicLatencyBehindItsSlots) {
  // NCCL's proxy keeps up to NCCL_STEPS chunks of a ring's network hop on the wire, so the
  // sending CTA does not wait out the NIC's latency slice by slice. On the fixture's cluster
  // (2 hosts x 2 GPUs, 12 GB/s a NIC) with 100 us NICs instead of 1 us: each channel's 1 MiB
  // slice takes 175 us on its NIC and has 4 slices of room (Ring/Simple all-reduce), 700 us,
  // more than a slice's round trip (175 + 3.5 + 14 us NET Simple step + about 200 us of NIC
  // latency: about 393 us), so the NICs stay busy and only the fill grows: 3 network
  // crossings on a slice's 6-step path, 3 x 198 us = 0.6 ms on 1 GiB's 67 ms (busbw about
  // 24 GB/s). Paid slice by slice, the latency would halve it (175 us of 375).
  testing::TempDir dir;
  const topo::Topology host =
      topo::load_topology(dir.write("host.json", testing::two_gpu_host_json()));
  auto busbw = [&](double nic_latency_s) {
    topo::FabricSpec fabric;
    fabric.nic_latency_s = nic_latency_s;
    const topo::Topology cluster = topo::build_cluster(host, 2, fabric);
    const Communicator comm(cluster, cluster.nodes_of(topo::NodeKind::gpu));
    Request r;
    r.op = Op::all_reduce;
    r.size_bytes = 1073741824.0;
    r.algorithm = Algorithm::ring;
    r.protocol = Protocol::simple;
    return simulate_collective(comm, r).busbw_Bps;
  };
  const double near_Bps = busbw(1e-6);
  const double far_Bps = busbw(100e-6);
  EXPECT_LT(far_Bps, near_Bps);
  EXPECT_GT(far_Bps, 0.98 * near_Bps);
}

}  // namespace
}  // namespace linksim::coll
