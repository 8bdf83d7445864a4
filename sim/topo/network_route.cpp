// Routes between GPUs on two hosts of a cluster: out through a NIC (the GPU's nearest on the
// destination NIC's rail, or a peer GPU's reached over NVLink: PXN), across the fabric (one
// ECMP path per flow, or spread over all), and in through the destination's nearest NICs. Where
// GPUDirect RDMA does not apply (gpudirect.hpp), a leg between GPU and NIC is staged through the
// host memory of the GPU's socket, as NCCL's proxy buffers are then.
#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "sim/topo/gpudirect.hpp"
#include "sim/topo/route_search.hpp"
#include "sim/topo/router_impl.hpp"
#include "sim/topo/routing.hpp"

namespace linksim::topo {
namespace {

using routing_detail::host_range;
using routing_detail::kMaxEqualPaths;

bool is_net(LinkKind k) {
  return k == LinkKind::infiniband || k == LinkKind::ethernet;
}

// Channels from the source GPU to its sending NIC, with the share of the bytes they carry.
using Heads = std::vector<std::pair<std::vector<ChannelId>, double>>;

// The sending side toward one destination NIC.
struct SendSide {
  NodeId nic = 0;
  Heads heads;
  std::optional<NodeId> proxy;  // the PXN GPU that forwards, when one does
};

// The source host's compute NIC on each rail.
std::map<int, NodeId> rail_nics(const Topology& t, NodeId src) {
  std::map<int, NodeId> out;
  const auto [lo, hi] = host_range(t, src);
  for (NodeId nic = lo; nic < hi; ++nic) {
    if (t.node(nic).kind == NodeKind::nic && t.node(nic).nic->scale_out) {
      out.emplace(t.node(nic).nic->rail, nic);
    }
  }
  return out;
}

// The socket whose host memory stages the leg between `gpu` and `nic` (`read`: toward the
// NIC), or nullopt for GPUDirect RDMA: check_gdr's answer, kept in the router's cache.
std::optional<NodeId> staging_cpu(const Router& router, const Router::Impl& impl, NodeId gpu,
                                  NodeId nic, bool read) {
  const auto key = std::make_tuple(gpu, nic, read);
  {
    const std::lock_guard<std::mutex> lock(impl.gdr_mutex);
    auto it = impl.gdr_staging.find(key);
    if (it != impl.gdr_staging.end()) return it->second;
  }
  const GdrCheck gdr =
      check_gdr(router, gpu, nic, read, router.topology().cluster->fabric.gpudirect_rdma);
  const std::optional<NodeId> cpu = gdr.direct ? std::nullopt : gdr.staging_cpu;
  const std::lock_guard<std::mutex> lock(impl.gdr_mutex);
  impl.gdr_staging.emplace(key, cpu);
  return cpu;
}

// PXN: over NVLink to the first GPU whose nearest NICs hold `rail_nic`, which sends; nullopt
// when no peer GPU qualifies. `nvlink_hop(g)` is the route src -> g.
template <class Hop>
std::optional<SendSide> pxn_side(const Router& router, const Router::Impl& impl, NodeId src,
                                 NodeId rail_nic, const Hop& nvlink_hop) {
  const Topology& t = router.topology();
  const auto [lo, hi] = host_range(t, src);
  for (NodeId g = lo; g < hi; ++g) {
    if (t.node(g).kind != NodeKind::gpu || g == src) continue;
    const auto near = router.nearest_nics(g);
    if (std::find(near.begin(), near.end(), rail_nic) == near.end()) continue;
    const std::optional<Route> hop = nvlink_hop(g);
    if (!hop || hop->transport != Transport::nvlink) continue;
    // paths.cc (ncclTopoComputePaths, PXN): only through a peer whose NIC reads its memory
    // directly ("is connected to the NIC with PxN type and GDR is enabled").
    if (staging_cpu(router, impl, g, rail_nic, true)) continue;
    const auto down = impl.fabric_path(g, rail_nic);
    SendSide side{rail_nic, {}, g};
    for (const Path& p : hop->paths) {
      auto channels = p.channels;
      channels.insert(channels.end(), down.begin(), down.end());
      side.heads.push_back({std::move(channels), p.share});
    }
    return side;
  }
  return std::nullopt;
}

// The channels between `gpu` and `nic` of its host, `to_nic` or back: direct over the host
// fabric with GPUDirect RDMA, else through the host memory of the GPU's socket (paths.cc:
// addInterStep(CPU, localCpu, GPU, g, NET, n) and its reverse), recorded in `staging`.
std::vector<ChannelId> nic_leg(const Router& router, const Router::Impl& impl, NodeId gpu,
                               NodeId nic, bool to_nic, std::vector<NodeId>& staging) {
  if (const auto staging_socket = staging_cpu(router, impl, gpu, nic, to_nic)) {
    const NodeId cpu = *staging_socket;
    auto first = to_nic ? impl.fabric_path(gpu, cpu) : impl.fabric_path(nic, cpu);
    const auto second = to_nic ? impl.fabric_path(cpu, nic) : impl.fabric_path(cpu, gpu);
    if (!first.empty() && !second.empty()) {
      staging.push_back(cpu);
      first.insert(first.end(), second.begin(), second.end());
      return first;
    }
  }
  return to_nic ? impl.fabric_path(gpu, nic) : impl.fabric_path(nic, gpu);
}

// A NIC's one network channel, when it has only one and it leads to a switch.
std::optional<ChannelId> sole_switch_uplink(const Topology& t, NodeId nic,
                                            const ChannelFilter& use) {
  std::optional<ChannelId> uplink;
  for (ChannelId c : t.out_channels(nic)) {
    if (!use(c)) continue;
    if (uplink) return std::nullopt;
    uplink = c;
  }
  if (uplink && t.node(t.channel_to(*uplink)).kind != NodeKind::net_switch) return std::nullopt;
  return uplink;
}

// The shortest network paths from `snic` to `dnic` through switches, at most kMaxEqualPaths of
// them, in channel order. A NIC with one uplink starts (and ends) every path there, so the paths
// are that uplink, the switch-to-switch paths between the two NICs' switches, and the last hop
// down: the same paths, found in the same order, as a search from NIC to NIC (its tree is the
// switch's, one hop deeper), and shared by every NIC pair on those two switches. That sharing
// is what keeps a ring over thousands of nodes from searching the whole fabric once per hop.
std::vector<std::vector<ChannelId>> nic_to_nic_paths(const Topology& t, const Router::Impl& impl,
                                                     NodeId snic, NodeId dnic) {
  const auto use = impl.kind_filter(is_net);
  const auto via_switch = [&t](NodeId n) { return t.node(n).kind == NodeKind::net_switch; };
  const auto up = sole_switch_uplink(t, snic, use);
  const auto down = sole_switch_uplink(t, dnic, use);
  if (impl.sharing == SearchSharing::per_pair || !up || !down) {
    return shortest_paths(t, snic, dnic, use, via_switch, kMaxEqualPaths);
  }
  const NodeId from = t.channel_to(*up);
  const NodeId to = t.channel_to(*down);
  std::vector<std::vector<ChannelId>> middles;
  {
    // Searched under the lock, as Router::Impl::tree builds its trees; a search that throws
    // leaves no entry.
    const std::lock_guard<std::mutex> lock(impl.switch_paths_mutex);
    auto it = impl.switch_paths.find({from, to});
    if (it == impl.switch_paths.end()) {
      it = impl.switch_paths
               .emplace(std::make_pair(from, to),
                        from == to ? std::vector<std::vector<ChannelId>>{{}}
                                   : shortest_paths(t, from, to, use, via_switch, kMaxEqualPaths))
               .first;
    }
    middles = it->second;
  }
  const ChannelId last = *down ^ 1U;  // the same link, from the switch down to the NIC
  for (auto& m : middles) {
    m.insert(m.begin(), *up);
    m.push_back(last);
  }
  return middles;
}

// The fabric paths from `snic` to `dnic`: all of them when spreading, else the one ECMP picks.
std::vector<std::vector<ChannelId>> fabric_paths(const Topology& t, const Router::Impl& impl,
                                                 NodeId snic, NodeId dnic, bool spread, NodeId src,
                                                 NodeId dst) {
  auto fabric = nic_to_nic_paths(t, impl, snic, dnic);
  if (!spread && fabric.size() > 1) {
    // ECMP: one path per flow, by a fixed hash of its endpoints (Knuth's multiplicative).
    const std::uint64_t hash = (static_cast<std::uint64_t>(src) * 2654435761u) ^ dst;
    fabric = {fabric[hash % fabric.size()]};
  }
  return fabric;
}

// Every head joined to every fabric path and the tail into the destination; `share` is the
// destination NIC's part of the bytes.
void add_paths(const Router::Impl& impl, const Heads& heads,
               const std::vector<std::vector<ChannelId>>& fabric,
               const std::vector<ChannelId>& tail, double share, Route& r) {
  for (const auto& [head, head_share] : heads) {
    for (const auto& f : fabric) {
      std::vector<ChannelId> channels = head;
      channels.insert(channels.end(), f.begin(), f.end());
      channels.insert(channels.end(), tail.begin(), tail.end());
      Path p = impl.make_path(std::move(channels));
      p.share = share * head_share / static_cast<double>(fabric.size());
      r.paths.push_back(std::move(p));
    }
  }
}

}  // namespace

std::optional<Route> Router::network_route(NodeId src, NodeId dst,
                                           const RouteOptions& options) const {
  const Topology& t = *topo_;
  const bool pxn = t.cluster->fabric.nic_choice == NicChoice::pxn && options.allow_nvlink;
  const bool spread = t.cluster->fabric.spine_choice == SpineChoice::spread;
  const auto dst_nics = nearest_nics(dst);
  const auto own_nics = nearest_nics(src);
  if (dst_nics.empty() || own_nics.empty()) return std::nullopt;
  const std::map<int, NodeId> src_rail_nic = rail_nics(t, src);
  const auto nvlink_hop = [&](NodeId g) { return compute_route(src, g, options); };
  Route r;
  r.src = src;
  r.dst = dst;
  r.transport = Transport::network;
  // The bytes split evenly over the destination's nearest NICs (NCCL spreads channels over
  // equally close NICs).
  const double per_dst_nic = 1.0 / static_cast<double>(dst_nics.size());
  for (NodeId dnic : dst_nics) {
    const int rail = t.node(dnic).nic->rail;
    SendSide side{own_nics.front(), {}, std::nullopt};
    const auto on_rail = std::find_if(own_nics.begin(), own_nics.end(),
                                      [&](NodeId n) { return t.node(n).nic->rail == rail; });
    if (on_rail != own_nics.end()) {
      side.nic = *on_rail;
    } else if (pxn && src_rail_nic.count(rail) != 0) {
      if (auto proxied = pxn_side(*this, *impl_, src, src_rail_nic.at(rail), nvlink_hop)) {
        side = std::move(*proxied);
        r.proxies.push_back(*side.proxy);
      }
    }
    if (side.heads.empty()) {
      side.heads.push_back({nic_leg(*this, *impl_, src, side.nic, true, r.staging_cpus), 1.0});
    }
    const auto fabric = fabric_paths(t, *impl_, side.nic, dnic, spread, src, dst);
    if (fabric.empty()) return std::nullopt;
    add_paths(*impl_, side.heads, fabric, nic_leg(*this, *impl_, dst, dnic, false, r.staging_cpus),
              per_dst_nic, r);
    r.nics.push_back(side.nic);
    r.nics.push_back(dnic);
  }
  for (auto* v : {&r.nics, &r.proxies, &r.staging_cpus}) {
    std::sort(v->begin(), v->end());
    v->erase(std::unique(v->begin(), v->end()), v->end());
  }
  return r;
}

}  // namespace linksim::topo
