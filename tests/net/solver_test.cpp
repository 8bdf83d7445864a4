#include "sim/net/solver.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

namespace linksim::net {
namespace {

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
  EXPECT_EQ(s.resolved_links(), std::vector<LinkId>{l});  // the idle link is reported
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
  EXPECT_EQ(s.resolved_flows(), (std::vector<FlowId>{f1, f2}));
  EXPECT_EQ(s.resolved_links(), std::vector<LinkId>{l1});
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

// Random systems: a few dozen links with capacities 1..100, flows crossing 1..4 distinct
// links, some weighted, some capped. Seeded, so every run checks the same systems.
struct RandomSystem {
  std::vector<double> capacity;
  struct F {
    std::vector<LinkId> links;
    double weight;
    double cap;
  };
  std::vector<F> flows;
};

RandomSystem make_random_system(std::uint32_t seed) {
  std::mt19937 rng(seed);
  RandomSystem sys;
  const int links = 2 + static_cast<int>(rng() % 40);
  for (int i = 0; i < links; ++i)
    sys.capacity.push_back(1 + static_cast<double>(rng() % 100));
  const int flows = 1 + static_cast<int>(rng() % 60);
  for (int i = 0; i < flows; ++i) {
    RandomSystem::F f;
    const int hops = 1 + static_cast<int>(rng() % 4);
    for (int h = 0; h < hops; ++h) {
      const auto l = static_cast<LinkId>(rng() % static_cast<std::uint32_t>(links));
      if (std::find(f.links.begin(), f.links.end(), l) == f.links.end()) f.links.push_back(l);
    }
    f.weight = (rng() % 4 == 0) ? 1 + static_cast<double>(rng() % 3) : 1.0;
    f.cap = (rng() % 5 == 0) ? 1 + static_cast<double>(rng() % 30) : kUnlimited;
    sys.flows.push_back(f);
  }
  return sys;
}

// Checks the max-min conditions: no link over capacity; every flow is at its cap or crosses a
// saturated link on which no flow gets more per unit weight.
void expect_max_min_fair(const Solver& s, const std::vector<FlowId>& ids, const RandomSystem& sys) {
  constexpr double kTol = 1e-9;
  for (LinkId l = 0; l < sys.capacity.size(); ++l) {
    EXPECT_LE(s.load(l), sys.capacity[l] * (1 + kTol)) << "link " << l;
  }
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const double rate = s.rate(ids[i]);
    const auto& f = sys.flows[i];
    EXPECT_GT(rate, 0);
    EXPECT_LE(rate, f.cap * (1 + kTol));
    if (rate >= f.cap * (1 - kTol)) continue;
    bool has_bottleneck = false;
    for (LinkId l : f.links) {
      if (s.load(l) < sys.capacity[l] * (1 - kTol)) continue;
      bool max_on_link = true;
      for (std::size_t j = 0; j < ids.size(); ++j) {
        const auto& g = sys.flows[j];
        if (std::find(g.links.begin(), g.links.end(), l) == g.links.end()) continue;
        if (s.rate(ids[j]) / g.weight > rate / f.weight * (1 + kTol)) max_on_link = false;
      }
      has_bottleneck = has_bottleneck || max_on_link;
    }
    EXPECT_TRUE(has_bottleneck) << "flow " << i;
  }
}

TEST(SolverProperty, RandomSystemsAreMaxMinFair) {
  for (std::uint32_t seed = 1; seed <= 200; ++seed) {
    SCOPED_TRACE(seed);
    const RandomSystem sys = make_random_system(seed);
    Solver s;
    for (double c : sys.capacity)
      s.add_link(c);
    std::vector<FlowId> ids;
    for (const auto& f : sys.flows)
      ids.push_back(s.add_flow(f.links, f.weight, f.cap));
    s.solve();
    expect_max_min_fair(s, ids, sys);
  }
}

TEST(SolverProperty, RatesDoNotDependOnFlowOrder) {
  for (std::uint32_t seed = 1; seed <= 100; ++seed) {
    SCOPED_TRACE(seed);
    const RandomSystem sys = make_random_system(seed);
    std::vector<std::size_t> order(sys.flows.size());
    std::iota(order.begin(), order.end(), 0);
    std::vector<double> first;
    for (int pass = 0; pass < 3; ++pass) {
      Solver s;
      for (double c : sys.capacity)
        s.add_link(c);
      std::vector<FlowId> ids(sys.flows.size());
      for (std::size_t i : order) {
        ids[i] = s.add_flow(sys.flows[i].links, sys.flows[i].weight, sys.flows[i].cap);
      }
      s.solve();
      std::vector<double> rates;
      for (FlowId id : ids)
        rates.push_back(s.rate(id));
      if (pass == 0) first = rates;
      for (std::size_t i = 0; i < rates.size(); ++i) {
        // Only summation order differs, so rates agree to rounding.
        EXPECT_NEAR(rates[i], first[i], 1e-12 * first[i]) << "flow " << i;
      }
      std::shuffle(order.begin(), order.end(), std::mt19937(seed * 7 + pass));
    }
  }
}

TEST(SolverProperty, IncrementalEqualsFullSolveExactly) {
  // Random arrivals and departures; after each incremental solve, a full re-solve of the same
  // system must give bit-identical rates.
  for (std::uint32_t seed = 1; seed <= 50; ++seed) {
    SCOPED_TRACE(seed);
    const RandomSystem sys = make_random_system(seed);
    std::mt19937 rng(seed);
    Solver s;
    for (double c : sys.capacity)
      s.add_link(c);
    std::vector<FlowId> active;
    for (int step = 0; step < 100; ++step) {
      if (active.empty() || rng() % 3 != 0) {
        const auto& f = sys.flows[rng() % sys.flows.size()];
        active.push_back(s.add_flow(f.links, f.weight, f.cap));
      } else {
        const std::size_t k = rng() % active.size();
        s.remove_flow(active[k]);
        active.erase(active.begin() + static_cast<std::ptrdiff_t>(k));
      }
      s.solve();
      std::vector<double> incremental;
      for (FlowId id : active)
        incremental.push_back(s.rate(id));
      s.solve_all();
      for (std::size_t i = 0; i < active.size(); ++i) {
        EXPECT_EQ(s.rate(active[i]), incremental[i]) << "step " << step;
      }
    }
  }
}

}  // namespace
}  // namespace linksim::net
