// The region tuner of aws-ofi-nccl v1.16.3 (aws_ofi_tuner_regions.hpp), its picks worked by hand
// from the polygons of src/tuner/nccl_ofi_regions.cpp (x = bytes, y = ranks).
#include "sim/coll/aws_ofi_tuner_regions.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

namespace linksim::coll {
namespace {

constexpr double kKiB = 1024.0;
constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// NCCL offers every pair.
bool all_offered(std::string_view, Protocol) {
  return true;
}

// "Tree/LL128", "none": one string per pick, so a failure prints what was picked.
std::string pick_name(AwsOfiPlatform platform, Op op, double bytes, int ranks, int nodes,
                      const std::function<bool(std::string_view, Protocol)>& offered) {
  const auto pick = aws_ofi_region_pick(platform, op, bytes, ranks, nodes, offered);
  if (!pick) return "none";
  return std::string(pick->algorithm) + "/" + std::string(to_string(pick->protocol));
}

std::string all_reduce_4x8(AwsOfiPlatform platform, double bytes) {
  return pick_name(platform, Op::all_reduce, bytes, 32, 4, all_offered);
}

// Refuses one (algorithm, protocol), as NCCL's cost table does with NCCL_ALGO_PROTO_IGNORE.
auto refusing(std::string_view algorithm, Protocol protocol) {
  return [algorithm, protocol](std::string_view a, Protocol p) {
    return !(a == algorithm && p == protocol);
  };
}

TEST(AwsOfiTunerRegions, PlatformOfInstanceType) {
  EXPECT_EQ(aws_ofi_platform_of("p5.48xlarge"), AwsOfiPlatform::p5_p5e);
  EXPECT_EQ(aws_ofi_platform_of("p5e.48xlarge"), AwsOfiPlatform::p5_p5e);
  EXPECT_EQ(aws_ofi_platform_of("p5en.48xlarge"), AwsOfiPlatform::p5en);
  EXPECT_EQ(aws_ofi_platform_of("p6-b200.48xlarge"), AwsOfiPlatform::p6_b200);
  // No regions for the p4d, and the plugin compares names exactly (strcmp).
  EXPECT_EQ(aws_ofi_platform_of("p4d.24xlarge"), std::nullopt);
  EXPECT_EQ(aws_ofi_platform_of("P5.48xlarge"), std::nullopt);
  EXPECT_EQ(aws_ofi_platform_of("p5.48xlarge "), std::nullopt);
  EXPECT_EQ(aws_ofi_platform_of("p6-b200"), std::nullopt);
}

TEST(AwsOfiTunerRegions, P5FourNodesAllReduceByHand) {
  const auto p5 = AwsOfiPlatform::p5_p5e;
  // region_init_internal_p5_p5e, nRanks == 8 * nNodes, all-reduce, at y = 32:
  // Tree/LL128 runs from x = 0 (edge (0, 1048576)-(0, 16)) to its vertex (37748736, 32).
  EXPECT_EQ(all_reduce_4x8(p5, 1 * kMiB), "Tree/LL128");
  // Ring/LL128 runs from its vertex (37748736, 32) to its edge (1073741824, 17)-(2147483648, 64),
  // which at y = 32 is at x = 1073741824 x (1 + 15/47) = 1416424840.5.
  EXPECT_EQ(all_reduce_4x8(p5, 256 * kMiB), "Ring/LL128");
  // Ring/Simple runs from its vertex (1610612736, 32) to x = TUNER_MAX_SIZE (its edge
  // (100 GiB, 17)-(100 GiB, 2133.3)).
  EXPECT_EQ(all_reduce_4x8(p5, 4 * kGiB), "Ring/Simple");
  EXPECT_EQ(all_reduce_4x8(p5, 100 * kGiB), "Ring/Simple");  // on that edge
  // Between 1416424840.5 and 1610612736 no region reaches y = 32 (the NVLSTree/Simple regions
  // lie on y = 16 and at y >= 128): NCCL's own tuner decides.
  EXPECT_EQ(all_reduce_4x8(p5, 1.5e9), "none");
  // Beyond TUNER_MAX_SIZE nothing.
  EXPECT_EQ(all_reduce_4x8(p5, 100 * kGiB + 1), "none");
  // Nor for a NaN size (NCCL's sizes are whole numbers).
  EXPECT_EQ(all_reduce_4x8(p5, std::numeric_limits<double>::quiet_NaN()), "none");
}

TEST(AwsOfiTunerRegions, P5enFourNodesAllReduceByHand) {
  const auto p5en = AwsOfiPlatform::p5en;
  // region_init_internal_p5en, nRanks == 8 * nNodes, all-reduce. Tree/LL is the triangle
  // (0, 16), (262144, 16), (262144, 1048576) (extend_region of the vertical (262144, 192)-
  // (262144, 1024) gives (262144, TUNER_MAX_RANKS)). Its long edge back to (0, 16) crosses
  // y = 32 at x = 262144 x 16 / 1048560 = 4.00006, so at 32 ranks Tree/LL is 4.00006-262144 B
  // and 1 B is in no region.
  EXPECT_EQ(all_reduce_4x8(p5en, 1), "none");
  EXPECT_EQ(all_reduce_4x8(p5en, 8), "Tree/LL");
  EXPECT_EQ(all_reduce_4x8(p5en, 64 * kKiB), "Tree/LL");
  // Tree/LL128 from x = 262144 to its edge (14680064, 16)-(150994944, 128), at y = 32
  // x = 14680064 + 16/112 x 136314880 = 34153618.3.
  EXPECT_EQ(all_reduce_4x8(p5en, 1 * kMiB), "Tree/LL128");
  EXPECT_EQ(all_reduce_4x8(p5en, 32 * kMiB), "Tree/LL128");
  // Ring/LL128 from 34153618.3 to its vertex (536870912, 32).
  EXPECT_EQ(all_reduce_4x8(p5en, 34 * kMiB), "Ring/LL128");  // 35651584 > 34153618.3
  EXPECT_EQ(all_reduce_4x8(p5en, 256 * kMiB), "Ring/LL128");
  // Ring/Simple from its vertex (536870912, 32) to x = TUNER_MAX_SIZE.
  EXPECT_EQ(all_reduce_4x8(p5en, 1.5e9), "Ring/Simple");
  EXPECT_EQ(all_reduce_4x8(p5en, 4 * kGiB), "Ring/Simple");
}

TEST(AwsOfiTunerRegions, P6FourNodesAllReduceByHand) {
  const auto p6 = AwsOfiPlatform::p6_b200;
  // region_init_internal_p6, nRanks == 8 * nNodes, all-reduce, at y = 32: Tree/LL is the same
  // triangle as P5en's (to x = 262144); Tree/LL128 from x = 262144 to its vertex
  // (67108864, 32); Ring/LL128 from there to its vertex (562036736, 32); Ring/Simple from there
  // to x = 107374182400.
  EXPECT_EQ(all_reduce_4x8(p6, 64 * kKiB), "Tree/LL");
  EXPECT_EQ(all_reduce_4x8(p6, 2 * kMiB), "Tree/LL128");
  EXPECT_EQ(all_reduce_4x8(p6, 256 * kMiB), "Ring/LL128");
  EXPECT_EQ(all_reduce_4x8(p6, 4 * kGiB), "Ring/Simple");
  // The all-gather table (ag_and_rs_0x0_regions) at y = 32: Ring/LL up to its edge
  // (1048576, 16)-(106954752, 1024), at x = 1048576 + 16/1008 x 105906176 = 2729626.4; then
  // Ring/LL128 up to its edge (268435456, 16)-(21474836480, 1024), at x = 605044996.
  EXPECT_EQ(pick_name(p6, Op::all_gather, 1 * kMiB, 32, 4, all_offered), "Ring/LL");
  EXPECT_EQ(pick_name(p6, Op::all_gather, 16 * kMiB, 32, 4, all_offered), "Ring/LL128");
  EXPECT_EQ(pick_name(p6, Op::reduce_scatter, 1 * kGiB, 32, 4, all_offered), "Ring/Simple");
}

TEST(AwsOfiTunerRegions, PointOnAnEdgeCountsAsInside) {
  // P5en, 4 x 8: (262144, 32) lies on Tree/LL's vertical edge (262144, 16)-(262144, 1024), the
  // first region's; it is also on Tree/LL128's edge (262144, 1024)-(262144, 16), the next one.
  EXPECT_EQ(all_reduce_4x8(AwsOfiPlatform::p5en, 256 * kKiB), "Tree/LL");
  EXPECT_EQ(pick_name(AwsOfiPlatform::p5en, Op::all_reduce, 256 * kKiB, 32, 4,
                      refusing("Tree", Protocol::ll)),
            "Tree/LL128");
  // P5, 4 x 8: (37748736, 32) is a vertex of Tree/LL128 (and of Ring/LL128, later).
  EXPECT_EQ(all_reduce_4x8(AwsOfiPlatform::p5_p5e, 36 * kMiB), "Tree/LL128");
  // P5, 3 x 8: (34603008, 24) lies on Tree/LL128's edge (31457280, 16)-(37748736, 32):
  // 31457280 + 8/16 x 6291456 = 34603008.
  EXPECT_EQ(pick_name(AwsOfiPlatform::p5_p5e, Op::all_reduce, 34603008, 24, 3, all_offered),
            "Tree/LL128");
}

TEST(AwsOfiTunerRegions, RefusedPairIsSkipped) {
  const auto p5en = AwsOfiPlatform::p5en;
  // P5en, 4 x 8, 512 MiB: (536870912, 32) is a vertex of Ring/LL128 (third region),
  // NVLSTree/Simple (fourth) and Ring/Simple (fifth). Each refusal moves to the next.
  EXPECT_EQ(all_reduce_4x8(p5en, 512 * kMiB), "Ring/LL128");
  EXPECT_EQ(pick_name(p5en, Op::all_reduce, 512 * kMiB, 32, 4, refusing("Ring", Protocol::ll128)),
            "NVLSTree/Simple");
  const auto no_ring_ll128_no_nvls = [](std::string_view a, Protocol p) {
    return a != "NVLSTree" && !(a == "Ring" && p == Protocol::ll128);
  };
  EXPECT_EQ(pick_name(p5en, Op::all_reduce, 512 * kMiB, 32, 4, no_ring_ll128_no_nvls),
            "Ring/Simple");
  // P5, 4 x 8, 36 MiB: the Tree/LL128 vertex is also Ring/LL128's.
  EXPECT_EQ(pick_name(AwsOfiPlatform::p5_p5e, Op::all_reduce, 36 * kMiB, 32, 4,
                      refusing("Tree", Protocol::ll128)),
            "Ring/LL128");
  // P5en, 4 x 8, 1 MiB lies only in Tree/LL128: refused, NCCL decides.
  EXPECT_EQ(pick_name(p5en, Op::all_reduce, 1 * kMiB, 32, 4, refusing("Tree", Protocol::ll128)),
            "none");
  // P5en, 4 x 1, all-gather, 1 MiB: PAT/Simple (its edge (1048576, 2)-(16777216, 32) is at
  // x = 2097152 for y = 4); Ring/LL128 only starts there, so an NCCL without PAT gets none.
  EXPECT_EQ(pick_name(p5en, Op::all_gather, 1 * kMiB, 4, 4, all_offered), "PAT/Simple");
  EXPECT_EQ(pick_name(p5en, Op::all_gather, 1 * kMiB, 4, 4,
                      [](std::string_view a, Protocol) { return a != "PAT"; }),
            "none");
  // Nothing offered: none.
  EXPECT_EQ(pick_name(AwsOfiPlatform::p6_b200, Op::all_reduce, 1 * kMiB, 32, 4,
                      [](std::string_view, Protocol) { return false; }),
            "none");
  // An empty predicate offers everything.
  EXPECT_EQ(pick_name(p5en, Op::all_reduce, 1 * kMiB, 32, 4, {}), "Tree/LL128");
}

TEST(AwsOfiTunerRegions, TwoNodesOrFewerFallBack) {
  // "Skip when two nodes or lesser": 2 x 8 gets none where 3 x 8 picks (at y = 24 P5's
  // Tree/LL128 reaches x = 34603008).
  EXPECT_EQ(pick_name(AwsOfiPlatform::p5_p5e, Op::all_reduce, 1 * kMiB, 16, 2, all_offered),
            "none");
  EXPECT_EQ(pick_name(AwsOfiPlatform::p5_p5e, Op::all_reduce, 1 * kMiB, 24, 3, all_offered),
            "Tree/LL128");
  EXPECT_EQ(pick_name(AwsOfiPlatform::p6_b200, Op::all_reduce, 1 * kMiB, 8, 1, all_offered),
            "none");
}

TEST(AwsOfiTunerRegions, ShapesAndOperationsWithoutTables) {
  const auto p5 = AwsOfiPlatform::p5_p5e;
  // P5 at 8 GPUs per node has all-reduce regions only.
  EXPECT_EQ(pick_name(p5, Op::all_gather, 1 * kMiB, 32, 4, all_offered), "none");
  EXPECT_EQ(pick_name(p5, Op::reduce_scatter, 1 * kMiB, 32, 4, all_offered), "none");
  // No platform has broadcast or reduce regions.
  EXPECT_EQ(pick_name(p5, Op::broadcast, 1 * kMiB, 32, 4, all_offered), "none");
  EXPECT_EQ(pick_name(AwsOfiPlatform::p6_b200, Op::reduce, 1 * kMiB, 32, 4, all_offered), "none");
  // 3 GPUs per node: no shape of any platform.
  EXPECT_EQ(pick_name(p5, Op::all_reduce, 1 * kMiB, 12, 4, all_offered), "none");
  // 2 GPUs per node: only P5 has it.
  EXPECT_EQ(pick_name(AwsOfiPlatform::p5en, Op::all_reduce, 512 * kKiB, 8, 4, all_offered), "none");
}

TEST(AwsOfiTunerRegions, P5OtherShapesByHand) {
  const auto p5 = AwsOfiPlatform::p5_p5e;
  const auto pick = [&](double bytes, int ranks) {
    return pick_name(p5, Op::all_reduce, bytes, ranks, 4, all_offered);
  };
  // nRanks == 2 * nNodes (4 x 2, y = 8): Tree/LL128 to its vertex (1051648, 8); Ring/LL128 from
  // there to its vertex (41842688, 8); NVLSTree/Simple from there to (275775488, 8); Ring/Simple
  // from there to x = TUNER_MAX_SIZE.
  EXPECT_EQ(pick(512 * kKiB, 8), "Tree/LL128");
  EXPECT_EQ(pick(16 * kMiB, 8), "Ring/LL128");
  EXPECT_EQ(pick(128 * kMiB, 8), "NVLSTree/Simple");
  EXPECT_EQ(pick(1 * kGiB, 8), "Ring/Simple");
  // nRanks == nNodes (4 x 1, y = 4): Ring/LL128 from x = 0 to its edge (4736000, 2)-
  // (269484032, 128), at x = 4736000 + 2/126 x 264748032 = 8938349.7; Ring/Simple beyond.
  EXPECT_EQ(pick(1 * kMiB, 4), "Ring/LL128");
  EXPECT_EQ(pick(1 * kGiB, 4), "Ring/Simple");
}

TEST(AwsOfiTunerRegions, P6TreeLl128ChannelsByHand) {
  const auto p6 = AwsOfiPlatform::p6_b200;
  const auto pick = [&](double bytes, int ranks, int nodes) {
    return aws_ofi_region_pick(p6, Op::all_reduce, bytes, ranks, nodes, all_offered);
  };
  // calculateChunkSizeTreeLL128 at 4 nodes (log2 = 2): nSteps = 1 + 2 + 0.1 x 8 = 3.8; the chunk
  // starts at 120 x 640 x 8 B = 614400 x 15/16 = 576000 and halves while
  // bytes / (channels x chunk) < 3.8 x 64/8 = 30.4 and chunk > 131072, then while it is < 7.6
  // and chunk > 32768. The wire chunk is floor(chunk / 1920) x 2048.
  // 16 MiB = 16777216:
  //   16 channels: 576000 (1), 288000 (3), 144000 (7), 72000 (stop: not > 131072); 14 >= 7.6.
  //     floor(72000 / 1920) = 37 -> 75776.
  //   24 channels: 576000 (1), 288000 (2), 144000 (4), 72000; 16777216 / 1728000 = 9 >= 7.6.
  //     -> 75776.
  //   32 channels: ... 72000; 16777216 / 2304000 = 7 < 7.6 -> 36000 (14). 18 -> 36864.
  // The largest is 75776, tied by 16 and 24: the larger count, 24.
  const auto at16 = pick(16 * kMiB, 32, 4);
  ASSERT_TRUE(at16);
  EXPECT_EQ(at16->algorithm, "Tree");
  EXPECT_EQ(at16->protocol, Protocol::ll128);
  EXPECT_EQ(at16->channels, 24);
  // 32 MiB: every count stops at 72000 (quotients 29, 19, 14 >= 7.6): a three-way tie, 32.
  EXPECT_EQ(pick(32 * kMiB, 32, 4)->channels, 32);
  // 8 nodes (log2 = 3, nSteps 4.8, thresholds 38.4 and 9.6), 8 MiB:
  //   16 channels: 72000, 8388608 / 1152000 = 7 < 9.6 -> 36000 (14). 18 grains -> 36864.
  //   24 channels: 72000 (4) -> 36000 (9 < 9.6) -> 18000. 9 grains -> 18432.
  //   32 channels: 72000 (3) -> 36000 (7) -> 18000. -> 18432. So 16.
  EXPECT_EQ(pick(8 * kMiB, 64, 8)->channels, 16);
  // Outside 4-32 MiB, the plugin leaves nChannels alone.
  EXPECT_EQ(pick(2 * kMiB, 32, 4)->channels, std::nullopt);
  EXPECT_EQ(pick(4 * kMiB - 1, 32, 4)->channels, std::nullopt);
  EXPECT_EQ(pick(32 * kMiB + 1, 32, 4)->channels, std::nullopt);
  EXPECT_EQ(pick(64 * kMiB, 32, 4)->algorithm, "Tree");  // its vertex (67108864, 32)
  EXPECT_EQ(pick(64 * kMiB, 32, 4)->channels, std::nullopt);
  // Only at 8 GPUs per node: at 128 x 1 (y = 128) Tree/LL128 runs to its vertex (8388608, 128),
  // so 4 MiB is Tree/LL128, with NCCL's channels.
  const auto one_gpu = pick(4 * kMiB, 128, 128);
  ASSERT_TRUE(one_gpu);
  EXPECT_EQ(pick_name(p6, Op::all_reduce, 4 * kMiB, 128, 128, all_offered), "Tree/LL128");
  EXPECT_EQ(one_gpu->channels, std::nullopt);
  // Not Tree/LL128 (Ring/LL128 at 256 MiB): no channels.
  EXPECT_EQ(pick(256 * kMiB, 32, 4)->channels, std::nullopt);
  // Other platforms never set them.
  EXPECT_EQ(aws_ofi_region_pick(AwsOfiPlatform::p5en, Op::all_reduce, 16 * kMiB, 32, 4, all_offered)
                ->channels,
            std::nullopt);
}

}  // namespace
}  // namespace linksim::coll
