#include "sim/net/solver.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace linksim::net {
namespace {

// A link counts as full when what is left is below this fraction of its capacity.
constexpr double kSaturationTolerance = 1e-9;

}  // namespace

// std heap functions build a max-heap; this order pops the lowest level first (then lowest id).
bool Solver::fills_later(const HeapEntry& a, const HeapEntry& b) {
  return a.level != b.level ? a.level > b.level : a.link > b.link;
}

LinkId Solver::add_link(double capacity_Bps) {
  assert(capacity_Bps > 0 && "link capacity must be positive");
  Link link;
  link.capacity_Bps = capacity_Bps;
  links_.push_back(std::move(link));
  return static_cast<LinkId>(links_.size() - 1);
}

FlowId Solver::add_flow(std::span<const LinkId> links, double weight, double cap_Bps) {
  assert(weight > 0 && cap_Bps > 0 && "flow weight and cap must be positive");
  assert((!links.empty() || std::isfinite(cap_Bps)) && "a flow needs a link or a finite cap");
  FlowId id;
  if (!free_flows_.empty()) {
    id = free_flows_.back();
    free_flows_.pop_back();
  } else {
    id = static_cast<FlowId>(flows_.size());
    flows_.emplace_back();
  }
  Flow& f = flows_[id];
  f.links.assign(links.begin(), links.end());
  f.positions.resize(links.size());
  f.weight = weight;
  f.cap_Bps = cap_Bps;
  f.rate_Bps = links.empty() ? cap_Bps : 0.0;
  f.level = links.empty() ? cap_Bps / weight : 0.0;
  f.active = true;
  f.fresh = !links.empty();  // a linkless flow shares nothing: its rate is final
  f.frozen = false;
  if (f.fresh) fresh_flows_.push_back(id);
  for (std::uint32_t i = 0; i < f.links.size(); ++i) {
    Link& l = links_[f.links[i]];
    f.positions[i] = static_cast<std::uint32_t>(l.flows.size());
    l.flows.push_back({id, i});
    mark_dirty(f.links[i]);
  }
  ++active_flows_;
  return id;
}

void Solver::remove_flow(FlowId id) {
  Flow& f = flows_[id];
  assert(f.active && "removing a flow that is not active");
  if (!f.fresh && !f.links.empty()) {
    lowest_removed_level_ = std::min(lowest_removed_level_, f.level);
  }
  for (std::size_t i = 0; i < f.links.size(); ++i) {
    Link& l = links_[f.links[i]];
    const std::uint32_t pos = f.positions[i];
    const Member last = l.flows.back();
    l.flows[pos] = last;
    flows_[last.flow].positions[last.slot] = pos;
    l.flows.pop_back();
    mark_dirty(f.links[i]);
  }
  f.links.clear();
  f.positions.clear();
  f.active = false;
  f.fresh = false;
  f.rate_Bps = 0;
  free_flows_.push_back(id);
  --active_flows_;
}

void Solver::mark_dirty(LinkId link) {
  if (links_[link].dirty) return;
  links_[link].dirty = true;
  dirty_.push_back(link);
}

double Solver::load(LinkId link) const {
  double sum = 0;
  for (const Member& m : links_[link].flows)
    sum += flows_[m.flow].rate_Bps;
  return sum;
}

void Solver::solve_all() {
  for (LinkId l = 0; l < links_.size(); ++l)
    mark_dirty(l);
  solve_everything_ = true;
  solve();
}

void Solver::solve() {
  resolved_flows_.clear();
  resolved_links_.clear();
  const double from_level = solve_everything_ ? 0.0 : lowest_disturbed_level();
  ++epoch_;
  for (LinkId seed : dirty_) {
    links_[seed].dirty = false;
    if (links_[seed].mark == epoch_) continue;  // already solved with an earlier seed
    collect_component(seed, from_level);
    fill_component(from_level);
    resolved_flows_.insert(resolved_flows_.end(), comp_flows_.begin(), comp_flows_.end());
    resolved_links_.insert(resolved_links_.end(), comp_links_.begin(), comp_links_.end());
  }
  dirty_.clear();
  fresh_flows_.clear();
  lowest_removed_level_ = kUnlimited;
  solve_everything_ = false;
  std::sort(resolved_flows_.begin(), resolved_flows_.end());
  std::sort(resolved_links_.begin(), resolved_links_.end());
}

