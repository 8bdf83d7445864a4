#include "sim/coll/nccl_tuner_model.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "sim/coll/algorithm_registry.hpp"
#include "sim/coll/aws_ofi_tuner_regions.hpp"
#include "sim/coll/nccl_channel_search.hpp"

namespace linksim::coll {
namespace {

constexpr double kUs = 1e-6;
constexpr double kGBps = 1e9;

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

// Across nodes NVLS's pass 2 raises bwInter through the inter-node speeds while it is under
// twice bwIntra and a head's NIC carries it.
double nvls_inter_GBps(double intra_GBps, double nic_GBps, int compute_capability) {
  const auto speeds = nccl_inter_search_speeds_GBps(compute_capability);
  double inter = 0;
  for (double s : speeds) {
    if (s <= nic_GBps + 1e-9) {
      inter = s;  // the fastest a NIC carries
      break;
    }
  }
  // Start where bwIntra is (or the NIC's speed if slower), then climb.
  double current = std::min(intra_GBps, inter);
  for (auto it = speeds.rbegin(); it != speeds.rend(); ++it) {
    if (*it <= current + 1e-9) continue;
    if (current >= 2 * intra_GBps || *it > nic_GBps + 1e-9) break;
    current = *it;
  }
  return current;
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

int nccl_model_steps(Op op, int ranks) {
  switch (op) {
    case Op::all_reduce:
      return 2 * (ranks - 1);
    case Op::all_gather:
    case Op::reduce_scatter:
      return ranks - 1;
    default:
      return ranks;
  }
}

int nccl_inter_steps(Op op, int nodes) {
  if (nodes <= 1) return 0;
  switch (op) {
    case Op::all_reduce:
      return 2 * (nodes - 1);
    case Op::all_gather:
    case Op::reduce_scatter:
      return nodes - 1;
    default:
      return 0;
  }
}

int nccl_log2i(long long v) {
  int log = 0;
  while (v > 1) {
    v >>= 1;
    ++log;
  }
  return log;
}

double nccl_inter_latency_us(const NcclModelInputs& in, Algorithm a, Protocol p,
                             const NcclTunerGraph& graph) {
  const Algorithm row = in.ppn == 1 ? Algorithm::tree : a;
  double lat = AlgorithmRegistry::builtin().get(row).hop_latency_s(p, HwClass::net) / kUs;
  lat += graph.latency_inter_us;
  if (p == Protocol::simple) lat += graph.latency_inter_us;  // "the flush extra latency"
  return lat;
}

NcclModelInputs nccl_model_inputs(const Communicator& comm) {
  NcclModelInputs in;
  in.ranks = comm.size();
  in.nodes = comm.node_count();
  in.ppn = in.ranks / std::max(1, in.nodes);
  in.generation = comm.generation();
  in.compute_capability = comm.compute_capability();
  in.amd_cpu = comm.amd_cpu();
  in.run_channels = comm.max_channels();
  in.llmax_GBps = in.nodes == 1 ? ll_max_total_Bps(in.generation) / kGBps
                                : ll_max_total_Bps(in.generation, in.nodes, in.amd_cpu) / kGBps;
  if (in.nodes == 1) {
    in.ring.channels = comm.ring_search().search_channels;
    in.ring.intra_GBps = in.ring.inter_GBps = comm.ring_search().channel_GBps;
    in.ring.intra_class = comm.intra_class();
    in.tree = in.ring;
    in.nvls = nccl_nvls_graph(in.ranks, comm.ring_nccl_GBps(), in.compute_capability);
    return in;
  }
  in.net_overhead_us = in.amd_cpu ? 2.0 : 1.0;
  const auto speeds_inter = nccl_inter_search_speeds_GBps(in.compute_capability);
  const std::vector<double> nics = comm.ring_nic_GBps();
  if (comm.inter_ring_search().search_channels > 0) {
    const NcclRingSearch& found = comm.inter_ring_search();
    in.ring.channels = found.search_channels;
    in.ring.intra_GBps = in.ring.inter_GBps = found.channel_GBps;
  } else {
    // No NIC the search can see (a cluster of one GPU per host over its host's network): the
    // rings' own bandwidth over half the channels they run.
    in.ring.channels = std::max(1, comm.max_channels() / 2);
    in.ring.intra_GBps = in.ring.inter_GBps =
        comm.ring_bus_bandwidth_Bps() / kGBps / in.ring.channels;
  }
  in.ring.intra_class = comm.intra_class();
  // The tree graph: the ring's channels, then search.cc's pass 2 "increase bwIntra for trees"
  // while it is under twice bwInter and the search still finds every channel at it: each
  // channel takes bwIntra out of every GPU's NVLinks (followPath subtracts it from the GPU's
  // link to the next), so channels x bwIntra stays within a GPU's NVLinks in NCCL's figures.
  // On two nodes, where the model reads bwIntra, a tree then moves up to twice a NIC's speed
  // per channel where the NVLinks allow (4 channels on the p4de), and not where they do not
  // (the p5's ring graph, already NVLink-bound, is 8 x 45: 8 x 48 = 384 > 18 x 20.6 = 370.8
  // GB/s). Hosts without NVLink
  // are not bounded here: their PCIe paths are the search's to rate, not modelled.
  in.tree = in.ring;
  const double nvlink_GBps = comm.gpu_nvlink_GBps();
  for (auto it = speeds_inter.rbegin(); it != speeds_inter.rend(); ++it) {
    if (*it <= in.tree.intra_GBps + 1e-9) continue;
    if (in.tree.intra_GBps >= 2 * in.tree.inter_GBps - 1e-9) break;
    if (nvlink_GBps > 0 && in.tree.channels * *it > nvlink_GBps + 1e-9) break;
    in.tree.intra_GBps = *it;
  }
  in.nvls = nccl_nvls_graph(in.ppn, comm.gpu_nvlink_GBps(), in.compute_capability);
  if (in.nvls.channels > 0 && !nics.empty()) {
    const double nic = *std::max_element(nics.begin(), nics.end());
    in.nvls.inter_GBps = nvls_inter_GBps(in.nvls.intra_GBps, nic, in.compute_capability);
  }
  // search.cc sets each graph's latencyInter to its NIC's plugin-reported latency.
  in.ring.latency_inter_us = in.tree.latency_inter_us = in.nvls.latency_inter_us =
      comm.plugin_latency_us();
  return in;
}

namespace {

// comm->nChannels under NCCL_MAX_NCHANNELS and NCCL_MIN_NCHANNELS: min(max, channels), then
// duplicated up to min (copyChannels), never above MAXCHANNELS (64).
double communicator_channels(int channels, const Request& request) {
  constexpr int kNcclMaxChannels = 64;
  int n = channels;
  if (request.max_channels > 0) n = std::min(n, request.max_channels);
  if (request.min_channels > 0) n = std::max(n, std::min(request.min_channels, kNcclMaxChannels));
  return n;
}

std::optional<double> model_time_s(const Communicator& comm, const NcclModelInputs& in,
                                   const Request& request, const Choice& choice) {
  if (comm.size() < 2) return std::nullopt;
  const CollectiveAlgorithm& plugin = AlgorithmRegistry::builtin().get(choice.algorithm);
  const auto row = plugin.nccl_model_row(comm, in, request.op, choice.protocol);
  if (!row) return std::nullopt;
  // A row of no bandwidth is one NCCL disables (busBw 0): never picked.
  if (row->alg_GBps <= 0) return std::numeric_limits<double>::infinity();
  double bw = row->alg_GBps;
  double lat = row->latency_us;
  const int column = log_size(request.size_bytes);
  if (choice.algorithm == Algorithm::tree && column >= 0 && column < 23) {
    bw *= kTreeCorrection[proto_index(choice.protocol)][static_cast<std::size_t>(column)];
  }
  // "Plateau effect of ring": across nodes a Ring/Simple all-reduce of at least 64 B per
  // channel and rank pays its latency 1.4 times (1.9 before SM80). The channels are the
  // communicator's (comm->nChannels), which NCCL_MAX_NCHANNELS caps and NCCL_MIN_NCHANNELS
  // raises (connect.cc, ncclTopoPostset); the graphs' channels, which set the bandwidths above,
  // are the search's and stay.
  const double run_channels = communicator_channels(in.run_channels, request);
  if (in.nodes > 1 && choice.algorithm == Algorithm::ring && choice.protocol == Protocol::simple &&
      request.op == Op::all_reduce && request.size_bytes / (run_channels * in.ranks) >= 64) {
    lat *= in.compute_capability >= 80 ? 1.4 : 1.9;
  }
  // time (us) = lat + nBytes / (1000 x bw [GB/s]).
  return (lat + request.size_bytes / (1000.0 * bw)) * kUs;
}

constexpr std::string_view kAwsOfiRegionTuner = "aws-ofi-nccl's region tuner";

struct RegionPick {
  std::size_t index = 0;
  std::optional<int> channels;
};

// aws-ofi-nccl's tuner (v1.16.3, src/tuner/nccl_ofi_tuner.cpp) runs where aws-ofi-nccl is the
// network plugin (an EFA fabric) on the instance types it knows; its region tuner offers only
// the pairs NCCL's cost table holds (a finite model time here).
std::optional<RegionPick> plugin_region_pick(const Communicator& comm, const Request& request,
                                             std::span<const Choice> candidates,
                                             const std::vector<double>& model_s) {
  const topo::Topology& t = comm.topology();
  if (comm.nccl_env().aws_ofi_tuner_off) return std::nullopt;  // OFI_NCCL_TUNER_TYPE=Internal
  if (!t.is_cluster() || !topo::is_efa(t.cluster->fabric.kind) || !t.cluster->host ||
      !t.cluster->host->instance) {
    return std::nullopt;
  }
  const auto platform = aws_ofi_platform_of(t.cluster->host->instance->name);
  if (!platform) return std::nullopt;
  const auto offered_at = [&](std::string_view algorithm,
                              Protocol p) -> std::optional<std::size_t> {
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      if (to_string(candidates[i].algorithm) == algorithm && candidates[i].protocol == p &&
          std::isfinite(model_s[i])) {
        return i;
      }
    }
    return std::nullopt;
  };
  const auto region = aws_ofi_region_pick(
      *platform, request.op, request.size_bytes, comm.size(), comm.node_count(),
      [&](std::string_view algorithm, Protocol p) { return offered_at(algorithm, p).has_value(); });
  if (!region) return std::nullopt;
  return RegionPick{*offered_at(region->algorithm, region->protocol), region->channels};
}

}  // namespace

std::optional<double> nccl_model_time_s(const Communicator& comm, const Request& request,
                                        const Choice& choice) {
  return model_time_s(comm, nccl_model_inputs(comm), request, choice);
}

std::optional<NcclTunerPick> nccl_tuner_pick(const Communicator& comm, const Request& request,
                                             std::span<const Choice> candidates,
                                             bool network_tuner) {
  if (comm.size() < 2) return std::nullopt;
  const NcclModelInputs in = nccl_model_inputs(comm);
  std::vector<double> model_s;
  model_s.reserve(candidates.size());
  for (const Choice& c : candidates) {
    const auto t = model_time_s(comm, in, request, c);
    if (!t) return std::nullopt;
    model_s.push_back(*t);
  }
  if (model_s.empty()) return std::nullopt;
  NcclTunerPick pick;
  for (std::size_t i = 1; i < model_s.size(); ++i)
    if (model_s[i] < model_s[pick.index]) pick.index = i;
  pick.choice = candidates[pick.index];
  // A tuner plugin's pick: the plugin zeroes that entry of NCCL's cost table, so NCCL runs it;
  // NCCL's own pick becomes the runner-up.
  if (const auto region =
          network_tuner ? plugin_region_pick(comm, request, candidates, model_s) : std::nullopt) {
    pick.runner_up = pick.index;
    pick.index = region->index;
    pick.choice = candidates[region->index];
    if (region->channels) pick.choice.channels = *region->channels;
    pick.picked_by = kAwsOfiRegionTuner;
  } else {
    for (std::size_t i = 0; i < model_s.size(); ++i) {
      if (i == pick.index) continue;
      if (!pick.runner_up || model_s[i] < model_s[*pick.runner_up]) pick.runner_up = i;
    }
  }
  pick.model_s = model_s[pick.index];
  if (pick.runner_up == pick.index) pick.runner_up.reset();
  if (pick.runner_up) pick.runner_up_model_s = model_s[*pick.runner_up];
  return pick;
}

}  // namespace linksim::coll
