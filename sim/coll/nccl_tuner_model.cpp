#include "sim/coll/nccl_tuner_model.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "sim/coll/algorithm_registry.hpp"
#include "sim/coll/nccl_channel_search.hpp"

namespace linksim::coll {
namespace {

constexpr double kUs = 1e-6;
constexpr double kGBps = 1e9;

// tuning.cc, one-node column of each table, by generation [Volta, Ampere, Hopper, Blackwell].
// perChMaxTreeLL128Bws: Tree LL128's throughput per channel.
constexpr std::array<double, 4> kTreeLl128PerChannel_GBps{20.0, 20.0, 36.7, 55.6};
// NCCL_MAX_NVLS_ARITY (device.h): NVLS heads at most.
constexpr int kMaxNvlsArity = 32;

// tuning.cc treeCorrectionFactor [LL, LL128, Simple][log2(bytes / 64)], 64 B to 256 MiB:
// "Trees are not perfectly sticking to the model for medium sizes".
constexpr std::array<std::array<double, 24>, 3> kTreeCorrection{{
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7,  .7,  .7,  .6,  .5,
     .4,  .4,  .5,  .6,  .7, .8, .9, 1.0, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7,  .6,  .6,
     .6,  .6,  .6,  .6,  .8,  .9, .9, .9, .9, 1.0, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5,
     .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, .9},
}};

std::size_t gen_index(GpuGeneration g) {
  return static_cast<std::size_t>(g);
}

std::size_t proto_index(Protocol p) {
  return static_cast<std::size_t>(p);  // ll, ll128, simple
}

// log2i(nBytes >> 6): the tree correction's column, -1 below 64 B.
int log_size(double bytes) {
  const auto units = static_cast<unsigned long long>(bytes) >> 6;
  if (units == 0) return -1;
  int log = 0;
  for (auto v = units; v > 1; v >>= 1)
    ++log;
  return log;
}

// nsteps of tuning.cc: all-reduce 2(n-1), all-gather and reduce-scatter n-1, the others n.
int model_steps(Op op, int n) {
  switch (op) {
    case Op::all_reduce:
      return 2 * (n - 1);
    case Op::all_gather:
    case Op::reduce_scatter:
      return n - 1;
    default:
      return n;
  }
}

NcclTunerGraph ring_graph(const Communicator& comm) {
  NcclTunerGraph g;
  g.channels = comm.ring_search().search_channels;
  g.intra_GBps = g.inter_GBps = comm.ring_search().channel_GBps;
  g.intra_class = comm.intra_class();
  return g;
}

// NCCL's model (ncclTopoTuneModel) for one algorithm and protocol on one node: its bandwidth,
// converted from busBw to algBw as tuning.cc stores it, and its latency; nullopt where the model
// has no such row.
struct ModelRow {
  double alg_GBps = 0;
  double latency_us = 0;
};

std::optional<ModelRow> model_row(const Communicator& comm, Op op, Algorithm a, Protocol p) {
  const int n = comm.size();
  const int steps = model_steps(op, n);
  const GpuGeneration gen = comm.generation();
  const CollectiveAlgorithm& plugin = AlgorithmRegistry::builtin().get(a);
  NcclTunerGraph graph;
  if (a == Algorithm::ring || a == Algorithm::tree) {
    graph = ring_graph(comm);
  } else if (a == Algorithm::nvls) {
    graph = nccl_nvls_graph(n, comm.ring_nccl_GBps(), comm.compute_capability());
    graph.intra_class = HwClass::nvlink;
  } else {
    return std::nullopt;
  }
  if (graph.channels <= 0) return std::nullopt;

  double bw = graph.intra_GBps;
  if (a == Algorithm::nvls) {
    if (p != Protocol::simple || graph.channels < 2) return std::nullopt;
    double intra = graph.intra_GBps * plugin.bandwidth_efficiency(comm) * (graph.channels - 1) /
                   graph.channels;
    intra *= op == Op::all_reduce ? 2.0 : (n - 1.0) / n;  // ppn = n on one node
    bw = std::min(intra, graph.inter_GBps);
  }
  double bus = graph.channels * bw;
  // "Various model refinements".
  if (a == Algorithm::ring && p == Protocol::ll) {
    bus = std::min(ll_max_total_Bps(gen) / kGBps, bus * .5);
  }
  if (a == Algorithm::ring && p == Protocol::ll128) {
    bus = std::min(bus * .92, graph.channels * ll128_per_channel_Bps(gen) / kGBps);
  }
  if (a == Algorithm::tree) {
    if (op != Op::all_reduce) return std::nullopt;
    // perChMaxTreeBw: the tree plug-in's Simple cap per channel.
    bus = std::min(bus * .92, plugin.rank_cap_Bps(comm, Protocol::simple, graph.channels) / kGBps);
    if (p == Protocol::ll) bus = std::min(bus / 3.8, ll_max_total_Bps(gen) / kGBps);
    if (p == Protocol::ll128) {
      bus = std::min(bus * 7.0 / 9.0, graph.channels * kTreeLl128PerChannel_GBps[gen_index(gen)]);
    }
    // tuning.cc's further x0.85 applies when the tree search fell back to the simple TREE
    // pattern; linksim assumes a single node's balanced-tree search succeeds (not modelled).
  }
  // busBw to algBw.
  bus *= (a == Algorithm::tree) ? .5 : static_cast<double>(n) / steps;

  ModelRow row;
  row.alg_GBps = bus;
  const double intra_lat_us = plugin.hop_latency_s(p, graph.intra_class) / kUs;
  row.latency_us = plugin.base_latency_s(p) / kUs;
  if (a == Algorithm::ring) {
    // Broadcast and reduce on channels that are all the same ring pay one hop (sameChannels).
    row.latency_us +=
        (op == Op::broadcast || op == Op::reduce) ? intra_lat_us : steps * intra_lat_us;
  } else if (a == Algorithm::tree) {
    row.latency_us += 2 * (n - 1) * intra_lat_us;
  } else {
    row.latency_us = intra_lat_us;  // NVLS: its hop latency is all of it
  }
  return row;
}

}  // namespace

