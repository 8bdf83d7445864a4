#pragma once
// What a machine is, in the figures a planner compares: GPUs, link kinds, how much each GPU can
// inject, the bisection bandwidth, and the slowest GPU pair.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/topo/routing.hpp"
#include "sim/topo/topology.hpp"

namespace linksim::topo {

struct PairFigure {
  NodeId a = 0;
  NodeId b = 0;
  // How the copy moves: nvlink, pcie-p2p, or host-bounce (staged); never a relay.
  Transport transport = Transport::local;
  // One direction, what p2pBandwidthLatencyTest's copy sustains with peer access enabled
  // (pair_copy_bandwidth_Bps in copy_model.hpp), so it is the cell `linksim p2p` prints.
  double bandwidth_Bps = 0;
};

struct MachineSummary {
  std::size_t gpu_count = 0;
  std::map<std::string, int> gpu_models;   // model -> count
  std::map<std::string, int> link_labels;  // "NVLink 3 x2" -> count of physical links
  std::size_t nvswitch_count = 0;
  std::size_t pcie_switch_count = 0;
  std::size_t cpu_count = 0;  // NUMA domains
  std::size_t socket_count = 0;
  std::size_t nic_count = 0;
  // Per GPU, per direction: least over GPUs of the NVLink and host-fabric capacity leaving it.
  double nvlink_injection_Bps = 0;
  double pcie_injection_Bps = 0;
  // Least over balanced GPU partitions of the max flow across the cut, one direction;
  // nullopt past 16 GPUs (the exact search grows combinatorially).
  std::optional<double> bisection_Bps;
  std::optional<PairFigure> slowest_pair;
  std::optional<PairFigure> fastest_pair;
  // Transport name -> ordered GPU pairs using it, on NCCL's routes (relays allowed), counted
  // over the pairs that leave the `pair_sources` GPUs routed.
  std::map<std::string, int> transports;
  // Source GPUs whose routes to every GPU gave the pair figures and transport counts: all of them
  // (gpu_count) while every ordered pair fits kPairRouteBudget; past that fewer, spread evenly over
  // the GPUs (pair_source_indices), so the slowest and fastest pair are the extremes of those
  // rows, not necessarily of the whole machine.
  std::size_t pair_sources = 0;
  bool pairs_sampled() const { return pair_sources < gpu_count; }
};

// Ordered GPU pairs a summary routes at most (beyond a single source's row): every pair of a
// machine of up to 512 GPUs (512 x 511 = 261,632). Each pair costs its route's paths read off
// the source's search tree, so this bounds the summary's time on any machine; only a row of one
// source, past 2^18 GPUs, grows with the GPU count.
inline constexpr std::size_t kPairRouteBudget = std::size_t{1} << 18;

// The source GPUs summarize routes, as ascending distinct indices into the GPU list (of
// `gpu_count`): all of them when gpu_count x (gpu_count - 1) <= pair_route_budget; else
// k = max(1, pair_route_budget / gpu_count) of them, index i * gpu_count / k for i in 0..k-1
// (so the first GPU always).
std::vector<std::size_t> pair_source_indices(std::size_t gpu_count,
                                             std::size_t pair_route_budget = kPairRouteBudget);

// Routes from the pair sources (above) to every GPU with one search per source
// (Router::routes_from), so the cost grows with pairs routed times path length.
MachineSummary summarize(const Topology& topo, const Router& router,
                         std::size_t pair_route_budget = kPairRouteBudget);

// Max flow from GPUs in `side_a` to the others over all channels, one direction.
double cut_bandwidth_Bps(const Topology& topo, const std::vector<NodeId>& side_a,
                         const std::vector<NodeId>& side_b);

}  // namespace linksim::topo
