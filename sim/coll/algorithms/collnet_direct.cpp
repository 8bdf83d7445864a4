// CollNetDirect: all-reduce across nodes whose fabric reduces in-network (NVIDIA SHARP), nccl
// src/device/all_reduce.h RunWorkColl<..., NCCL_ALGO_COLLNET_DIRECT> @5067397c. Each node's GPUs
// with a NIC of their own are its heads (NCCL's collnet heads, one per NIC: search.cc; one per
// node ring here, communicator.hpp); head h owns 1/H of the buffer. Per chunk:
// - scatter: every GPU sends each other head of its node that head's part (S/H each, NVLink
//   through the NVSwitch); a head keeps its own;
// - reduce and send: each head reduces its node's contributions and sends the part up through
//   its NIC; the switches reduce it across the nodes and send the result back down to every
//   head (in_network_reduction.hpp): S/H up and S/H down per NIC;
// - broadcast: each head sends the result of its part to every other GPU of its node (S/H each).
// So a GPU sends and receives S (H - 1) / H on NVLink as a scatterer, and a head S (ppn - 1) / H
// more; the NICs carry S/H each way, with no 2 (n - 1) / n factor.
// NCCL also runs all_gather and reduce_scatter on CollNetDirect where the network plugin offers
// iallgather / ireducescatter and every GPU has its own head (tuning.cc); linksim models the
// all-reduce only.
#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "sim/coll/algorithm.hpp"
#include "sim/coll/collnet_rules.hpp"
#include "sim/coll/in_network_reduction.hpp"
#include "sim/coll/nccl_trees.hpp"

namespace linksim::coll {
namespace {

using engine::TaskId;

constexpr double kUs = 1e-6;

class CollNetDirectAlgorithm final : public CollectiveAlgorithm {
 public:
  std::string_view name() const override { return "CollNetDirect"; }

  std::vector<Op> operations() const override { return {Op::all_reduce}; }

  // The CollNet rules (collnet_rules.hpp), and tuning.cc:509: "Disable CollNet+Direct if not on
  // an NVSwitch system".
  std::optional<std::string> why_ineligible(const Communicator& comm) const override {
    std::vector<std::string> missing = collnet_missing(comm);
    if (comm.topology().count(topo::NodeKind::nvswitch) == 0) {
      missing.emplace_back("no NVSwitch inside the node");
    }
    if (missing.empty()) return std::nullopt;
    return fmt::format(
        "CollNetDirect needs several nodes on a fabric that reduces in-network (SHARP), an "
        "NVSwitch inside the node and at most {} GPUs per node; here: {}",
        kCollNetMaxLocalRanks, fmt::join(missing, ", "));
  }

  std::vector<Protocol> protocols(const Communicator& /*comm*/,
                                  const Request& /*request*/) const override {
    return {Protocol::simple};  // tuning.cc:338: CollNetDirect runs Simple only
  }

  // enqueue.cc:2073-2084 (topoGetAlgoInfo, "CollNet channel tuning"): from the communicator's
  // channels, drop one while the message is under channels x threads x heads x 512 B, down to
  // 16, then 8, 4, 2 and 1, halving the threshold when passing 1.5 x each switch point.
  int channels(const Communicator& comm, Protocol /*p*/, double bytes) const override {
    int nc = comm.max_channels();
    double threshold = kCollNetThresholdBytesPerThread;
    const double heads = static_cast<double>(comm.rings().size());
    bool below = true;
    for (int nc_switch = 16; nc_switch >= 1 && below; nc_switch /= 2) {
      while ((below = bytes < nc * kCollNetThreadsPerChannel * heads * threshold) &&
             nc > nc_switch) {
        if (nc == nc_switch + nc_switch / 2) threshold /= 2;
        --nc;
      }
    }
    return nc;
  }

  double base_latency_s(Protocol /*p*/) const override { return 0; }

