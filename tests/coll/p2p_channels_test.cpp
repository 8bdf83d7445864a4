// NCCL's p2p channel rule (sim/coll/p2p_channels.*), worked by hand from NVIDIA/nccl @ 5067397c:
// src/graph/paths.cc ncclTopoGetNchannels and ncclTopoComputeP2pChannels, src/graph/topo.cc
// ncclTopoGetLocalNetCountByBw, src/enqueue.cc addP2pToPlan and scheduleP2pTasksToPlan.
#include "sim/coll/p2p_channels.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "sim/coll/communicator.hpp"
#include "sim/topo/cluster_builder.hpp"
#include "sim/topo/loader.hpp"

namespace linksim::coll {
namespace {

TEST(P2pChannels, NcclPcieBandwidthIsWidthTimesLaneFigureOver80) {
  // x16: 16 x 120 / 80 = 24 GB/s for PCIe 4, 16 x 240 / 80 = 48 GB/s for PCIe 5; PCIe 6 is
  // past kvDictPciGen and takes its last row, 48.
  EXPECT_DOUBLE_EQ(nccl_pcie_x16_GBps(4), 24.0);
  EXPECT_DOUBLE_EQ(nccl_pcie_x16_GBps(5), 48.0);
  EXPECT_DOUBLE_EQ(nccl_pcie_x16_GBps(6), 48.0);
  EXPECT_DOUBLE_EQ(nccl_pcie_x16_GBps(3), 12.0);
}

TEST(P2pChannels, RemotePeerCountsNicsUpToTheGpusBandwidthThen14GBPerChannel) {
  // p4d: one 100 Gb/s EFA (12.5 GB/s) behind the GPU's PCIe 4 switch (24 GB/s): 1 NIC, and
  // divUp((int)12.5 = 12, 14) = 1: max(1, 1) = 1.
  const std::vector<double> p4d = {12.5};
  EXPECT_EQ(remote_peer_channels(p4d, 24.0), 1);
  // DGX H100: one 400 Gb/s NDR port (50 GB/s), the path's slowest link the GPU's PCIe 5
  // (48 GB/s): 48 >= 48 stops at 1 NIC; divUp(48, 14) = 4: max(1, 4) = 4.
  const std::vector<double> dgx = {48.0};
  EXPECT_EQ(remote_peer_channels(dgx, 48.0), 4);
  // p5 as NCCL sees it through aws-ofi-nccl, four 100 Gb/s EFA per GPU: 12.5, 25, 37.5, 50
  // >= 48 stops at 4 NICs of 50 GB/s: max(4, divUp(50, 14) = 4) = 4, the same as our files'
  // one 400 Gb/s NIC per GPU (the DGX H100 case above).
  const std::vector<double> p5 = {12.5, 12.5, 12.5, 12.5, 12.5};
  EXPECT_EQ(remote_peer_channels(p5, 48.0), 4);
  // No NIC: NCCL's default of 2.
  EXPECT_EQ(remote_peer_channels({}, 24.0), 2);
  // Two 200 Gb/s NICs (25 GB/s each) for a PCIe 5 GPU: 25 < 48, 50 >= 48: 2 NICs, 50 GB/s,
  // divUp(50, 14) = 4: max(2, 4) = 4.
  const std::vector<double> two = {25.0, 25.0};
  EXPECT_EQ(remote_peer_channels(two, 48.0), 4);
}

TEST(P2pChannels, LocalPeerGetsTwoPerNvlinkOrTwoOverPcie) {
  // 2 x max(1, NVLink count): A100 NV12 24, H100 NV18 36, one link 2; PCIe 2.
  EXPECT_EQ(local_peer_channels(12), 24);
  EXPECT_EQ(local_peer_channels(18), 36);
  EXPECT_EQ(local_peer_channels(1), 2);
  EXPECT_EQ(local_peer_channels(0), 2);
}

TEST(P2pChannels, PerPeerHalvesUntilEveryPeerFitsOneRound) {
  // 4 per peer, 32 channels, 16 ranks on 2 nodes: 4 x divUp(16, 8) = 8 <= 32, stays 4.
  EXPECT_EQ(p2p_channels(4, 32, 16, 2).per_peer, 4);
  EXPECT_EQ(p2p_channels(4, 32, 16, 2).total, 32);
  // 64 ranks on 8 nodes: 4 x 8 = 32 <= 32, stays 4; with 16 channels 32 > 16 halves to 2.
  EXPECT_EQ(p2p_channels(4, 32, 64, 8).per_peer, 4);
  EXPECT_EQ(p2p_channels(4, 16, 64, 8).per_peer, 2);
  // 1024 ranks: 4 x 128 > 32, 2 x 128 > 32, 1: the floor.
  EXPECT_EQ(p2p_channels(4, 32, 1024, 128).per_peer, 1);
  // Powers of two: 3 per peer -> 4, 24 channels -> 32.
  EXPECT_EQ(p2p_channels(3, 24, 16, 2).per_peer, 4);
  EXPECT_EQ(p2p_channels(3, 24, 16, 2).total, 32);
  // One node: the per-peer count is only capped by the channels: min(pow2Up(24) = 32, 16).
  EXPECT_EQ(p2p_channels(24, 16, 8, 1).per_peer, 16);
}

TEST(P2pChannels, SendStartsOnHalfChunkPartsAndDoublesPastOneChunk) {
  const P2pChannels c{4, 32};
  // 16 ranks: nChannelsMin 4 x 16 = 64 > 32 -> 2 (2 x 16 = 32).
  // 16 KiB: min(2, divUp(16K, 64K) = 1) = 1; part max(64K, 16K) = 64K <= 128K: 1.
  EXPECT_EQ(p2p_send_channels(16 * 1024, c, 16), 1);
  // 200 KiB: min(2, 4) = 2, part 100K <= 128K: 2.
  EXPECT_EQ(p2p_send_channels(200 * 1024, c, 16), 2);
  // 1 MiB: 2, part 512K > 128K -> 4 (4 <= 4 / 2? no more): 4.
  EXPECT_EQ(p2p_send_channels(1024 * 1024, c, 16), 4);
  // 64 ranks: nChannelsMin 4 -> 2 -> 1 (1 x 64 > 32 stops at the floor); 1 MiB: 1, part 1M
  // -> 2 (512K) -> 4 (256K), then 4 > 4 / 2: 4.
  EXPECT_EQ(p2p_send_channels(1024 * 1024, c, 64), 4);
  // 100 KiB on 64 ranks: 1, part 100K <= 128K: 1.
  EXPECT_EQ(p2p_send_channels(100 * 1024, c, 64), 1);
  // A 512 KiB chunk (a plugin's NCCL_P2P_NET_CHUNKSIZE): parts of 256K to 512K. 1 MiB on 16
  // ranks: min(2, divUp(1M, 256K) = 4) = 2, part 512K <= 512K: 2 (4 with NCCL's 128 KiB).
  EXPECT_EQ(p2p_send_channels(1024 * 1024, c, 16, 512 * 1024), 2);
  // 4 MiB: 2, part 2M > 512K -> 4 (1M), then 4 > 4 / 2 stops: 4.
  EXPECT_EQ(p2p_send_channels(4 * 1024 * 1024, c, 16, 512 * 1024), 4);
}

TEST(P2pChannels, NetChunkIsAQuarterUnderOneChunkAndHalfUnderEight) {
  // Simple: 128 KiB; under 128 KiB a quarter (32 KiB), under 1 MiB half (64 KiB).
  EXPECT_DOUBLE_EQ(p2p_net_chunk_bytes(64 * 1024, Protocol::simple), 32 * 1024);
  EXPECT_DOUBLE_EQ(p2p_net_chunk_bytes(512 * 1024, Protocol::simple), 64 * 1024);
  EXPECT_DOUBLE_EQ(p2p_net_chunk_bytes(1024 * 1024, Protocol::simple), 128 * 1024);
  // LL: the 64 KiB step halved (under 512 KiB), half of it payload: 16 KiB.
  EXPECT_DOUBLE_EQ(p2p_net_chunk_bytes(8 * 1024, Protocol::ll), 16 * 1024);
  // A plugin's 512 KiB chunk (aws-ofi-nccl on p4d): a quarter (128 KiB) under 512 KiB, half
  // (256 KiB) under 4 MiB, then whole; LL keeps its own step.
  constexpr double kPlugin = 512 * 1024;
  EXPECT_DOUBLE_EQ(p2p_net_chunk_bytes(256 * 1024, Protocol::simple, kPlugin), 128 * 1024);
  EXPECT_DOUBLE_EQ(p2p_net_chunk_bytes(1024 * 1024, Protocol::simple, kPlugin), 256 * 1024);
  EXPECT_DOUBLE_EQ(p2p_net_chunk_bytes(4 * 1024 * 1024, Protocol::simple, kPlugin), 512 * 1024);
  EXPECT_DOUBLE_EQ(p2p_net_chunk_bytes(8 * 1024, Protocol::ll, kPlugin), 16 * 1024);
}

P2pChannels of_cluster(const char* host_name, int nodes, int* comm_channels) {
  const topo::Topology host = topo::load_topology(host_name);
  const topo::Topology cluster = topo::build_cluster(host, nodes, topo::FabricSpec{});
  const Communicator comm(cluster, cluster.nodes_of(topo::NodeKind::gpu));
  *comm_channels = comm.max_channels();
  return p2p_channels(comm);
}

TEST(P2pChannels, ShippedMachinesOnTwoAndEightNodes) {
  int channels = 0;
  // p4d: remote 1 (one 12.5 GB/s EFA per GPU pair, above), local NV12 24: min 1, 1.
  EXPECT_EQ(of_cluster("aws-p4d.24xlarge", 2, &channels).per_peer, 1);
  EXPECT_EQ(of_cluster("aws-p4d.24xlarge", 8, &channels).per_peer, 1);
  // DGX H100: remote 4, local NV18 36: min 4; the communicator's channels: NCCL's search
  // across nodes, 8 x 45 GB/s within each GPU's NVLinks, run twice (NcclChannelSearch):
  const P2pChannels dgx2 = of_cluster("dgx-h100", 2, &channels);
  EXPECT_EQ(channels, 16);
  // 16 ranks: 4 x 2 = 8 <= 16: 4. 64 ranks: 4 x 8 = 32 > 16 halves to 2 (2 x 8 = 16).
  EXPECT_EQ(dgx2.per_peer, 4);
  EXPECT_EQ(dgx2.total, 16);
  EXPECT_EQ(of_cluster("dgx-h100", 8, &channels).per_peer, 2);
  // p5 (the files' 8 x 400 Gb/s): as DGX H100, 4 on 2 nodes and 2 on 8.
  EXPECT_EQ(of_cluster("aws-p5.48xlarge", 2, &channels).per_peer, 4);
  EXPECT_EQ(of_cluster("aws-p5.48xlarge", 8, &channels).per_peer, 2);
}

}  // namespace
}  // namespace linksim::coll
