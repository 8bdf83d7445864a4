// Predictions against the reference measurements (docs/ACCURACY.md). Issue #4's targets are
// 10% median and 25% at every size. Where the model meets them today the test holds it to
// them; where it does not yet (small and mid-size A100 all_reduce; 2080 Ti runs where both
// GPUs send through host memory at once) it holds the current error as a ceiling, so a change
// that makes things worse fails, and docs/ACCURACY.md shows the gap.
#include "validate/accuracy.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

namespace linksim::validate {
namespace {

// Each test needs one machine's set: only that one is simulated (ctest runs every test in a
// process of its own, so nothing would be shared anyway).
const AccuracySet& set_for(const std::string& topology) {
  static std::map<std::string, std::vector<AccuracySet>> evaluated;
  auto it = evaluated.find(topology);
  if (it == evaluated.end()) {
    it = evaluated
             .emplace(topology, evaluate_accuracy(
                                    load_nccl_tests_records(default_measurements_path()), topology))
             .first;
  }
  for (const auto& s : it->second) {
    if (s.topology == topology) return s;
  }
  throw std::runtime_error("no accuracy set for " + topology);
}

TEST(AccuracyTest, H100RingAndNvlsMeetTheTarget) {
  const AccuracySet& s = set_for("dgx-h100");
  ASSERT_EQ(s.rows.size(), 2u);
  EXPECT_EQ(s.rows[0].choice.rfind("Ring/Simple", 0), 0u);
  EXPECT_EQ(s.rows[1].choice.rfind("NVLS/Simple", 0), 0u);  // chosen automatically
  for (const auto& r : s.rows)
    EXPECT_LT(std::fabs(r.error()), 0.10) << r.choice;
}

TEST(AccuracyTest, A100LargeAllReduceMeetsTheTarget) {
  const AccuracySet& s = set_for("dgx-a100");
  ASSERT_EQ(s.rows.size(), 24u);  // 1 KiB .. 8 GiB
  int large = 0;
  for (const auto& r : s.rows) {
    if (r.size_bytes < 512.0 * 1024 * 1024) continue;
    EXPECT_LT(std::fabs(r.error()), 0.10) << r.size_bytes;
    ++large;
  }
  EXPECT_EQ(large, 5);  // 512 MiB .. 8 GiB
  // Not yet at target below 512 MiB (Ring/LL128 runs well under its payload share there, not
  // modelled yet; the launch floor of this AMD host): ceiling at today's error (22.8% and
  // 49.9% since NCCL's cost model picks Simple from 32 MiB and the constants' refit).
  EXPECT_LT(s.median_abs_error, 0.23);
  EXPECT_LT(s.max_abs_error, 0.50);
}

TEST(AccuracyTest, Rtx2080TiOneWayTrafficMeetsTheTargetFromOneMiB) {
  const AccuracySet& s = set_for("rtx2080ti-2x");
  int checked = 0;
  int one_slice = 0;
  for (const auto& r : s.rows) {
    if (!r.counted || (r.op != coll::Op::broadcast && r.op != coll::Op::reduce)) continue;
    if (r.size_bytes < 1024 * 1024) {
      // 64 KiB: NCCL's cost model picks Ring/Simple (8.4 + 5.7 + 64 KiB at 6 GB/s = 25.0 us
      // against LL's 7.6 + 64 KiB at 3 GB/s = 29.4 us; nccl_tuner_model.hpp), and linksim's
      // Simple pays NCCL's base and hop latencies plus a slice's synchronisation on one slice:
      // 3-5 us more than the 19.1-20.7 us measured. Ceiling at today's error (-15% and -22%).
      EXPECT_LT(std::fabs(r.error()), 0.23) << coll::to_string(r.op) << " " << r.size_bytes;
      ++one_slice;
      continue;
    }
    EXPECT_LT(std::fabs(r.error()), 0.10) << coll::to_string(r.op) << " " << r.size_bytes;
    ++checked;
  }
  EXPECT_EQ(checked, 6);
  EXPECT_EQ(one_slice, 2);
  // Both GPUs staging through host memory at once (all_reduce, all_gather, alltoall) run
  // slower than the links explain; ceiling at today's error (the worst, all_gather at 16 MiB,
  // is +82.5% since the constants' refit).
  EXPECT_LT(s.median_abs_error, 0.31);
  EXPECT_LT(s.max_abs_error, 0.83);
}

TEST(AccuracyTest, H100NvlsSweepMeetsTheTargetFromMidSizes) {
  // The Azure ND H100 v5 NVLS sweep (NCCL_ALGO=NVLS, -g 8 -n 40): chunk pipeline, slice
  // synchronisation and the launch pace together. From 2 MiB up every size within 10%, and
  // the median over every counted size within 5%.
  const AccuracySet& s = set_for("azure-nd-h100-v5");
  int checked = 0;
  for (const auto& r : s.rows) {
    if (!r.counted || r.size_bytes < 2.0 * 1024 * 1024) continue;
    EXPECT_LT(std::fabs(r.error()), 0.10) << r.size_bytes;
    ++checked;
  }
  EXPECT_EQ(checked, 13);  // 2 MiB .. 8 GiB
  EXPECT_LT(s.median_abs_error, 0.05);
}

}  // namespace
}  // namespace linksim::validate
