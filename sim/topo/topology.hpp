#pragma once
// A machine: nodes (GPUs, switches, CPU sockets, NICs) joined by physical links. Each physical
// link is full duplex; its two directions are separate capacities ("channels"), numbered
// 2*link (a->b) and 2*link+1 (b->a), so the network solver can use channel ids directly.

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/collective_op.hpp"
#include "sim/topo/device_identity.hpp"
#include "sim/topo/fabric.hpp"
#include "sim/topo/gpu_model.hpp"
#include "sim/topo/link_kind.hpp"

namespace linksim::topo {

using NodeId = std::uint32_t;
using LinkId = std::uint32_t;
using ChannelId = std::uint32_t;

enum class NodeKind { gpu, nvswitch, pcie_switch, cpu, nic, net_switch };
std::string_view to_string(NodeKind kind);
std::optional<NodeKind> node_kind_from_string(std::string_view name);

struct CpuInfo {
  std::string vendor;  // "intel", "amd", "nvidia", "ibm", "other"
  std::string model;
  // Whether PCIe peer-to-peer traffic may cross this socket's root complex. Some AMD platforms
  // and many virtualised hosts do not allow it (the seed: "some AMD CPU platforms").
  bool pcie_p2p = true;
  double memory_bandwidth_Bps = 0;  // 0 when unknown
  // A cpu node is one NUMA domain: a whole socket, or part of one (AMD NPS4, Intel SNC).
  int socket = 0;
  int numa_node = 0;
  std::string cores;                 // CPU affinity as nvidia-smi prints it, e.g. "48-63,176-191"
  std::optional<CpuIdentity> cpuid;  // as a dump states it (the file's "cpuid")
};

struct NicInfo {
  std::string model;
  double port_bandwidth_Bps = 0;  // per direction, 0 when unknown
  // Whether the NIC carries GPU traffic between hosts (a compute NIC), or serves storage and
  // management only (the file's "role"); only compute NICs join a cluster's fabric.
  bool scale_out = true;
  // In a cluster: the NIC's rail, its index among its host's compute NICs; -1 otherwise.
  int rail = -1;
  // The network the NIC speaks (the file's "network"), when it says.
  std::optional<FabricKind> network;
};

struct Node {
  std::string id;  // unique, e.g. "gpu3"
  NodeKind kind = NodeKind::gpu;
  int ordinal = 0;    // index among nodes of the same kind, in file order (GPU0..GPUn-1)
  std::string model;  // free-form model name (GPU model name for GPUs)
  std::optional<GpuModel> gpu;
  std::optional<CpuInfo> cpu;
  std::optional<NicInfo> nic;
  // As a dump states them (the file's "pci" and "nccl"), for exporting it back: a GPU's, NIC's
  // or switch's PCI function (an NVSwitch's bus id is the one NVLinks name it by), and NCCL's
  // numbering of a GPU or network device. Unset for machines described by hand.
  std::optional<PciIdentity> pci;
  std::optional<NcclDevice> nccl;
  // In a cluster: the host the node belongs to, 0..host_count-1, or kFabricHost for the
  // fabric's own switches. A single machine is host 0.
  int host = 0;
};

inline constexpr int kFabricHost = -1;

// Where a figure came from: "theoretical" (a line rate from a spec) or "effective"
// (a measured or calibrated rate), plus a citation.
struct Provenance {
  std::string basis;   // "theoretical" or "effective"
  std::string source;  // URL or document
};

// An interval around a fitted figure (a calibration's 95% confidence interval): lo <= hi.
struct Range {
  double lo = 0;
  double hi = 0;
};

struct Link {
  NodeId a = 0;
  NodeId b = 0;
  LinkKind kind = LinkKind::pcie;
  int generation = 0;        // NVLink / PCIe / UPI generation, 0 when not applicable
  int lanes = 1;             // NVLink: links bundled between a and b; UPI/xGMI: link count
  int width = 0;             // PCIe: lane width (x16 = 16)
  double bandwidth_Bps = 0;  // per direction
  double latency_s = 0;      // one traversal
  // PCIe only: which host bridge of the CPU this link enters (nvidia-smi's PHB vs NODE).
  int host_bridge = 0;
  Provenance provenance;
  // Set by `linksim fit` where the fit bounds the figure: predictions then carry a range.
  std::optional<Range> bandwidth_range_Bps;
  std::optional<Range> latency_range_s;
};

struct Instance {
  std::string provider;                      // "aws", "alibaba", ...
  std::string name;                          // "p4d.24xlarge"
  std::optional<double> price_per_hour_usd;  // list price; absent when it varies too much
  // With a price: when it was the list price (YYYY, YYYY-MM or YYYY-MM-DD, or kGivenPrice for
  // one given on the command line), and where it comes from.
  std::string price_as_of;
  std::string price_source;
  static constexpr const char* kGivenPrice = "given";
  std::string network;  // human description, e.g. "4x 100 Gb/s EFA"
  double network_bandwidth_Bps = 0;
  // The fabric its hosts scale out on (the file's "network_kind"), when it says.
  std::optional<FabricKind> network_kind;
  std::vector<std::string> sources;
};

// Corrections to the collective model fitted from a machine's own nccl-tests logs (`linksim
// fit`): NCCL latency terms are multiplied by `latency` and protocols' payload efficiencies by
// `bandwidth`; per operation where its logs were fitted, else the all-operations figures.
// 1 and 1 for an uncalibrated machine.
struct CollectiveScales {
  double latency = 1.0;
  double bandwidth = 1.0;
  std::optional<Range> latency_range;  // the fit's confidence interval, when it has one
  std::optional<Range> bandwidth_range;
  // On top of `bandwidth`, for the LL and LL128 protocols (Simple is the reference): how far
  // this machine's LL / LL128 fall short of their nominal payload share, or exceed it.
  double ll = 1.0;
  double ll128 = 1.0;
  std::optional<Range> ll_range;
  std::optional<Range> ll128_range;
};
struct CollectiveCalibration {
  CollectiveScales all;
  // Listed by name in files and reports (CollectiveOpNameOrder).
  std::map<CollectiveOp, CollectiveScales, CollectiveOpNameOrder> by_op;
  std::string source;
  CollectiveScales for_op(CollectiveOp op) const {
    auto it = by_op.find(op);
    return it == by_op.end() ? all : it->second;
  }
};

// Host time to launch one collective on one GPU (cudaSetDevice, the kernel launch and NCCL's
// enqueue work). One CPU thread driving g GPUs (nccl-tests -g g in one process) cannot start an
// operation more often than every g x per_gpu_s, however fast the GPUs finish it. Known only
// from a calibration (linksim fit on nccl-tests logs); 0 when unknown, and then not modelled.
struct HostLaunch {
  double per_gpu_s = 0;
  std::optional<Range> range_s;
  std::string source;
};

// What a host draws beside its GPUs (CPUs, memory, NVSwitches, NICs, fans, power supply
// losses) at its rated maximum: the rated system power less the GPUs' board power, from the
// system's datasheet. Unknown (absent) for most machines; the energy model then counts GPUs only.
struct HostPower {
  double non_gpu_w = 0;
  std::string source;
};

class Topology {
 public:
  std::string name;         // file stem, e.g. "dgx-a100"
  std::string title;        // one line for people
  std::string description;  // what the machine is
  std::string file;         // where it was loaded from
  std::vector<std::string> sources;
  std::vector<std::string> notes;
  std::optional<Instance> instance;
  std::string base;  // base machine for cloud instances, empty otherwise
  CollectiveCalibration collective;
  HostLaunch host_launch;
  std::optional<HostPower> host_power;  // per host; a cluster's hosts each draw it
  // Hosts in this topology: 1 for a machine; N for a cluster (cluster_builder.hpp), whose
  // `cluster` then says how it was built.
  int host_count = 1;
  std::shared_ptr<const ClusterInfo> cluster;
  bool is_cluster() const { return cluster != nullptr; }

