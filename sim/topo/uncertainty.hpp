#pragma once
// A calibrated machine's figures carry the fit's confidence intervals (Link::bandwidth_range_Bps,
// Link::latency_range_s, CollectiveScales ranges, HostLaunch::range_s). A prediction's range comes
// from simulating the machine twice more, once with every figure at its slow end (low bandwidth,
// high latency, high latency scale, low bandwidth scale) and once at its fast end. This bounds the
// prediction by the joint worst and best case of the intervals, which is wider than a propagated
// 95% interval when several figures matter at once: a planner gets a range that is safe to plan on.

#include <algorithm>
#include <optional>

#include "sim/topo/topology.hpp"

namespace linksim::topo {

enum class RangeEnd { slow, fast };

// Whether any link or collective scale of the machine carries a range.
bool has_ranges(const Topology& machine);

// The machine with every ranged figure at `end`; figures without a range are unchanged.
Topology at_range_end(const Topology& machine, RangeEnd end);

// [lower, higher] of `value` (a function of a machine) at the fast and slow ends; nullopt when
// the machine has no ranges.
template <class Value>
std::optional<Range> range_of(const Topology& machine, Value value) {
  if (!has_ranges(machine)) return std::nullopt;
  const double fast = value(at_range_end(machine, RangeEnd::fast));
  const double slow = value(at_range_end(machine, RangeEnd::slow));
  return Range{std::min(fast, slow), std::max(fast, slow)};
}

}  // namespace linksim::topo
