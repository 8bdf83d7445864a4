// Property tests of sim/net/solver: seeded random systems (so every run checks the same ones),
// random sequences of arrivals and departures, and a fluid drain of a small fat-tree. After each
// solve, every rate must match a plain progressive filling written here, and a full solve
// (solve_all on a copy), to 1e-9 relative; the max-min conditions must hold; and what the solve
// did not report as re-solved must not have changed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "sim/net/solver.hpp"

namespace linksim::net {
namespace {

constexpr double kRelTol = 1e-9;

struct FlowSpec {
  std::vector<LinkId> links;
  double weight = 1;
  double cap_Bps = kUnlimited;
};

// The reference: progressive filling as the definition states it, with no heap, no component
// and nothing kept between calls. Each round finds the lowest level at which a link fills or a
// flow reaches its cap, and freezes every flow that this level stops.
std::vector<double> reference_rates(const std::vector<double>& capacity_Bps,
                                    const std::vector<FlowSpec>& flows) {
  std::vector<double> rate(flows.size(), 0);
  std::vector<bool> frozen(flows.size(), false);
  std::size_t unfrozen = flows.size();
  std::vector<double> fill(capacity_Bps.size());
  while (unfrozen > 0) {
    std::vector<double> frozen_Bps(capacity_Bps.size(), 0);
    std::vector<double> growing_weight(capacity_Bps.size(), 0);
    for (std::size_t i = 0; i < flows.size(); ++i) {
      for (LinkId l : flows[i].links) {
        if (frozen[i]) frozen_Bps[l] += rate[i];
        if (!frozen[i]) growing_weight[l] += flows[i].weight;
      }
    }
    double level = kUnlimited;
    for (LinkId l = 0; l < capacity_Bps.size(); ++l) {
      fill[l] = growing_weight[l] > 0 ? (capacity_Bps[l] - frozen_Bps[l]) / growing_weight[l]
                                      : kUnlimited;
      level = std::min(level, fill[l]);
    }
    for (std::size_t i = 0; i < flows.size(); ++i) {
      if (!frozen[i]) level = std::min(level, flows[i].cap_Bps / flows[i].weight);
    }
    for (std::size_t i = 0; i < flows.size(); ++i) {
      if (frozen[i]) continue;
      const bool at_cap = flows[i].cap_Bps / flows[i].weight <= level;
      const bool on_full_link = std::any_of(flows[i].links.begin(), flows[i].links.end(),
                                            [&](LinkId l) { return fill[l] <= level; });
      if (!at_cap && !on_full_link) continue;
      rate[i] = at_cap ? flows[i].cap_Bps : flows[i].weight * level;
      frozen[i] = true;
      --unfrozen;
    }
  }
  return rate;
}

bool near(double a, double b) {
  return std::abs(a - b) <= kRelTol * std::max(std::abs(a), std::abs(b));
}

// A solver and the flows now active in it, in the order they were added.
struct Tracked {
  std::vector<double> capacity_Bps;
  Solver solver;
  std::vector<FlowSpec> specs;
  std::vector<FlowId> ids;

