#include "sim/net/solver.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace linksim::net {
namespace {

// The solver reports what it followed in the order it reached it; tests compare the sets.
template <class Id>
std::vector<Id> sorted(std::vector<Id> ids) {
  std::sort(ids.begin(), ids.end());
  return ids;
}

TEST(Solver, TwoFlowsOnOneLinkGetHalfEach) {
  // One link of 10 B/s, two flows across it:
  //   r0 = r1 = 10 / 2 = 5.
  Solver s;
  const LinkId l = s.add_link(10);
  const FlowId a = s.add_flow(std::vector<LinkId>{l});
  const FlowId b = s.add_flow(std::vector<LinkId>{l});
  s.solve();
  EXPECT_EQ(s.rate(a), 5.0);  // 10 / 2
  EXPECT_EQ(s.rate(b), 5.0);  // 10 / 2
  EXPECT_TRUE(s.saturated(l));
  EXPECT_EQ(s.load(l), 10.0);  // 5 + 5
}

TEST(Solver, FlowBottleneckedElsewhereLeavesItsShareToOthers) {
  // Link A: 10 B/s, crossed by f0 and f1. Link B: 2 B/s, crossed by f1 only.
  // Filling: B fills first at level 2 (2/1 < 10/2), freezing f1 = 2.
  // A then has 10 - 2 = 8 left for f0 alone: f0 = 8.
  Solver s;
  const LinkId a = s.add_link(10);
  const LinkId b = s.add_link(2);
  const FlowId f0 = s.add_flow(std::vector<LinkId>{a});
  const FlowId f1 = s.add_flow(std::vector<LinkId>{a, b});
  s.solve();
  EXPECT_EQ(s.rate(f1), 2.0);  // B's capacity
  EXPECT_EQ(s.rate(f0), 8.0);  // 10 - 2
  EXPECT_TRUE(s.saturated(a));
  EXPECT_TRUE(s.saturated(b));
}

TEST(Solver, ParkingLot) {
  // L0, L1: 1 B/s each. f0 crosses both, f1 only L0, f2 only L1.
  // Both links fill at level 1/2: every flow gets 0.5.
  Solver s;
  const LinkId l0 = s.add_link(1);
  const LinkId l1 = s.add_link(1);
  const FlowId f0 = s.add_flow(std::vector<LinkId>{l0, l1});
  const FlowId f1 = s.add_flow(std::vector<LinkId>{l0});
  const FlowId f2 = s.add_flow(std::vector<LinkId>{l1});
  s.solve();
  EXPECT_EQ(s.rate(f0), 0.5);  // 1 / 2
  EXPECT_EQ(s.rate(f1), 0.5);  // 1 / 2
  EXPECT_EQ(s.rate(f2), 0.5);  // 1 / 2
}

TEST(Solver, WeightsSplitInProportion) {
  // One link of 9 B/s, weights 1 and 2: level t with 1t + 2t = 9, t = 3: rates 3 and 6.
  Solver s;
  const LinkId l = s.add_link(9);
  const FlowId a = s.add_flow(std::vector<LinkId>{l}, 1.0);
  const FlowId b = s.add_flow(std::vector<LinkId>{l}, 2.0);
  s.solve();
  EXPECT_EQ(s.rate(a), 3.0);  // 1 * 3
  EXPECT_EQ(s.rate(b), 6.0);  // 2 * 3
}

TEST(Solver, CappedFlowLeavesTheRestToOthers) {
  // One link of 10 B/s; f0 capped at 1 B/s. f0 freezes at its cap at level 1; f1 takes 10 - 1.
  Solver s;
  const LinkId l = s.add_link(10);
  const FlowId f0 = s.add_flow(std::vector<LinkId>{l}, 1.0, 1.0);
  const FlowId f1 = s.add_flow(std::vector<LinkId>{l});
  s.solve();
  EXPECT_EQ(s.rate(f0), 1.0);  // its cap
  EXPECT_EQ(s.rate(f1), 9.0);  // 10 - 1
}

TEST(Solver, CapAboveFairShareDoesNotBind) {
  // One link of 10 B/s, two flows, one capped at 7: fair share 5 < 7, so both get 5.
  Solver s;
  const LinkId l = s.add_link(10);
  const FlowId f0 = s.add_flow(std::vector<LinkId>{l}, 1.0, 7.0);
  const FlowId f1 = s.add_flow(std::vector<LinkId>{l});
  s.solve();
  EXPECT_EQ(s.rate(f0), 5.0);  // 10 / 2
  EXPECT_EQ(s.rate(f1), 5.0);  // 10 / 2
}

TEST(Solver, LinklessFlowRunsAtItsCap) {
  Solver s;
  const FlowId f = s.add_flow(std::vector<LinkId>{}, 1.0, 4.0);
  s.solve();
  EXPECT_EQ(s.rate(f), 4.0);
}

TEST(Solver, RemovingAFlowGivesItsShareBack) {
  // Two flows on 10 B/s get 5 each; remove one and the other gets all 10.
  Solver s;
  const LinkId l = s.add_link(10);
  const FlowId a = s.add_flow(std::vector<LinkId>{l});
  const FlowId b = s.add_flow(std::vector<LinkId>{l});
  s.solve();
  s.remove_flow(a);
  s.solve();
  EXPECT_EQ(s.rate(b), 10.0);  // alone on the link
  EXPECT_EQ(s.active_flow_count(), 1u);
  s.remove_flow(b);
  s.solve();
  EXPECT_FALSE(s.saturated(l));
  EXPECT_EQ(sorted(s.resolved_links()), std::vector<LinkId>{l});  // the idle link is reported
}

TEST(Solver, OnlyTheTouchedComponentIsResolved) {
  // Two disjoint links, one flow each. Adding a flow on link 1 re-solves link 1's component
  // only: flow 0 on link 0 is not among the re-solved flows.
  Solver s;
  const LinkId l0 = s.add_link(10);
  const LinkId l1 = s.add_link(10);
  const FlowId f0 = s.add_flow(std::vector<LinkId>{l0});
  const FlowId f1 = s.add_flow(std::vector<LinkId>{l1});
  s.solve();
  const FlowId f2 = s.add_flow(std::vector<LinkId>{l1});
  s.solve();
  EXPECT_EQ(sorted(s.resolved_flows()), (std::vector<FlowId>{f1, f2}));
  EXPECT_EQ(sorted(s.resolved_links()), std::vector<LinkId>{l1});
  EXPECT_EQ(s.rate(f0), 10.0);  // untouched
  EXPECT_EQ(s.rate(f1), 5.0);   // 10 / 2
}

TEST(Solver, FreedIdsAreReusedLastFreedFirst) {
  Solver s;
  const LinkId l = s.add_link(1);
  const FlowId a = s.add_flow(std::vector<LinkId>{l});
  const FlowId b = s.add_flow(std::vector<LinkId>{l});
  s.remove_flow(a);
  s.remove_flow(b);
  EXPECT_EQ(s.add_flow(std::vector<LinkId>{l}), b);
  EXPECT_EQ(s.add_flow(std::vector<LinkId>{l}), a);
}

// Three links joined into one component by S: X (2 B/s) is crossed by a and b, Y (10 B/s) by h,
// and S (100 B/s) by all three. Filling: X fills at level 2 / 2 = 1 (a = b = 1); then Y fills at
// level 10 (h = 10); S carries 1 + 1 + 10 = 12 < 100.
struct TwoLevels {
  Solver s;
  LinkId x = s.add_link(2);
  LinkId y = s.add_link(10);
  LinkId shared = s.add_link(100);
  FlowId a = s.add_flow(std::vector<LinkId>{x, shared});
  FlowId b = s.add_flow(std::vector<LinkId>{x, shared});
  FlowId h = s.add_flow(std::vector<LinkId>{y, shared});
  TwoLevels() { s.solve(); }
};

TEST(Solver, TwoLevelsSystemSolvesAsWorked) {
  TwoLevels t;
  EXPECT_EQ(t.s.rate(t.a), 1.0);   // 2 / 2
  EXPECT_EQ(t.s.rate(t.b), 1.0);   // 2 / 2
  EXPECT_EQ(t.s.rate(t.h), 10.0);  // Y's capacity
  EXPECT_TRUE(t.s.saturated(t.x));
  EXPECT_TRUE(t.s.saturated(t.y));
  EXPECT_FALSE(t.s.saturated(t.shared));
}

TEST(Solver, DepartureRefillsOnlyFromItsOwnLevelUp) {
  // h froze at level 10; a and b at level 1, below it, so removing h cannot change them. Only
  // h's links are re-solved (Y becomes idle, S loses 10), no flow: a = b = 1 still.
  TwoLevels t;
  t.s.remove_flow(t.h);
  t.s.solve();
  EXPECT_TRUE(t.s.resolved_flows().empty());
  EXPECT_EQ(sorted(t.s.resolved_links()), (std::vector<LinkId>{t.y, t.shared}));
  EXPECT_EQ(t.s.rate(t.a), 1.0);
  EXPECT_EQ(t.s.rate(t.b), 1.0);
  EXPECT_FALSE(t.s.saturated(t.y));
  EXPECT_EQ(t.s.load(t.shared), 2.0);  // 1 + 1
}

TEST(Solver, DepartureAtALowLevelRefillsWhatIsAboveIt) {
  // a froze at level 1; b (level 1, on X) and h (level 10, reached through S) are re-filled.
  // b is alone on X: 2. h still fills Y: 10.
  TwoLevels t;
  t.s.remove_flow(t.a);
  t.s.solve();
  EXPECT_EQ(sorted(t.s.resolved_flows()), (std::vector<FlowId>{t.b, t.h}));
  EXPECT_EQ(t.s.rate(t.b), 2.0);   // X's capacity
  EXPECT_EQ(t.s.rate(t.h), 10.0);  // Y's capacity
}

TEST(Solver, ArrivalRefillsFromTheLevelWhereItsLinksNowFill) {
  // n joins h on Y. With h at its old level 10 and n growing too, Y fills at level
  // 10 / (1 + 1) = 5, below h's level and above a's and b's (1): h and n are re-filled and get
  // 10 / 2 = 5 each; a and b keep 1. S (not on n's path): 1 + 1 + 5 = 7.
  TwoLevels t;
  const FlowId n = t.s.add_flow(std::vector<LinkId>{t.y});
  t.s.solve();
  EXPECT_EQ(sorted(t.s.resolved_flows()), (std::vector<FlowId>{t.h, n}));
  EXPECT_EQ(t.s.rate(t.h), 5.0);  // 10 / 2
  EXPECT_EQ(t.s.rate(n), 5.0);    // 10 / 2
  EXPECT_EQ(t.s.rate(t.a), 1.0);
  EXPECT_EQ(t.s.load(t.shared), 7.0);  // 1 + 1 + 5
}

TEST(Solver, ArrivalOnAFullLinkRefillsFromBelowTheOldLevels) {
  // n joins a and b on X. X now fills at 2 / 3 with all three growing, below a's and b's level
  // (1): a, b and n get 2 / 3 each; h, reached through S at level 10, is re-filled and stays 10.
  TwoLevels t;
  const FlowId n = t.s.add_flow(std::vector<LinkId>{t.x});
  t.s.solve();
  EXPECT_EQ(sorted(t.s.resolved_flows()), (std::vector<FlowId>{t.a, t.b, t.h, n}));
  EXPECT_DOUBLE_EQ(t.s.rate(t.a), 2.0 / 3);
  EXPECT_DOUBLE_EQ(t.s.rate(n), 2.0 / 3);
  EXPECT_EQ(t.s.rate(t.h), 10.0);
}

TEST(Solver, AChangeStopsWhereRatesStopMoving) {
  // X (2 B/s): a, b. S (100 B/s): b, c. Y (10 B/s): c, e.
  // Filling: X fills at 1 (a = b = 1), Y at 10 / 2 = 5 (c = e = 5); S carries 1 + 5 = 6.
  // Remove a: b alone on X gets 2; S (2 + 5 = 7 < 100) stays unsaturated, so c is still held
  // by Y at 5 and nothing reaches e. Followed: b, and c as b's neighbour on S; not e, not Y.
  Solver s;
  const LinkId x = s.add_link(2);
  const LinkId shared = s.add_link(100);
  const LinkId y = s.add_link(10);
  const FlowId a = s.add_flow(std::vector<LinkId>{x});
  const FlowId b = s.add_flow(std::vector<LinkId>{x, shared});
  const FlowId c = s.add_flow(std::vector<LinkId>{shared, y});
  const FlowId e = s.add_flow(std::vector<LinkId>{y});
  s.solve();
  EXPECT_EQ(s.rate(b), 1.0);  // 2 / 2
  EXPECT_EQ(s.rate(c), 5.0);  // 10 / 2
  s.remove_flow(a);
  s.solve();
  EXPECT_EQ(sorted(s.resolved_flows()), (std::vector<FlowId>{b, c}));
  EXPECT_EQ(sorted(s.resolved_links()), (std::vector<LinkId>{x, shared}));
  EXPECT_EQ(s.rate(b), 2.0);  // X's capacity
  EXPECT_EQ(s.rate(c), 5.0);  // still 10 / 2 on Y
  EXPECT_EQ(s.rate(e), 5.0);
  EXPECT_TRUE(s.saturated(y));
}

TEST(Solver, SolveAllRightAfterARemovalClearsTheLink) {
  // Two flows fill a 10 B/s link at 5 each; remove one and solve everything at once: the other
  // gets all 10. Remove it too: the link is idle, not saturated.
  Solver s;
  const LinkId l = s.add_link(10);
  const FlowId a = s.add_flow(std::vector<LinkId>{l});
  const FlowId b = s.add_flow(std::vector<LinkId>{l});
  s.solve();
  s.remove_flow(a);
  s.solve_all();
  EXPECT_EQ(s.rate(b), 10.0);  // alone on the link
  s.remove_flow(b);
  s.solve_all();
  EXPECT_FALSE(s.saturated(l));
  EXPECT_EQ(sorted(s.resolved_links()), std::vector<LinkId>{l});
}

}  // namespace
}  // namespace linksim::net