  // A topology that describes the same machine (name, title, sources, instance, calibration,
  // host count, cluster) and has no nodes or links yet: where a derived graph starts.
  Topology without_graph() const;

  // Adds a node or link. Node ids must be unique (std::logic_error otherwise: the loader checks
  // first and reports bad input as InputError).
  NodeId add_node(Node node);
  LinkId add_link(Link link);

  // Swaps the model of a GPU node (REQUIRES: `gpu` is a GPU).
  void set_gpu_model(NodeId gpu, GpuModel model);
  // Replaces a link's bandwidth and latency (a calibration range's end); the graph is unchanged.
  void set_link_figures(LinkId link, double bandwidth_Bps, double latency_s);
  // Re-rates a link at another generation of its kind (a GPU swap): generation, bandwidth and
  // provenance change and calibration ranges are dropped; endpoints, kind, lanes and latency
  // stay, so the graph is unchanged.
  void set_link_generation(LinkId link, int generation, double bandwidth_Bps,
                           Provenance provenance);
  // Replaces a CPU node's description (another host under the same baseboard: REQUIRES `cpu`
  // is a CPU); socket and NUMA node stay, so the graph is unchanged.
  void set_cpu(NodeId cpu, CpuInfo info);
  // Re-rates a link as another kind of the same role (a socket link UPI -> xGMI): kind,
  // generation, lanes, figures and provenance change and calibration ranges are dropped;
  // endpoints stay, so the graph is unchanged.
  void set_link_kind(LinkId link, LinkKind kind, int generation, int lanes, double bandwidth_Bps,
                     double latency_s, Provenance provenance);