  explicit Tracked(std::vector<double> capacity) : capacity_Bps(std::move(capacity)) {
    for (double c : capacity_Bps)
      solver.add_link(c);
  }
  void add(const FlowSpec& f) {
    specs.push_back(f);
    ids.push_back(solver.add_flow(f.links, f.weight, f.cap_Bps));
  }
  void remove(std::size_t k) {
    solver.remove_flow(ids[k]);
    specs.erase(specs.begin() + static_cast<std::ptrdiff_t>(k));
    ids.erase(ids.begin() + static_cast<std::ptrdiff_t>(k));
  }
};

// Max-min conditions: no link over capacity; every flow at its cap or crossing a saturated link
// on which no flow gets more per unit weight.
void expect_max_min_fair(const Tracked& t) {
  const Solver& s = t.solver;
  for (LinkId l = 0; l < t.capacity_Bps.size(); ++l) {
    EXPECT_LE(s.load(l), t.capacity_Bps[l] * (1 + kRelTol)) << "link " << l;
  }
  for (std::size_t i = 0; i < t.ids.size(); ++i) {
    const double rate = s.rate(t.ids[i]);
    const FlowSpec& f = t.specs[i];
    EXPECT_GT(rate, 0);
    EXPECT_LE(rate, f.cap_Bps * (1 + kRelTol));
    if (rate >= f.cap_Bps * (1 - kRelTol)) continue;
    bool has_bottleneck = false;
    for (LinkId l : f.links) {
      if (s.load(l) < t.capacity_Bps[l] * (1 - kRelTol)) continue;
      bool max_on_link = true;
      for (std::size_t j = 0; j < t.ids.size(); ++j) {
        const FlowSpec& g = t.specs[j];
        if (std::find(g.links.begin(), g.links.end(), l) == g.links.end()) continue;
        if (s.rate(t.ids[j]) / g.weight > rate / f.weight * (1 + kRelTol)) max_on_link = false;
      }
      has_bottleneck = has_bottleneck || max_on_link;
    }
    EXPECT_TRUE(has_bottleneck) << "flow " << i;
  }
}

// The rates of the last solve against the reference and against a full solve of a copy.
void expect_equal_to_full_solve(const Tracked& t) {
  const std::vector<double> want = reference_rates(t.capacity_Bps, t.specs);
  Solver full = t.solver;
  full.solve_all();
  for (std::size_t i = 0; i < t.ids.size(); ++i) {
    const double got = t.solver.rate(t.ids[i]);
    EXPECT_TRUE(near(got, want[i])) << "flow " << i << ": " << got << " vs reference " << want[i];
    EXPECT_TRUE(near(got, full.rate(t.ids[i])))
        << "flow " << i << ": " << got << " vs solve_all " << full.rate(t.ids[i]);
  }
  for (LinkId l = 0; l < t.capacity_Bps.size(); ++l) {
    EXPECT_EQ(t.solver.saturated(l), full.saturated(l)) << "link " << l;
  }
}

// Solves, then checks that flows and links outside resolved_flows() / resolved_links() kept
// their rate and saturation bit for bit.
void solve_and_expect_untouched_unchanged(Tracked& t) {
  std::vector<double> before_rate;
  for (FlowId id : t.ids)
    before_rate.push_back(t.solver.rate(id));
  std::vector<bool> before_saturated;
  for (LinkId l = 0; l < t.capacity_Bps.size(); ++l)
    before_saturated.push_back(t.solver.saturated(l));
  t.solver.solve();
  // Reported in the order reached, each once: sorted here for the lookups.
  auto flows = t.solver.resolved_flows();
  auto links = t.solver.resolved_links();
  std::sort(flows.begin(), flows.end());
  std::sort(links.begin(), links.end());
  EXPECT_EQ(std::adjacent_find(flows.begin(), flows.end()), flows.end()) << "a flow twice";
  EXPECT_EQ(std::adjacent_find(links.begin(), links.end()), links.end()) << "a link twice";
  for (std::size_t i = 0; i < t.ids.size(); ++i) {
    if (std::binary_search(flows.begin(), flows.end(), t.ids[i])) continue;
    EXPECT_EQ(t.solver.rate(t.ids[i]), before_rate[i]) << "flow " << i << " changed unreported";
  }
  for (LinkId l = 0; l < t.capacity_Bps.size(); ++l) {
    if (std::binary_search(links.begin(), links.end(), l)) continue;
    EXPECT_EQ(t.solver.saturated(l), before_saturated[l]) << "link " << l << " changed unreported";
  }
}

// A few dozen links with capacities 1..100, flows crossing 1..4 distinct links, some weighted,
// some capped.
struct RandomSystem {
  std::vector<double> capacity_Bps;
  std::vector<FlowSpec> flows;
};

RandomSystem make_random_system(std::uint32_t seed) {
  std::mt19937 rng(seed);
  RandomSystem sys;
  const int links = 2 + static_cast<int>(rng() % 40);
  for (int i = 0; i < links; ++i)
    sys.capacity_Bps.push_back(1 + static_cast<double>(rng() % 100));
  const int flows = 1 + static_cast<int>(rng() % 60);
  for (int i = 0; i < flows; ++i) {
    FlowSpec f;
    const int hops = 1 + static_cast<int>(rng() % 4);
    for (int h = 0; h < hops; ++h) {
      const auto l = static_cast<LinkId>(rng() % static_cast<std::uint32_t>(links));
      if (std::find(f.links.begin(), f.links.end(), l) == f.links.end()) f.links.push_back(l);
    }
    f.weight = (rng() % 4 == 0) ? 1 + static_cast<double>(rng() % 3) : 1.0;
    f.cap_Bps = (rng() % 5 == 0) ? 1 + static_cast<double>(rng() % 30) : kUnlimited;
    sys.flows.push_back(f);
  }
  return sys;
}

TEST(SolverProperty, RandomSystemsAreMaxMinFairAndMatchTheReference) {
  for (std::uint32_t seed = 1; seed <= 200; ++seed) {
    SCOPED_TRACE(seed);
    const RandomSystem sys = make_random_system(seed);
    Tracked t(sys.capacity_Bps);
    for (const FlowSpec& f : sys.flows)
      t.add(f);
    t.solver.solve();
    expect_max_min_fair(t);
    expect_equal_to_full_solve(t);
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
      for (double c : sys.capacity_Bps)
        s.add_link(c);
      std::vector<FlowId> ids(sys.flows.size());
      for (std::size_t i : order) {
        ids[i] = s.add_flow(sys.flows[i].links, sys.flows[i].weight, sys.flows[i].cap_Bps);
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

TEST(SolverProperty, IncrementalSolvesEqualFullSolves) {
  // Random batches of arrivals and departures between solves (a batch is what one instant of
  // the engine brings): after each solve, compare with the reference and with solve_all.
  for (std::uint32_t seed = 1; seed <= 60; ++seed) {
    SCOPED_TRACE(seed);
    const RandomSystem sys = make_random_system(seed);
    std::mt19937 rng(seed);
    Tracked t(sys.capacity_Bps);
    for (int step = 0; step < 80; ++step) {
      SCOPED_TRACE(step);
      const int changes = 1 + static_cast<int>(rng() % 3);
      for (int c = 0; c < changes; ++c) {
        if (t.ids.empty() || rng() % 3 != 0) {
          t.add(sys.flows[rng() % sys.flows.size()]);
        } else {
          t.remove(rng() % t.ids.size());
        }
      }
      solve_and_expect_untouched_unchanged(t);
      expect_equal_to_full_solve(t);
      expect_max_min_fair(t);
    }
  }
}

TEST(SolverProperty, FlowAddedAndRemovedBeforeASolveLeavesNoTrace) {
  // A flow that comes and goes between two solves (its id then reused) must not disturb others.
  for (std::uint32_t seed = 1; seed <= 40; ++seed) {
    SCOPED_TRACE(seed);
    const RandomSystem sys = make_random_system(seed);
    std::mt19937 rng(seed + 1000);
    Tracked t(sys.capacity_Bps);
    for (const FlowSpec& f : sys.flows)
      t.add(f);
    t.solver.solve();
    for (int step = 0; step < 20; ++step) {
      t.add(sys.flows[rng() % sys.flows.size()]);
      t.remove(t.ids.size() - 1);
      if (!t.ids.empty()) t.remove(rng() % t.ids.size());
      t.add(sys.flows[rng() % sys.flows.size()]);  // takes the id just freed
      solve_and_expect_untouched_unchanged(t);
      expect_equal_to_full_solve(t);
    }
  }
}

// A small non-blocking fat-tree like the benchmark's: 64 GPUs, 8 per node, 16 NICs per leaf,
// 16 spines. Path: GPU -> NIC (64) -> leaf (50) [-> spine (50) -> leaf (50)] -> NIC (50) -> GPU
// (64), the spine picked by the source's leaf port.
struct FatTree {
  static constexpr std::uint32_t kGpus = 64, kPerNode = 8, kPerLeaf = 16;
  std::vector<double> capacity_Bps;
  LinkId add(double c) {
    capacity_Bps.push_back(c);
    return static_cast<LinkId>(capacity_Bps.size() - 1);
  }
  std::vector<LinkId> gpu_nic, nic_leaf, leaf_nic, nic_gpu;
  std::vector<std::vector<LinkId>> leaf_spine, spine_leaf;
  FatTree() {
    for (std::uint32_t g = 0; g < kGpus; ++g) {
      gpu_nic.push_back(add(64));
      nic_leaf.push_back(add(50));
      leaf_nic.push_back(add(50));
      nic_gpu.push_back(add(64));
    }
    const std::uint32_t leaves = kGpus / kPerLeaf;
    leaf_spine.resize(leaves);
    spine_leaf.resize(kPerLeaf);
    for (std::uint32_t l = 0; l < leaves; ++l) {
      for (std::uint32_t s = 0; s < kPerLeaf; ++s) {
        leaf_spine[l].push_back(add(50));
        spine_leaf[s].push_back(add(50));
      }
    }
  }
  std::vector<LinkId> path(std::uint32_t s, std::uint32_t d) const {
    std::vector<LinkId> p{gpu_nic[s], nic_leaf[s]};
    if (s / kPerLeaf != d / kPerLeaf) {
      p.push_back(leaf_spine[s / kPerLeaf][s % kPerLeaf]);
      p.push_back(spine_leaf[s % kPerLeaf][d / kPerLeaf]);
    }
    p.push_back(leaf_nic[d]);
    p.push_back(nic_gpu[d]);
    return p;
  }
};

// Runs flows of 1 unit over the fat-tree as the engine would: `at_start` flows begin at once,
// the others join one per instant; at each instant the flows that finish leave together, then
// the solver re-solves. Every solve is checked against the reference (every 8th, to keep the
// sanitizer build quick) and the max-min conditions.
void run_fluid(const FatTree& tree, std::uint32_t seed, std::size_t at_start) {
  std::mt19937 rng(seed);
  std::vector<FlowSpec> flows;
  for (std::uint32_t s = 0; s < FatTree::kGpus; ++s) {
    for (int k = 0; k < 4; ++k) {
      std::uint32_t d = rng() % FatTree::kGpus;
      while (d / FatTree::kPerNode == s / FatTree::kPerNode)
        d = rng() % FatTree::kGpus;
      flows.push_back({tree.path(s, d), 1.0, kUnlimited});
    }
  }
  Tracked t(tree.capacity_Bps);
  std::vector<double> remaining;
  std::size_t next = 0;
  for (; next < at_start; ++next) {
    t.add(flows[next]);
    remaining.push_back(1.0);
  }
  t.solver.solve();
  expect_equal_to_full_solve(t);
  int instants = 0;
  while (!t.ids.empty()) {
    double dt = kUnlimited;
    for (std::size_t i = 0; i < t.ids.size(); ++i)
      dt = std::min(dt, remaining[i] / t.solver.rate(t.ids[i]));
    for (std::size_t i = t.ids.size(); i-- > 0;) {
      remaining[i] -= t.solver.rate(t.ids[i]) * dt;
      if (remaining[i] <= 1e-12) {
        t.remove(i);
        remaining.erase(remaining.begin() + static_cast<std::ptrdiff_t>(i));
      }
    }
    if (next < flows.size()) {
      t.add(flows[next++]);
      remaining.push_back(1.0);
    }
    solve_and_expect_untouched_unchanged(t);
    if (++instants % 8 == 0) expect_equal_to_full_solve(t);
    expect_max_min_fair(t);
  }
  EXPECT_GT(instants, 16);  // many distinct instants, not a few
}

TEST(SolverProperty, FluidDrainOfAFatTreeMatchesFullSolves) {
  // Every GPU sends 4 flows to random GPUs in other nodes, all at once (one component).
  const FatTree tree;
  for (std::uint32_t seed = 1; seed <= 3; ++seed) {
    SCOPED_TRACE(seed);
    run_fluid(tree, seed, 4 * FatTree::kGpus);
  }
}

TEST(SolverProperty, FluidArrivalsOnAFatTreeMatchFullSolves) {
  // The same flows, half at once and the rest joining one per instant while others drain.
  const FatTree tree;
  for (std::uint32_t seed = 1; seed <= 3; ++seed) {
    SCOPED_TRACE(seed);
    run_fluid(tree, seed, 2 * FatTree::kGpus);
  }
}

}  // namespace
}  // namespace linksim::net
