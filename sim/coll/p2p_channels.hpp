#pragma once
// How many channels NCCL gives a point-to-point send, and how it cuts the send into chunks,
// when a communicator spans several nodes. Every rule and constant is NCCL's, read at
// NVIDIA/nccl 5067397c2676d5aed50042fc39e5c8ee96eb0027:
// - per peer (src/graph/paths.cc ncclTopoGetNchannels): a peer on another node gets
//   max(NIC count, ceil(NIC GB/s / NCCL_P2P_PER_CHANNEL_NET_BW = 14)) channels, counting the
//   GPU's local NICs until their bandwidth reaches the GPU's own PCIe bandwidth
//   (src/graph/topo.cc ncclTopoGetLocalNetCountByBw); a peer over NVLink 2 x its NVLink count;
//   a peer over PCIe 2. A rank's p2pnChannelsPerPeer is the least over all its peers
//   (ncclTopoComputeP2pChannelsPerPeer);
// - per communicator (ncclTopoComputeP2pChannels): p2pnChannels is the collective channel
//   count rounded up to a power of two, the per-peer count too; across nodes the per-peer count
//   halves while per_peer x ceil(ranks / NCCL_MAX_DEV_WORK_P2P_PER_BATCH = 8) > p2pnChannels;
// - per send (src/enqueue.cc scheduleP2pTasksToPlan and addP2pToPlan): a send starts on
//   nChannelsMin channels (per_peer halved while x ranks > p2pnChannels), at most one per half
//   chunk (64 KiB by default), and doubles while a channel would carry more than one chunk, up
//   to per_peer;
// - chunks (src/init.cc computeBuffSizes, enqueue.cc addP2pToPlan): NCCL_P2P_NET_CHUNKSIZE
//   (128 KiB by default; a cluster's network plugin may set it, Communicator::
//   p2p_net_chunk_bytes) for Simple on several nodes, a quarter of it for a send under one chunk
//   and half under 8; LL carries 16 KiB of payload per step (its 64 KiB step halved for the
//   network and halved again for the flags). Each channel has NCCL_STEPS = 8 chunks in flight.
//
// Left as NCCL's defaults: NCCL_NCHANNELS_PER_NET_PEER, the ARM + Blackwell doubling of the
// chunk (GB200 hosts), and NCCL_MAX_P2P_NCHANNELS (64).

#include <span>

#include "sim/coll/protocol.hpp"

namespace linksim::coll {

class Communicator;

inline constexpr double kP2pPerChannelNetBw_GBps = 14;  // paths.cc NCCL_P2P_PER_CHANNEL_NET_BW
inline constexpr int kMaxDevWorkP2pPerBatch = 8;        // device.h NCCL_MAX_DEV_WORK_P2P_PER_BATCH
inline constexpr int kMaxP2pChannels = 64;              // device.h MAXCHANNELS
inline constexpr double kP2pNetChunk_bytes = 128 * 1024;  // init.cc NCCL_P2P_NET_CHUNKSIZE

// ncclTopoGetNchannels for a peer on another node: `local_nic_GBps` the bandwidth NCCL sees to
// each of the GPU's local NICs (GB/s, NCCL's 1e9 bytes; the path's slowest link), in the order
// it tries them; `gpu_pcie_GBps` the GPU's own PCIe bandwidth as NCCL reckons it. 2 without NICs.
int remote_peer_channels(std::span<const double> local_nic_GBps, double gpu_pcie_GBps);

// ncclTopoGetNchannels for a peer on the same node: 2 x the NVLink count between the two
// (NVLink or NVB paths), 2 over PCIe (`nvlink_count` 0).
int local_peer_channels(int nvlink_count);

// NCCL's PCIe bandwidth for a x16 link of PCIe generation `generation`, GB/s: width x the
// per-lane figure of topo.cc's kvDictPciGen (15, 30, 60, 120, 240 in 100 Mb/s) / 80. A
// generation past the table's (PCIe 6) takes its last row.
double nccl_pcie_x16_GBps(int generation);

struct P2pChannels {
  int per_peer = 1;  // p2pnChannelsPerPeer
  int total = 1;     // p2pnChannels
};

// ncclTopoComputeP2pChannels: from the least per-peer count over a rank's peers
// (`min_peer_channels`), the communicator's collective channels (`comm_channels`, its
// nChannels), its rank count and node count.
P2pChannels p2p_channels(int min_peer_channels, int comm_channels, int ranks, int nodes);

// The channels one send of `bytes` runs on (enqueue.cc), on a communicator of `ranks` over
// several nodes whose p2p chunk is `net_chunk_bytes` (parts of half a chunk to one chunk).
int p2p_send_channels(double bytes, const P2pChannels& channels, int ranks,
                      double net_chunk_bytes = kP2pNetChunk_bytes);

// Payload one channel moves per step for a send of `bytes` to a peer, on several nodes whose
// Simple p2p chunk is `net_chunk_bytes`.
double p2p_net_chunk_bytes(double bytes, Protocol p, double net_chunk_bytes = kP2pNetChunk_bytes);

// The communicator's p2p channels: the per-peer rule for every rank over its peers (the
// ranks on its node one by one, those on other nodes by its NICs), the least over ranks.
P2pChannels p2p_channels(const Communicator& comm);

}  // namespace linksim::coll
