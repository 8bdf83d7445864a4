#include "sim/coll/p2p_channels.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <vector>

#include "sim/coll/communicator.hpp"

namespace linksim::coll {
namespace {

int pow2_up(int x) {
  int p = 1;
  while (p < x)
    p *= 2;
  return p;
}

int div_up(double a, double b) {
  return static_cast<int>(std::ceil(a / b - 1e-12));
}

}  // namespace

int remote_peer_channels(std::span<const double> local_nic_GBps, double gpu_pcie_GBps) {
  // ncclTopoGetLocalNetCountByBw: NICs are counted until their bandwidth reaches the GPU's.
  int count = 0;
  double total_GBps = 0;
  for (double nic_GBps : local_nic_GBps) {
    total_GBps += nic_GBps;
    ++count;
    if (total_GBps >= gpu_pcie_GBps) break;
  }
  if (count == 0) return 2;
  // paths.cc: std::max(netCount, divUp((int)netBw, (int)ncclParamP2pPerChannelNetBw())).
  const int bw_channels = div_up(std::floor(total_GBps), kP2pPerChannelNetBw_GBps);
  return std::max(count, bw_channels);
}

int local_peer_channels(int nvlink_count) {
  // 2 * std::max(1, (int)(path->bw / nvlBw)): a path's bandwidth is its NVLink count x the
  // per-link figure, so the quotient is the count.
  return nvlink_count > 0 ? 2 * std::max(1, nvlink_count) : 2;
}

double nccl_pcie_x16_GBps(int generation) {
  constexpr std::array<double, 5> kPerLane_100Mbps = {15, 30, 60, 120, 240};
  const int row = std::clamp(generation, 1, static_cast<int>(kPerLane_100Mbps.size())) - 1;
  return 16 * kPerLane_100Mbps[static_cast<std::size_t>(row)] / 80.0;
}

P2pChannels p2p_channels(int min_peer_channels, int comm_channels, int ranks, int nodes) {
  P2pChannels c;
  c.total = pow2_up(std::clamp(comm_channels, 1, kMaxP2pChannels));
  c.per_peer = pow2_up(std::max(1, min_peer_channels));
  if (nodes > 1) {
    const int rounds = div_up(ranks, kMaxDevWorkP2pPerBatch);
    while (c.per_peer * rounds > c.total && c.per_peer > 1)
      c.per_peer /= 2;
  } else {
    c.per_peer = std::min(c.per_peer, c.total);
  }
  return c;
}

int p2p_send_channels(double bytes, const P2pChannels& channels, int ranks,
                      double net_chunk_bytes) {
  int min_channels = channels.per_peer;
  while (min_channels * ranks > channels.total && min_channels > 1)
    min_channels /= 2;
  if (bytes <= 0) return 1;
  // addP2pToPlan across nodes: parts of at least half a chunk, at most one chunk.
  const double min_part_bytes = net_chunk_bytes / 2;
  const double max_part_bytes = net_chunk_bytes;
  int n = std::min(min_channels, div_up(bytes, min_part_bytes));
  double part_bytes = std::max(min_part_bytes, std::ceil(bytes / n));
  while (part_bytes > max_part_bytes && n <= channels.per_peer / 2) {
    n *= 2;
    part_bytes = std::ceil(bytes / n);
  }
  return n;
}

double p2p_net_chunk_bytes(double bytes, Protocol p, double net_chunk_bytes) {
  if (p == Protocol::simple) {
    if (bytes < net_chunk_bytes) return net_chunk_bytes / 4;
    if (bytes < 8 * net_chunk_bytes) return net_chunk_bytes / 2;
    return net_chunk_bytes;
  }
  // LL's buffer is 8 lines x 512 threads x NCCL_STEPS x 16 B (init.cc DEFAULT_LL_BUFFSIZE): a
  // 64 KiB step, halved under 8 steps for the network, and half of it is flags.
  constexpr double kLlStep_bytes = 64 * 1024;
  const double step_bytes = bytes < 8 * kLlStep_bytes ? kLlStep_bytes / 2 : kLlStep_bytes;
  return step_bytes / 2;
}

P2pChannels p2p_channels(const Communicator& comm) {
  const topo::Topology& t = comm.topology();
  const topo::Router& router = comm.router();
  const int n = comm.size();
  std::map<int, std::vector<int>> ranks_on_host;
  for (int r = 0; r < n; ++r)
    ranks_on_host[comm.host(r)].push_back(r);
  const bool has_remote = ranks_on_host.size() > 1;
  int least = kMaxP2pChannels;
  for (int r = 0; r < n; ++r) {
    const topo::NodeId g = comm.gpu(r);
    for (int peer : ranks_on_host[comm.host(r)]) {
      if (peer == r) continue;
      const topo::NodeId other = comm.gpu(peer);
      const bool nvlink = router.path_class(g, other) == topo::PathClass::nvlink;
      least = std::min(least, local_peer_channels(nvlink ? router.nvlink_count(g, other) : 0));
    }
    if (!has_remote) continue;
    const topo::Node& gpu = t.node(g);
    const double pcie_GBps = nccl_pcie_x16_GBps(gpu.gpu ? gpu.gpu->pcie_generation : 4);
    std::vector<double> nic_GBps;
    for (topo::NodeId nic : router.nearest_nics(g)) {
      const auto& info = t.node(nic).nic;
      const double port_GBps = info ? info->port_bandwidth_Bps / 1e9 : 0;
      // The path's slowest link: the NIC port, or the GPU's PCIe link before it.
      nic_GBps.push_back(std::min(port_GBps, pcie_GBps));
    }
    least = std::min(least, remote_peer_channels(nic_GBps, pcie_GBps));
  }
  return p2p_channels(least, comm.max_channels(), n, comm.node_count());
}

}  // namespace linksim::coll
