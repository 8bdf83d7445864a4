#pragma once
// A group of GPUs that run collectives together, with what NCCL would work out when it
// initialises: the route between every pair, the hardware class of its links, its rings, and
// whether NVLink SHARP is available. Built once per group; collectives then reuse it.
// On a cluster the group may span hosts ("nodes", as NCCL says): its rings then leave and
// enter every node through NICs, one ring per GPU that has a NIC of its own.

#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/coll/nccl_channel_search.hpp"
#include "sim/coll/nccl_env.hpp"
#include "sim/coll/partial_run_memo.hpp"
#include "sim/coll/protocol.hpp"
#include "sim/coll/ring_shape.hpp"
#include "sim/coll/route_planes.hpp"
#include "sim/topo/gpudirect.hpp"
#include "sim/topo/routing.hpp"
#include "sim/topo/topology.hpp"

namespace linksim::coll {

struct Ring {
  std::vector<int> order;  // rank indices in ring order; rank order[i] sends to order[i+1]
};

class Communicator {
 public:
  // REQUIRES: ranks are distinct GPUs of `topo`, which outlives the communicator. A route
  // between two ranks that cannot reach each other throws InputError (the machine's file) when
  // first asked for. Routes are computed when
  // first used: a communicator of thousands of ranks pays for the pairs its collectives use.
  // `env` is NCCL's environment (nccl_env.hpp): its P2P level and SHM switch choose each pair's
  // transport inside a host (route), its NCCL_NTHREADS and NCCL_BUFFSIZE the threads and
  // Simple buffer (threads_per_channel, simple_step_bytes). Without one, a cluster's nccl_env
  // variables stand (what its plugin sets; none on one machine); a caller that read the user's
  // environment passes it merged over those. A pair NCCL would connect through neither P2P nor
  // SHM throws InputError from route(), as the NET transport between GPUs of one host is not
  // modelled.
  Communicator(const topo::Topology& topo, std::vector<topo::NodeId> ranks,
               topo::RouteOptions options = {}, std::optional<NcclEnvironment> env = {});
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;

  const topo::Topology& topology() const { return *topo_; }
  const topo::Router& router() const { return router_; }
  int size() const { return static_cast<int>(ranks_.size()); }
  topo::NodeId gpu(int rank) const { return ranks_[static_cast<std::size_t>(rank)]; }
  int gpu_index(int rank) const;  // the GPU's ordinal, as the engine numbers GPUs
  const topo::Route& route(int from, int to) const;

  // Hosts the ranks span (NCCL's nNodes), the most ranks on one (ppn), and a rank's host.
  int node_count() const { return node_count_; }
  int ranks_per_node() const { return ranks_per_node_; }
  int host(int rank) const { return topo_->host_of(gpu(rank)); }
  // Whether `from` and `to` are on different hosts (their steps pay NCCL's NET latencies).
  bool crosses_nodes(int from, int to) const { return host(from) != host(to); }
  // Whether the hosts' CPUs are AMD (NCCL's multi-node LL cap row and its net overhead).
  bool amd_cpu() const { return amd_cpu_; }

  // Payload capacity of every topology channel (line rate x link payload efficiency).
  const std::vector<double>& capacities_Bps() const { return capacity_Bps_; }

