// The SLO capacity search (sim/work/serving_capacity.hpp) on latency models whose answer is
// known, without the simulator: every rate it tries is worked out by hand below.
#include "sim/work/serving_capacity.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

namespace linksim::work {
namespace {

ServingSlo slo(double ttft_s, double tpot_s) {
  ServingSlo s;
  s.ttft_p99_s = ttft_s;
  s.tpot_p99_s = tpot_s;
  return s;
}

RateSearchOptions from(double start_rate_per_s) {
  RateSearchOptions o;
  o.start_rate_per_s = start_rate_per_s;
  return o;
}

TEST(ServingCapacitySearch, MeetsEveryStatedBoundAndOnlyThose) {
  ServingSlo s = slo(0.5, 0.05);
  EXPECT_TRUE(meets_slo(s, {0.5, 0.05, 1e9}));  // at the bounds; E2E not bounded
  EXPECT_FALSE(meets_slo(s, {0.51, 0.05, 0}));
  EXPECT_FALSE(meets_slo(s, {0.5, 0.051, 0}));
  s.e2e_p99_s = 2.0;
  EXPECT_TRUE(meets_slo(s, {0.5, 0.05, 2.0}));
  EXPECT_FALSE(meets_slo(s, {0.5, 0.05, 2.01}));
}

TEST(ServingCapacitySearch, DoublesThenBisectsToTheTolerance) {
  // TTFT p99 = the rate, SLO 5.5: met exactly at rates <= 5.5. From 1: 1, 2, 4 meet, 8 misses;
  // bisecting [4, 8]: 6 misses, 5 meets, 5.5 meets, 5.75, 5.625, 5.5625 miss; width
  // 0.0625 > 1% of 5.5 (0.055), so 5.53125 misses; width 0.03125 <= 0.055: stop. 11 rates, all
  // dyadic, so every comparison is exact.
  std::vector<double> tried;
  const ServingCapacity c = search_capacity(
      [&](double rate) {
        tried.push_back(rate);
        return ServingP99s{rate, 0, 0};
      },
      slo(5.5, 1), from(1));
  EXPECT_EQ(tried, (std::vector<double>{1, 2, 4, 8, 6, 5, 5.5, 5.75, 5.625, 5.5625, 5.53125}));
  EXPECT_TRUE(c.feasible);
  EXPECT_TRUE(c.bounded);
  EXPECT_EQ(c.max_rate_per_s, 5.5);
  EXPECT_EQ(c.failing_rate_per_s, 5.53125);
  EXPECT_EQ(c.rates_simulated, 11);
  EXPECT_EQ(c.lowest_rate_per_s, 1);
  EXPECT_EQ(c.at_lowest.ttft_s, 1);
}

TEST(ServingCapacitySearch, HalvesWhenTheStartMisses) {
  // TPOT p99 = the rate, SLO 0.3, from 1: 1 and 0.5 miss, 0.25 meets: bracket [0.25, 0.5].
  // Bisect: 0.375 x, 0.3125 x, 0.28125 ok, 0.296875 ok, 0.3046875 x, 0.30078125 x (width
  // 0.00390625 > 1% of 0.296875), 0.298828125 ok; width 0.001953125 <= 0.00298828125: stop.
  const ServingCapacity c = search_capacity(
      [](double rate) {
        return ServingP99s{0, rate, 0};
      },
      slo(1, 0.3), from(1));
  EXPECT_TRUE(c.feasible);
  EXPECT_EQ(c.max_rate_per_s, 0.298828125);
  EXPECT_EQ(c.failing_rate_per_s, 0.30078125);
  EXPECT_EQ(c.rates_simulated, 10);
  EXPECT_EQ(c.lowest_rate_per_s, 0.25);
}

TEST(ServingCapacitySearch, AQueueModelsAnswerIsBracketedWithinTheTolerance) {
  // An M/M/1-like TTFT, 1 / (10 - rate) below a capacity of 10/s: the SLO of 0.5 s holds up to
  // exactly 8/s. The answer meets it, the failing end misses, and they are within 1%.
  const auto p99 = [](double rate) {
    return ServingP99s{rate < 10 ? 1 / (10 - rate) : std::numeric_limits<double>::infinity(), 0, 0};
  };
  const ServingCapacity c = search_capacity(p99, slo(0.5, 1), from(0.3));
  ASSERT_TRUE(c.bounded);
  EXPECT_LE(c.max_rate_per_s, 8);
  EXPECT_GT(c.failing_rate_per_s, 8);
  EXPECT_LE(c.failing_rate_per_s - c.max_rate_per_s, 0.01 * c.max_rate_per_s);
}

TEST(ServingCapacitySearch, NoFeasibleRateReportsTheLowestRateTried) {
  // TTFT p99 = 1 + rate never meets 0.5 s: from 1 it halves 6 times, to 1/64, and stops.
  const ServingCapacity c = search_capacity(
      [](double rate) {
        return ServingP99s{1 + rate, 0.01, 0};
      },
      slo(0.5, 1), from(1));
  EXPECT_FALSE(c.feasible);
  EXPECT_FALSE(c.bounded);
  EXPECT_EQ(c.max_rate_per_s, 0);
  EXPECT_EQ(c.rates_simulated, 7);
  EXPECT_EQ(c.lowest_rate_per_s, 0.015625);
  EXPECT_EQ(c.at_lowest.ttft_s, 1.015625);
  EXPECT_EQ(c.at_lowest.tpot_s, 0.01);
}

TEST(ServingCapacitySearch, AnSloMetAtEveryRateIsUnbounded) {
  // Always met: from 1, doubled 3 times to 8 and no further.
  RateSearchOptions o = from(1);
  o.max_doublings = 3;
  const ServingCapacity c = search_capacity(
      [](double) {
        return ServingP99s{0.1, 0.01, 0};
      },
      slo(0.5, 0.05), o);
  EXPECT_TRUE(c.feasible);
  EXPECT_FALSE(c.bounded);
  EXPECT_EQ(c.max_rate_per_s, 8);
  EXPECT_EQ(c.rates_simulated, 4);
}

}  // namespace
}  // namespace linksim::work
