#pragma once
// GPUDirect RDMA: whether a NIC reads (a send) or writes (a receive) a GPU's memory directly, or
// NCCL stages the traffic through host memory, by NCCL's rule (src/graph/paths.cc,
// ncclTopoCheckGdr; src/transport/net.cc, sendSetup / recvSetup):
// - both the NIC and the GPU must support it (the cluster's `gpudirect_rdma` "off" says they
//   do not: NCCL's gdrSupport 0);
// - a send (a GDR read) from a GPU older than Ampere (SM < 80) needs an NVLink peer GPU on its
//   host, or to be the host's only GPU (NCCL_NET_GDR_READ's default, -2: "Disable GDR Reads
//   pre-Ampere when we have other PCI flows");
// - the GPU-NIC distance, NCCL's path type, must be at most the GDR level: PXB by default, or
//   P2C (GPU -C2C- CPU -PCIe- NIC, Grace machines) with NCCL_NET_GDR_C2C=1, the default; the
//   cluster's `gpudirect_rdma` may set another level (NCCL_NET_GDR_LEVEL). A PXN send is
//   judged on the proxy GPU's distance to the NIC.
// Without GPUDirect RDMA, NCCL allocates the connection's buffers in pinned host memory
// (net.cc sendProxySetup/recvProxySetup: NCCL_NET_MAP_ADD_POINTER with dev = useGdr) and
// paths.cc routes GPU <-> NIC through the CPU local to the GPU (addInterStep(CPU, localCpu,
// ...)): the kernel writes its data over its PCIe link into that socket's memory and the NIC
// reads it from there (and the reverse on a receive), so both legs cross the root complex.

#include <optional>
#include <string>

#include "sim/topo/fabric.hpp"
#include "sim/topo/routing.hpp"

namespace linksim::topo {

// NCCL's path types between a GPU and a NIC (src/include/graph.h), best first; `node` of
// nvidia-smi is PHB here, as NCCL has no NODE level.
enum class NetDistance { pix, pxb, p2c, phb, sys };
std::string_view to_string(NetDistance d);  // "PIX", "PXB", "P2C", "PHB", "SYS"

struct GdrCheck {
  bool direct = true;  // GPUDirect RDMA: the NIC moves the GPU's memory itself
  NetDistance distance = NetDistance::pix;
  // Where a staged transfer's data waits: the socket local to the GPU (its host memory).
  std::optional<NodeId> staging_cpu;
  std::string reason;  // one line, for --explain: why direct or staged
};

// NCCL's path type between `gpu` and `nic` of the same host.
NetDistance net_distance(const Router& router, NodeId gpu, NodeId nic);

// Whether the NIC reads (`read`: the GPU sends) or writes (the GPU receives) the GPU's memory
// directly under `level`. REQUIRES: gpu and nic on one host.
GdrCheck check_gdr(const Router& router, NodeId gpu, NodeId nic, bool read, GdrLevel level);

}  // namespace linksim::topo
