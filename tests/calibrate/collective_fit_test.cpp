// Fitting the collective model to nccl-tests logs through the simulator (issue #6): after
// calibration the machine reproduces the logs within 5% median.
#include "calibrate/collective_fit.hpp"

#include <gtest/gtest.h>

#include "calibrate/import_nccl_tests.hpp"
#include "sim/topo/loader.hpp"
#include "tests/support/temp_files.hpp"

namespace linksim::calibrate {
namespace {

std::vector<Record> nccl_records(const std::vector<std::string>& files) {
  std::vector<Record> out;
  for (const auto& f : files) {
    const std::string path = testing::source_dir() + "/tests/data/calibrate/" + f;
    auto imported = import_nccl_tests_file(path, ImportOptions{});
    out.insert(out.end(), imported.records.begin(), imported.records.end());
  }
  return out;
}

TEST(CollectiveFit, A100NvswitchSweepWithinFivePercentAfterFitting) {
  const topo::Topology machine = topo::load_topology("dgx-a100");
  const auto fit = fit_collectives(machine, nccl_records({"a100-8x-all_reduce_perf.txt"}));
  ASSERT_TRUE(fit.has_value());
  EXPECT_EQ(fit->samples, 24u);  // 1 KiB .. 8 GiB
  EXPECT_GT(fit->median_abs_error_before, 0.10);
  EXPECT_LT(fit->median_abs_error_after, 0.05) << fit->calibration.source;
  EXPECT_LT(fit->median_abs_error_after, fit->median_abs_error_before);
}

TEST(CollectiveFit, Rtx2080TiLogsWithinFivePercentAfterFitting) {
  const topo::Topology machine = topo::load_topology("rtx2080ti-2x");
  const auto fit = fit_collectives(
      machine, nccl_records({"rtx2080ti-2x-all_reduce_perf.txt", "rtx2080ti-2x-all_gather_perf.txt",
                             "rtx2080ti-2x-broadcast_perf.txt", "rtx2080ti-2x-reduce_perf.txt",
                             "rtx2080ti-2x-alltoall_perf.txt"}));
  ASSERT_TRUE(fit.has_value());
  EXPECT_GE(fit->samples, 25u) << fit->calibration.source;
  EXPECT_LT(fit->median_abs_error_after, 0.05) << fit->calibration.source;
}

TEST(CollectiveFit, NoNcclRecordsNoFit) {
  const topo::Topology machine = topo::load_topology("rtx2080ti-2x");
  EXPECT_FALSE(fit_collectives(machine, {}).has_value());
}

}  // namespace
}  // namespace linksim::calibrate
