#include "sim/engine/simulation.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <vector>

namespace linksim::engine {
namespace {

using Ids = std::vector<TaskId>;
using Channels = std::vector<ChannelId>;
using Shares = std::vector<PathShare>;

constexpr double kPcie4x16_Bps = 32e9;  // PCIe 4.0 x16, per direction, as the seed states
constexpr double kNvlink3_Bps = 300e9;  // NVLink 3, 12 links x 25 GB/s per direction
constexpr double kTenGB = 10e9;

TEST(Simulation, LoneFlowTakesLatencyPlusBytesOverBandwidth) {
  // 1 GB over one 10 GB/s channel with 5 us latency: 5e-6 + 1e9 / 10e9 = 0.100005 s.
  Simulation sim({10e9}, 2);
  const PathId p = sim.add_path(Channels{0}, 5e-6);
  const TaskId t = sim.add_transfer(1e9, Shares{{p, 1.0}}, 0, 1, Ids{});
  const Timeline tl = sim.run();
  EXPECT_EQ(tl.task_start_s[t], 0.0);
  EXPECT_DOUBLE_EQ(tl.task_end_s[t], 5e-6 + 0.1);  // latency + 1e9 / 10e9
  EXPECT_DOUBLE_EQ(tl.makespan_s, 5e-6 + 0.1);
}

TEST(Simulation, ChannelIntervalsCanBeLeftOutKeepingTotals) {
  // Two 1 GB transfers one after the other on a 10 GB/s channel: busy 0..0.1 s and 0.1..0.2 s,
  // which touch, so one interval [0, 0.2]; busy 0.2 s in all either way.
  Simulation sim({10e9}, 2);
  const PathId p = sim.add_path(Channels{0}, 0);
  const TaskId a = sim.add_transfer(1e9, Shares{{p, 1.0}}, 0, 1, Ids{});
  sim.add_transfer(1e9, Shares{{p, 1.0}}, 0, 1, Ids{a});
  const Timeline with = sim.run();
  ASSERT_EQ(with.channels[0].busy.size(), 1u);
  EXPECT_DOUBLE_EQ(with.channels[0].busy[0].end_s, 0.2);  // 2 x 1e9 / 10e9
  RunOptions options;
  options.record_channel_intervals = false;
  const Timeline without = sim.run(options);
  EXPECT_TRUE(without.channels[0].busy.empty());
  EXPECT_DOUBLE_EQ(without.channels[0].busy_s, 0.2);
  EXPECT_DOUBLE_EQ(without.channels[0].bytes, 2e9);
  EXPECT_EQ(without.gpu_comm[0].size(), 2u);  // per-GPU intervals stay
}

TEST(Simulation, SeedTenGigabytesOverPcieAndNvlink) {
  // 10 GB at 32 GB/s = 0.3125 s; at 300 GB/s = 0.0333.. s.
  Simulation sim({kPcie4x16_Bps, kNvlink3_Bps}, 2);
  const PathId pcie = sim.add_path(Channels{0}, 0);
  const PathId nvl = sim.add_path(Channels{1}, 0);
  const TaskId a = sim.add_transfer(kTenGB, Shares{{pcie, 1.0}}, 0, 1, Ids{});
  const TaskId b = sim.add_transfer(kTenGB, Shares{{nvl, 1.0}}, 0, 1, Ids{});
  const Timeline tl = sim.run();
  EXPECT_EQ(tl.task_end_s[a], 0.3125);             // 10e9 / 32e9, exact in binary
  EXPECT_DOUBLE_EQ(tl.task_end_s[b], 1.0 / 30.0);  // 10e9 / 300e9
}

TEST(Simulation, SeedComputeThenTransfer) {
  // 0.1 s compute on gpu0, then 10 GB gpu0 -> gpu1 over PCIe: ends at 0.1 + 0.3125 = 0.4125.
  Simulation sim({kPcie4x16_Bps}, 2);
  const PathId p = sim.add_path(Channels{0}, 0);
  const TaskId c = sim.add_compute(0, 0.1, Ids{});
  const TaskId t = sim.add_transfer(kTenGB, Shares{{p, 1.0}}, 0, 1, Ids{c});
  const Timeline tl = sim.run();
  EXPECT_EQ(tl.task_end_s[c], 0.1);
  EXPECT_EQ(tl.task_start_s[t], 0.1);
  EXPECT_DOUBLE_EQ(tl.makespan_s, 0.4125);  // 0.1 + 0.3125
  ASSERT_EQ(tl.gpu_compute[0].size(), 1u);
  ASSERT_EQ(tl.gpu_comm[0].size(), 1u);  // the transfer counts on its source ...
  ASSERT_EQ(tl.gpu_comm[1].size(), 1u);  // ... and on its destination
  EXPECT_TRUE(tl.gpu_compute[1].empty());
  EXPECT_EQ(tl.channels[0].bytes, kTenGB);
  EXPECT_DOUBLE_EQ(tl.channels[0].busy_s, 0.3125);
  EXPECT_DOUBLE_EQ(tl.channels[0].saturated_s, 0.3125);  // a lone flow fills the channel
}

TEST(Simulation, TwoTransfersShareALink) {
  // 1 GB and 3 GB over one 10 GB/s channel, both from t = 0. Each streams at 5 GB/s until the
  // small one ends at 1e9 / 5e9 = 0.2 s; the big one has 3e9 - 1e9 = 2e9 left, alone at
  // 10 GB/s: 0.2 + 2e9 / 10e9 = 0.4 s.
  Simulation sim({10e9}, 2);
  const PathId p = sim.add_path(Channels{0}, 0);
  const TaskId small = sim.add_transfer(1e9, Shares{{p, 1.0}}, 0, 1, Ids{});
  const TaskId big = sim.add_transfer(3e9, Shares{{p, 1.0}}, 0, 1, Ids{});
  const Timeline tl = sim.run();
  EXPECT_DOUBLE_EQ(tl.task_end_s[small], 0.2);  // 1e9 / 5e9
  EXPECT_DOUBLE_EQ(tl.task_end_s[big], 0.4);    // 0.2 + 2e9 / 10e9
  EXPECT_DOUBLE_EQ(tl.channels[0].busy_s, 0.4);
  EXPECT_EQ(tl.flow_starts, 2u);
  EXPECT_EQ(tl.flow_ends, 2u);
}

TEST(Simulation, LatencyDelaysTheStartOfSharing) {
  // Channel 10 GB/s. A: 1 GB, no latency. B: 1 GB, 0.05 s latency.
  // [0, 0.05): A alone at 10 GB/s sends 0.5 GB. Then both at 5 GB/s: A's last 0.5 GB takes
  // 0.1 s, ending at 0.15; B has sent 0.5 GB by then, and its last 0.5 GB alone at 10 GB/s
  // takes 0.05 s: B ends at 0.2.
  Simulation sim({10e9}, 2);
  const PathId fast = sim.add_path(Channels{0}, 0);
  const PathId slow = sim.add_path(Channels{0}, 0.05);
  const TaskId a = sim.add_transfer(1e9, Shares{{fast, 1.0}}, 0, 1, Ids{});
  const TaskId b = sim.add_transfer(1e9, Shares{{slow, 1.0}}, 0, 1, Ids{});
  const Timeline tl = sim.run();
  EXPECT_DOUBLE_EQ(tl.task_end_s[a], 0.15);  // 0.05 + 0.5e9 / 5e9
  EXPECT_DOUBLE_EQ(tl.task_end_s[b], 0.2);   // 0.15 + 0.5e9 / 10e9
}

TEST(Simulation, MultipathTransferEndsWithItsSlowestPath) {
  // 1 GB split half and half over a 10 GB/s and a 5 GB/s channel:
  // 0.5e9 / 10e9 = 0.05 s and 0.5e9 / 5e9 = 0.1 s; the transfer ends at 0.1 s.
  Simulation sim({10e9, 5e9}, 2);
  const PathId p0 = sim.add_path(Channels{0}, 0);
  const PathId p1 = sim.add_path(Channels{1}, 0);
  const TaskId t = sim.add_transfer(1e9, Shares{{p0, 0.5}, {p1, 0.5}}, 0, 1, Ids{});
  const Timeline tl = sim.run();
  EXPECT_DOUBLE_EQ(tl.task_end_s[t], 0.1);
  EXPECT_EQ(tl.channels[0].bytes, 0.5e9);
  EXPECT_EQ(tl.channels[1].bytes, 0.5e9);
  EXPECT_DOUBLE_EQ(tl.channels[0].busy_s, 0.05);
}

TEST(Simulation, BarrierJoinsAndDelayWaits) {
  // c0: 1 s, c1: 2 s on two GPUs; barrier at max(1, 2) = 2; then a 0.5 s delay: ends at 2.5.
  Simulation sim({}, 2);
  const TaskId c0 = sim.add_compute(0, 1.0, Ids{});
  const TaskId c1 = sim.add_compute(1, 2.0, Ids{});
  const TaskId b = sim.add_barrier(Ids{c0, c1});
  const TaskId d = sim.add_delay(0.5, Ids{b});
  const Timeline tl = sim.run();
  EXPECT_EQ(tl.task_start_s[b], 2.0);
  EXPECT_EQ(tl.task_end_s[b], 2.0);  // a barrier takes no time
  EXPECT_EQ(tl.task_end_s[d], 2.5);  // 2 + 0.5
  EXPECT_EQ(tl.makespan_s, 2.5);
}

TEST(Simulation, ZeroLengthChainsResolveInOneInstant) {
  // Barrier -> zero-length compute -> barrier, all at t = 0; then 1 s compute.
  Simulation sim({}, 1);
  const TaskId b0 = sim.add_barrier(Ids{});
  const TaskId z = sim.add_compute(0, 0.0, Ids{b0});
  const TaskId b1 = sim.add_barrier(Ids{z});
  const TaskId c = sim.add_compute(0, 1.0, Ids{b1});
  const Timeline tl = sim.run();
  EXPECT_EQ(tl.task_end_s[b1], 0.0);
  EXPECT_EQ(tl.task_end_s[c], 1.0);
}

TEST(Simulation, EmptyPathPaysOnlyLatency) {
  Simulation sim({}, 1);
  const PathId p = sim.add_path(Channels{}, 2e-6);
  const TaskId t = sim.add_transfer(1e9, Shares{{p, 1.0}}, 0, 0, Ids{});
  const Timeline tl = sim.run();
  EXPECT_EQ(tl.task_end_s[t], 2e-6);
}

TEST(Simulation, SaturatedTimeCountsOnlyFullChannels) {
  // Channels 0 (10 GB/s) and 1 (20 GB/s). One 1 GB flow over both: bottleneck 10 GB/s, so it
  // takes 0.1 s; channel 0 is saturated for 0.1 s, channel 1 is busy 0.1 s but never full.
  Simulation sim({10e9, 20e9}, 2);
  const PathId p = sim.add_path(Channels{0, 1}, 0);
  sim.add_transfer(1e9, Shares{{p, 1.0}}, 0, 1, Ids{});
  const Timeline tl = sim.run();
  EXPECT_DOUBLE_EQ(tl.channels[0].saturated_s, 0.1);
  EXPECT_EQ(tl.channels[1].saturated_s, 0.0);
  EXPECT_DOUBLE_EQ(tl.channels[1].busy_s, 0.1);
  ASSERT_EQ(tl.channels[1].busy.size(), 1u);
  EXPECT_EQ(tl.channels[1].busy[0].start_s, 0.0);
}

// A random DAG over random channels: compute, delays, barriers and transfers on 1-3 paths.
struct RandomGraph {
  std::vector<double> capacity;
  std::vector<std::vector<ChannelId>> paths;
  std::vector<double> latency;
  struct T {
    TaskKind kind;
    double amount;
    int gpu;
    std::vector<std::size_t> path_idx;
    std::vector<std::size_t> deps;  // indices of earlier tasks
  };
  std::vector<T> tasks;
};

RandomGraph make_random_graph(std::uint32_t seed) {
  std::mt19937 rng(seed);
  RandomGraph g;
  const int channels = 1 + static_cast<int>(rng() % 12);
  for (int i = 0; i < channels; ++i)
    g.capacity.push_back(1e9 * (1 + rng() % 50));
  const int paths = 1 + static_cast<int>(rng() % 10);
  for (int i = 0; i < paths; ++i) {
    std::vector<ChannelId> p;
    const int hops = 1 + static_cast<int>(rng() % 4);
    for (int h = 0; h < hops; ++h) {
      const auto c = static_cast<ChannelId>(rng() % static_cast<std::uint32_t>(channels));
      if (std::find(p.begin(), p.end(), c) == p.end()) p.push_back(c);
    }
    g.paths.push_back(p);
    g.latency.push_back((rng() % 3) * 1e-6);
  }
  const int n = 1 + static_cast<int>(rng() % 80);
  for (int i = 0; i < n; ++i) {
    RandomGraph::T t;
    t.kind = static_cast<TaskKind>(rng() % 4);
    if (rng() % 2 == 0) t.kind = TaskKind::transfer;
    t.amount = t.kind == TaskKind::transfer ? 1e6 * (1 + rng() % 1000) : 1e-3 * (rng() % 10);
    t.gpu = static_cast<int>(rng() % 4);
    const int np = 1 + static_cast<int>(rng() % 3);
    for (int k = 0; k < np; ++k)
      t.path_idx.push_back(rng() % g.paths.size());
    for (int k = 0; k < i; ++k) {
      if (rng() % 8 == 0) t.deps.push_back(static_cast<std::size_t>(k));
    }
    g.tasks.push_back(t);
  }
  return g;
}

// Builds the graph with tasks added in `order` (a topological order); returns times by index.
std::pair<Timeline, std::vector<TaskId>> run_graph(const RandomGraph& g,
                                                   const std::vector<std::size_t>& order,
                                                   RunOptions options = {}) {
  Simulation sim(g.capacity, 4);
  std::vector<PathId> pid;
  for (std::size_t i = 0; i < g.paths.size(); ++i)
    pid.push_back(sim.add_path(g.paths[i], g.latency[i]));
  std::vector<TaskId> id(g.tasks.size());
  for (std::size_t i : order) {
    const auto& t = g.tasks[i];
    Ids deps;
    for (std::size_t d : t.deps)
      deps.push_back(id[d]);
    switch (t.kind) {
      case TaskKind::compute:
        id[i] = sim.add_compute(t.gpu, t.amount, deps);
        break;
      case TaskKind::delay:
        id[i] = sim.add_delay(t.amount, deps);
        break;
      case TaskKind::barrier:
        id[i] = sim.add_barrier(deps);
        break;
      case TaskKind::transfer: {
        Shares shares;
        for (std::size_t p : t.path_idx) {
          shares.push_back({pid[p], 1.0 / static_cast<double>(t.path_idx.size())});
        }
        id[i] = sim.add_transfer(t.amount, shares, t.gpu, (t.gpu + 1) % 4, deps);
        break;
      }
    }
  }
  return {sim.run(options), id};
}

TEST(SimulationProperty, TimeNeverRunsBackwardsAndBytesAreConserved) {
  for (std::uint32_t seed = 1; seed <= 100; ++seed) {
    SCOPED_TRACE(seed);
    const RandomGraph g = make_random_graph(seed);
    std::vector<std::size_t> order(g.tasks.size());
    for (std::size_t i = 0; i < order.size(); ++i)
      order[i] = i;
    const auto [tl, id] = run_graph(g, order);
    double bytes_sent = 0;  // bytes x hops, path by path
    for (std::size_t i = 0; i < g.tasks.size(); ++i) {
      const auto& t = g.tasks[i];
      const double start = tl.task_start_s[id[i]];
      const double end = tl.task_end_s[id[i]];
      ASSERT_FALSE(std::isnan(end));
      EXPECT_GE(start, 0.0);
      EXPECT_GE(end, start);
      EXPECT_LE(end, tl.makespan_s);
      for (std::size_t d : t.deps)
        EXPECT_GE(start, tl.task_end_s[id[d]]);
      if (t.kind == TaskKind::transfer) {
        for (std::size_t p : t.path_idx) {
          bytes_sent += t.amount / static_cast<double>(t.path_idx.size()) *
                        static_cast<double>(g.paths[p].size());
        }
      }
    }
    double bytes_carried = 0;
    for (const auto& c : tl.channels) {
      bytes_carried += c.bytes;
      EXPECT_LE(c.saturated_s, c.busy_s * (1 + 1e-12));
      EXPECT_LE(c.busy_s, tl.makespan_s * (1 + 1e-12));
      // A channel never carries more than capacity x busy time.
    }
    for (std::size_t c = 0; c < tl.channels.size(); ++c) {
      EXPECT_LE(tl.channels[c].bytes, g.capacity[c] * tl.channels[c].busy_s * (1 + 1e-9));
    }
    EXPECT_NEAR(bytes_carried, bytes_sent, 1e-9 * bytes_sent);
    EXPECT_EQ(tl.flow_starts, tl.flow_ends);
  }
}

TEST(SimulationProperty, SameGraphSameBytes) {
  // Two runs of one simulation agree exactly; a different (topological) insertion order agrees
  // to rounding.
  for (std::uint32_t seed = 1; seed <= 50; ++seed) {
    SCOPED_TRACE(seed);
    const RandomGraph g = make_random_graph(seed);
    std::vector<std::size_t> order(g.tasks.size());
    for (std::size_t i = 0; i < order.size(); ++i)
      order[i] = i;
    const auto [a, ida] = run_graph(g, order);
    const auto [b, idb] = run_graph(g, order);
    EXPECT_EQ(a.task_end_s, b.task_end_s);
    // Reverse order among tasks with no dependencies at all keeps it topological.
    std::vector<std::size_t> roots, rest;
    for (std::size_t i : order)
      (g.tasks[i].deps.empty() ? roots : rest).push_back(i);
    std::reverse(roots.begin(), roots.end());
    roots.insert(roots.end(), rest.begin(), rest.end());
    // Dependents of a root must come after it: `rest` keeps original order, roots come first.
    const auto [c, idc] = run_graph(g, roots);
    for (std::size_t i = 0; i < g.tasks.size(); ++i) {
      EXPECT_NEAR(c.task_end_s[idc[i]], a.task_end_s[ida[i]], 1e-12 * a.makespan_s) << i;
    }
  }
}

TEST(SimulationProperty, ReusingIsolatedGroupsChangesNothing) {
  // With and without reuse: the same times to rounding and the same channel totals.
  RunOptions off;
  off.reuse_isolated_groups = false;
  for (std::uint32_t seed = 1; seed <= 100; ++seed) {
    SCOPED_TRACE(seed);
    const RandomGraph g = make_random_graph(seed);
    std::vector<std::size_t> order(g.tasks.size());
    for (std::size_t i = 0; i < order.size(); ++i)
      order[i] = i;
    const auto [a, ida] = run_graph(g, order);
    const auto [b, idb] = run_graph(g, order, off);
    for (std::size_t i = 0; i < g.tasks.size(); ++i) {
      EXPECT_NEAR(a.task_end_s[i], b.task_end_s[i], 1e-12 * b.makespan_s) << i;
    }
    for (std::size_t c = 0; c < a.channels.size(); ++c) {
      EXPECT_NEAR(a.channels[c].bytes, b.channels[c].bytes, 1e-12 * b.channels[c].bytes);
      EXPECT_NEAR(a.channels[c].busy_s, b.channels[c].busy_s, 1e-12 * b.makespan_s);
      EXPECT_NEAR(a.channels[c].saturated_s, b.channels[c].saturated_s, 1e-12 * b.makespan_s);
      // Interval counts may differ where a replayed group ends a rounding error away from the
      // next start; their total length may not.
      double total_a = 0, total_b = 0;
      for (const auto& iv : a.channels[c].busy)
        total_a += iv.end_s - iv.start_s;
      for (const auto& iv : b.channels[c].busy)
        total_b += iv.end_s - iv.start_s;
      EXPECT_NEAR(total_a, total_b, 1e-12 * b.makespan_s);
    }
    EXPECT_EQ(a.flow_starts, b.flow_starts);
  }
}

// A ring of `n` GPUs, `steps` steps; each step every GPU sends `bytes` to the next one over
// its own channel (GPU i -> i+1 on channel i), with a barrier between steps.
Simulation ring(int n, int steps, double bytes) {
  std::vector<double> capacity;
  for (int i = 0; i < n; ++i)
    capacity.push_back(i % 2 ? 10e9 : 20e9);
  Simulation sim(capacity, static_cast<std::size_t>(n));
  std::vector<PathId> paths;
  for (int i = 0; i < n; ++i)
    paths.push_back(sim.add_path(Channels{static_cast<ChannelId>(i)}, 1e-6));
  TaskId barrier = sim.add_barrier(Ids{});
  for (int s = 0; s < steps; ++s) {
    Ids step;
    for (int i = 0; i < n; ++i) {
      step.push_back(sim.add_transfer(bytes, Shares{{paths[static_cast<std::size_t>(i)], 1.0}}, i,
                                      (i + 1) % n, Ids{barrier}));
    }
    barrier = sim.add_barrier(step);
  }
  return sim;
}

TEST(Simulation, RepeatedRingStepsAreReusedExactly) {
  // 4 GPUs, 6 steps of 1 GB: each step takes 1e-6 + 1e9 / 10e9 (the slow channels) = 0.100001
  // s; six steps end at 6 x 0.100001 (to rounding).
  const Simulation sim = ring(4, 6, 1e9);
  RunOptions off;
  off.reuse_isolated_groups = false;
  const Timeline on = sim.run();
  const Timeline plain = sim.run(off);
  EXPECT_NEAR(on.makespan_s, 6 * 0.100001, 1e-12);
  EXPECT_NEAR(plain.makespan_s, 6 * 0.100001, 1e-12);
  for (std::size_t t = 0; t < sim.task_count(); ++t) {
    EXPECT_NEAR(on.task_end_s[t], plain.task_end_s[t], 1e-12) << t;
  }
  EXPECT_EQ(on.flow_starts, 24u);  // 4 x 6, counted though replayed
  EXPECT_EQ(on.channels[1].busy.size(), 6u);
  // Reuse is exact against itself: a fresh run gives the same bytes.
  EXPECT_EQ(sim.run().task_end_s, on.task_end_s);
}

}  // namespace
}  // namespace linksim::engine

