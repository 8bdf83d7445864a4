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
// Incremental: every flow keeps the level at which it froze. Progressive filling below a level
// t depends only on the flows frozen below t, so a change leaves every flow frozen below the
// lowest level it can disturb exactly where it was:
//   - removing a flow frozen at level t_d disturbs nothing below t_d (its links fill at t_d or
//     later, and taking its load away only delays them);
//   - adding flows disturbs nothing below the lowest level at which one of their links would now
//     fill (with the old flows on it at their old levels and the new ones growing with t).
// solve() takes T, the lowest such level over the changes since the last solve, and re-fills
// from T upward only the flows at level >= T (and the new ones) that are connected to a changed
// link through links crossed by such flows; on those links the flows below T keep their rates and
// hold their share of the capacity. The cost of an event is what is above it, not the whole
// component. Within what it re-fills, flows are frozen in ascending id order, so the rates
// depend only on the sequence of operations (the same run gives the same bits). An incremental
// solve equals a full one (solve_all) to rounding: the retained rates are subtracted from the
// capacities in a different order (tests hold them to 1e-9 relative; in practice about 1e-15).
//
// Knows nothing of time, events, JSON or GPUs.

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

namespace linksim::net {

using LinkId = std::uint32_t;
using FlowId = std::uint32_t;

inline constexpr double kUnlimited = std::numeric_limits<double>::infinity();

class Solver {
 public:
  // REQUIRES: capacity_Bps > 0.
  LinkId add_link(double capacity_Bps);
  std::size_t link_count() const { return links_.size(); }
  double capacity(LinkId link) const { return links_[link].capacity_Bps; }

  // Adds a flow across `links` (each at most once). REQUIRES: weight > 0, cap_Bps > 0, and at
  // least one link or a finite cap (otherwise the rate would be unbounded). Ids of removed
  // flows are reused, most recently freed first.
  FlowId add_flow(std::span<const LinkId> links, double weight = 1.0, double cap_Bps = kUnlimited);
  void remove_flow(FlowId flow);
  std::size_t active_flow_count() const { return active_flows_; }

  // Re-fills what the changes since the last solve can disturb (see above).
  void solve();
  // Re-solves everything from level 0, whatever changed (for tests: the reference that
  // incremental results must equal).
  void solve_all();

  // What the last solve re-filled: flows (ascending ids) and links (ascending ids), including
  // links that became idle. Rates of other flows, and the saturation of other links, did not
  // change.
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
    std::uint64_t mark = 0;  // visit epoch
    // Scratch for progressive filling.
    double remaining_Bps = 0;
    double weight_sum = 0;
    std::uint32_t unfrozen = 0;
    double fresh_weight = 0;  // of the flows added since the last solve
    std::uint32_t version = 0;
    std::uint64_t touched = 0;  // batch that last changed it
  };
  struct Flow {
    std::vector<LinkId> links;
    std::vector<std::uint32_t> positions;  // index of this flow in links[i]'s member list
    double weight = 1;
    double cap_Bps = kUnlimited;
    double rate_Bps = 0;
    // The fill level at which it froze in the last solve that covered it (rate = weight x level,
    // or its cap, reached at level >= cap / weight). Meaningless while `fresh`.
    double level = 0;
    bool active = false;
    bool fresh = false;  // added since the last solve
    bool frozen = false;
    std::uint64_t mark = 0;
  };

  void mark_dirty(LinkId link);
  double lowest_disturbed_level();
  double fill_level_with_fresh(LinkId link, double fresh_weight);
  void collect_component(LinkId seed, double from_level);
  void start_fill();
  void fill_component(double from_level);

  std::vector<Link> links_;
  std::vector<Flow> flows_;
  std::vector<FlowId> free_flows_;
  std::vector<LinkId> dirty_;
  std::size_t active_flows_ = 0;
  std::uint64_t epoch_ = 0;
  // Changes since the last solve: flows added (may hold removed or repeated ids; `fresh` tells),
  // the lowest level of a removed flow, and whether solve_all asked for everything.
  std::vector<FlowId> fresh_flows_;
  double lowest_removed_level_ = kUnlimited;
  bool solve_everything_ = false;

  // Current component and the union of what the last solve covered.
  std::vector<FlowId> comp_flows_;
  std::vector<LinkId> comp_links_;
  std::vector<LinkId> stack_;
  std::vector<FlowId> to_freeze_;
  std::vector<LinkId> touched_;
  std::uint64_t batch_ = 1;
  struct Capped {
    double level;
    FlowId flow;
  };
  std::vector<Capped> capped_;
  struct HeapEntry {
    double level;
    LinkId link;
    std::uint32_t version;
  };
  static bool fills_later(const HeapEntry& a, const HeapEntry& b);
  std::vector<HeapEntry> heap_;
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
