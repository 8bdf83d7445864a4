// A public nccl-tests run on an NVLink-bridged consumer pair against linksim, with the machine as
// it was when measured (tests/data/bridge/): nccl-tests#44, 2x RTX 2080 Ti, NCCL 2.6.4,
// all_reduce_perf -b 8 -e 128M -f 2 -g 2, out-of-place busbw. Its busbw (about 21 GB/s) is half
// of what the bridge's two NVLink 2 links carry; the same user found later that the bridge was
// not seated on one card, and NCCL's maintainer read the thread as "some NVLinks were detected
// but not all" (sources in the fixtures). One link up is the machine that was measured.
#include <gtest/gtest.h>

#include <array>
#include <string>
#include <utility>

#include "sim/app/nccl_tests_run.hpp"
#include "tests/support/temp_files.hpp"

namespace linksim::app {
namespace {

// nccl-tests#44's out-of-place busbw, GB/s, from 8 MiB (where Simple runs and the link paces it)
// to 128 MiB.
constexpr std::array<std::pair<double, double>, 5> kMeasured_GBps{{
    {8388608, 19.73},
    {16777216, 20.05},
    {33554432, 20.51},
    {67108864, 21.40},
    {134217728, 20.34},
}};

NcclTestsResult sweep(const std::string& fixture) {
  NcclTestsOptions options;
  options.machine = testing::source_dir() + "/tests/data/bridge/" + fixture;
  return simulate_nccl_tests(
      options,
      parse_nccl_tests_invocation("all_reduce_perf",
                                  {"-b", "8M", "-e", "128M", "-f", "2", "-g", "2"}),
      "");
}

TEST(NvlinkBridgeValidation, OneLinkUpMatchesNcclTests44) {
  // One NVLink 2 link: 25 GB/s x 0.958 payload = 23.95 GB/s a direction; NCCL's search gives
  // 1 ring at 20 GB/s, run on 2 channels (nccl_channel_search_test). Ring/Simple's busbw on a
  // 2-GPU ring is the link's per-direction rate less the pipeline's fill and slice costs; it
  // must land within 6% of each measured size (the measured rows themselves wander by 5%:
  // 21.40 at 64 MiB, 20.34 at 128 MiB).
  const NcclTestsResult r = sweep("rtx2080ti-2x-nvlink-one-link.json");
  ASSERT_EQ(r.rows.size(), kMeasured_GBps.size());
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    const auto& [size, measured] = kMeasured_GBps[i];
    ASSERT_EQ(r.rows[i].size_bytes, size);
    EXPECT_EQ(r.rows[i].outcome.choice.channels, 2) << size;
    const double predicted_GBps = r.rows[i].outcome.busbw_Bps / 1e9;
    EXPECT_NEAR(predicted_GBps / measured, 1.0, 0.06) << size << " B: " << predicted_GBps;
  }
}

TEST(NvlinkBridgeValidation, BothLinksUpWouldHaveDoubledIt) {
  // Both links: 47.9 GB/s a direction on 4 channels. Every measured size is under 0.55 of the
  // prediction: the run did not have both links, not a limit of NCCL's over a bridge.
  const NcclTestsResult r = sweep("rtx2080ti-2x-nvlink.json");
  ASSERT_EQ(r.rows.size(), kMeasured_GBps.size());
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    EXPECT_EQ(r.rows[i].outcome.choice.channels, 4);
    EXPECT_LT(kMeasured_GBps[i].second, 0.55 * r.rows[i].outcome.busbw_Bps / 1e9);
  }
}

}  // namespace
}  // namespace linksim::app
