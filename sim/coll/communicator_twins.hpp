#pragma once
// Twin communicators: two groups of ranks on which every collective simulates alike, their
// ranks and links renamed one to one. A job on a cluster has many such groups (the data-parallel
// group of each tensor-parallel rank, one GPU per node on its own rail), and the planner's choice
// for one, which simulates every candidate slice by slice, serves its twins.

#include "sim/coll/communicator.hpp"

namespace linksim::coll {

// Past this many ranks the check (every ordered pair's route) is not tried: twins are then not
// found, which costs time, never a different result.
inline constexpr int kMaxTwinRanks = 64;

// Whether `b` is `a` with its ranks renamed (rank i of `a` as rank i of `b`) and its links
// renamed one to one: each rank's GPU model, which pairs cross nodes, every pair's route (its
// transport and, path by path, the share, latency, bottleneck and the channels in order, each
// channel of `a` always standing for the same channel of `b` at the same capacity), the rings,
// and every figure NCCL's tuning reads from the group (nodes, ranks per node, link classes,
// compute capability, NCCL's ring search, NVLS, CollNet, LL128, the network's NCCL_PROTO and
// buffer). Then a lowering on `b` is one on `a` renamed, and max-min sharing, which depends only
// on which flows share which links at what capacity, gives the same rates. Computes every route
// of both groups (at most kMaxTwinRanks ranks each).
bool are_twins(const Communicator& a, const Communicator& b);

}  // namespace linksim::coll
