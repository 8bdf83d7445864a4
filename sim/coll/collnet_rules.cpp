#include "sim/coll/collnet_rules.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace linksim::coll {

double collnet_hop_latency_s(CollNetVariant v, Protocol p, HwClass c) {
  if (p != Protocol::simple) return 0;
  return kCollNetHopLatencySimple_us[static_cast<std::size_t>(v)][static_cast<std::size_t>(c)] *
         1e-6;
}

double collnet_net_step_s(CollNetVariant v, const Communicator& comm, double net_hop_s) {
  if (comm.ranks_per_node() != 1) return net_hop_s;
  return net_hop_s * kOneGpuPerNodeNetLatencySimple_us /
         kCollNetHopLatencySimple_us[static_cast<std::size_t>(v)][2];
}

double collnet_least_bytes_sent_by_a_rank(const Communicator& comm, double size_bytes) {
  return size_bytes / static_cast<double>(std::max<std::size_t>(1, comm.rings().size()));
}

std::optional<NcclTunerGraph> collnet_graph(const Communicator& comm, const NcclModelInputs& in) {
  const NcclTunerGraph& ring = in.ring;
  const int heads = std::min<int>(kMaxCollNetChannels, static_cast<int>(comm.rings().size()));
  if (heads <= 0 || ring.channels <= 0) return std::nullopt;
  NcclTunerGraph g = ring;
  g.channels = heads;
  g.intra_GBps = g.inter_GBps = ring.channels * ring.intra_GBps / heads;
  return g;
}

std::vector<std::string> collnet_missing(const Communicator& comm) {
  std::vector<std::string> missing;
  if (comm.node_count() < 2) missing.emplace_back("a single node");
  if (!comm.in_network_reduction()) {
    missing.emplace_back(
        "the fabric does not reduce in-network (its \"in_network_reduction\" is not \"sharp\")");
  }
  if (comm.ranks_per_node() > kCollNetMaxLocalRanks) {
    missing.push_back(fmt::format("{} GPUs per node", comm.ranks_per_node()));
  }
  if (comm.node_count() > 1 && comm.rings().empty()) {
    missing.emplace_back("no GPU with a NIC of its own");
  }
  return missing;
}

}  // namespace linksim::coll
