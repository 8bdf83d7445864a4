#pragma once
// How NCCL picks an algorithm and protocol for a collective: not by what is fastest on the
// machine, but by its own cost model (src/graph/tuning.cc ncclTopoTuneModel and
// ncclTopoGetAlgoTime, src/enqueue.cc topoGetAlgoInfo, at NVIDIA/nccl 5067397c), a latency plus
// size over a bandwidth per algorithm and protocol, worked out from its topology search's
// graphs (channels x speed) and fixed tables. Where that model misjudges the hardware, NCCL
// runs the slower choice, and nccl-tests shows it: on a DGX A100 the model prefers Ring/Simple
// from about 24 MB, where LL128 would still be faster for a while. linksim simulates the
// choice NCCL makes, so the model picks it here.
//
// Scope: every algorithm with a row (its plug-in's nccl_model_row: Ring, Tree, NVLS, NVLSTree,
// CollNetDirect, CollNetChain, PAT), on one node and across nodes. On one node the graphs come
// from NCCL's ring search (nccl_channel_search.hpp); across nodes from its search over the NICs
// (nccl_inter_ring_search). The tree graph is taken to be the ring graph (NCCL searches it
// separately; on the machines modelled they agree), its bwIntra then raised as pass 2 does,
// within each GPU's NVLinks (channels x bwIntra), and NVLS's graph is its search on the GPUs'
// NVSwitch links (one channel per GPU as head). The ring search across nodes is bounded by the
// NICs and by each GPU's NVLinks (8 x 45 GB/s on the p5, whose GPUs have 370.8 in NCCL's
// figures); the communicator runs what that search gives (Communicator::inter_ring_search).
// Where a candidate has no row, there is no pick and the planner keeps the fastest simulated
// candidate.

#include <optional>
#include <span>
#include <vector>

#include "sim/coll/collective.hpp"
#include "sim/coll/communicator.hpp"
#include "sim/coll/request.hpp"

namespace linksim::coll {

// NCCL's graph for one algorithm, as the tuning model reads it.
struct NcclTunerGraph {
  int channels = 0;                    // graph->nChannels
  double intra_GBps = 0;               // graph->bwIntra: the speed per channel
  double inter_GBps = 0;               // graph->bwInter (NVLS: what its pass 2 raises)
  HwClass intra_class = HwClass::pci;  // NVLINK when the graph's paths are NVLink
  double latency_inter_us = 0;         // graph->latencyInter (the network's; 0 where unknown)
};

// What every row of NCCL's model is worked out from, once per communicator (tuning.cc
// ncclTopoTuneModel's inputs).
struct NcclModelInputs {
  int ranks = 0;  // nRanks
  int nodes = 1;  // nNodes
  int ppn = 1;    // nRanks / nNodes
  GpuGeneration generation = GpuGeneration::volta;
  int compute_capability = 0;
  bool amd_cpu = false;
  int run_channels = 1;        // comm->nChannels
  NcclTunerGraph ring;         // Ring and PAT
  NcclTunerGraph tree;         // Tree: the ring's, bwIntra raised within the NVLinks
  NcclTunerGraph nvls;         // NVLS and NVLSTree
  double net_overhead_us = 0;  // getNetOverhead: 2 on AMD, 1 elsewhere; 0 on one node
  double llmax_GBps = 0;       // llMaxBw: by generation on one node, by CPU vendor across
};

NcclModelInputs nccl_model_inputs(const Communicator& comm);

// One row of NCCL's model: the algorithm bandwidth tuning.cc stores (busBw converted) and the
// latency, for one operation, algorithm and protocol.
struct NcclModelRow {
  double alg_GBps = 0;
  double latency_us = 0;
};

// tuning.cc's step counts: nsteps (all-reduce 2(n-1), all-gather and reduce-scatter n-1, the
// others n) and nInterSteps (all-reduce 2(nNodes-1), all-gather and reduce-scatter nNodes-1,
// the others 0 here).
int nccl_model_steps(Op op, int ranks);
int nccl_inter_steps(Op op, int nodes);
// log2i: the floor of log2(v), 0 for v < 2.
int nccl_log2i(long long v);
// interLat of tuning.cc: the NET hop latency of the algorithm (of Tree with one GPU per node),
// plus the graph's latencyInter, added once more for Simple (the flush).
double nccl_inter_latency_us(const NcclModelInputs& in, Algorithm a, Protocol p,
                             const NcclTunerGraph& graph);

// NVLS's graph on one node: every GPU heads one channel, pulling from the NVSwitch twice what
// the others do, so a GPU's NVLink carries (n + 1) x speed; the fastest of NCCL's speeds that
// fits `gpu_nvlink_GBps` (search.cc ncclTopoSearchTryNvls, minChannels = maxChannels = n),
// then pass 2 raises bwInter while it is under twice bwIntra. No graph (0 channels) when no
// speed fits.
NcclTunerGraph nccl_nvls_graph(int gpus, double gpu_nvlink_GBps, int compute_capability);

// NCCL's predicted time for `choice` of `request` on `comm`, seconds, or nullopt when the
// model has no row for it (see Scope above).
std::optional<double> nccl_model_time_s(const Communicator& comm, const Request& request,
                                        const Choice& choice);

// NCCL's pick among candidates, with what its model predicts for it and for the runner-up
// (what `--explain` shows: why NCCL runs this one).
struct NcclTunerPick {
  std::size_t index = 0;  // into the candidates
  Choice choice;          // candidates[index], with the tuner plugin's channels where it sets them
  double model_s = 0;
  std::optional<std::size_t> runner_up;
  double runner_up_model_s = 0;
  // Empty where NCCL's model chose; else the tuner plugin that did (the runner-up is then
  // NCCL's model's own pick, where it differs).
  std::string_view picked_by;
};

// NCCL's pick in `candidates` (the lowest predicted time, the first of equals, in the
// candidates' order), or nullopt when the model does not cover every candidate. On a cluster
// of AWS instances on EFA, aws-ofi-nccl's tuner plugin overrides it where one of its regions
// holds the size (aws_ofi_tuner_regions.hpp: p5, p5e, p5en and p6-b200, three nodes or more).
// `network_tuner` false leaves the network plugin's tuner out: NCCL's model alone, what NCCL
// runs when another tuner (NCCL_TUNER_PLUGIN) replaces the plugin's and has no row for the size.
std::optional<NcclTunerPick> nccl_tuner_pick(const Communicator& comm, const Request& request,
                                             std::span<const Choice> candidates,
                                             bool network_tuner = true);

}  // namespace linksim::coll
