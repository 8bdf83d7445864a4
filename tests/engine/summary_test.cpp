// Timeline analysis (sim/engine/summary.*): per-GPU compute, communication and exposed
// communication, per-channel use and bottlenecks, from a recorded run.
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

}  // namespace
}  // namespace linksim::engine
