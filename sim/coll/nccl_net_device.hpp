#pragma once
// The network device type a fabric's NCCL plugin reports (ncclNetProperties_t.netDeviceType),
// and what NCCL does with it when it sizes a communicator: connect.cc (ncclTopoPostset, at
// NVIDIA/nccl 5067397c) doubles the channels of a communicator on several nodes whose network
// device is UNPACK (the receiver's GPU unpacks the payload the NIC scattered in pages), while
// it runs fewer than 16, unless NCCL_UNPACK_DOUBLE_NCHANNELS=0 ("We won't automatically double
// past 16 channels").

#include "sim/topo/fabric.hpp"

namespace linksim::coll {

enum class NcclNetDevice { host, unpack };

// Google's GPUDirect-TCPX plugin reports UNPACK (google/nccl-plugin-gpudirecttcpx
// src/net_tcpx.cc, tcpxGetProperties at 4b8ea7f: props->netDeviceType = DEV_UNPACK); its
// successor GPUDirect-TCPXO reports HOST (google/nccl-plugin-gpudirect-tcpxo
// tcpdirect_plugin/fastrak_offload/nccl_shim.cc at 04815d1, v1.0.17), as do aws-ofi-nccl and
// NCCL's own InfiniBand and socket transports.
NcclNetDevice nccl_net_device(topo::FabricKind kind);

// The channels a communicator on several nodes runs after connect.cc's unpack doubling, from
// the `channels` it ran before it (at most `max_channels`). nccl_inter_ring_search applies it.
int nccl_unpack_doubled_channels(int channels, NcclNetDevice device, int max_channels);

}  // namespace linksim::coll
