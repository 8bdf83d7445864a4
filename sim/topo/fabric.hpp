#pragma once
// A cluster's scale-out fabric: what joins the hosts' compute NICs (docs/cluster-format.md).
// The kind says which network it is and brings its figures (fabric_figures); the shape says how
// the switches are wired; the policies say how traffic picks its NIC and its spine.

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/nccl_proto_list.hpp"
#include "sim/topo/link_kind.hpp"

namespace linksim::topo {

class Topology;

// AWS's EFA by generation, as AWS labels them (its EFA page groups instances under "Nitro v3
// (EFA v1)" to "Nitro v6 (EFA v4)"): `efa` is the first (p3dn, p4d, p4de), efa_v2 p5 and p5e,
// efa_v3 p5en and p6e-gb200, efa_v4 p6-b200 and p6-b300. They differ in what a message costs.
enum class FabricKind { infiniband, roce, efa, efa_v2, efa_v3, efa_v4, tcpx, tcpxo };
enum class FabricShape { single_switch, rail_optimized, fat_tree, three_tier };
// Which of several equal-cost fabric paths a transfer takes: one chosen by a hash of its
// endpoints, as switches' ECMP does, or all of them in equal shares (adaptive routing, packet
// spraying).
enum class SpineChoice { ecmp, spread };
// How a GPU reaches a NIC on another rail: through its own NIC and the spines, or (PXN, NCCL's
// default since 2.12) over NVLink to the GPU next to the destination's rail, then that GPU's NIC.
enum class NicChoice { nearest, pxn };
// Whether the fabric's switches reduce in-network: `sharp` is NVIDIA's SHARP on Quantum
// InfiniBand switches, as NCCL uses it through its CollNet algorithms (the SHARP plugin,
// nccl-rdma-sharp-plugins, installed and NCCL_COLLNET_ENABLE=1); `none` otherwise.
enum class InNetworkReduction { none, sharp };
// GPUDirect RDMA (gpudirect.hpp): how close a GPU and a NIC must be for the NIC to read and
// write the GPU's memory directly, by NCCL's path types (NCCL_NET_GDR_LEVEL, src/graph/paths.cc
// ncclTopoCheckGdr); farther, NCCL's network buffers sit in host memory and the traffic is
// staged there. `automatic` is NCCL's default (PXB, or P2C on a C2C machine: NET_GDR_C2C=1);
// `off` is a NIC or driver without GPUDirect RDMA (no nvidia-peermem or DMA-BUF, EFA before
// p4d): NCCL's gdrSupport 0, every GPU host-staged.
enum class GdrLevel { automatic, off, pix, pxb, phb, sys };

std::string_view to_string(FabricKind kind);
// AWS's Elastic Fabric Adapter, any generation: NCCL reaches it through aws-ofi-nccl.
constexpr bool is_efa(FabricKind kind) {
  return kind == FabricKind::efa || kind == FabricKind::efa_v2 || kind == FabricKind::efa_v3 ||
         kind == FabricKind::efa_v4;
}
std::string_view to_string(FabricShape shape);
std::string_view to_string(SpineChoice choice);
std::string_view to_string(NicChoice choice);
std::string_view to_string(InNetworkReduction reduction);
std::string_view to_string(GdrLevel level);
std::optional<FabricKind> fabric_kind_from_string(std::string_view name);
std::optional<FabricShape> fabric_shape_from_string(std::string_view name);
std::optional<SpineChoice> spine_choice_from_string(std::string_view name);
std::optional<NicChoice> nic_choice_from_string(std::string_view name);
std::optional<InNetworkReduction> in_network_reduction_from_string(std::string_view name);
std::optional<GdrLevel> gdr_level_from_string(std::string_view name);
std::vector<std::string> fabric_kind_names();
std::vector<std::string> fabric_shape_names();

// What a fabric kind brings, each figure with its basis and source.
struct FabricFigures {
  LinkKind link_kind = LinkKind::infiniband;
  // Payload per line byte on a NIC port (protocol headers, the transport's own overheads).
  double payload_efficiency = 1;
  std::string efficiency_source;
  // One switch traversal, seconds.
  double switch_latency_s = 0;
  // What one message pays on top of NCCL's own network step latency (nccl-model.md §2 hwLat
  // NET): the NIC, the transport and its software, seconds; on the NIC-to-leaf link.
  double nic_latency_s = 0;
  std::string latency_basis;  // "theoretical", "effective" or "fitted"
  std::string latency_source;
  // The latency the network plugin reports to NCCL (ncclNetProperties_t.latency), seconds. It
  // moves no data: NCCL's search copies it into each graph's latencyInter, and its tuning model
  // adds that to every network step (twice for Simple), so it decides which algorithm and
  // protocol NCCL runs across nodes. NCCL's own InfiniBand and socket transports report 0.
  double plugin_latency_s = 0;
  std::string plugin_latency_source;
};
const FabricFigures& fabric_figures(FabricKind kind);

// What the cluster's network plugin puts in NCCL's environment when the user has not set it
// first (aws-ofi-nccl's platform table, src/platform-aws.cpp: it sets only variables still
// unset), so NCCL reads them as the user's own. Each changes how NCCL moves data on every
// communicator of the process, on one node or many.
struct NcclEnvDefaults {
  // NCCL_PROTO: which of LL, LL128 and Simple NCCL may use ([LL, LL128, Simple]); all when
  // unset. aws-ofi-nccl sets Simple where EFA cannot deliver 128-byte-aligned writes in order.
  std::optional<NcclProtocolMask> protocols;
  // NCCL_BUFFSIZE: each connection's Simple buffer, bytes; NCCL's default (4 MiB) when unset.
  std::optional<double> buffsize_bytes;
  // NCCL_P2P_NET_CHUNKSIZE: a point-to-point send's Simple chunk across nodes, bytes; NCCL's
  // default (128 KiB) when unset.
  std::optional<double> p2p_net_chunk_bytes;
  // NCCL_NVLS_CHUNKSIZE: NVLS's largest chunk, bytes; NCCL's default (128 KiB) when unset.
  std::optional<double> nvls_chunk_bytes;
  // NCCL_P2P_DISABLE, NCCL_P2P_LEVEL, NCCL_SHM_DISABLE, NCCL_NET_GDR_LEVEL and NCCL_NTHREADS as
  // the environment would show them (name -> text), checked when loaded by the environment's
  // own reader (nccl_env_read.hpp), which reads them again where a communicator is built.
  std::map<std::string, std::string> variables;
  std::string source;  // where the settings come from, for notes
  bool empty() const {
    return !protocols && !buffsize_bytes && !p2p_net_chunk_bytes && !nvls_chunk_bytes &&
           variables.empty();
  }
};
// The settings as the environment would show them: "NCCL_PROTO=Simple NCCL_BUFFSIZE=8388608
// NCCL_P2P_NET_CHUNKSIZE=524288 NCCL_NVLS_CHUNKSIZE=524288", then `variables` by name.
std::string env_text(const NcclEnvDefaults& env);

// A fabric as a file (or --nodes) states it; zero counts mean "derive it" (cluster_builder).
struct FabricSpec {
  FabricKind kind = FabricKind::infiniband;
  FabricShape shape = FabricShape::rail_optimized;
  // Downlink over uplink bandwidth at each leaf (and spine, for three tiers): 1 is non-blocking.
  double oversubscription = 1;
  int hosts_per_leaf = 0;  // rail-optimised: hosts of one scalable unit; fat-tree: per leaf
  int spines = 0;          // switches in the spine tier (per pod for three tiers)
  int leaves_per_pod = 0;  // three tiers only
  std::optional<double> switch_latency_s;  // overrides the kind's
  std::optional<double> nic_latency_s;     // overrides the kind's
  std::optional<double> plugin_latency_s;  // overrides the kind's (a platform of its own)
  SpineChoice spine_choice = SpineChoice::spread;
  NicChoice nic_choice = NicChoice::pxn;
  // InfiniBand only (cluster_loader checks it): without it NCCL never runs CollNet.
  InNetworkReduction in_network_reduction = InNetworkReduction::none;
  GdrLevel gpudirect_rdma = GdrLevel::automatic;
  NcclEnvDefaults nccl_env;
};

// How a cluster was built, for summaries, routing and rebuilding at another size.
struct ClusterInfo {
  std::shared_ptr<const Topology> host;  // the machine every host is a copy of
  std::string host_machine;              // the host's machine name ("dgx-h100")
  std::string host_title;
  int hosts = 0;
  int gpus_per_host = 0;
  // Host h's nodes are ids [h * nodes_per_host, (h + 1) * nodes_per_host), in the host's order.
  int nodes_per_host = 0;
  int rails = 0;  // compute NICs per host
  FabricSpec fabric;
  int leaves = 0;
  int spines = 0;
  int cores = 0;
  double nic_bandwidth_Bps = 0;  // one compute NIC port, per direction (line rate)
};

}  // namespace linksim::topo
