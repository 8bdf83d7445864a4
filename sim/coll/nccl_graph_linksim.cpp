#include "sim/coll/nccl_graph_linksim.hpp"

#include <algorithm>
#include <stdexcept>

namespace linksim::coll {

NcclPathType nccl_path_type_between(const Communicator& comm, int from, int to) {
  if (from == to) return NcclPathType::loc;
  if (comm.crosses_nodes(from, to)) return NcclPathType::net;
  if (comm.route(from, to).transport == topo::Transport::nvlink_relay) return NcclPathType::nvb;
  switch (comm.router().path_class(comm.gpu(from), comm.gpu(to))) {
    case topo::PathClass::self:
      return NcclPathType::loc;
    case topo::PathClass::nvlink:
      return NcclPathType::nvl;
    case topo::PathClass::pix:
      return NcclPathType::pix;
    case topo::PathClass::pxb:
      return NcclPathType::pxb;
    case topo::PathClass::phb:
    case topo::PathClass::node:
      return NcclPathType::phb;
    case topo::PathClass::sys:
      return NcclPathType::sys;
  }
  return NcclPathType::sys;
}

NcclGraph linksim_ring_graph(const Communicator& comm) {
  if (comm.node_count() > 1) {
    throw std::invalid_argument("a ring graph of several nodes needs each channel's NICs");
  }
  NcclGraph g;
  g.id = 0;
  g.pattern = NcclGraphPattern::ring;
  // NCCL's own search result where it was run (one node): its channels and the speed it
  // assigns them in its link figures; else the channels run, at the rings' bandwidth.
  if (comm.ring_search().search_channels > 0) {
    g.nchannels = comm.ring_search().search_channels;
    g.speed_intra_Bps = comm.ring_search().channel_GBps * 1e9;
  } else {
    g.nchannels = std::max(1, comm.max_channels() / 2);
    g.speed_intra_Bps = comm.ring_bus_bandwidth_Bps() / g.nchannels;
  }
  g.speed_inter_Bps = g.speed_intra_Bps;
  g.type_inter = NcclPathType::pix;
  g.same_channels = true;
  const auto& rings = comm.rings();
  g.type_intra = comm.size() > 1 ? NcclPathType::nvl : NcclPathType::loc;
  for (const auto& ring : rings) {
    const std::size_t n = ring.order.size();
    for (std::size_t i = 0; n > 1 && i < n; ++i) {
      g.type_intra = std::max(g.type_intra,
                              nccl_path_type_between(comm, ring.order[i], ring.order[(i + 1) % n]));
    }
  }
  for (int c = 0; c < g.nchannels; ++c) {
    NcclGraphChannel channel;
    for (int rank : rings[static_cast<std::size_t>(c) % rings.size()].order)
      channel.gpus.push_back({comm.gpu_index(rank), rank});
    g.channels.push_back(std::move(channel));
  }
  return g;
}

NcclGraphDump linksim_nccl_graphs(const Communicator& comm) {
  NcclGraphDump dump;
  dump.graphs.push_back(linksim_ring_graph(comm));
  return dump;
}

}  // namespace linksim::coll
