#include "bench/cluster.hpp"

namespace linksim::bench {

engine::ChannelId Cluster::add(double bandwidth_Bps) {
  capacity_Bps.push_back(bandwidth_Bps);
  return static_cast<engine::ChannelId>(capacity_Bps.size() - 1);
}

Cluster::Cluster(int gpu_count) : gpus(gpu_count) {
  for (int g = 0; g < gpus; ++g) {
    to_switch_.push_back(add(kNvswitch_Bps));
    from_switch_.push_back(add(kNvswitch_Bps));
    gpu_to_nic_.push_back(add(kPcie_Bps));
    nic_to_gpu_.push_back(add(kPcie_Bps));
    nic_to_leaf_.push_back(add(kNic_Bps));
    leaf_to_nic_.push_back(add(kNic_Bps));
  }
  const int leaves = (gpus + kNicsPerLeaf - 1) / kNicsPerLeaf;
  leaf_to_spine_.resize(static_cast<std::size_t>(leaves));
  spine_to_leaf_.resize(kSpines);
  for (int l = 0; l < leaves; ++l) {
    for (int s = 0; s < kSpines; ++s) {
      leaf_to_spine_[static_cast<std::size_t>(l)].push_back(add(kFabric_Bps));
      spine_to_leaf_[static_cast<std::size_t>(s)].push_back(add(kFabric_Bps));
    }
  }
}

std::vector<engine::ChannelId> Cluster::path(int src, int dst) const {
  const auto s = static_cast<std::size_t>(src);
  const auto d = static_cast<std::size_t>(dst);
  if (src / kGpusPerNode == dst / kGpusPerNode) return {to_switch_[s], from_switch_[d]};
  std::vector<engine::ChannelId> p{gpu_to_nic_[s], nic_to_leaf_[s]};
  const auto leaf_s = s / kNicsPerLeaf;
  const auto leaf_d = d / kNicsPerLeaf;
  if (leaf_s != leaf_d) {
    const auto spine = s % kNicsPerLeaf;
    p.push_back(leaf_to_spine_[leaf_s][spine]);
    p.push_back(spine_to_leaf_[spine][leaf_d]);
  }
  p.push_back(leaf_to_nic_[d]);
  p.push_back(nic_to_gpu_[d]);
  return p;
}

double Cluster::latency_s(int src, int dst) const {
  return src / kGpusPerNode == dst / kGpusPerNode ? kNvlinkLatency_s : kNetworkLatency_s;
}

}  // namespace linksim::bench