  const std::vector<Node>& nodes() const { return nodes_; }
  const std::vector<Link>& links() const { return links_; }
  const Node& node(NodeId id) const { return nodes_.at(id); }
  const Link& link(LinkId id) const { return links_.at(id); }
  std::optional<NodeId> find(std::string_view id) const;
  // The host a node belongs to (kFabricHost for fabric switches).
  int host_of(NodeId id) const { return nodes_.at(id).host; }

  // GPUs, CPUs, NICs in ordinal order.
  std::vector<NodeId> nodes_of(NodeKind kind) const;
  std::size_t count(NodeKind kind) const;

  std::size_t channel_count() const { return 2 * links_.size(); }
  static ChannelId channel(LinkId link, bool a_to_b) { return 2 * link + (a_to_b ? 0 : 1); }
  static LinkId link_of(ChannelId channel) { return channel / 2; }
  // Source and destination node of a channel.
  NodeId channel_from(ChannelId channel) const;
  NodeId channel_to(ChannelId channel) const;
  double channel_bandwidth_Bps(ChannelId channel) const {
    return links_[link_of(channel)].bandwidth_Bps;
  }
  // "gpu0->nvswitch2 (NVLink 3 x2)".
  std::string channel_name(ChannelId channel) const;

  // Channels leaving `node`, in ascending channel id (REQUIRES: `node` is a node id; throws
  // std::logic_error otherwise). Valid until the next add_link.
  const std::vector<ChannelId>& out_channels(NodeId node) const;

 private:
  std::vector<Node> nodes_;
  std::vector<Link> links_;
  std::map<std::string, NodeId, std::less<>> index_;
  std::array<std::size_t, 6> kind_counts_{};
  // The directed multigraph as adjacency: each node's out-channels, ascending (channel ids only
  // grow as links are added, so appending keeps them sorted).
  std::vector<std::vector<ChannelId>> out_;
};

// Every channel's name, by channel id (Topology::channel_name), for reports.
std::vector<std::string> channel_names(const Topology& topology);

}  // namespace linksim::topo
