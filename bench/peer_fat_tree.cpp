#include "bench/peer_fat_tree.hpp"

namespace linksim::bench {

engine::ChannelId PeerFatTree::add(double bandwidth_Bps) {
  capacity_Bps.push_back(bandwidth_Bps);
  return static_cast<engine::ChannelId>(capacity_Bps.size() - 1);
}

PeerFatTree::PeerFatTree(int gpu_count) : gpus(gpu_count) {
  for (int g = 0; g < gpus; ++g) {
    nvl_up_.push_back(add(kNvlink_Bps));
    nvl_down_.push_back(add(kNvlink_Bps));
    nic_up_.push_back(add(kNic_Bps));
    nic_down_.push_back(add(kNic_Bps));
  }
  const int leaves = (gpus + kLeafNics - 1) / kLeafNics;
  for (int l = 0; l < leaves; ++l) {
    uplink_up_.push_back(add(kLeafNics * kNic_Bps));
    uplink_down_.push_back(add(kLeafNics * kNic_Bps));
  }
}

std::vector<engine::ChannelId> PeerFatTree::path(int src, int dst) const {
  const auto s = static_cast<std::size_t>(src);
  const auto d = static_cast<std::size_t>(dst);
  if (same_node(src, dst)) return {nvl_up_[s], nvl_down_[d]};
  if (same_leaf(src, dst)) return {nic_up_[s], nic_down_[d]};
  return {nic_up_[s], uplink_up_[s / kLeafNics], uplink_down_[d / kLeafNics], nic_down_[d]};
}

double PeerFatTree::latency_s(int src, int dst) const {
  const int links = same_node(src, dst) || same_leaf(src, dst) ? 2 : 4;
  return links * kLinkLatency_s;
}

}  // namespace linksim::bench
