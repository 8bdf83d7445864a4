// Merging sampled sizes into a tuner file's ranges (sim/app/nccl_tuner_ranges.hpp), checked by
// hand: a size stands for the bytes up to the next sample, the last one up to twice itself.
#include "sim/app/nccl_tuner_ranges.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace linksim::app {
namespace {

const coll::Choice kTreeLL{coll::Algorithm::tree, coll::Protocol::ll, 4};
const coll::Choice kTreeLL8{coll::Algorithm::tree, coll::Protocol::ll, 8};
const coll::Choice kRingLL128{coll::Algorithm::ring, coll::Protocol::ll128, 16};

TEST(NcclTunerRanges, NeighboursWithTheSameChoiceMergeAndGapsSplit) {
  // 8: A, 16: A, 32: none, 64: B, 128: B, 256: A (the header's example, extended).
  const std::vector<TunedSize> samples{{8, kTreeLL},     {16, kTreeLL},     {32, std::nullopt},
                                       {64, kRingLL128}, {128, kRingLL128}, {256, kTreeLL}};
  const auto ranges = merge_tuned_sizes(samples);
  ASSERT_EQ(ranges.size(), 3u);
  // 8 and 16 stand for 8..15 and 16..31.
  EXPECT_EQ(ranges[0].min_bytes, 8u);
  EXPECT_EQ(ranges[0].max_bytes, 31u);
  EXPECT_EQ(ranges[0].first, 0u);
  EXPECT_EQ(ranges[0].last, 1u);
  EXPECT_TRUE(same_choice(ranges[0].choice, kTreeLL));
  // 32..63 is left to NCCL; 64 and 128 stand for 64..255.
  EXPECT_EQ(ranges[1].min_bytes, 64u);
  EXPECT_EQ(ranges[1].max_bytes, 255u);
  EXPECT_TRUE(same_choice(ranges[1].choice, kRingLL128));
  // The last sample stands for 256..511; A again, but not next to the first range.
  EXPECT_EQ(ranges[2].min_bytes, 256u);
  EXPECT_EQ(ranges[2].max_bytes, 511u);
  EXPECT_EQ(ranges[2].first, 5u);
  EXPECT_EQ(ranges[2].last, 5u);
}

TEST(NcclTunerRanges, ADifferentChannelCountIsADifferentChoice) {
  const auto ranges = merge_tuned_sizes({{1024, kTreeLL}, {2048, kTreeLL8}, {4096, kTreeLL8}});
  ASSERT_EQ(ranges.size(), 2u);
  EXPECT_EQ(ranges[0].max_bytes, 2047u);
  EXPECT_EQ(ranges[0].choice.channels, 4);
  EXPECT_EQ(ranges[1].min_bytes, 2048u);
  EXPECT_EQ(ranges[1].max_bytes, 8191u);
  EXPECT_EQ(ranges[1].choice.channels, 8);
}

TEST(NcclTunerRanges, SixteenGibibytesEndsBelowThirtyTwo) {
  const std::uint64_t gib16 = std::uint64_t{16} << 30;
  const auto ranges = merge_tuned_sizes({{gib16 / 2, std::nullopt}, {gib16, kRingLL128}});
  ASSERT_EQ(ranges.size(), 1u);
  EXPECT_EQ(ranges[0].min_bytes, 17179869184u);
  EXPECT_EQ(ranges[0].max_bytes, 34359738367u);
}

TEST(NcclTunerRanges, NothingWrittenGivesNoRange) {
  EXPECT_TRUE(merge_tuned_sizes({{8, std::nullopt}, {16, std::nullopt}}).empty());
  EXPECT_TRUE(merge_tuned_sizes({}).empty());
}

TEST(NcclTunerRanges, SizesOutOfOrderAreRefused) {
  EXPECT_THROW(merge_tuned_sizes({{16, kTreeLL}, {8, kTreeLL}}), std::invalid_argument);
  EXPECT_THROW(merge_tuned_sizes({{0, kTreeLL}}), std::invalid_argument);
}

}  // namespace
}  // namespace linksim::app
