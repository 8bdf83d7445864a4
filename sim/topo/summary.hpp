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
  // Transport name -> ordered GPU pairs using it, on NCCL's routes (relays allowed).
  std::map<std::string, int> transports;
};

// Routes every GPU pair with one search per source GPU (Router::routes_from), so the cost grows
// with pairs times path length, not pairs times machine size.
MachineSummary summarize(const Topology& topo, const Router& router);

// Max flow from GPUs in `side_a` to the others over all channels, one direction.
double cut_bandwidth_Bps(const Topology& topo, const std::vector<NodeId>& side_a,
                         const std::vector<NodeId>& side_b);

}  // namespace linksim::topo
