// NVLSTree: all-reduce across nodes of NVSwitch hosts with NVLink SHARP (nccl src/device/
// all_reduce.h RunWorkColl<..., NCCL_ALGO_NVLS_TREE>, src/graph/connect.cc NVLS trees). Each
// node's GPUs that have a NIC of their own are the NVLS heads (one per node ring here,
// communicator.hpp); head h owns 1/H of the buffer. Per chunk:
// - scatter: every GPU writes its input into the switch (NVLink out S);
// - reduce: each head pulls its node-reduced slice from the switch (multimem.ld_reduce, in S/H);
// - network: the heads of slice h form NCCL's double binary tree over the nodes (channels
//   alternate between the two trees, so each carries half); the slice is reduced up to the
//   root and the result streams back down, every tree edge carrying S / (2H) each way;
// - broadcast: each head multicasts its final slice into the switch (out S/H), which every GPU
//   receives (in S), and gather copies it out.
// So a head sends and receives S (1 + 1/H) on NVLink, like single-node NVLS (nvls.cpp), and
// its NIC carries its slice's tree edges.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <utility>
#include <vector>

#include "sim/coll/algorithm.hpp"
#include "sim/coll/nccl_trees.hpp"
#include "sim/coll/route_paths.hpp"

namespace linksim::coll {
namespace {

using engine::PathShare;
using engine::TaskId;

constexpr double kUs = 1e-6;
constexpr double kGBps = 1e9;

// ../shared/reference/nccl-model.md §2, tuning.cc @5067397c: no base latency; hwLatencies for
// NVLSTree, Simple only, by class [NVLINK, PCI, NET], us. tuning.cc's latency is intraLat +
// 2 log2(nNodes) interLat: one NVLS step in the node, then every tree level up and down.
constexpr std::array<double, 3> kHopLatencySimple_us{25, 0, 20.9};
// nvlsEfficiency by generation [Volta, Ampere, Hopper, Blackwell] (as nvls.cpp's).
constexpr std::array<double, 4> kNvlsEfficiency{0, 0, 0.85, 0.74};
// perChMaxNVLSTreeBw by generation, then nodes [1, 2, 3+], GB/s: NCCL caps each NVLS channel's
// bus bandwidth (one head and its NIC) at this.
constexpr std::array<std::array<double, 3>, 4> kPerChannelBus_GBps{
    {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {0, 57.7, 45.5}, {0, 96.0, 80.0}}};
// nvls.cc: nvlsChannels, 16 on SM90; on SM100 32 across nodes.
constexpr int kChannelsHopper = 16;
constexpr int kChannelsBlackwell = 32;
constexpr int kMinNvlinkGeneration = 4;

double nvls_efficiency(GpuGeneration g) {
  return kNvlsEfficiency[static_cast<std::size_t>(g)];
}

// What a head with `edges` tree edges (each S / 2H out of it) may push through its NIC, payload
// bytes per second. NCCL caps each head's bus bandwidth and turns it into algorithm bandwidth
// by n / (2 (n - 1)) (tuning.cc, nRanks / nsteps): the collective's algbw is at most H heads
// times that. A head sends edges x S / 2H, so reaching algbw S / T takes edges / 2 x S / (H T)
// of it: its cap is the per-channel figure x n / (2 (n - 1)) x edges / 2 (on two nodes every
// head has 2 edges, one per tree).
double head_cap_Bps(const Communicator& comm, int edges) {
  const auto column = static_cast<std::size_t>(std::min(comm.node_count() - 1, 2));
  const double n = comm.size();
  return kPerChannelBus_GBps[static_cast<std::size_t>(comm.generation())][column] * kGBps * n /
         (2 * (n - 1)) * edges / 2;
}

class NvlsTreeAlgorithm final : public CollectiveAlgorithm {
 public:
  std::string_view name() const override { return "NVLSTree"; }

  std::vector<Op> operations() const override { return {Op::all_reduce}; }