// T: below it, filling the new system freezes the same flows at the same levels as the last
// solve did. The lowest level of a removed flow, and for each link of a new flow the level at
// which the link now fills.
double Solver::lowest_disturbed_level() {
  double level = lowest_removed_level_;
  ++epoch_;
  fresh_links_.clear();
  for (FlowId id : fresh_flows_) {
    Flow& f = flows_[id];
    if (!f.fresh || f.mark == epoch_) continue;  // removed since, or listed twice (id reused)
    f.mark = epoch_;
    for (LinkId l : f.links) {
      Link& link = links_[l];
      if (link.mark != epoch_) {
        link.mark = epoch_;
        link.fresh_weight = 0;
        fresh_links_.push_back(l);
      }
      link.fresh_weight += f.weight;
    }
  }
  for (LinkId l : fresh_links_)
    level = std::min(level, fill_level_with_fresh(l, links_[l].fresh_weight));
  return level;
}

// The level t at which `link` fills when its old flows follow their last solve (weight x t until
// their level, then their rate) and the new ones, of total weight `fresh_weight`, grow with t.
// The load is continuous and increasing in t: walk the old flows by level.
double Solver::fill_level_with_fresh(LinkId l, double fresh_weight) {
  const Link& link = links_[l];
  frozen_on_link_.clear();
  double growing_weight = fresh_weight;
  for (const Member& m : link.flows) {
    const Flow& f = flows_[m.flow];
    if (f.fresh) continue;
    frozen_on_link_.push_back({f.level, f.rate_Bps, f.weight});
    growing_weight += f.weight;
  }
  std::sort(frozen_on_link_.begin(), frozen_on_link_.end(),
            [](const Frozen& a, const Frozen& b) { return a.level < b.level; });
  double frozen_Bps = 0;  // rates of the old flows frozen below the level reached
  for (const Frozen& f : frozen_on_link_) {
    const double fill = (link.capacity_Bps - frozen_Bps) / growing_weight;
    if (fill <= f.level) return std::max(0.0, fill);
    frozen_Bps += f.rate_Bps;
    growing_weight -= f.weight;
  }
  return std::max(0.0, (link.capacity_Bps - frozen_Bps) / fresh_weight);
}

// Gathers the links and flows reachable from `seed` through shared links, sorted by id, passing
// only through flows that are new or froze at `from_level` or above: the others keep their rates.
void Solver::collect_component(LinkId seed, double from_level) {
  comp_flows_.clear();
  comp_links_.clear();
  stack_.clear();
  links_[seed].mark = epoch_;
  stack_.push_back(seed);
  while (!stack_.empty()) {
    const LinkId l = stack_.back();
    stack_.pop_back();
    comp_links_.push_back(l);
    for (const Member& m : links_[l].flows) {
      Flow& f = flows_[m.flow];
      if (f.mark == epoch_ || (!f.fresh && f.level < from_level)) continue;
      f.mark = epoch_;
      comp_flows_.push_back(m.flow);
      for (LinkId next : f.links) {
        if (links_[next].mark == epoch_) continue;
        links_[next].mark = epoch_;
        stack_.push_back(next);
      }
    }
  }
  std::sort(comp_flows_.begin(), comp_flows_.end());
  std::sort(comp_links_.begin(), comp_links_.end());
}

