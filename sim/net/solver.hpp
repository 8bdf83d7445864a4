#pragma once
// Max-min fair sharing of link capacities between flows, by progressive filling.
//
// The system: links l with capacity C_l (bytes per second; one direction of a physical link),
// flows f with a weight w_f > 0, an optional rate cap K_f, and the set of links they cross.
// The allocation r_f is the weighted max-min fair one:
//
//   raise a common level t from 0; every unfrozen flow runs at r_f = w_f * t;
//   when a link fills (sum of rates on it = C_l) its unfrozen flows freeze at w_f * t;
//   when a flow reaches its cap (w_f * t = K_f) it freezes at K_f;
//   repeat until every flow is frozen.
//
// Then no link carries more than its capacity, and every flow either sits at its cap or crosses
// a saturated link on which no flow has a higher rate per unit weight (the max-min definition).
//
// Incremental: every flow keeps the level at which it froze, every link the level at which it
// filled. The new filling is followed only where it can differ from the last one, which it
// cannot below the level of a change:
//   - removing a flow frozen at level t_d changes nothing below t_d (its links fill at t_d or
//     later, and taking its load away only delays them);
//   - adding flows changes nothing below the level at which each of their links now fills
//     (with the old flows on it at their old levels and the new ones growing with t).
// solve() raises the level from the lowest change. A link is followed from the level of a
// change on it: its flows frozen below that level keep their rates and hold their share of the
// capacity; the others are followed too. A followed flow freezes where its followed links, its
// cap, or the old fill levels of its other links (still valid: nothing on them has changed) stop
// it. Only if it ends at a different level or rate than before, or passes its old level without
// freezing, does it change the links it crosses: they are followed from that level. So the cost
// of an event is the part of the system whose rates it really moves, and its neighbours.
// Events at one level go in a fixed order, and flows stopped together freeze in ascending id
// order, so the rates depend only on the sequence of operations (the same run gives the same
// bits). An incremental solve equals a full one (solve_all) to rounding, not to the bit: the
// capacities left are summed in a different order (tests hold them to 1e-9 relative).
//
// Knows nothing of time, events, JSON or GPUs.

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "sim/core/indexed_heap.hpp"

namespace linksim::net {

using LinkId = std::uint32_t;
using FlowId = std::uint32_t;

inline constexpr double kUnlimited = std::numeric_limits<double>::infinity();

class Solver {
 public:
  // REQUIRES: capacity_Bps > 0.
  LinkId add_link(double capacity_Bps);
  // Optional: room for this many links, so that adding them one by one moves none.
  void reserve_links(std::size_t n) { links_.reserve(n); }
  std::size_t link_count() const { return links_.size(); }
  double capacity(LinkId link) const { return links_[link].capacity_Bps; }

  // Adds a flow across `links` (each at most once). REQUIRES: weight > 0, cap_Bps > 0, and at
  // least one link or a finite cap (otherwise the rate would be unbounded). Ids of removed
  // flows are reused, most recently freed first.
  FlowId add_flow(std::span<const LinkId> links, double weight = 1.0, double cap_Bps = kUnlimited);
  void remove_flow(FlowId flow);
  std::size_t active_flow_count() const { return active_flows_; }

  // Follows what the changes since the last solve can move (see above).
  void solve();
  // Re-solves everything from level 0, as if every flow were new (for tests: the reference that
  // incremental results must equal).
  void solve_all();

  // What the last solve followed: flows and links, each once, including links that became idle,
  // in the order the solve reached them (the same operations give the same order; not sorted:
  // sorting took 8% of a two-node all-reduce's profile). Rates of other flows, and the
  // saturation of other links, did not change.
  const std::vector<FlowId>& resolved_flows() const { return resolved_flows_; }
  const std::vector<LinkId>& resolved_links() const { return resolved_links_; }

  double rate(FlowId flow) const { return flows_[flow].rate_Bps; }
  std::span<const LinkId> links_of(FlowId flow) const { return flows_[flow].links; }
  // Sum of the rates of the flows on a link.
  double load(LinkId link) const;
  // Whether the link is full: load within a relative 1e-9 of capacity.
  bool saturated(LinkId link) const { return links_[link].saturated; }
  std::size_t flows_on(LinkId link) const { return links_[link].flows.size(); }

