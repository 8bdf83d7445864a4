// Timeline analysis (sim/engine/summary.*): the per-GPU split into compute, exposed
// communication, idle (and hidden communication), per-channel use and bottlenecks, from a
// recorded run. The three hand-worked graphs (TP, DP, PP) assert every bucket of every GPU.
#include "sim/engine/summary.hpp"

#include <gtest/gtest.h>

namespace linksim::engine {
namespace {

using Ids = std::vector<TaskId>;

// The seed on NVLink 3 (300 GB/s): 0.1 s compute, then 10 GB: 10e9 / 300e9 = 0.0333.. s.
struct Seed {
  Simulation sim{{300e9}, 2};
  Timeline tl;
  Names names{{"backward", "gradient"}, {"gpu0", "gpu1"}, {"gpu0->gpu1"}};
  Seed() {
    const auto p = sim.add_path(std::vector<ChannelId>{0}, 0);
    const auto c = sim.add_compute(0, 0.1, Ids{});
    sim.add_transfer(10e9, std::vector<PathShare>{{p, 1.0}}, 0, 1, Ids{c});
    tl = sim.run();
  }
};

TEST(Summary, SeedOverNvlinkIsQuarterCommunication) {
  // comm = 0.0333.., makespan = 0.1333..: 0.0333 / 0.1333 = 25%.
  Seed seed;
  const Summary s = summarize(seed.sim, seed.tl, seed.names);
  EXPECT_DOUBLE_EQ(s.makespan_s, 0.1 + 1.0 / 30);  // 0.1333..
  EXPECT_DOUBLE_EQ(s.gpus[0].compute_s, 0.1);
  EXPECT_DOUBLE_EQ(s.gpus[0].comm_s, 1.0 / 30);          // 10e9 / 300e9
  EXPECT_DOUBLE_EQ(s.gpus[0].comm_fraction, 0.25);       // 0.0333 / 0.1333
  EXPECT_DOUBLE_EQ(s.gpus[0].busy_s, 0.1 + 1.0 / 30);    // back to back
  EXPECT_DOUBLE_EQ(s.gpus[1].exposed_comm_s, 1.0 / 30);  // gpu1 computes nothing
  ASSERT_EQ(s.channels.size(), 1u);
  EXPECT_DOUBLE_EQ(s.channels[0].utilization, 0.25);  // 10e9 / (300e9 x 0.1333)
  ASSERT_EQ(s.bottlenecks.size(), 1u);
}

TEST(Summary, OverlappedCommunicationIsNotExposed) {
  // gpu0 computes [0, 1); a 2 GB transfer at 1 GB/s runs [0, 2) alongside:
  // comm 2 s, exposed 2 - 1 = 1 s, busy 2 s.
  Simulation sim({1e9}, 2);
  const auto p = sim.add_path(std::vector<ChannelId>{0}, 0);
  sim.add_compute(0, 1.0, Ids{});
  sim.add_transfer(2e9, std::vector<PathShare>{{p, 1.0}}, 0, 1, Ids{});
  const Summary s = summarize(sim, sim.run(), {{"c", "t"}, {"gpu0", "gpu1"}, {"ch"}});
  EXPECT_EQ(s.gpus[0].comm_s, 2.0);
  EXPECT_EQ(s.gpus[0].exposed_comm_s, 1.0);  // 2 - 1
  EXPECT_EQ(s.gpus[0].busy_s, 2.0);
}

TEST(Summary, IntervalArithmetic) {
  // Union of [0,2), [1,3), [5,6) = 3 + 1 = 4; [0,10) minus [2,4) and [3,5) = 10 - 3 = 7.
  EXPECT_EQ(union_length({{0, 2}, {1, 3}, {5, 6}}), 4.0);
  EXPECT_EQ(uncovered_length({{0, 10}}, {{2, 4}, {3, 5}}), 7.0);
  EXPECT_EQ(uncovered_length({{0, 1}, {4, 6}}, {{0.5, 5}}), 1.5);  // 0.5 + 1
}

// Every bucket of one GPU, and the sum that defines idle.
void expect_split(const GpuRow& g, double compute_s, double exposed_s, double hidden_s,
                  double idle_s, double makespan_s) {
  EXPECT_DOUBLE_EQ(g.compute_s, compute_s) << g.name;
  EXPECT_DOUBLE_EQ(g.exposed_comm_s, exposed_s) << g.name;
  EXPECT_DOUBLE_EQ(g.hidden_comm_s, hidden_s) << g.name;
  EXPECT_DOUBLE_EQ(g.comm_s, exposed_s + hidden_s) << g.name;
  EXPECT_DOUBLE_EQ(g.idle_s, idle_s) << g.name;
  EXPECT_DOUBLE_EQ(g.compute_s + g.exposed_comm_s + g.idle_s, makespan_s) << g.name;
}

// Two GPUs joined by one channel each way at 1 GB/s, no path latency.
struct Pair {
  Simulation sim{{1e9, 1e9}, 2};
  PathId forward = sim.add_path(std::vector<ChannelId>{0}, 0);   // gpu0 -> gpu1
  PathId backward = sim.add_path(std::vector<ChannelId>{1}, 0);  // gpu1 -> gpu0
  Names names() const {
    Names n{std::vector<std::string>(sim.task_count(), "t"), {"gpu0", "gpu1"}, {"01", "10"}};
    return n;
  }
  // An all-reduce as sim/coll lowers one: a GPU-less delay (the base latency) that waits for
  // every rank's input, then each GPU sends `bytes` to the other, then a barrier.
  CommOp all_reduce(double latency_s, double bytes, Ids deps) {
    const TaskId first = sim.add_delay(latency_s, deps);
    const TaskId a =
        sim.add_transfer(bytes, std::vector<PathShare>{{forward, 1.0}}, 0, 1, Ids{first});
    const TaskId b =
        sim.add_transfer(bytes, std::vector<PathShare>{{backward, 1.0}}, 1, 0, Ids{first});
    const TaskId end = sim.add_barrier(Ids{a, b});
    return {first, end, {0, 1}};
  }
};

TEST(Summary, TensorParallelAllReduceIsExposedAndTheStragglerWaitIsIdle) {
  // TP=2, one layer half then its all-reduce then the next half. gpu1's half is slower:
  //   gpu0 compute [0, 1), gpu1 compute [0, 2);
  //   the all-reduce's latency delay [2, 2.5) (it waits for both), its transfers of 1 GB at
  //   1 GB/s [2.5, 3.5), its barrier at 3.5; then both compute [3.5, 4.5). Makespan 4.5.
  // The op's span is [2, 3.5) = 1.5 s on both GPUs, all of it with no compute: exposed.
  //   gpu0: compute 1 + 1 = 2; exposed 1.5; idle [1, 2) = 1 (waiting on gpu1's compute);
  //         2 + 1.5 + 1 = 4.5.
  //   gpu1: compute 2 + 1 = 3; exposed 1.5; idle 0; 3 + 1.5 = 4.5.
  Pair p;
  const TaskId c0 = p.sim.add_compute(0, 1.0, Ids{});
  const TaskId c1 = p.sim.add_compute(1, 2.0, Ids{});
  const CommOp ar = p.all_reduce(0.5, 1e9, Ids{c0, c1});
  p.sim.add_compute(0, 1.0, Ids{ar.last_task});
  p.sim.add_compute(1, 1.0, Ids{ar.last_task});
  const Timeline tl = p.sim.run();
  const std::vector<CommOp> ops{ar};
  const Summary s = summarize(p.sim, tl, p.names(), ops);
  ASSERT_DOUBLE_EQ(s.makespan_s, 4.5);
  expect_split(s.gpus[0], 2.0, 1.5, 0.0, 1.0, 4.5);
  expect_split(s.gpus[1], 3.0, 1.5, 0.0, 0.0, 4.5);
  // Without the op declared only the transfers count: the 0.5 s latency would read as idle
  // (the bug of issue 15): gpu1 exposed 1 s, idle 0.5 s.
  const Summary bare = summarize(p.sim, tl, p.names());
  expect_split(bare.gpus[1], 3.0, 1.0, 0.0, 0.5, 4.5);
}

TEST(Summary, DataParallelBucketHidesBehindTheBackwardUntilTheOptimizerWaits) {
  // DP=2, the backward in two halves A and B per GPU; A's gradients are all-reduced while B
  // runs, and the optimizer step C waits for B and the all-reduce:
  //   A [0, 1) on both; all-reduce (no latency) 1.5 GB at 1 GB/s each way [1, 2.5);
  //   B [1, 2) on both; C 0.25 s [2.5, 2.75). Makespan 2.75.
  // Per GPU: compute 1 + 1 + 0.25 = 2.25; communication [1, 2.5) = 1.5 of which [1, 2) is
  // beside B (hidden 1) and [2, 2.5) is not (exposed 0.5); idle 2.75 - 2.25 - 0.5 = 0.
  Pair p;
  const TaskId a0 = p.sim.add_compute(0, 1.0, Ids{});
  const TaskId a1 = p.sim.add_compute(1, 1.0, Ids{});
  const CommOp ar = p.all_reduce(0.0, 1.5e9, Ids{a0, a1});
  const TaskId b0 = p.sim.add_compute(0, 1.0, Ids{a0});
  const TaskId b1 = p.sim.add_compute(1, 1.0, Ids{a1});
  p.sim.add_compute(0, 0.25, Ids{b0, ar.last_task});
  p.sim.add_compute(1, 0.25, Ids{b1, ar.last_task});
  const std::vector<CommOp> ops{ar};
  const Summary s = summarize(p.sim, p.sim.run(), p.names(), ops);
  ASSERT_DOUBLE_EQ(s.makespan_s, 2.75);
  for (const GpuRow& g : s.gpus)
    expect_split(g, 2.25, 0.5, 1.0, 0.0, 2.75);
}

TEST(Summary, PipelineBubbleIsIdleAndTheActivationWaitIsExposed) {
  // PP=2, two micro-batches forward. Stage 0 (gpu0) computes F0 [0, 1), F1 [1, 2); each
  // sends 0.5 GB of activations at 1 GB/s to stage 1: [1, 1.5) and [2, 2.5). Stage 1 (gpu1)
  // computes F0 [1.5, 2.5) and F1 [2.5, 3.5). Makespan 3.5. A send counts on both ends.
  //   gpu0: compute 2; send [1, 1.5) is beside F1: hidden 0.5; send [2, 2.5) is not: exposed
  //         0.5; idle 3.5 - 2 - 0.5 = 1 (the drain: [2.5, 3.5)).
  //   gpu1: compute 2; [1, 1.5) waits on the activations: exposed 0.5; [2, 2.5) is beside F0:
  //         hidden 0.5; idle [0, 1) = 1 (the fill bubble: waiting on stage 0's compute).
  Pair p;
  const TaskId f0 = p.sim.add_compute(0, 1.0, Ids{});
  const TaskId f1 = p.sim.add_compute(0, 1.0, Ids{f0});
  const TaskId x0 =
      p.sim.add_transfer(0.5e9, std::vector<PathShare>{{p.forward, 1.0}}, 0, 1, Ids{f0});
  const TaskId x1 =
      p.sim.add_transfer(0.5e9, std::vector<PathShare>{{p.forward, 1.0}}, 0, 1, Ids{f1});
  const TaskId g0 = p.sim.add_compute(1, 1.0, Ids{x0});
  p.sim.add_compute(1, 1.0, Ids{x1, g0});
  const Summary s = summarize(p.sim, p.sim.run(), p.names());
  ASSERT_DOUBLE_EQ(s.makespan_s, 3.5);
  expect_split(s.gpus[0], 2.0, 0.5, 0.5, 1.0, 3.5);
  expect_split(s.gpus[1], 2.0, 0.5, 0.5, 1.0, 3.5);
}

TEST(Summary, CommIntervalsMergeOpsWithTransfers) {
  // The TP graph above: gpu0's communication is the op's span [2, 3.5), which covers its
  // transfers [2.5, 3.5): one merged interval.
  Pair p;
  const TaskId c0 = p.sim.add_compute(0, 1.0, Ids{});
  const TaskId c1 = p.sim.add_compute(1, 2.0, Ids{});
  const std::vector<CommOp> ops{p.all_reduce(0.5, 1e9, Ids{c0, c1})};
  const auto comm = comm_intervals(p.sim, p.sim.run(), ops);
  ASSERT_EQ(comm[0].size(), 1u);
  EXPECT_DOUBLE_EQ(comm[0][0].start_s, 2.0);
  EXPECT_DOUBLE_EQ(comm[0][0].end_s, 3.5);
}

TEST(Summary, CoveredLength) {
  // [1, 2) and [3, 5) cover [1.5, 4) by 0.5 + 1 = 1.5, [0, 1) by nothing, [4, 9) by 1.
  const std::vector<Interval> m{{1, 2}, {3, 5}};
  EXPECT_EQ(covered_length(m, 1.5, 4), 1.5);
  EXPECT_EQ(covered_length(m, 0, 1), 0.0);
  EXPECT_EQ(covered_length(m, 4, 9), 1.0);
}

}  // namespace
}  // namespace linksim::engine