  // tuning.cc: disabled on one node; enqueue.cc: needs NVLS support (an NVSwitch of NVLink 4
  // or later, SM90+); tuning.cc: at least 2 NVLS channels, one per head with its NIC.
  std::optional<std::string> why_ineligible(const Communicator& comm) const override {
    const auto& topo = comm.topology();
    const auto& gpu = *topo.node(comm.gpu(0)).gpu;
    std::vector<std::string> missing;
    if (comm.node_count() < 2) missing.emplace_back("a single node (there NCCL runs NVLS)");
    if (comm.intra_class() != HwClass::nvlink) {
      missing.emplace_back("not every pair of GPUs in a node is joined directly by NVLink");
    }
    if (topo.count(topo::NodeKind::nvswitch) == 0) missing.emplace_back("no NVSwitch");
    if (gpu.nvlink_generation < kMinNvlinkGeneration) {
      missing.push_back(gpu.nvlink_generation == 0
                            ? std::string("no NVLink")
                            : fmt::format("NVLink {}", gpu.nvlink_generation));
    }
    if (nvls_efficiency(comm.generation()) == 0) {
      missing.push_back(fmt::format("{} GPUs have no NVLink SHARP", gpu.architecture));
    }
    if (comm.node_count() > 1 && comm.rings().size() < 2) {
      missing.emplace_back("fewer than 2 GPUs per node with a NIC of their own (NVLS heads)");
    }
    if (missing.empty()) return std::nullopt;
    return fmt::format(
        "NVLSTree needs several nodes of NVSwitch hosts with NVLink 4 or later (Hopper or newer) "
        "and at least 2 NVLS heads (GPUs with their own NIC) per node; here: {}",
        fmt::join(missing, ", "));
  }

  std::vector<Protocol> protocols(const Communicator& /*comm*/,
                                  const Request& /*request*/) const override {
    return {Protocol::simple};  // NVLS and NVLSTree are Simple only
  }

  int channels(const Communicator& comm, Protocol /*p*/, double /*bytes*/) const override {
    return comm.generation() == GpuGeneration::blackwell ? kChannelsBlackwell : kChannelsHopper;
  }

  // Its own channel count (NCCL_NVLS_NCHANNELS), not comm->nChannels.
  bool follows_channel_bounds() const override { return false; }

  double base_latency_s(Protocol /*p*/) const override { return 0; }

  double hop_latency_s(Protocol p, HwClass c) const override {
    return p == Protocol::simple ? kHopLatencySimple_us[static_cast<std::size_t>(c)] * kUs : 0.0;
  }

  // tuning.cc, all-reduce, Simple, across nodes: intraBw = bwIntra x nvlsEfficiency x
  // (nCh - 1) / nCh x 2; bw = min(intraBw, bwInter (x2 on two nodes), perChMaxNVLSTreeBw);
  // busBw = nCh x bw; algBw = busBw x n / nsteps. Latency: the NVLink hop, then 2 log2(nNodes)
  // network hops, up and down the tree.
  std::optional<NcclModelRow> nccl_model_row(const Communicator& /*comm*/,
                                             const NcclModelInputs& in, Op op,
                                             Protocol p) const override {
    if (op != Op::all_reduce || p != Protocol::simple || in.nodes < 2) return NcclModelRow{};
    const NcclTunerGraph& g = in.nvls;
    if (g.channels < 2) return NcclModelRow{};
    const auto gen = static_cast<std::size_t>(in.generation);
    const auto column = static_cast<std::size_t>(std::min(in.nodes - 1, 2));
    const double intra = g.intra_GBps * kNvlsEfficiency[gen] * (g.channels - 1) / g.channels * 2.0;
    const double bw = std::min(
        {intra, g.inter_GBps * (in.nodes <= 2 ? 2.0 : 1.0), kPerChannelBus_GBps[gen][column]});
    NcclModelRow row;
    row.alg_GBps =
        g.channels * bw * (static_cast<double>(in.ranks) / nccl_model_steps(op, in.ranks));
    row.latency_us = hop_latency_s(p, HwClass::nvlink) / kUs +
                     2 * nccl_log2i(in.nodes) * nccl_inter_latency_us(in, id(), p, g);
    return row;
  }

