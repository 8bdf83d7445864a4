#include "sim/topo/copy_model.hpp"

#include <algorithm>
#include <cmath>

#include "sim/topo/link_payload.hpp"

namespace linksim::topo {

RouteOptions copy_route_options(bool peer_access) {
  RouteOptions o;
  o.allow_p2p = peer_access;
  o.allow_nvlink_relay = false;
  return o;
}

std::optional<CopyPath> copy_path(const Router& router, const std::optional<Route>& peer_route) {
  if (!peer_route) return std::nullopt;
  CopyPath path;
  if (peer_route->transport != Transport::host_bounce) {
    path.direct = *peer_route;
    return path;
  }
  const Topology& t = router.topology();
  const auto cpu =
      peer_route->bounce_cpu ? peer_route->bounce_cpu : router.host_socket(peer_route->src);
  if (!cpu) return std::nullopt;
  auto up = router.route(peer_route->src, *cpu);
  auto down = router.route(*cpu, peer_route->dst);
  if (!up || !down) return std::nullopt;
  path.staged = true;
  path.up = std::move(*up);
  path.down = std::move(*down);
  path.bounce_cpu = *cpu;
  const bool p2p_gpus =
      t.node(peer_route->src).gpu->pcie_p2p && t.node(peer_route->dst).gpu->pcie_p2p;
  path.slots =
      p2p_gpus ? kCopyConstants.staged_slots_p2p_gpus : kCopyConstants.staged_slots_geforce;
  return path;
}

std::optional<CopyPath> copy_path(const Router& router, NodeId src, NodeId dst, bool peer_access) {
  return copy_path(router, router.route(src, dst, copy_route_options(peer_access)));
}

std::vector<double> staged_chunks(double bytes) {
  const double c = kCopyConstants.staged_chunk_bytes;
  const auto full = static_cast<std::size_t>(std::floor(bytes / c));
  std::vector<double> out(full, c);
  const double rest = bytes - static_cast<double>(full) * c;
  if (rest > 0 || out.empty()) out.push_back(rest);
  return out;
}

double copy_time_s(const Topology& topo, const CopyPath& path, double bytes) {
  const double launch = kCopyConstants.launch_s;
  if (!path.staged) {
    if (path.direct.paths.empty()) return launch;
    return launch + path.direct.latency_s() + bytes / payload_bandwidth_Bps(topo, path.direct);
  }
  const double up_Bps = payload_bandwidth_Bps(topo, path.up);
  const double down_Bps = payload_bandwidth_Bps(topo, path.down);
  const double h = kCopyConstants.staged_handoff_s;
  const auto slots = static_cast<std::size_t>(path.slots);
  std::vector<double> down_end;
  double up_end = 0;
  for (double s : staged_chunks(bytes)) {
    const std::size_t k = down_end.size();
    const double slot_free = k >= slots ? down_end[k - slots] + h : 0;
    up_end = std::max(up_end, slot_free) + path.up.latency_s() + s / up_Bps;
    const double down_start = std::max(up_end + h, down_end.empty() ? 0 : down_end.back());
    down_end.push_back(down_start + path.down.latency_s() + s / down_Bps);
  }
  return launch + down_end.back();
}

double pair_copy_bandwidth_Bps(const Topology& topo, const CopyPath& path, double bytes) {
  return bytes / copy_time_s(topo, path, bytes);
}

}  // namespace linksim::topo
