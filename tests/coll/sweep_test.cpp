// Sweep specs are checked before anything runs (issue 13, item 13): the messages name the
// field, never a command-line flag.
#include "sim/coll/sweep.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "sim/coll/communicator.hpp"
#include "sim/core/error.hpp"
#include "sim/topo/loader.hpp"
#include "tests/support/thrown_message.hpp"

namespace linksim::coll {
namespace {

std::string error_of(const SweepSpec& spec) {
  return testing::thrown_message<InputError>([&] { validate_sweep_spec(spec); });
}

SweepSpec factor_sweep(double factor) {
  SweepSpec s;
  s.min_bytes = 8;
  s.max_bytes = 1024 * 1024;
  s.step_factor = factor;
  return s;
}

TEST(SweepSpecTest, CountsRowsLikeNcclTests) {
  // 8, 32, ..., 8 x 4^8 = 524288 (the next, 2097152, is past 1 MiB): 9 rows.
  EXPECT_EQ(sweep_row_count(factor_sweep(4)), 9u);
  // -i 1M from 1 MiB to 4 MiB: 1, 2, 3, 4 MiB.
  SweepSpec step;
  step.min_bytes = 1024 * 1024;
  step.max_bytes = 4 * 1024 * 1024;
  step.step_bytes = 1024 * 1024;
  EXPECT_EQ(sweep_row_count(step), 4u);
  EXPECT_EQ(error_of(step), "accepted");
  EXPECT_EQ(error_of(factor_sweep(2)), "accepted");
}

TEST(SweepSpecTest, StepFactorMustBeAnIntegerOfAtLeastTwo) {
  EXPECT_EQ(error_of(factor_sweep(1.000001)),
            "step factor: expected an integer from 2 to 1000000, got 1.000001");
  EXPECT_EQ(error_of(factor_sweep(2.5)),
            "step factor: expected an integer from 2 to 1000000, got 2.5");
  EXPECT_EQ(error_of(factor_sweep(std::numeric_limits<double>::quiet_NaN())),
            "step factor: expected an integer from 2 to 1000000, got nan");
  EXPECT_EQ(error_of(factor_sweep(std::numeric_limits<double>::infinity())),
            "step factor: expected an integer from 2 to 1000000, got inf");
}

TEST(SweepSpecTest, RowCountAndSizesAreBounded) {
  // -i 1 from 0 to 1 MiB: 1048577 rows, above the 10,000 allowed.
  SweepSpec tiny_step;
  tiny_step.min_bytes = 0;
  tiny_step.max_bytes = 1024 * 1024;
  tiny_step.step_bytes = 1;
  EXPECT_EQ(error_of(tiny_step),
            "step size: the sweep from 0 to 1048576 bytes would print more than "
            "10000 rows; use a larger step");
  // 10,000 rows exactly is fine: 0 .. 9999 bytes by 1.
  tiny_step.max_bytes = 9999;
  EXPECT_EQ(sweep_row_count(tiny_step), 10000u);
  EXPECT_EQ(error_of(tiny_step), "accepted");
  tiny_step.step_bytes = 0;
  EXPECT_EQ(error_of(tiny_step), "step size: expected a step above 0 bytes, got 0");
  // 128 GiB = 137438953472 bytes is above the 64 GiB = 68719476736 bytes cap: refused, not cut.
  SweepSpec big = factor_sweep(2);
  big.max_bytes = 128.0 * 1024 * 1024 * 1024;
  EXPECT_EQ(error_of(big),
            "maximum size: 137438953472 bytes is above the 64 GiB (68719476736 "
            "bytes) a sweep may reach");
  SweepSpec inverted = factor_sweep(2);
  inverted.min_bytes = 2048;
  inverted.max_bytes = 1024;
  EXPECT_EQ(error_of(inverted), "minimum size: 2048 bytes exceeds the maximum size, 1024 bytes");
  SweepSpec bad_type = factor_sweep(2);
  bad_type.dtype = "quad";
  EXPECT_EQ(error_of(bad_type), "data type: unknown data type \"quad\"");
}

// common.cu parsesize reads "%lf %1s": one letter counts, so 8GB is 8G and "8 K" is 8K.
TEST(SweepSpecTest, SizesAsParsesizeReadsThem) {
  EXPECT_EQ(parse_nccl_size("8GB"), std::optional<double>(8.0 * 1024 * 1024 * 1024));
  EXPECT_EQ(parse_nccl_size("1KB"), std::optional<double>(1024.0));
  EXPECT_EQ(parse_nccl_size("8 K"), std::optional<double>(8192.0));
  EXPECT_EQ(parse_nccl_size("0.5M"), std::optional<double>(524288.0));
  EXPECT_FALSE(parse_nccl_size("8T").has_value());
  EXPECT_FALSE(parse_nccl_size("GB").has_value());
}

// The launch pipeline of sweep.hpp with L = 5 us per GPU and T = 20 us per operation.
TEST(LaunchPacingTest, PipelinesAsNcclTestsLaunchesByHand) {
  LaunchPacing p;
  p.iterations = 20;
  // One GPU per thread: H = 5 < W = 20: (20 x 20 + 5) / 20 = 20.25 us.
  EXPECT_NEAR(pace_like_nccl_tests(20e-6, 5e-6, p).time_s, 20.25e-6, 1e-15);
  // 8 GPUs on one thread: H = 40 > W: (20 x 40 + 20) / 20 = 41 us, launch-bound; -C reports the
  // host's 40 us.
  p.gpus_per_thread = 8;
  const PacedTime bound = pace_like_nccl_tests(20e-6, 5e-6, p);
  EXPECT_NEAR(bound.time_s, 41e-6, 1e-15);
  EXPECT_NEAR(bound.cpu_time_s, 40e-6, 1e-15);
  EXPECT_TRUE(bound.host_bound);
  // -m 4: one launch of H = 40 carries 4 operations, W = 80: (20 x 80 + 40) / 80 = 20.5 us.
  p.agg_iters = 4;
  EXPECT_NEAR(pace_like_nccl_tests(20e-6, 5e-6, p).time_s, 20.5e-6, 1e-15);
  // -z 1: each iteration waits, so (40 + 80) / 4 = 30 us.
  p.blocking = 1;
  EXPECT_NEAR(pace_like_nccl_tests(20e-6, 5e-6, p).time_s, 30e-6, 1e-15);
  // -G 2 (blocking does not apply to a graph's launches): W = 20 x 4 x 20 = 1600 us per graph,
  // (2 x 1600 + 40) / (2 x 20 x 4) = 20.25 us.
  p.graph_launches = 2;
  EXPECT_NEAR(pace_like_nccl_tests(20e-6, 5e-6, p).time_s, 20.25e-6, 1e-15);
  // No launch cost: the GPU time.
  EXPECT_DOUBLE_EQ(pace_like_nccl_tests(20e-6, 0, LaunchPacing{}).time_s, 20e-6);
}

// *GetCollByteCount and *GetBw of nccl-tests src/<op>.cu @a0b82b22, for 1000 B of floats on 8
// ranks: count = 250, a rank's part 250 / 8 = 31 rounded down to 16 B (4 floats) = 28.
TEST(NcclTestsSizesTest, CountsSizesAndBandwidthBytesByHand) {
  const auto all_reduce = nccl_tests_sizes(Op::all_reduce, 1000, 4, 8);
  EXPECT_EQ(all_reduce.count, 250);
  EXPECT_DOUBLE_EQ(all_reduce.size_bytes, 1000.0);
  EXPECT_DOUBLE_EQ(all_reduce.algbw_bytes, 1000.0);
  for (const Op op : {Op::all_gather, Op::reduce_scatter, Op::alltoall, Op::scatter, Op::gather}) {
    const auto s = nccl_tests_sizes(op, 1000, 4, 8);
    EXPECT_EQ(s.count, 28) << to_string(op);
    EXPECT_DOUBLE_EQ(s.size_bytes, 28.0 * 8 * 4) << to_string(op);  // 896
    EXPECT_DOUBLE_EQ(s.algbw_bytes, 896.0) << to_string(op);
  }
  // hypercube: the gathered buffer is the size, but its bandwidth counts count x 4 x (n - 1).
  const auto cube = nccl_tests_sizes(Op::hypercube, 1000, 4, 8);
  EXPECT_DOUBLE_EQ(cube.size_bytes, 896.0);
  EXPECT_DOUBLE_EQ(cube.algbw_bytes, 28.0 * 4 * 7);  // 784
  // alltoallv, 8 MiB of floats on 4 ranks: part 524288 floats, total 8388608 B, distances 0..3
  // of sum 6: shares 0, 1398101.33, 2796202.67, 4194304 B, each rounded down to 16 B:
  // 0 + 1398096 + 2796192 + 4194304 = 8388592 B.
  const auto v = nccl_tests_sizes(Op::alltoallv, 8.0 * 1024 * 1024, 4, 4);
  EXPECT_EQ(v.count, 524288);
  EXPECT_DOUBLE_EQ(v.size_bytes, 8388592.0);
  EXPECT_DOUBLE_EQ(v.request_bytes, 8388592.0);
}

}  // namespace
}  // namespace linksim::coll