 private:
  struct Member {  // one flow on a link; `slot` indexes the flow's own link list
    FlowId flow;
    std::uint32_t slot;
  };
  struct Link {
    double capacity_Bps = 0;
    std::vector<Member> flows;
    bool saturated = false;
    bool dirty = false;
    // The level at which it filled in the last solve that followed it; unlimited if it did not.
    double fill_level = kUnlimited;
    std::uint64_t followed = 0;  // epoch of the solve that follows it
    std::uint64_t mark = 0;      // scratch epoch
    // Scratch for the solve that follows it.
    bool filled = false;
    double remaining_Bps = 0;  // capacity less the rates of its frozen flows
    double weight_sum = 0;     // of its unfrozen flows
    std::uint32_t unfrozen = 0;
    double fresh_weight = 0;    // of the flows added since the last solve
    std::uint64_t touched = 0;  // batch that last changed it
  };
  struct Flow {
    std::vector<LinkId> links;
    std::vector<std::uint32_t> positions;  // index of this flow in links[i]'s member list
    double weight = 1;
    double cap_Bps = kUnlimited;
    double rate_Bps = 0;
    // The level at which it froze in the last solve that followed it (rate = weight x level, or
    // its cap, reached at level >= cap / weight). Meaningless while `fresh`.
    double level = 0;
    bool active = false;
    bool fresh = false;  // added since the last solve
    bool frozen = false;
    std::uint64_t followed = 0;  // epoch of the solve that follows it
    // While followed: the quiet link whose old fill level (at or below the flow's old level)
    // freezes the flow before it can pass that level, so its pass_old_level waits until that
    // link is followed (kNoLink: queued at once).
    LinkId stopped_by = kNoLink;
  };
  static constexpr LinkId kNoLink = std::numeric_limits<LinkId>::max();
  // What the rising level meets. At one level they are handled in this order. Each link or flow
  // has at most one event of each kind queued (the heap's slots): a link's fill level is
  // replaced as its flows freeze, and of two follow_link the lower stands (the link is followed
  // once).
  enum class EventKind : std::uint8_t {
    follow_link,      // a change reaches the link: follow it from here
    reach_cap,        // a followed flow reaches its cap
    fill_link,        // a followed link fills
    fill_quiet_link,  // a link not followed fills where it did last time
    pass_old_level,   // a followed flow not frozen by now has changed
  };
  static constexpr std::uint32_t kEventKinds = 5;
  struct Event {
    double level;
    EventKind kind;
    std::uint32_t id;  // link or flow
    // Pops the lowest level first, then the kinds in their listed order, then the lowest id.
    bool operator>(const Event& o) const;
  };
  static std::uint32_t slot(EventKind kind, std::uint32_t id) {
    return id * kEventKinds + static_cast<std::uint32_t>(kind);
  }

  void mark_dirty(LinkId link);
  void push(double level, EventKind kind, std::uint32_t id);
  void seed_changes();
  double fill_level_with_fresh(LinkId link, double fresh_weight);
  void follow_link(LinkId link, double level);
  void follow(FlowId flow);
  void freeze(FlowId flow, double rate_Bps, double level);
  void freeze_unfrozen_on(LinkId link, double level);
  void requeue(double level);
  void sweep();
  void finish_solve();

  std::vector<Link> links_;
  std::vector<Flow> flows_;
  std::vector<FlowId> free_flows_;
  std::vector<LinkId> dirty_;
  std::size_t active_flows_ = 0;
  std::uint64_t epoch_ = 0;
  // Changes since the last solve: flows added (may hold removed or repeated ids; `fresh` tells)
  // and links to follow from a level (those of removed flows, from the flows' levels).
  std::vector<FlowId> fresh_flows_;
  struct LinkChange {
    double level;
    LinkId link;
  };
  std::vector<LinkChange> removed_;

  // Scratch of the current solve.
  IndexedHeap<Event> events_;  // by slot()
  std::vector<FlowId> to_freeze_;
  std::vector<LinkId> touched_;
  std::uint64_t batch_ = 1;
  struct Frozen {  // a flow already on a link, for the fill level of new flows there
    double level;
    double rate_Bps;
    double weight;
  };
  std::vector<Frozen> frozen_on_link_;
  std::vector<LinkId> fresh_links_;
  std::vector<FlowId> resolved_flows_;
  std::vector<LinkId> resolved_links_;
};

}  // namespace linksim::net
