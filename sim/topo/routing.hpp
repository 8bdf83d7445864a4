#pragma once
// Routes between endpoints (GPUs, CPU sockets as host memory, NICs), following what the
// hardware does: direct NVLink or through NVSwitch; relay through a neighbour GPU where no
// direct NVLink exists (NCCL's NVB, through exactly one intermediate GPU); PCIe peer-to-peer
// through a switch (PIX/PXB) or the host bridge (PHB/NODE); a bounce through host memory when
// peer-to-peer is not allowed; and across sockets (SYS). A route may hold several equal-cost paths
// (the NVSwitch planes of a DGX, say); traffic is split over them in proportion to `share`.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/topo/topology.hpp"

namespace linksim::topo {

// nvidia-smi topo -m classes, best first.
enum class PathClass { self, nvlink, pix, pxb, phb, node, sys };
std::string_view to_string(PathClass c);

// How data actually moves between two endpoints.
enum class Transport {
  local,         // same endpoint
  nvlink,        // direct NVLink or through NVSwitch
  nvlink_relay,  // NVLink through an intermediate GPU (NVB)
  pcie_p2p,      // PCIe peer-to-peer (through switches, possibly the host bridge / sockets)
  host_bounce,   // staged through host memory (P2P off or not possible)
  pcie,          // a GPU/NIC talking to host memory over PCIe (or C2C)
  network,       // through NICs and network switches
};
std::string_view to_string(Transport t);

struct Path {
  std::vector<ChannelId> channels;  // in order from source to destination
  double share = 1.0;               // fraction of the bytes sent along this path
  double latency_s = 0;             // sum of channel latencies
  double bottleneck_Bps = 0;        // slowest channel on the path
};

struct Route {
  NodeId src = 0;
  NodeId dst = 0;
  Transport transport = Transport::local;
  std::vector<Path> paths;  // empty for `local`
  // For host_bounce: the socket whose memory stages the data.
  std::optional<NodeId> bounce_cpu;
  // For nvlink_relay: the GPU(s) that forward.
  std::vector<NodeId> relays;
  // For network: the NICs the data leaves and enters by, and the GPUs that forward it to a NIC
  // on another rail over NVLink (PXN), each sorted.
  std::vector<NodeId> nics;
  std::vector<NodeId> proxies;
  // For network: the sockets whose host memory stages the traffic where a NIC may not read or
  // write the GPU's memory directly (GPUDirect RDMA off: gpudirect.hpp), sorted; empty when
  // every NIC moves GPU memory itself.
  std::vector<NodeId> staging_cpus;

  // Aggregate bandwidth when every path runs at its bottleneck: sum of share-limited rates.
  double bandwidth_Bps() const;
  // Largest path latency (the critical one).
  double latency_s() const;
};

// Every field is part of the key of the Router's route cache (router_impl.hpp).
struct RouteOptions {
  // Use peer-to-peer paths (NVLink, and PCIe peer-to-peer where the hardware allows it:
  // p2pBandwidthLatencyTest's "P2P=Enabled"); when false, every GPU-to-GPU route is staged
  // through host memory, whatever links the GPUs share (NCCL_P2P_DISABLE, "P2P=Disabled").
  bool allow_p2p = true;
  // Use NVLink (set false to see what a PCIe-only path would do).
  bool allow_nvlink = true;
  // Where two GPUs share no direct NVLink, relay through one intermediate GPU that has NVLink to
  // both (NCCL's NVB path: exactly one relay, never more). cudaMemcpyPeer never relays through a
  // third GPU, so copies set this false.
  bool allow_nvlink_relay = true;
};

// How the router searches the graph. `per_source` (the default) runs one breadth-first search
// per (source, link class) and reads every destination's paths from it, so routing all N^2
// pairs of a machine costs N searches. `per_pair` searches afresh for each pair (the original
// method), kept as the reference the per-source results are tested against: both give the same
// routes, channel for channel. Across a cluster's network, `per_source` also shares the paths
// between two switches among every pair of single-homed NICs on them; `per_pair` searches from
// NIC to NIC.
enum class SearchSharing { per_source, per_pair };

// Routes over one topology (a machine, or a cluster: cluster_builder.hpp). A route is computed on
// its first request for a (src, dst, options) and cached, so thousands of endpoints cost only the
// pairs asked for. Copies of a Router share one cache; it is safe to use from several threads.
// REQUIRES: `topology` outlives the router and does not change while the router is in use (cached
// routes carry its link figures).
class Router {
 public:
  explicit Router(const Topology& topology, SearchSharing sharing = SearchSharing::per_source);

  // Throws InputError-free std::logic_error only for invalid node ids; an unreachable pair
  // returns nullopt.
  std::optional<Route> route(NodeId src, NodeId dst, const RouteOptions& options = {}) const;
  // The routes from `src` to each of `dsts`, in order, computed without entering the route
  // cache (a summary over every pair of a large machine keeps O(N) routes alive, not O(N^2)).
  std::vector<std::optional<Route>> routes_from(NodeId src, const std::vector<NodeId>& dsts,
                                                const RouteOptions& options = {}) const;

  // How many routes have been computed rather than served from the cache (its misses).
  std::size_t routes_computed() const;

  // nvidia-smi topo -m class between two devices (GPUs or NICs), and its NV link count when
  // the class is nvlink.
  PathClass path_class(NodeId a, NodeId b) const;
  int nvlink_count(NodeId a, NodeId b) const;

  // The compute NICs of a GPU's host it reaches in the fewest PCIe hops (NCCL's NIC locality),
  // in ordinal order; empty when it reaches none.
  std::vector<NodeId> nearest_nics(NodeId gpu) const;

  // Socket (CPU node) a device hangs off, following PCIe up from it; nullopt for none.
  std::optional<NodeId> host_socket(NodeId device) const;

  // Whether PCIe peer-to-peer is possible between two GPUs (both GPU models allow it, and
  // every CPU on the PCIe path between them allows it).
  bool p2p_possible(NodeId a, NodeId b) const;

  const Topology& topology() const { return *topo_; }

  // The state copies share (route cache, search trees): opaque outside the router's own files
  // (router_impl.hpp).
  struct Impl;

 private:
  std::optional<Route> compute_route(NodeId src, NodeId dst, const RouteOptions& options) const;
  // Relay through exactly one GPU (NVB): the fewest-hop src -> g -> dst over NVLink, each half
  // direct or through NVSwitches; nullopt when no GPU has NVLink to both.
  std::optional<Route> relay_route(NodeId src, NodeId dst) const;
  // Between GPUs of two hosts of a cluster: out through a NIC (the GPU's nearest, or through a
  // peer GPU's on the destination's rail: PXN), across the fabric, in through the destination's
  // nearest NIC.
  std::optional<Route> network_route(NodeId src, NodeId dst, const RouteOptions& options) const;

  const Topology* topo_;
  std::shared_ptr<const Impl> impl_;
};

}  // namespace linksim::topo