  // NCCL's class of the links inside a node (NVLINK only where every pair is direct NVLink).
  HwClass intra_class() const { return intra_class_; }
  GpuGeneration generation() const { return generation_; }
  // NCCL's compute capability of the first rank's GPU (topo::nccl_compute_capability): 80 for
  // an A100, 86 for the GA10x cards, 90 for Hopper.
  int compute_capability() const { return compute_capability_; }
  // The bandwidth the rings may use per GPU in NCCL's link figures (GB/s), for its search: on
  // an NVSwitch node, a GPU's NVLinks to the switches.
  double ring_nccl_GBps() const;
  // A GPU's NVLinks in NCCL's figures (links x nccl_nvlink_GBps), GB/s: what bounds its
  // channels x speed in every graph NCCL searches.
  double gpu_nvlink_GBps() const;
  // The NICs the rings leave a node by (each ring's entry GPU's nearest), in NCCL's figures
  // (GB/s); empty on one node. Found once, when the communicator is built.
  const std::vector<double>& ring_nic_GBps() const { return ring_nics_GBps_; }
  // Whether NVLS is eligible here: the rule is algorithms/nvls.cpp's (why_ineligible).
  bool nvls_capable() const;
  // Whether the ranks' fabric reduces in-network (a cluster whose fabric says
  // "in_network_reduction": "sharp"): NCCL's CollNet algorithms need it.
  bool in_network_reduction() const;
  // The latency the cluster's network plugin reports to NCCL (topo::FabricFigures::
  // plugin_latency_s, or the fabric's "plugin_latency"), microseconds: NCCL's graphs carry it as
  // latencyInter into its tuning model. 0 on one node.
  double plugin_latency_us() const;
  // What the cluster's network plugin sets in NCCL's environment (topo::NcclEnvDefaults), for
  // every communicator of the process: whether its NCCL_PROTO leaves NCCL protocol `p` (a
  // caller that names protocols itself overrides it, as a user's own variable would), and the
  // Simple buffer's step (NCCL_BUFFSIZE / NCCL_STEPS: 512 KiB by NCCL's default 4 MiB).
  // The user's NCCL_BUFFSIZE (env) wins over the plugin's, as an already set variable does.
  bool network_env_allows(Protocol p) const;
  double simple_step_bytes() const;
  // Threads per channel for `p` where NCCL's channel rule (enqueue.cc computeColl: nc drops
  // while bytes < nc x nt x threshold) counts them: NCCL_NTHREADS for LL and Simple when set
  // (tuning.cc: maxThreads[RING|TREE][LL|SIMPLE]), else `fallback` (the algorithm's own
  // figure); LL128 keeps `fallback` (NCCL_LL128_NTHREADS, not modelled).
  int threads_per_channel(Protocol p, int fallback) const;
  const NcclEnvironment& nccl_env() const { return env_; }
  // A point-to-point send's Simple chunk across nodes (init.cc computeBuffSizes): the plugin's
  // NCCL_P2P_NET_CHUNKSIZE or NCCL's 128 KiB, at most a Simple step (NCCL keeps NCCL_STEPS of
  // them in the Simple buffer).
  double p2p_net_chunk_bytes() const;
  // NVLS's largest chunk (enqueue.cc computeColl, nvls.cc ncclNvlsTuning): the plugin's
  // NCCL_NVLS_CHUNKSIZE or NCCL's 128 KiB, at most a Simple step (NVLS takes one step a chunk).
  double nvls_max_chunk_bytes() const;
  // NCCL's default for LL128 (tuning.cc): SM70 or newer, NVLink inside the node, and across
  // nodes a GPU-NIC path no longer than PXB (PXN on SM90 and newer, NCCL_LL128_C2C's default):
  // LL128 relies on 128-byte stores arriving in order, which a path through the CPU's root
  // complex (PHB, SYS) does not keep.
  bool ll128_enabled() const;
  // Across nodes, the worst NCCL path type between a ring's entry GPU and its NIC (NCCL's
  // graph typeInter); PIX on one node, as NCCL starts it.
  topo::NetDistance inter_distance() const { return inter_distance_; }
  // The machine's fitted corrections for an operation (topology "collective_calibration"),
  // 1 and 1 when uncalibrated.
  topo::CollectiveScales scales(Op op) const { return topo_->collective.for_op(op); }

  // Rings chosen to spread traffic over the links (several when one ring leaves links idle),
  // and the busBw they reach together when nothing else runs: one ring step of B bytes per
  // rank takes B / ring_bus_bandwidth_Bps.
  const std::vector<Ring>& rings() const { return rings_; }
  double ring_bus_bandwidth_Bps() const { return ring_bus_Bps_; }
  // The channels NCCL would run (2x its search channels, capped at 32, and across nodes
  // connect.cc's SM90 and UNPACK-device doublings): on one node, NCCL's ring search over the
  // rings' bottleneck; across nodes its search over the rings' NICs within a GPU's NVLinks
  // (nccl_channel_search.hpp, nccl_net_device.hpp); a cluster whose rings see no NIC, one
  // search channel per 20 GB/s of the rings.
  int max_channels() const { return max_channels_; }
  // NCCL's ring search on one node (search_channels 0 across nodes, where it is not run).
  const NcclRingSearch& ring_search() const { return search_; }
  // NCCL's ring search across nodes (search_channels 0 on one node, or where the rings see no
  // NIC).
  const NcclRingSearch& inter_ring_search() const { return inter_search_; }