namespace linksim::engine {
namespace {

TEST(Simulation, AddedChannelLimitsAPath) {
  // A 10 GB/s channel plus an added 4 GB/s one on the same path: 1 GB at 4 GB/s = 0.25 s.
  Simulation sim({10e9}, 2);
  const ChannelId cap = sim.add_channel(4e9);
  EXPECT_EQ(cap, 1u);
  const PathId p = sim.add_path(std::vector<ChannelId>{0, cap}, 0);
  const TaskId t = sim.add_transfer(1e9, std::vector<PathShare>{{p, 1.0}}, 0, 1, {});
  EXPECT_EQ(sim.run().task_end_s[t], 0.25);  // 1e9 / 4e9
}

}  // namespace
}  // namespace linksim::engine

namespace linksim::engine {
namespace {

TEST(Simulation, TransfersKeepTheirOwnPathsAndShares) {
  // Path lists are stored once per distinct list; each transfer still reads back exactly its
  // own: the same path alone (share 1), half of it (share 0.5, a different list), two paths,
  // the two paths in the other order (a different list), and none.
  Simulation sim({10e9, 20e9}, 2);
  const PathId a = sim.add_path(Channels{0}, 0);
  const PathId b = sim.add_path(Channels{1}, 0);
  const TaskId whole = sim.add_transfer(1e9, Shares{{a, 1.0}}, 0, 1, Ids{});
  const TaskId whole_again = sim.add_transfer(2e9, Shares{{a, 1.0}}, 1, 0, Ids{});
  const TaskId half = sim.add_transfer(1e9, Shares{{a, 0.5}}, 0, 1, Ids{});
  const TaskId split = sim.add_transfer(1e9, Shares{{a, 0.25}, {b, 0.75}}, 0, 1, Ids{});
  const TaskId swapped = sim.add_transfer(1e9, Shares{{b, 0.75}, {a, 0.25}}, 0, 1, Ids{});
  const TaskId split_again = sim.add_transfer(1e9, Shares{{a, 0.25}, {b, 0.75}}, 0, 1, Ids{});
  const TaskId none = sim.add_transfer(1e9, Shares{}, 0, 1, Ids{});
  const TaskId c = sim.add_compute(1, 1.0, Ids{});
  const auto same = [&](TaskId t, const Shares& want) {
    const auto got = sim.paths(t);
    ASSERT_EQ(got.size(), want.size()) << "task " << t;
    for (std::size_t i = 0; i < want.size(); ++i) {
      EXPECT_EQ(got[i].path, want[i].path) << "task " << t;
      EXPECT_EQ(got[i].share, want[i].share) << "task " << t;
    }
  };
  same(whole, {{a, 1.0}});
  same(whole_again, {{a, 1.0}});
  same(half, {{a, 0.5}});
  same(split, {{a, 0.25}, {b, 0.75}});
  same(swapped, {{b, 0.75}, {a, 0.25}});
  same(split_again, {{a, 0.25}, {b, 0.75}});
  same(none, {});
  same(c, {});
  EXPECT_EQ(sim.gpu(whole_again), 1);
  EXPECT_EQ(sim.peer_gpu(whole_again), 0);
  EXPECT_EQ(sim.kind(none), TaskKind::transfer);
  EXPECT_EQ(sim.kind(c), TaskKind::compute);
  EXPECT_EQ(sim.gpu(c), 1);
}

TEST(Simulation, KindAndGpuShareAWordUpToLargeGpuIndices) {
  // (gpu + 1) << 2 | kind: GPU 2^20 - 1 and kNoGpu both read back with every kind.
  const int last = (1 << 20) - 1;
  Simulation sim({1e9}, std::size_t{1} << 20);
  const TaskId c = sim.add_compute(last, 2.0, Ids{});
  const TaskId t = sim.add_transfer(0, Shares{}, last, kNoGpu, Ids{});
  const TaskId u = sim.add_transfer(0, Shares{}, kNoGpu, last, Ids{});
  const TaskId d = sim.add_delay(3.0, Ids{});
  const TaskId b = sim.add_barrier(Ids{c, d});
  EXPECT_EQ(sim.kind(c), TaskKind::compute);
  EXPECT_EQ(sim.gpu(c), last);
  EXPECT_EQ(sim.amount(c), 2.0);
  EXPECT_EQ(sim.kind(t), TaskKind::transfer);
  EXPECT_EQ(sim.gpu(t), last);
  EXPECT_EQ(sim.peer_gpu(t), kNoGpu);
  EXPECT_EQ(sim.gpu(u), kNoGpu);
  EXPECT_EQ(sim.peer_gpu(u), last);
  EXPECT_EQ(sim.kind(d), TaskKind::delay);
  EXPECT_EQ(sim.gpu(d), kNoGpu);
  EXPECT_EQ(sim.kind(b), TaskKind::barrier);
  EXPECT_EQ(sim.gpu(b), kNoGpu);
  // The barrier waits for the 3 s delay, the later of its two dependencies.
  EXPECT_EQ(sim.run().task_end_s[b], 3.0);
}

TEST(SimulationProperty, TaskTimesLeftOutChangeNoAggregate) {
  // Without task times a run keeps the same makespan, counters and channel totals, bit for bit,
  // with and without group reuse.
  for (std::uint32_t seed = 1; seed <= 30; ++seed) {
    SCOPED_TRACE(seed);
    const RandomGraph g = make_random_graph(seed);
    std::vector<std::size_t> order(g.tasks.size());
    for (std::size_t i = 0; i < order.size(); ++i)
      order[i] = i;
    for (bool reuse : {false, true}) {
      RunOptions with;
      with.record_intervals = false;
      with.reuse_isolated_groups = reuse;
      RunOptions without = with;
      without.record_task_times = false;
      const auto [a, ida] = run_graph(g, order, with);
      const auto [b, idb] = run_graph(g, order, without);
      EXPECT_EQ(a.task_end_s.size(), g.tasks.size());
      EXPECT_TRUE(b.task_start_s.empty());
      EXPECT_TRUE(b.task_end_s.empty());
      EXPECT_EQ(a.makespan_s, b.makespan_s);
      EXPECT_EQ(a.flow_starts, b.flow_starts);
      EXPECT_EQ(a.solves, b.solves);
      ASSERT_EQ(a.channels.size(), b.channels.size());
      for (std::size_t c = 0; c < a.channels.size(); ++c) {
        EXPECT_EQ(a.channels[c].bytes, b.channels[c].bytes);
        EXPECT_EQ(a.channels[c].busy_s, b.channels[c].busy_s);
        EXPECT_EQ(a.channels[c].saturated_s, b.channels[c].saturated_s);
      }
    }
  }
}

}  // namespace
}  // namespace linksim::engine
