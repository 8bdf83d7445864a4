#include "sim/coll/route_planes.hpp"

#include <cstddef>
#include <unordered_map>

namespace linksim::coll {
namespace {

using topo::ChannelId;

// Whether plane j is a copy of plane k over every route: same share, latency, length and
// capacities, and one consistent one-to-one correspondence of their channels.
// On success `forward` maps plane k's channels to plane j's.
bool planes_are_copies(std::span<const topo::Route* const> routes,
                       const std::vector<double>& capacity_Bps, std::size_t k, std::size_t j,
                       std::unordered_map<ChannelId, ChannelId>& forward) {
  forward.clear();
  std::unordered_map<ChannelId, ChannelId> backward;
  for (const topo::Route* r : routes) {
    const topo::Path& a = r->paths[k];
    const topo::Path& b = r->paths[j];
    if (a.share != b.share || a.latency_s != b.latency_s || a.channels.size() != b.channels.size())
      return false;
    for (std::size_t i = 0; i < a.channels.size(); ++i) {
      const ChannelId ca = a.channels[i];
      const ChannelId cb = b.channels[i];
      if (capacity_Bps[ca] != capacity_Bps[cb]) return false;
      if (forward.emplace(ca, cb).first->second != cb) return false;
      if (backward.emplace(cb, ca).first->second != ca) return false;
    }
  }
  return true;
}

}  // namespace

PlaneCopies find_plane_copies(std::span<const topo::Route* const> routes,
                              const std::vector<double>& capacity_Bps) {
  PlaneCopies none;
  if (routes.empty()) return none;
  const std::size_t planes = routes.front()->paths.size();
  if (planes < 2) return none;
  // Each channel on paths of one index only.
  std::unordered_map<ChannelId, std::size_t> plane_of;
  for (const topo::Route* r : routes) {
    if (r->paths.size() != planes) return none;
    for (std::size_t k = 0; k < planes; ++k) {
      if (!(r->paths[k].share > 0)) return none;
      for (ChannelId c : r->paths[k].channels) {
        if (c >= capacity_Bps.size()) return none;
        if (plane_of.emplace(c, k).first->second != k) return none;
      }
    }
  }
  // Sets of copies, each led by its lowest plane.
  std::vector<int> set_of(planes, -1);
  std::vector<int> set_size;
  std::vector<ChannelId> copy_of(capacity_Bps.size(), PlaneCopies::kOffPlanes);
  std::unordered_map<ChannelId, ChannelId> forward;
  for (std::size_t k = 0; k < planes; ++k) {
    if (set_of[k] >= 0) continue;
    set_of[k] = static_cast<int>(set_size.size());
    set_size.push_back(1);
    for (const auto& [c, plane] : plane_of) {
      if (plane == k) copy_of[c] = c;
    }
    for (std::size_t j = k + 1; j < planes; ++j) {
      if (set_of[j] < 0 && planes_are_copies(routes, capacity_Bps, k, j, forward)) {
        set_of[j] = set_of[k];
        ++set_size.back();
        for (const auto& [ck, cj] : forward)
          copy_of[cj] = ck;
      }
    }
  }
  for (int size : set_size)
    if (size != set_size.front()) return none;
  if (set_size.front() < 2) return none;
  PlaneCopies out;
  out.copies = set_size.front();
  out.keep_path.assign(planes, false);
  out.copy_of = std::move(copy_of);
  std::vector<bool> led(set_size.size(), false);
  for (std::size_t k = 0; k < planes; ++k) {
    const auto s = static_cast<std::size_t>(set_of[k]);
    if (!led[s]) out.keep_path[k] = led[s] = true;
  }
  return out;
}

}  // namespace linksim::coll
