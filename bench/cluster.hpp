#pragma once
// Capacity graphs for the benchmarks, built in code (no topology files): nodes of 8 GPUs on an
// NVSwitch, one NIC per GPU on PCIe, NICs on a non-blocking two-level fat-tree.

#include <cstdint>
#include <vector>

#include "sim/engine/simulation.hpp"

namespace linksim::bench {

struct Cluster {
  static constexpr int kGpusPerNode = 8;
  static constexpr int kNicsPerLeaf = 32;  // leaf: 32 ports down, 32 up (one per spine)
  static constexpr int kSpines = kNicsPerLeaf;
  static constexpr double kNvswitch_Bps = 450e9;  // H100 NVLink 4, per direction
  static constexpr double kPcie_Bps = 64e9;       // PCIe 5.0 x16, GPU <-> NIC
  static constexpr double kNic_Bps = 50e9;        // 400 Gb/s
  static constexpr double kFabric_Bps = 50e9;     // leaf <-> spine ports
  static constexpr double kNvlinkLatency_s = 1e-6;
  static constexpr double kNetworkLatency_s = 5e-6;

  explicit Cluster(int gpu_count);

  int gpus = 0;
  std::vector<double> capacity_Bps;  // by channel id

  // Channels from src to dst: NVSwitch inside a node; else GPU -> NIC -> leaf (-> spine ->
  // leaf) -> NIC -> GPU, the spine picked by the source NIC's port so that the fat-tree is
  // non-blocking for permutations.
  std::vector<engine::ChannelId> path(int src, int dst) const;
  double latency_s(int src, int dst) const;

 private:
  engine::ChannelId add(double bandwidth_Bps);
  std::vector<engine::ChannelId> to_switch_, from_switch_, gpu_to_nic_, nic_to_gpu_, nic_to_leaf_,
      leaf_to_nic_;
  std::vector<std::vector<engine::ChannelId>> leaf_to_spine_, spine_to_leaf_;
};

}  // namespace linksim::bench