  // By steps only (the slices form is not modelled yet: both granularities give this): after
  // the pipeline fills (one NVLS step, then every tree level up and down but the last), every
  // GPU's NVLink traffic and every tree edge's both directions run at once.
  TaskId lower(Lowering& l, TaskId start) const override {
    const Communicator& comm = l.comm();
    const auto& rings = comm.rings();
    const int nodes = comm.node_count();
    const double heads = static_cast<double>(rings.size());
    const double bytes = l.request().size_bytes;
    std::vector<std::vector<std::vector<int>>> chains;  // by head (ring), then node
    for (const Ring& ring : rings)
      chains.push_back(node_chains(comm, ring));
    const int head0 = chains[0][0].front();
    const int head1 = chains[0][1].front();
    const double net_s = l.net_hop_s() + comm.route(head1, head0).latency_s();
    const double fill_s = l.hop_s() + (2 * dtree_max_depth(nodes) - 1) * net_s;
    engine::Simulation& sim = l.sim();
    const TaskId fill = sim.add_delay(fill_s, {&start, 1});
    std::vector<TaskId> flows;
    // NVLink: S in and out of every GPU, and S / H more for each head.
    const double nvlink_eta = l.wire_efficiency() * nvls_efficiency(comm.generation());
    std::vector<bool> is_head(static_cast<std::size_t>(comm.size()), false);
    for (const auto& by_node : chains) {
      for (const auto& chain : by_node)
        is_head[static_cast<std::size_t>(chain.front())] = true;
    }
    for (int r = 0; r < comm.size(); ++r) {
      const double each = bytes * (1 + (is_head[static_cast<std::size_t>(r)] ? 1 / heads : 0));
      const Ports ports = switch_ports(l, r);
      const int gi = comm.gpu_index(r);
      flows.push_back(
          sim.add_transfer(each / nvlink_eta, ports.up, gi, engine::kNoGpu, {&fill, 1}));
      flows.push_back(
          sim.add_transfer(each / nvlink_eta, ports.down, engine::kNoGpu, gi, {&fill, 1}));
    }
    // The network: each head's tree edges, S / 2H each way, through the head's cap.
    std::vector<std::pair<int, int>> edges;  // (from, to), both directions of every tree edge
    std::vector<int> edges_of(static_cast<std::size_t>(comm.size()), 0);
    for (const auto& by_node : chains) {
      for (int t = 0; t < 2; ++t) {
        for (int j = 0; j < nodes; ++j) {
          const int parent = dtree_parent(nodes, j, t);
          if (parent < 0) continue;
          const int a = by_node[static_cast<std::size_t>(j)].front();
          const int b = by_node[static_cast<std::size_t>(parent)].front();
          edges.emplace_back(a, b);
          edges.emplace_back(b, a);
          ++edges_of[static_cast<std::size_t>(a)];
          ++edges_of[static_cast<std::size_t>(b)];
        }
      }
    }
    const double edge_bytes = bytes / (2 * heads);
    const double net_eta = l.network_wire_efficiency();
    std::vector<std::optional<engine::ChannelId>> cap(static_cast<std::size_t>(comm.size()));
    for (const auto& [from, to] : edges) {
      auto& c = cap[static_cast<std::size_t>(from)];
      const double cap_Bps = head_cap_Bps(comm, edges_of[static_cast<std::size_t>(from)]);
      if (!c && cap_Bps > 0) c = sim.add_channel(cap_Bps / net_eta);
      const auto paths = add_route_paths(sim, comm.route(from, to), l.net_hop_s(), c);
      flows.push_back(sim.add_transfer(edge_bytes / net_eta, paths, comm.gpu_index(from),
                                       comm.gpu_index(to), {&fill, 1}));
    }
    return sim.add_barrier(flows);
  }

 private:
  struct Ports {
    std::vector<PathShare> up;    // from the GPU into its NVSwitches
    std::vector<PathShare> down;  // from the NVSwitches into the GPU
  };

  // Rank r's NVLink ports, both directions, each carrying its share of r's lanes.
  static Ports switch_ports(Lowering& l, int r) {
    const auto& topo = l.comm().topology();
    const topo::NodeId g = l.comm().gpu(r);
    std::vector<topo::ChannelId> out;
    double lanes = 0;
    for (topo::ChannelId c : topo.out_channels(g)) {
      const auto& link = topo.link(topo::Topology::link_of(c));
      if (link.kind != topo::LinkKind::nvlink) continue;
      out.push_back(c);
      lanes += link.lanes;
    }
    Ports ports;
    for (topo::ChannelId c : out) {
      const auto& link = topo.link(topo::Topology::link_of(c));
      const engine::ChannelId back = c ^ 1;  // the same link's other direction
      ports.up.push_back({l.sim().add_path({&c, 1}, link.latency_s), link.lanes / lanes});
      ports.down.push_back({l.sim().add_path({&back, 1}, link.latency_s), link.lanes / lanes});
    }
    return ports;
  }
};

}  // namespace

namespace algorithms {
const CollectiveAlgorithm& nvls_tree() {
  static const NvlsTreeAlgorithm instance;
  return instance;
}
}  // namespace algorithms

}  // namespace linksim::coll