NcclTunerGraph nccl_nvls_graph(int gpus, double gpu_nvlink_GBps, int compute_capability) {
  NcclTunerGraph g;
  g.intra_class = HwClass::nvlink;
  const int heads = std::min(kMaxNvlsArity, gpus);
  if (heads < 1) return g;
  const auto speeds = nccl_intra_search_speeds_GBps(compute_capability);
  // Every channel runs through every GPU, twice through its head: (gpus + 1) x speed a GPU.
  std::size_t i = 0;
  while (i < speeds.size() && (gpus + 1) * speeds[i] > gpu_nvlink_GBps + 1e-9)
    ++i;
  if (i == speeds.size()) return g;
  g.channels = heads;
  g.intra_GBps = g.inter_GBps = speeds[i];
  // Pass 2: bwInter climbs the speeds while it is under twice bwIntra (one node never
  // crosses the network, so every such search succeeds).
  while (i > 0 && g.inter_GBps < 2 * g.intra_GBps)
    g.inter_GBps = speeds[--i];
  return g;
}

std::optional<double> nccl_model_time_s(const Communicator& comm, const Request& request,
                                        const Choice& choice) {
  if (comm.node_count() != 1 || comm.size() < 2) return std::nullopt;
  const auto row = model_row(comm, request.op, choice.algorithm, choice.protocol);
  if (!row || row->alg_GBps <= 0) return std::nullopt;
  double bw = row->alg_GBps;
  const int column = log_size(request.size_bytes);
  if (choice.algorithm == Algorithm::tree && column >= 0 && column < 23) {
    bw *= kTreeCorrection[proto_index(choice.protocol)][static_cast<std::size_t>(column)];
  }
  // time (us) = lat + nBytes / (1000 x bw [GB/s]).
  return (row->latency_us + request.size_bytes / (1000.0 * bw)) * kUs;
}

std::optional<NcclTunerPick> nccl_tuner_pick(const Communicator& comm, const Request& request,
                                             std::span<const Choice> candidates) {
  std::vector<double> model_s;
  model_s.reserve(candidates.size());
  for (const Choice& c : candidates) {
    const auto t = nccl_model_time_s(comm, request, c);
    if (!t) return std::nullopt;
    model_s.push_back(*t);
  }
  if (model_s.empty()) return std::nullopt;
  NcclTunerPick pick;
  for (std::size_t i = 1; i < model_s.size(); ++i)
    if (model_s[i] < model_s[pick.index]) pick.index = i;
  pick.model_s = model_s[pick.index];
  for (std::size_t i = 0; i < model_s.size(); ++i) {
    if (i == pick.index) continue;
    if (!pick.runner_up || model_s[i] < model_s[*pick.runner_up]) pick.runner_up = i;
  }
  if (pick.runner_up) pick.runner_up_model_s = model_s[*pick.runner_up];
  return pick;
}

}  // namespace linksim::coll
