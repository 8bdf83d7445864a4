// The default host launch cost by CPU class, a machine's own figure over it, and what a
// one-process-per-GPU framework pays.
#include "sim/coll/host_launch_cost.hpp"

#include <gtest/gtest.h>

#include "sim/topo/loader.hpp"

namespace linksim::coll {
namespace {

TEST(HostLaunchCostTest, EveryRowCitesItsSourceAndOtherIsTheFallback) {
  const auto& rows = host_launch_cost_table();
  ASSERT_FALSE(rows.empty());
  EXPECT_EQ(rows.back().cpu_class, "other");
  for (const auto& r : rows) {
    EXPECT_GT(r.per_gpu_s, 0) << r.cpu_class;
    EXPECT_NE(r.source.find("developer.nvidia.com/blog/cuda-graphs"), std::string_view::npos);
  }
  // The CUDA Graphs post: back-to-back launches pace at 3.8 us per kernel.
  EXPECT_DOUBLE_EQ(default_host_launch("intel").per_gpu_s, 3.8e-6);
  EXPECT_EQ(default_host_launch("riscv").cpu_class, "other");
}

TEST(HostLaunchCostTest, TheMachinesOwnFigureOverridesTheTable) {
  topo::Topology m = topo::load_topology("dgx-h100");  // 2x Xeon Platinum 8480C
  EXPECT_EQ(host_cpu_class(m), "intel");
  EXPECT_DOUBLE_EQ(host_launch_per_gpu_s(m), 3.8e-6);
  m.host_launch.per_gpu_s = 7e-6;
  m.host_launch.source = "linksim fit";
  EXPECT_DOUBLE_EQ(host_launch_per_gpu_s(m), 7e-6);
  EXPECT_EQ(host_launch_source(m), "linksim fit");
}

// One process per GPU, collectives back to back: max(T, L).
TEST(HostLaunchCostTest, AFrameworkPaysOneLaunchPerOperation) {
  topo::Topology m = topo::load_topology("dgx-h100");
  m.host_launch.per_gpu_s = 10e-6;
  Outcome short_op;
  short_op.time_s = 4e-6;
  short_op.algbw_Bps = 1e6 / 4e-6;  // 1 MB in 4 us
  short_op.busbw_Bps = 2 * short_op.algbw_Bps;
  const Outcome paced = with_framework_launch(short_op, m);
  // 4 us of GPU work waits for the 10 us launch: 1 MB / 10 us, busbw keeping its factor 2.
  EXPECT_DOUBLE_EQ(paced.time_s, 10e-6);
  EXPECT_TRUE(paced.host_bound);
  EXPECT_NEAR(paced.algbw_Bps, 1e11, 1e-3);
  EXPECT_NEAR(paced.busbw_Bps, 2e11, 1e-3);
  Outcome long_op = short_op;
  long_op.time_s = 50e-6;
  EXPECT_DOUBLE_EQ(with_framework_launch(long_op, m).time_s, 50e-6);
  EXPECT_FALSE(with_framework_launch(long_op, m).host_bound);
}

}  // namespace
}  // namespace linksim::coll