  // The identical planes of the ranks' routes (route_planes.hpp), found once: only on one host
  // of at most kMaxPlaneRanks ranks (each pair's route is checked); copies == 1 elsewhere.
  static constexpr int kMaxPlaneRanks = 128;
  const PlaneCopies& plane_copies() const;

  // A figure worked out once per key for this group (collective_sim.cpp caches what NCCL's
  // slices add to a collective over its bulk form); thread-safe.
  double memo(const std::string& key, const std::function<double()>& compute) const;
  // Takes every figure `twin` has worked out that this group lacks. REQUIRES: are_twins(twin,
  // *this) (communicator_twins.hpp): each figure is then this group's, renamed.
  void adopt_figures(const Communicator& twin) const;
  // The replays' partial runs on this group (partial_run_memo.hpp); thread-safe.
  PartialRunMemo& partial_runs() const { return partial_runs_; }

 private:
  // The cluster network plugin's settings; nullptr on one machine, which has no plugin.
  const topo::NcclEnvDefaults* network_env() const;
  // Per topology channel, what it carries when each rank sends one byte a ring step, split
  // evenly over `rings`.
  std::vector<double> ring_loads(const std::vector<Ring>& rings) const;
  // The channel whose load over its capacity is largest (the first of equals; 0 when nothing
  // is loaded), and that ratio.
  std::pair<std::size_t, double> ring_bottleneck(const std::vector<double>& load) const;
  // Time for one ring step of one byte per rank, split evenly over `rings`: the most loaded
  // channel decides.
  double ring_step_time(const std::vector<Ring>& rings) const;
  // One node: the rings that share each channel's load best (greedy over every order through
  // rank 0 up to 8 ranks, else rank order), shared by every communicator of the same shape
  // (ring_shape.hpp).
  void choose_rings();
  RingChoice search_rings() const;
  void choose_node_rings();
  std::vector<double> find_ring_nic_GBps() const;

  // NCCL's P2P transport check (paths.cc ncclTopoCheckP2p) under env_.p2p_level: the pair's
  // path type, NVL / NVB from the route, PIX, PXB, PHB (nvidia-smi's PHB and NODE) or SYS from
  // the PCIe path.
  NcclPath pair_path(topo::NodeId a, topo::NodeId b, const topo::Route& r) const;

  const topo::Topology* topo_;
  topo::Router router_;
  topo::RouteOptions options_;
  NcclEnvironment env_;
  std::vector<topo::NodeId> ranks_;
  mutable std::mutex routes_mutex_;
  mutable std::map<std::pair<int, int>, topo::Route> routes_;
  mutable std::once_flag planes_once_;
  mutable PlaneCopies planes_;
  mutable std::mutex memo_mutex_;
  mutable std::map<std::string, double> memo_;
  mutable PartialRunMemo partial_runs_;
  int node_count_ = 1;
  int ranks_per_node_ = 1;
  bool amd_cpu_ = false;
  std::vector<double> capacity_Bps_;
  HwClass intra_class_ = HwClass::pci;
  GpuGeneration generation_ = GpuGeneration::volta;
  std::vector<Ring> rings_;
  double ring_bus_Bps_ = 0;
  std::vector<double> ring_nics_GBps_;
  int max_channels_ = 2;
  NcclRingSearch search_{0, 0, 2};
  NcclRingSearch inter_search_{0, 0, 2};
  int compute_capability_ = 80;  // the first rank's GPU, as NCCL reads it
  topo::NetDistance inter_distance_ = topo::NetDistance::pix;
};

}  // namespace linksim::coll
