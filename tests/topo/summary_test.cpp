// The machine summary's pair rows: every ordered pair up to the route budget, and past it an
// evenly spread set of source GPUs whose rows stand for the machine (sim/topo/summary.hpp).
#include "sim/topo/summary.hpp"

#include <gtest/gtest.h>

#include "sim/topo/loader.hpp"

namespace linksim::topo {
namespace {

using Indices = std::vector<std::size_t>;

TEST(PairSourceIndicesTest, EveryGpuWhileAllPairsFitTheBudget) {
  // 8 GPUs have 8 x 7 = 56 ordered pairs: a budget of 56 routes them all.
  EXPECT_EQ(pair_source_indices(8, 56), (Indices{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(pair_source_indices(1, 0), (Indices{0}));
  EXPECT_EQ(pair_source_indices(0, 0), (Indices{}));
}

TEST(PairSourceIndicesTest, PastTheBudgetSourcesSpreadEvenly) {
  // 55 < 56: k = 55 / 8 = 6 sources, i * 8 / 6 for i = 0..5 = 0, 1, 2, 4, 5, 6.
  EXPECT_EQ(pair_source_indices(8, 55), (Indices{0, 1, 2, 4, 5, 6}));
  // 7 / 8 = 0, so one source: the first GPU.
  EXPECT_EQ(pair_source_indices(8, 7), (Indices{0}));
}

TEST(PairSourceIndicesTest, TheDefaultBudgetRoutesEveryPairUpTo512Gpus) {
  // 512 x 511 = 261,632 <= 2^18 = 262,144; 513 x 512 = 262,656 > 2^18, so
  // k = 262,144 / 513 = 511 sources (513 x 511 = 262,143), the last 510 * 513 / 511 =
  // 261,630 / 511 = 511 (rounded down: 511 x 512 = 261,632 > 261,630).
  EXPECT_EQ(pair_source_indices(512).size(), 512u);
  const Indices past = pair_source_indices(513);
  ASSERT_EQ(past.size(), 511u);
  EXPECT_EQ(past.front(), 0u);
  EXPECT_EQ(past.back(), 511u);
  // 16,384 GPUs: 262,144 / 16,384 = 16 sources, every 1,024th GPU.
  const Indices big = pair_source_indices(16384);
  ASSERT_EQ(big.size(), 16u);
  EXPECT_EQ(big[1], 1024u);
  EXPECT_EQ(big.back(), 15u * 1024u);
}

TEST(MachineSummaryTest, SampledPairsCountOnlyTheRoutedRows) {
  const Topology t = load_topology(shipped_topology_dir() + "/dgx-a100.json");
  const Router router(t);
  const MachineSummary all = summarize(t, router);
  // Every GPU pair of the NVSwitch machine is NVLink: 8 x 7 = 56 ordered pairs.
  EXPECT_EQ(all.pair_sources, 8u);
  EXPECT_FALSE(all.pairs_sampled());
  EXPECT_EQ(all.transports, (std::map<std::string, int>{{"nvlink", 56}}));

  // A budget of 20 < 56: k = 20 / 8 = 2 sources (GPU indices 0 and 4), 2 x 7 = 14 pairs.
  const MachineSummary some = summarize(t, router, 20);
  EXPECT_EQ(some.pair_sources, 2u);
  EXPECT_TRUE(some.pairs_sampled());
  EXPECT_EQ(some.transports, (std::map<std::string, int>{{"nvlink", 14}}));
  const auto gpus = t.nodes_of(NodeKind::gpu);
  ASSERT_TRUE(some.slowest_pair);
  EXPECT_TRUE(some.slowest_pair->a == gpus[0] || some.slowest_pair->a == gpus[4]);
  // Every NVSwitch pair is alike, so the sampled extremes are the machine's.
  EXPECT_DOUBLE_EQ(some.slowest_pair->bandwidth_Bps, all.slowest_pair->bandwidth_Bps);
  EXPECT_DOUBLE_EQ(some.fastest_pair->bandwidth_Bps, all.fastest_pair->bandwidth_Bps);
}

}  // namespace
}  // namespace linksim::topo
