#include "sim/coll/nccl_net_device.hpp"

#include <algorithm>

namespace linksim::coll {

NcclNetDevice nccl_net_device(topo::FabricKind kind) {
  return kind == topo::FabricKind::tcpx ? NcclNetDevice::unpack : NcclNetDevice::host;
}

int nccl_unpack_doubled_channels(int channels, NcclNetDevice device, int max_channels) {
  // connect.cc: netDeviceType == NCCL_NET_DEVICE_UNPACK && nNodes > 1 && nChannels < 16.
  constexpr int kDoubleBelowChannels = 16;
  if (device != NcclNetDevice::unpack || channels >= kDoubleBelowChannels) {
    return channels;
  }
  return std::min(max_channels, 2 * channels);
}

}  // namespace linksim::coll