  double hop_latency_s(Protocol p, HwClass c) const override {
    return collnet_hop_latency_s(CollNetVariant::direct, p, c);
  }

  // tuning.cc, Simple: all-reduce busBw = nCh x bwIntra over f = ppn / nCh, f -= (f - 1) / 2,
  // x0.85 on SM90 and newer, algBw = busBw / 2; all-gather and reduce-scatter
  // ppn x min(bwIntra, 0.9 bwInter), unconverted. Latency: 2 (min(1, ppn - 1) intraLat +
  // 0.4 (ppn - 1)) + interLat.
  std::optional<NcclModelRow> nccl_model_row(const Communicator& comm, const NcclModelInputs& in,
                                             Op op, Protocol p) const override {
    if (p != Protocol::simple) return NcclModelRow{};
    const auto graph = collnet_graph(comm, in);
    if (!graph) return std::nullopt;
    const NcclTunerGraph& g = *graph;
    NcclModelRow row;
    if (op == Op::all_gather || op == Op::reduce_scatter) {
      row.alg_GBps = in.ppn * std::min(g.intra_GBps, 0.9 * g.inter_GBps);
    } else {
      double f = static_cast<double>(in.ppn) / g.channels;
      f -= (f - 1) / 2;
      double bus = g.channels * g.intra_GBps / f;
      if (in.compute_capability >= 90) bus *= .85;
      row.alg_GBps = bus * .5;
    }
    const double intra_us = hop_latency_s(p, g.intra_class) / kUs;
    row.latency_us =
        base_latency_s(p) / kUs +
        2 * (std::min(1, in.ppn - 1) * intra_us + (in.ppn - 1) * kCollNetAritySerialization_us) +
        nccl_inter_latency_us(in, id(), p, g);
    return row;
  }

  // A rank sends at least its part to its NIC or a head: S / H.
  double least_bytes_sent_by_a_rank(const Communicator& comm,
                                    const Request& request) const override {
    return collnet_least_bytes_sent_by_a_rank(comm, request.size_bytes);
  }

  // Bulk flows, at both granularities (like NVLSTree): after the pipeline fills (the scatter's
  // NVLink step, NCCL's 0.4 us per local peer each way, one network step and the route between
  // two heads), every scatter, network and broadcast flow runs at once; the broadcast sends
  // pay the last NVLink step themselves.
  TaskId lower(Lowering& l, TaskId start) const override {
    const Communicator& comm = l.comm();
    const auto& rings = comm.rings();
    const double part = l.request().size_bytes / static_cast<double>(rings.size());
    // By head (ring), then node: the node's chain, its head first and then the node's others.
    std::vector<std::vector<std::vector<int>>> chains;
    for (const Ring& ring : rings)
      chains.push_back(node_chains(comm, ring));
    const auto& first = chains[0][0];
    const double net_hop_s = collnet_net_step_s(CollNetVariant::direct, comm, l.net_hop_s());
    double fill_s = net_hop_s + comm.route(first.front(), chains[0][1].front()).latency_s() +
                    2 * (comm.ranks_per_node() - 1) * kCollNetAritySerialization_us * kUs;
    if (first.size() > 1) fill_s += l.hop_s() + comm.route(first[1], first.front()).latency_s();
    const TaskId fill = l.sim().add_delay(fill_s, {&start, 1});
    std::vector<TaskId> flows;
    for (const auto& by_node : chains) {
      std::vector<int> heads;
      for (const auto& chain : by_node) {
        const int h = chain.front();
        heads.push_back(h);
        for (std::size_t i = 1; i < chain.size(); ++i) {
          flows.push_back(l.send(chain[i], h, part, {&fill, 1}));  // scatter
          flows.push_back(l.send(h, chain[i], part, {&fill, 1}));  // broadcast
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
const CollectiveAlgorithm& collnet_direct() {
  static const CollNetDirectAlgorithm instance;
  return instance;
}
}  // namespace algorithms

}  // namespace linksim::coll
