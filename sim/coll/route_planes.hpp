#pragma once
// Identical planes. On a machine whose GPUs meet through P switches of one kind (the six
// NVSwitches of a DGX A100, two NVLinks from every GPU to each), every route between two GPUs
// splits its bytes over P paths, path k through switch k only. A collective running alone there
// loads the planes alike: max-min sharing has one solution, and swapping two identical planes
// maps the problem, so that solution, to itself, so each copy of a plane carries exactly the
// rates of the plane it copies. A lone collective may therefore simulate one plane of each set of
// identical planes and leave the copies out. Channels that the planes' flows share (a per-rank
// throughput cap) carry the copies' load too, so in the reduced run they keep 1/copies of their
// capacity. The reduced run moves P/copies times fewer flows and ends at the same times.

#include <limits>
#include <span>
#include <vector>

#include "sim/topo/routing.hpp"

namespace linksim::coll {

struct PlaneCopies {
  static constexpr topo::ChannelId kOffPlanes = std::numeric_limits<topo::ChannelId>::max();
  int copies = 1;               // planes in each set of identical planes; 1: nothing left out
  std::vector<bool> keep_path;  // by path index: whether that plane is simulated
  // By topology channel (when copies > 1): the simulated channel it copies (itself on a kept
  // plane), or kOffPlanes for a channel on no route's path. A run of the kept planes gives a
  // left-out channel exactly the usage of the channel it copies.
  std::vector<topo::ChannelId> copy_of;
};

// Checks `routes` (every ordered pair of a communicator's ranks) for identical planes, with
// `capacity_Bps` by topology channel. Path k of every route must be plane k's:
// - every route has the same number P >= 2 of paths, each with a share above 0;
// - a channel lies only on paths of one index (planes share no channel);
// - planes k and j are copies when, in every route, their paths have the same share, latency
//   and length, the channels at each position have the same capacity, and the correspondence
//   between plane k's channels and plane j's is one-to-one and the same in every route;
// - every set of copies has the same size, at least 2 (else one factor could not scale the
//   shared channels).
// Keeps the first plane of each set. Returns copies == 1 (keep every path) when a check fails.
PlaneCopies find_plane_copies(std::span<const topo::Route* const> routes,
                              const std::vector<double>& capacity_Bps);

}  // namespace linksim::coll
