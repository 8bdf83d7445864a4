// Sweep specs are checked before anything runs (issue 13, item 13): the messages name the
// field, never a command-line flag.
#include "sim/coll/sweep.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "sim/coll/communicator.hpp"
#include "sim/core/error.hpp"
#include "sim/topo/loader.hpp"
#include "sim/topo/shipped_topologies.hpp"
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

namespace linksim::coll {
namespace {

// One rank of a DGX A100 (A100-SXM4-80GB: 2039 GB/s of HBM), all_reduce_perf -g 1.
SweepSpec one_gpu_sweep(double min_bytes, double max_bytes) {
  SweepSpec spec;
  spec.min_bytes = min_bytes;
  spec.max_bytes = max_bytes;
  spec.step_factor = 2;
  return spec;
}

// Issue 38, item 5: one GPU printed the launch time (6.79 us) for every size, out of place
// too, so 8 GiB "ran" at 1e+06 GB/s. NCCL on one rank (ncclLaunchOneRank) copies the send
// buffer into the receive buffer out of place and does nothing in place.
TEST(OneRankSweepTest, OutOfPlaceCopiesInTheGpusMemoryInPlaceDoesNot) {
  const topo::Topology t = topo::load_topology("dgx-a100");
  const Communicator comm(t, {t.nodes_of(topo::NodeKind::gpu).front()});
  const std::vector<SweepRow> rows = run_sweep(comm, one_gpu_sweep(8, 1024.0 * 1024 * 1024));
  ASSERT_EQ(rows.size(), 28u);  // 8 B = 2^3 to 1 GiB = 2^30
  const SweepRow& small = rows.front();
  const SweepRow& big = rows.back();
  ASSERT_TRUE(small.in_place && big.in_place);
  // In place: the launch alone, whatever the size.
  EXPECT_EQ(big.in_place->time_s, small.in_place->time_s);
  // Out of place, both GPU-bound (the GPU's time above the host's 3.8 us launch), so each is
  // its GPU time plus 3.8 us / 20 iterations, and they differ by the copy alone: 1 GiB read and
  // written at 80% of 2039 GB/s, 2 x 1073741824 B / (0.8 x 2039e9 B/s) = 1.3165054242 ms.
  EXPECT_NEAR(big.outcome.time_s - big.in_place->time_s, 2 * 1073741824.0 / (0.8 * 2039e9), 1e-12);
  EXPECT_NEAR(big.outcome.time_s - big.in_place->time_s, 1.3165054242e-3, 1e-12);
  // algbw = 1073741824 B / (1.3165054 ms + the in-place 6.79 us) = 811.4 GB/s, below the
  // 1019.5 GB/s (half of 2039) that a copy reading and writing every byte could reach.
  EXPECT_NEAR(big.outcome.algbw_Bps / 1e9, 811.4, 0.05);
  // nccl-tests' busbw factor for one rank is 0, in place or not.
  EXPECT_EQ(big.outcome.busbw_Bps, 0.0);
  EXPECT_EQ(big.in_place->busbw_Bps, 0.0);
  // The copy's own arithmetic, and no copy where the GPU's bandwidth is unknown.
  topo::GpuModel gpu;
  gpu.hbm_bandwidth_Bps = 1000e9;
  EXPECT_DOUBLE_EQ(one_rank_copy_s(gpu, 400e6), 2 * 400e6 / (0.8 * 1000e9));  // 1 ms
  gpu.hbm_bandwidth_Bps = 0;
  EXPECT_EQ(one_rank_copy_s(gpu, 400e6), 0.0);
}

// avg on a floating-point type and mulsum are PreMulSum to NCCL, a kernel that reads and
// writes the buffer in place too (enqueue.cc hostToDevRedOp, device/onerank.cu); avg on an
// integer type is SumPostDiv, a copy only out of place; non-reducing ops take no reduction.
TEST(OneRankSweepTest, PreMulSumReductionsCopyInPlaceToo) {
  EXPECT_TRUE(one_rank_copies_in_place(Op::all_reduce, "avg", "float"));
  EXPECT_TRUE(one_rank_copies_in_place(Op::reduce_scatter, "avg", "bfloat16"));
  EXPECT_TRUE(one_rank_copies_in_place(Op::reduce, "mulsum", "int32"));
  EXPECT_FALSE(one_rank_copies_in_place(Op::all_reduce, "avg", "int32"));
  EXPECT_FALSE(one_rank_copies_in_place(Op::all_reduce, "sum", "float"));
  EXPECT_FALSE(one_rank_copies_in_place(Op::sendrecv, "avg", "float"));
  EXPECT_FALSE(one_rank_copies_in_place(Op::all_gather, "avg", "float"));
  const topo::Topology t = topo::load_topology("dgx-a100");
  const Communicator comm(t, {t.nodes_of(topo::NodeKind::gpu).front()});
  SweepSpec spec = one_gpu_sweep(1024.0 * 1024 * 1024, 1024.0 * 1024 * 1024);
  spec.redop = "avg";
  const SweepRow avg = run_sweep(comm, spec).front();
  EXPECT_EQ(avg.in_place->time_s, avg.outcome.time_s);
}

// The property behind item 5: on every shipped machine, for every operation, no one-GPU row
// out of place beats a copy that reads and writes each byte once in the GPU's memory, i.e.
// algbw <= hbm_bandwidth / 2 (within the printed rounding). In place NCCL moves nothing, so its
// algbw is size / launch time, as nccl-tests prints it on a real GPU.
TEST(OneRankSweepTest, NoOutOfPlaceRowBeatsTheGpusMemory) {
  for (const std::string& file : topo::shipped_topology_files()) {
    const topo::Topology t = topo::load_topology(file);
    const topo::NodeId gpu = t.nodes_of(topo::NodeKind::gpu).front();
    const double hbm_Bps = t.node(gpu).gpu->hbm_bandwidth_Bps;
    ASSERT_GT(hbm_Bps, 0) << file;
    const Communicator comm(t, {gpu});
    for (const Op op : {Op::all_reduce, Op::all_gather, Op::reduce_scatter, Op::broadcast,
                        Op::reduce, Op::alltoall, Op::sendrecv}) {
      SweepSpec spec = one_gpu_sweep(8, 8.0 * 1024 * 1024 * 1024);
      spec.step_factor = 8;
      spec.op = op;
      for (const SweepRow& row : run_sweep(comm, spec)) {
        EXPECT_LE(row.outcome.algbw_Bps, hbm_Bps / 2)
            << file << " " << to_string(op) << " " << row.size_bytes << " B";
        EXPECT_GT(row.outcome.time_s, 0) << file;
      }
    }
  }
}

}  // namespace
}  // namespace linksim::coll
