#pragma once
// The SimGrid peer's fat-tree platform (../shared/peers/simgrid/, ring_allreduce.cpp,
// build_fattree), channel for channel, so that linksim and the peer simulate the same system:
// nodes of 8 GPUs, each GPU with a full-duplex NVLink (b_nvl) to its node's non-blocking NVSwitch
// and one NIC port (b_nic) that stands for GPU -> NIC -> leaf; a leaf serves leaf_nics NICs and
// has one full-duplex uplink of leaf_nics x b_nic to a non-blocking spine. Every link has
// latency L and a route's latency is the sum over its links:
//   same node:        nvl_i up, nvl_j down                       (2L)
//   same leaf:        nic_i up, nic_j down                       (2L)
//   different leaves: nic_i up, uplink_a up, uplink_b down, nic_j down   (4L)

#include <vector>

#include "sim/engine/simulation.hpp"

namespace linksim::bench {

struct PeerFatTree {
  static constexpr int kGpusPerNode = 8;
  // The peer's defaults for the fattree platform (README there).
  static constexpr int kLeafNics = 32;
  static constexpr double kNvlink_Bps = 450e9;
  static constexpr double kNic_Bps = 50e9;
  static constexpr double kLinkLatency_s = 1e-6;

  explicit PeerFatTree(int gpu_count);

  int gpus = 0;
  std::vector<double> capacity_Bps;  // by channel id

  std::vector<engine::ChannelId> path(int src, int dst) const;
  double latency_s(int src, int dst) const;

 private:
  engine::ChannelId add(double bandwidth_Bps);
  bool same_node(int a, int b) const { return a / kGpusPerNode == b / kGpusPerNode; }
  bool same_leaf(int a, int b) const { return a / kLeafNics == b / kLeafNics; }
  std::vector<engine::ChannelId> nvl_up_, nvl_down_, nic_up_, nic_down_, uplink_up_, uplink_down_;
};

}  // namespace linksim::bench
