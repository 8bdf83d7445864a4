// CollNetChain: all-reduce across nodes whose fabric reduces in-network (NVIDIA SHARP), nccl
// src/device/all_reduce.h RunWorkColl<..., NCCL_ALGO_COLLNET_CHAIN> @5067397c. Every channel
// runs a chain through each node's GPUs to the GPU that owns its NIC (one chain per node ring
// here, communicator.hpp, as Tree's chains): half the CTA's threads reduce up the chain, the head
// sends the sum up through its NIC, the switches reduce it across the nodes and send the result
// back down to every head (in_network_reduction.hpp), and the other half broadcasts it down the
// chain. With H chains a node, each carries S/H: every chain hop moves S/H each way, and each
// NIC S/H up and S/H down.
#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "sim/coll/algorithm.hpp"
#include "sim/coll/collnet_rules.hpp"
#include "sim/coll/in_network_reduction.hpp"
#include "sim/coll/nccl_trees.hpp"

namespace linksim::coll {
namespace {

constexpr double kUs = 1e-6;

using engine::TaskId;

class CollNetChainAlgorithm final : public CollectiveAlgorithm {
 public:
  std::string_view name() const override { return "CollNetChain"; }

  std::vector<Op> operations() const override { return {Op::all_reduce}; }

  std::optional<std::string> why_ineligible(const Communicator& comm) const override {
    const std::vector<std::string> missing = collnet_missing(comm);
    if (missing.empty()) return std::nullopt;
    return fmt::format(
        "CollNetChain needs several nodes on a fabric that reduces in-network (SHARP) and at most "
        "{} GPUs per node; here: {}",
        kCollNetMaxLocalRanks, fmt::join(missing, ", "));
  }

  std::vector<Protocol> protocols(const Communicator& /*comm*/,
                                  const Request& /*request*/) const override {
    return {Protocol::simple};  // tuning.cc:339: CollNetChain runs Simple only
  }

  // enqueue.cc:2092-2096 (topoGetAlgoInfo, "Ring/Tree channel tuning"), with CollNet's 640
  // threads and 512 B per thread.
  int channels(const Communicator& comm, Protocol /*p*/, double bytes) const override {
    return nccl_channel_count(comm, kCollNetThreadsPerChannel, kCollNetThresholdBytesPerThread,
                              bytes);
  }

  double base_latency_s(Protocol /*p*/) const override { return 0; }

  double hop_latency_s(Protocol p, HwClass c) const override {
    return collnet_hop_latency_s(CollNetVariant::chain, p, c);
  }

  // tuning.cc, all-reduce, Simple: busBw = nCh x bwIntra, algBw = busBw / 2. Latency:
  // 2 (ppn - 1) intraLat up and down the chain, + interLat.
  std::optional<NcclModelRow> nccl_model_row(const Communicator& comm, const NcclModelInputs& in,
                                             Op /*op*/, Protocol p) const override {
    if (p != Protocol::simple) return NcclModelRow{};
    const auto graph = collnet_graph(comm, in);
    if (!graph) return std::nullopt;
    const NcclTunerGraph& g = *graph;
    NcclModelRow row;
    row.alg_GBps = g.channels * g.intra_GBps * .5;
    const double intra_us = hop_latency_s(p, g.intra_class) / kUs;
    row.latency_us = base_latency_s(p) / kUs + 2 * (in.ppn - 1) * intra_us +
                     nccl_inter_latency_us(in, id(), p, g);
    return row;
  }

  // A rank sends at least its chain's part up (or to its NIC): S / H.
  double least_bytes_sent_by_a_rank(const Communicator& comm,
                                    const Request& request) const override {
    return collnet_least_bytes_sent_by_a_rank(comm, request.size_bytes);
  }

  // Bulk flows, at both granularities (like Tree across nodes): after the pipeline fills (up the
  // first chain, one network step and the route between two heads, and back down but the last
  // hop), every chain hop both ways and every network flow run at once; the chain's sends pay
  // the last hop themselves (NCCL: 2 (ppn - 1) intra steps and one network step).
  TaskId lower(Lowering& l, TaskId start) const override {
    const Communicator& comm = l.comm();
    const auto& rings = comm.rings();
    const double part = l.request().size_bytes / static_cast<double>(rings.size());
    const auto first = node_chains(comm, rings.front());
    const auto& chain0 = first.front();
    double chain_s = 0;
    for (std::size_t i = 0; i + 1 < chain0.size(); ++i)
      chain_s += l.hop_s() + comm.route(chain0[i + 1], chain0[i]).latency_s();
    const double last_hop_s =
        chain0.size() > 1 ? l.hop_s() + comm.route(chain0[0], chain0[1]).latency_s() : 0.0;
    const double net_s = collnet_net_step_s(CollNetVariant::chain, comm, l.net_hop_s()) +
                         comm.route(chain0.front(), first[1].front()).latency_s();
    const TaskId fill = l.sim().add_delay(2 * chain_s + net_s - last_hop_s, {&start, 1});
    std::vector<TaskId> flows;
    for (const Ring& ring : rings) {
      std::vector<int> heads;
      for (const auto& chain : node_chains(comm, ring)) {
        heads.push_back(chain.front());
        for (std::size_t i = 0; i + 1 < chain.size(); ++i) {
          flows.push_back(l.send(chain[i + 1], chain[i], part, {&fill, 1}));  // reduce up
          flows.push_back(l.send(chain[i], chain[i + 1], part, {&fill, 1}));  // broadcast down
        }
      }
      const auto net = add_in_network_all_reduce(l, heads, part, fill);
      flows.insert(flows.end(), net.begin(), net.end());
    }
    return l.sim().add_barrier(flows);
  }
};

}  // namespace

namespace algorithms {
const CollectiveAlgorithm& collnet_chain() {
  static const CollNetChainAlgorithm instance;
  return instance;
}
}  // namespace algorithms

}  // namespace linksim::coll
