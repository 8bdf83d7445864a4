#include "sim/coll/collnet_rules.hpp"

#include <fmt/format.h>

namespace linksim::coll {

double collnet_hop_latency_s(CollNetVariant v, Protocol p, HwClass c) {
  if (p != Protocol::simple) return 0;
  return kCollNetHopLatencySimple_us[static_cast<std::size_t>(v)][static_cast<std::size_t>(c)] *
         1e-6;
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