// Sets up progressive filling of the current component: each link's capacity less the rates of
// the flows on it that are not in the component (they keep their rates), the weights of those
// that are, capped flows sorted by the level at which they reach their cap, and the links in a
// heap by the level at which they would fill.
void Solver::start_fill() {
  for (LinkId l : comp_links_) {
    Link& link = links_[l];
    link.remaining_Bps = link.capacity_Bps;
    for (const Member& m : link.flows) {
      if (flows_[m.flow].mark != epoch_) link.remaining_Bps -= flows_[m.flow].rate_Bps;
    }
    link.weight_sum = 0;
    link.unfrozen = 0;
    link.saturated = false;
  }
  capped_.clear();
  for (FlowId id : comp_flows_) {
    Flow& f = flows_[id];
    f.frozen = false;
    for (LinkId l : f.links) {
      links_[l].weight_sum += f.weight;
      ++links_[l].unfrozen;
    }
    if (std::isfinite(f.cap_Bps)) capped_.push_back({f.cap_Bps / f.weight, id});
  }
  std::sort(capped_.begin(), capped_.end(), [](const Capped& a, const Capped& b) {
    return a.level != b.level ? a.level < b.level : a.flow < b.flow;
  });
  heap_.clear();
  for (LinkId l : comp_links_) {
    Link& link = links_[l];
    ++link.version;
    if (link.unfrozen > 0) heap_.push_back({link.remaining_Bps / link.weight_sum, l, link.version});
  }
  std::make_heap(heap_.begin(), heap_.end(), fills_later);
}

// Progressive filling of the current component from `from_level` up. The lower of the next
// link to fill and the next cap to reach goes next.
void Solver::fill_component(double from_level) {
  start_fill();
  double level = from_level;
  std::size_t unfrozen = comp_flows_.size();
  std::size_t next_capped = 0;

  // Freezing updates the links' sums; each touched link is re-queued once per batch.
  const auto freeze = [&](FlowId id, double rate_Bps) {
    Flow& f = flows_[id];
    f.frozen = true;
    f.fresh = false;
    f.rate_Bps = rate_Bps;
    f.level = level;
    --unfrozen;
    for (LinkId l : f.links) {
      Link& link = links_[l];
      link.remaining_Bps -= rate_Bps;
      link.weight_sum -= f.weight;
      --link.unfrozen;
      if (link.touched != batch_) {
        link.touched = batch_;
        touched_.push_back(l);
      }
    }
  };
  const auto requeue = [&] {
    for (LinkId l : touched_) {
      Link& link = links_[l];
      if (link.unfrozen == 0) continue;
      ++link.version;
      // Rounding may put the new fill level a hair below the current one; levels never fall.
      const double fill = std::max(level, link.remaining_Bps / link.weight_sum);
      heap_.push_back({fill, l, link.version});
      std::push_heap(heap_.begin(), heap_.end(), fills_later);
    }
    touched_.clear();
    ++batch_;
  };

  while (unfrozen > 0) {
    while (!heap_.empty()) {
      const HeapEntry& top = heap_.front();
      const Link& link = links_[top.link];
      if (top.version == link.version && link.unfrozen > 0) break;
      std::pop_heap(heap_.begin(), heap_.end(), fills_later);
      heap_.pop_back();
    }
    while (next_capped < capped_.size() && flows_[capped_[next_capped].flow].frozen)
      ++next_capped;
    const double link_level = heap_.empty() ? kUnlimited : heap_.front().level;
    const double cap_level = next_capped < capped_.size() ? capped_[next_capped].level : kUnlimited;
    assert((link_level < kUnlimited || cap_level < kUnlimited) && "unbounded flow");
    if (cap_level <= link_level) {
      const FlowId id = capped_[next_capped++].flow;
      level = std::max(level, cap_level);
      freeze(id, flows_[id].cap_Bps);
      requeue();
      continue;
    }
    const LinkId l = heap_.front().link;
    std::pop_heap(heap_.begin(), heap_.end(), fills_later);
    heap_.pop_back();
    level = std::max(level, link_level);
    links_[l].saturated = true;
    to_freeze_.clear();
    for (const Member& m : links_[l].flows) {
      const Flow& f = flows_[m.flow];
      if (f.mark == epoch_ && !f.frozen) to_freeze_.push_back(m.flow);
    }
    std::sort(to_freeze_.begin(), to_freeze_.end());
    for (FlowId id : to_freeze_)
      freeze(id, flows_[id].weight * level);
    requeue();
  }

  for (LinkId l : comp_links_) {
    Link& link = links_[l];
    if (!link.flows.empty() && link.remaining_Bps <= kSaturationTolerance * link.capacity_Bps) {
      link.saturated = true;
    }
    if (link.flows.empty()) link.saturated = false;
  }
}

}  // namespace linksim::net
