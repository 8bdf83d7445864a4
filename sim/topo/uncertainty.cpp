#include "sim/topo/uncertainty.hpp"

namespace linksim::topo {
namespace {

bool scales_ranged(const CollectiveScales& s) {
  return s.latency_range || s.bandwidth_range || s.ll_range || s.ll128_range;
}

void move_to_end(CollectiveScales& s, RangeEnd end) {
  const bool slow = end == RangeEnd::slow;
  if (s.latency_range) s.latency = slow ? s.latency_range->hi : s.latency_range->lo;
  if (s.bandwidth_range) s.bandwidth = slow ? s.bandwidth_range->lo : s.bandwidth_range->hi;
  if (s.ll_range) s.ll = slow ? s.ll_range->lo : s.ll_range->hi;
  if (s.ll128_range) s.ll128 = slow ? s.ll128_range->lo : s.ll128_range->hi;
}

}  // namespace

bool has_ranges(const Topology& machine) {
  for (const Link& l : machine.links()) {
    if (l.bandwidth_range_Bps || l.latency_range_s) return true;
  }
  if (machine.host_launch.range_s) return true;
  if (scales_ranged(machine.collective.all)) return true;
  for (const auto& [op, s] : machine.collective.by_op) {
    if (scales_ranged(s)) return true;
  }
  return false;
}

Topology at_range_end(const Topology& machine, RangeEnd end) {
  Topology out = machine;
  const bool slow = end == RangeEnd::slow;
  for (LinkId id = 0; id < out.links().size(); ++id) {
    Link l = out.link(id);
    if (l.bandwidth_range_Bps) {
      l.bandwidth_Bps = slow ? l.bandwidth_range_Bps->lo : l.bandwidth_range_Bps->hi;
    }
    if (l.latency_range_s) l.latency_s = slow ? l.latency_range_s->hi : l.latency_range_s->lo;
    out.set_link_figures(id, l.bandwidth_Bps, l.latency_s);
  }
  if (const auto& r = out.host_launch.range_s) out.host_launch.per_gpu_s = slow ? r->hi : r->lo;
  move_to_end(out.collective.all, end);
  for (auto& [op, s] : out.collective.by_op)
    move_to_end(s, end);
  return out;
}

}  // namespace linksim::topo
