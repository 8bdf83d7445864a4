#include "sim/net/solver.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace linksim::net {
namespace {

// A link counts as full when what is left is below this fraction of its capacity.
constexpr double kSaturationTolerance = 1e-9;

}  // namespace

bool Solver::Event::operator>(const Event& o) const {
  if (level != o.level) return level > o.level;
  if (kind != o.kind) return kind > o.kind;
  return id > o.id;
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
  for (std::size_t i = 0; i < f.links.size(); ++i) {
    if (!f.fresh) removed_.push_back({f.level, f.links[i]});
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
  for (FlowId id = 0; id < flows_.size(); ++id) {
    Flow& f = flows_[id];
    if (!f.active || f.links.empty() || f.fresh) continue;
    f.fresh = true;
    fresh_flows_.push_back(id);
  }
  removed_.clear();
  for (LinkId l = 0; l < links_.size(); ++l) {
    removed_.push_back({0.0, l});  // followed from level 0, whatever is on it
    mark_dirty(l);
  }
  solve();
}

void Solver::solve() {
  resolved_flows_.clear();
  resolved_links_.clear();
  ++epoch_;
  seed_changes();
  sweep();
  finish_solve();
}

void Solver::push(double level, EventKind kind, std::uint32_t id) {
  const std::uint32_t s = slot(kind, id);
  // A queued follow_link at or below this level follows the link first; this one would find
  // it followed.
  if (kind == EventKind::follow_link && events_.contains(s) && events_.at(s).level <= level) {
    return;
  }
  events_.set(s, {level, kind, id});
}

// The changes since the last solve, as links to follow: each link of a removed flow from that
// flow's level; each link of a new flow from the level at which it now fills. New flows are
// followed from the start. A link with no old flow left is followed at once (from level 0: no
// flow on it keeps a rate), which spares the heap a round trip per link when whole groups of
// flows come and go together.
void Solver::seed_changes() {
  fresh_links_.clear();
  for (FlowId id : fresh_flows_) {
    Flow& f = flows_[id];
    if (!f.fresh || f.followed == epoch_) continue;  // removed since, or listed twice (id reused)
    follow(id);
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
  fresh_flows_.clear();
  const auto follow_now_or_at = [this](LinkId l, double level) {
    if (links_[l].followed == epoch_) return;
    const auto& on = links_[l].flows;
    const bool only_new =
        std::all_of(on.begin(), on.end(), [this](const Member& m) { return flows_[m.flow].fresh; });
    if (only_new) {
      follow_link(l, 0);
    } else {
      push(level, EventKind::follow_link, l);
    }
  };
  for (const LinkChange& a : removed_)
    follow_now_or_at(a.link, a.level);
  removed_.clear();
  for (LinkId l : fresh_links_) {
    if (links_[l].followed == epoch_) continue;
    follow_now_or_at(l, fill_level_with_fresh(l, links_[l].fresh_weight));
  }
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

// From `level` on, the link is filled afresh: flows on it frozen below `level` and not followed
// keep their rates; the others are followed.
void Solver::follow_link(LinkId l, double level) {
  Link& link = links_[l];
  link.followed = epoch_;
  link.filled = false;
  link.remaining_Bps = link.capacity_Bps;
  link.weight_sum = 0;
  link.unfrozen = 0;
  resolved_links_.push_back(l);
  for (const Member& m : link.flows) {
    Flow& f = flows_[m.flow];
    if (f.followed != epoch_ && f.level < level) {
      link.remaining_Bps -= f.rate_Bps;
      continue;
    }
    if (f.followed != epoch_) {
      follow(m.flow);
    } else if (f.stopped_by == l && !f.frozen) {
      // Its quiet stop is gone. The link is followed no later than it would have filled, which
      // is at or below the flow's old level, so the event is not behind the sweep.
      f.stopped_by = kNoLink;
      push(f.level, EventKind::pass_old_level, m.flow);
    }
    if (f.frozen) {
      link.remaining_Bps -= f.rate_Bps;
    } else {
      link.weight_sum += f.weight;
      ++link.unfrozen;
    }
  }
  if (link.unfrozen > 0) {
    push(std::max(level, link.remaining_Bps / link.weight_sum), EventKind::fill_link, l);
  }
}

// What can stop a followed flow: its cap, the old fill levels of its links that are not followed
// (followed ones queue their own), and, unless it is new, passing its old level.
void Solver::follow(FlowId id) {
  Flow& f = flows_[id];
  f.followed = epoch_;
  f.frozen = false;
  resolved_flows_.push_back(id);
  if (std::isfinite(f.cap_Bps)) push(f.cap_Bps / f.weight, EventKind::reach_cap, id);
  f.stopped_by = kNoLink;
  if (f.fresh) return;  // its links are all followed from where they now fill
  for (LinkId l : f.links) {
    Link& link = links_[l];
    if (link.followed != epoch_ && std::isfinite(link.fill_level)) {
      if (link.fill_level <= f.level) f.stopped_by = l;
      // A quiet link's fill level does not move within a solve: once queued is enough.
      if (!events_.contains(slot(EventKind::fill_quiet_link, l))) {
        push(link.fill_level, EventKind::fill_quiet_link, l);
      }
    }
  }
  // A quiet link that fills at or below the old level freezes the flow first (fill_quiet_link
  // comes before pass_old_level at one level), unless it is followed before it fills:
  // follow_link queues the event then, still ahead of the sweep (see there).
  if (f.stopped_by == kNoLink) push(f.level, EventKind::pass_old_level, id);
}

// Freezes a followed flow. If it ends where it did last time, its links not followed see no
// change; otherwise they are followed from this level.
void Solver::freeze(FlowId id, double rate_Bps, double level) {
  Flow& f = flows_[id];
  const bool changed = f.fresh || rate_Bps != f.rate_Bps || level != f.level;
  f.frozen = true;
  f.fresh = false;
  f.rate_Bps = rate_Bps;
  f.level = level;
  for (LinkId l : f.links) {
    Link& link = links_[l];
    if (link.followed != epoch_) {
      if (changed) push(level, EventKind::follow_link, l);
      continue;
    }
    link.remaining_Bps -= rate_Bps;
    link.weight_sum -= f.weight;
    --link.unfrozen;
    if (link.touched != batch_) {
      link.touched = batch_;
      touched_.push_back(l);
    }
  }
}

// The followed flows on `link` that are still unfrozen freeze at `level`, in ascending id order.
void Solver::freeze_unfrozen_on(LinkId l, double level) {
  to_freeze_.clear();
  for (const Member& m : links_[l].flows) {
    const Flow& f = flows_[m.flow];
    if (f.followed == epoch_ && !f.frozen) to_freeze_.push_back(m.flow);
  }
  std::sort(to_freeze_.begin(), to_freeze_.end());
  for (FlowId id : to_freeze_)
    freeze(id, flows_[id].weight * level, level);
}

// Re-queues each followed link whose flows froze since the last call, once.
void Solver::requeue(double level) {
  for (LinkId l : touched_) {
    Link& link = links_[l];
    if (link.unfrozen == 0) continue;
    // Replaces its queued fill level. Rounding may put the new one a hair below the current
    // level; levels never fall.
    push(std::max(level, link.remaining_Bps / link.weight_sum), EventKind::fill_link, l);
  }
  touched_.clear();
  ++batch_;
}

// Raises the level through the events until none is left.
void Solver::sweep() {
  double level = 0;
  while (!events_.empty()) {
    const Event e = events_.top();
    events_.pop();
    switch (e.kind) {
      case EventKind::follow_link:
        if (links_[e.id].followed == epoch_) continue;
        level = std::max(level, e.level);
        follow_link(e.id, level);
        break;
      case EventKind::reach_cap:
        if (flows_[e.id].frozen) continue;
        level = std::max(level, e.level);
        freeze(e.id, flows_[e.id].cap_Bps, level);
        break;
      case EventKind::fill_link: {
        Link& link = links_[e.id];
        if (link.unfrozen == 0) continue;
        level = std::max(level, e.level);
        link.filled = true;
        link.fill_level = level;
        freeze_unfrozen_on(e.id, level);
        break;
      }
      case EventKind::fill_quiet_link:
        if (links_[e.id].followed == epoch_) continue;
        level = std::max(level, e.level);
        freeze_unfrozen_on(e.id, level);
        break;
      case EventKind::pass_old_level:
        if (flows_[e.id].frozen) continue;
        level = std::max(level, e.level);
        for (LinkId l : flows_[e.id].links) {
          if (links_[l].followed != epoch_) push(level, EventKind::follow_link, l);
        }
        break;
    }
    requeue(level);
  }
}

// Saturation and fill levels of the followed links; the links that lost a flow and were not
// followed join what was followed.
void Solver::finish_solve() {
  for (FlowId id : resolved_flows_) {
    assert(flows_[id].frozen && "a followed flow was left unfrozen");
    (void)id;
  }
  for (LinkId l : resolved_links_) {
    Link& link = links_[l];
    if (!link.filled) link.fill_level = kUnlimited;
    link.saturated =
        !link.flows.empty() &&
        (link.filled || link.remaining_Bps <= kSaturationTolerance * link.capacity_Bps);
  }
  for (LinkId l : dirty_) {
    links_[l].dirty = false;
    if (links_[l].followed != epoch_) resolved_links_.push_back(l);  // lost a flow never solved
  }
  dirty_.clear();
}

}  // namespace linksim::net
