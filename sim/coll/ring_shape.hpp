#pragma once
// What the ring search of a one-node communicator (Communicator::choose_rings) reads, and
// nothing else: for every ordered pair of ranks, the paths of its route (each path's share and
// the channels it crosses, renamed in the order they first appear), and the capacity of each
// channel so named. Two communicators of one shape get the same rings, bit for bit: the search
// adds the same loads in the same order and compares the same ratios, whatever the channels'
// ids. A cluster's hosts are copies of one machine, and a plan search simulates one machine
// many times, so the same shape recurs in every job: its search (up to 7! orders of 8 GPUs,
// several rounds) runs once per shape in a process and is shared (issue 34).

#include <functional>
#include <vector>

#include "sim/topo/routing.hpp"

namespace linksim::coll {

// A shape, flattened: ranks; per ordered pair (i, j), i != j, in order: paths, then per path its
// share, its channel count and its channels' names; then the named channels' capacities.
using RingShape = std::vector<double>;

// The rings the search chose (rank orders) and the step time it found for them (seconds per
// byte of a ring's share: the bottleneck channel's load over its capacity).
struct RingChoice {
  std::vector<std::vector<int>> orders;
  double step_time = 0;
};

// The shape of `ranks` ranks whose routes `route` gives, over channels of `capacity_Bps`.
RingShape ring_shape(int ranks, const std::function<const topo::Route&(int, int)>& route,
                     const std::vector<double>& capacity_Bps);

// `search()`'s result for `shape`, computed once per shape in the process and then shared.
// Thread-safe; `search` runs outside the lock (two threads may both run a new shape's search:
// each gets the same result, and the first stored stands). Past a bound on stored shapes, new
// shapes are searched and not stored.
RingChoice shared_ring_choice(const RingShape& shape, const std::function<RingChoice()>& search);

}  // namespace linksim::coll