namespace linksim::coll {
namespace {

TEST(SweepThreadsTest, ThreadsGiveTheSameRowsInTheSameOrder) {
  // Sizes are independent simulations sharing only the communicator's locked caches, so three
  // threads must give bit-identical rows to one, in size order; progress counts every row.
  const topo::Topology t = topo::load_topology("dgx-h100");
  const Communicator comm(t, t.nodes_of(topo::NodeKind::gpu));
  SweepSpec spec;
  spec.min_bytes = 8;
  spec.max_bytes = 1024.0 * 1024 * 1024;
  spec.step_factor = 8;
  const std::vector<SweepRow> one = run_sweep(comm, spec);
  spec.threads = 3;
  std::size_t calls = 0;
  spec.progress = [&](std::size_t, std::size_t) { ++calls; };
  const Communicator fresh(t, t.nodes_of(topo::NodeKind::gpu));
  const std::vector<SweepRow> three = run_sweep(fresh, spec);
  ASSERT_EQ(one.size(), 10u);  // 8 B x 8^k = 2^(3 + 3k) B up to 1 GiB = 2^30: k = 0..9
  ASSERT_EQ(three.size(), one.size());
  EXPECT_EQ(calls, one.size());
  for (std::size_t i = 0; i < one.size(); ++i) {
    EXPECT_EQ(three[i].size_bytes, one[i].size_bytes);
    EXPECT_EQ(three[i].outcome.time_s, one[i].outcome.time_s) << i;
    EXPECT_EQ(three[i].outcome.choice.algorithm, one[i].outcome.choice.algorithm) << i;
    EXPECT_EQ(three[i].outcome.choice.protocol, one[i].outcome.choice.protocol) << i;
    EXPECT_EQ(three[i].outcome.choice.channels, one[i].outcome.choice.channels) << i;
    EXPECT_EQ(three[i].outcome.bottleneck, one[i].outcome.bottleneck) << i;
  }
}

}  // namespace
}  // namespace linksim::coll
