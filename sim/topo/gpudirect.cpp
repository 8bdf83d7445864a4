#include "sim/topo/gpudirect.hpp"

#include <fmt/format.h>

namespace linksim::topo {
namespace {

// NCCL's numbering of its path types (src/include/graph.h): PIX 4, PXB 5, P2C 6, PHB 8, SYS 9.
int nccl_path_type(NetDistance d) {
  switch (d) {
    case NetDistance::pix:
      return 4;
    case NetDistance::pxb:
      return 5;
    case NetDistance::p2c:
      return 6;
    case NetDistance::phb:
      return 8;
    case NetDistance::sys:
      return 9;
  }
  return 9;
}

// The farthest path type a level allows (ncclTopoCheckGdr's netGdrLevel): the default is P2C,
// as NCCL_NET_GDR_C2C defaults to 1 (on a machine without C2C that is PXB in effect: no GPU-NIC
// path is P2C there).
int level_path_type(GdrLevel level) {
  switch (level) {
    case GdrLevel::automatic:
      return 6;
    case GdrLevel::off:
      return 0;
    case GdrLevel::pix:
      return 4;
    case GdrLevel::pxb:
      return 5;
    case GdrLevel::phb:
      return 8;
    case GdrLevel::sys:
      return 9;
  }
  return 6;
}

std::string level_name(GdrLevel level) {
  if (level == GdrLevel::automatic) return "NCCL's default GDR level P2C";
  std::string name(to_string(level));
  for (char& c : name)
    c = static_cast<char>(c - 'a' + 'A');
  return fmt::format("the cluster's GDR level {} (gpudirect_rdma)", name);
}

// Whether `gpu` has a GPU of its own host at NVLink distance (NCCL's PATH_NVL), or is its
// host's only GPU: ncclTopoCheckGdr's test before it allows a pre-Ampere GDR read.
bool nvlink_peer_or_alone(const Router& router, NodeId gpu) {
  const Topology& t = router.topology();
  NodeId lo = 0;
  auto hi = static_cast<NodeId>(t.nodes().size());
  if (t.is_cluster() && t.host_of(gpu) >= 0) {
    const auto per = static_cast<NodeId>(t.cluster->nodes_per_host);
    lo = static_cast<NodeId>(t.host_of(gpu)) * per;
    hi = lo + per;
  }
  int gpus = 0;
  for (NodeId g = lo; g < hi; ++g) {
    if (t.node(g).kind != NodeKind::gpu) continue;
    ++gpus;
    if (g != gpu && router.nvlink_count(gpu, g) > 0) return true;
  }
  return gpus == 1;
}

// Whether `gpu` meets its local socket over a C2C link (Grace): NCCL's paths[CPU][c] == C2C.
bool c2c_to(const Topology& t, NodeId gpu, NodeId cpu) {
  for (ChannelId c : t.out_channels(gpu)) {
    if (t.channel_to(c) == cpu && t.link(Topology::link_of(c)).kind == LinkKind::c2c) return true;
  }
  return false;
}

}  // namespace

std::string_view to_string(NetDistance d) {
  switch (d) {
    case NetDistance::pix:
      return "PIX";
    case NetDistance::pxb:
      return "PXB";
    case NetDistance::p2c:
      return "P2C";
    case NetDistance::phb:
      return "PHB";
    case NetDistance::sys:
      return "SYS";
  }
  return "SYS";
}

NetDistance net_distance(const Router& router, NodeId gpu, NodeId nic) {
  switch (router.path_class(gpu, nic)) {
    case PathClass::self:
    case PathClass::nvlink:
    case PathClass::pix:
      return NetDistance::pix;
    case PathClass::pxb:
      return NetDistance::pxb;
    case PathClass::phb:
    case PathClass::node: {
      // P2C (paths.cc, "GPU -> C2C -> CPU -> PCIe -> NIC"): the GPU reaches its socket over C2C
      // and the NIC hangs off that same socket.
      const auto cpu = router.host_socket(gpu);
      if (cpu && c2c_to(router.topology(), gpu, *cpu) && router.host_socket(nic) == cpu) {
        return NetDistance::p2c;
      }
      return NetDistance::phb;
    }
    case PathClass::sys:
      return NetDistance::sys;
  }
  return NetDistance::sys;
}

GdrCheck check_gdr(const Router& router, NodeId gpu, NodeId nic, bool read, GdrLevel level) {
  const Topology& t = router.topology();
  GdrCheck out;
  out.distance = net_distance(router, gpu, nic);
  const auto staged = [&](std::string reason) {
    out.direct = false;
    out.staging_cpu = router.host_socket(gpu);
    out.reason = std::move(reason);
    return out;
  };
  if (level == GdrLevel::off) {
    return staged("GPUDirect RDMA is off on this cluster (gpudirect_rdma \"off\")");
  }
  const auto& model = t.node(gpu).gpu;
  // ncclTopoCheckGdr: cudaCompCap < 80, NVIDIA GPUs before Ampere.
  if (read && model && nccl_compute_capability(*model) < 80 && !nvlink_peer_or_alone(router, gpu)) {
    return staged(fmt::format(
        "{} is older than Ampere and has no NVLink peer: NCCL does not let the NIC read its "
        "memory (NCCL_NET_GDR_READ's default)",
        model->name));
  }
  if (nccl_path_type(out.distance) > level_path_type(level)) {
    return staged(
        fmt::format("GPU-NIC path {} is beyond {}", to_string(out.distance), level_name(level)));
  }
  out.reason =
      fmt::format("GPU-NIC path {} is within {}", to_string(out.distance), level_name(level));
  return out;
}

}  // namespace linksim::topo
