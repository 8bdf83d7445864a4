// `linksim p2p` and `linksim bandwidth` on a cluster: the CUDA samples see the GPUs of the host
// they run on, so a cluster gives one host's printout, said on stderr. Was: every GPU of both
// hosts, with "CAN Access Peer" and 143 GB/s to GPUs on the other host (issue 37).
#include <gtest/gtest.h>

#include <string>

#include "tests/support/temp_files.hpp"

namespace linksim {
namespace {

using testing::run_linksim;

TEST(CopyBenchClusterCli, P2pOnAClusterIsOneHostsPrintout) {
  const auto cluster = run_linksim("p2p -t aws-p4d-x2");
  const auto host = run_linksim("p2p -t aws-p4d.24xlarge");
  ASSERT_EQ(cluster.exit_code, 0) << cluster.err;
  ASSERT_EQ(host.exit_code, 0) << host.err;
  EXPECT_EQ(cluster.out, host.out);
  EXPECT_EQ(cluster.err,
            "linksim: note: aws-p4d-x2 is a cluster; a CUDA sample sees the GPUs of the host it "
            "runs on, so this is one aws-p4d.24xlarge host\n");
  EXPECT_EQ(host.err, "");
}

TEST(CopyBenchClusterCli, BandwidthOnAClusterIsOneHostsPrintout) {
  const auto cluster = run_linksim("bandwidth -t aws-p4d-x2 --device=all");
  const auto host = run_linksim("bandwidth -t aws-p4d.24xlarge --device=all");
  ASSERT_EQ(cluster.exit_code, 0) << cluster.err;
  EXPECT_EQ(cluster.out, host.out);
}

// --device=all measured device 0 alone and printed "1 Device(s)" (issue 37). bandwidthTest runs
// each device in turn and adds their figures: the two RTX 2080 Ti sit on identical PCIe 3.0 x16
// links, so the cumulative figure is exactly twice device 0's (13,110,324,580.46 B/s, the
// golden bandwidth-rtx2080ti-2x figure): 26,220,649,160.92 B/s.
TEST(CopyBenchClusterCli, DeviceAllAddsEveryDevicesOwnRun) {
  const auto one = run_linksim("bandwidth -t rtx2080ti-2x --htod --format csv");
  const auto all = run_linksim("bandwidth -t rtx2080ti-2x --htod --device=all --format csv");
  ASSERT_EQ(one.exit_code, 0) << one.err;
  ASSERT_EQ(all.exit_code, 0) << all.err;
  EXPECT_EQ(one.out, "direction,size_bytes,bandwidth_Bps\nH2D,3.2e+07,13110324580.45962\n");
  EXPECT_EQ(all.out, "direction,size_bytes,bandwidth_Bps\nH2D,3.2e+07,26220649160.91924\n");
  const auto table = run_linksim("bandwidth -t rtx2080ti-2x --htod --device=all");
  EXPECT_NE(table.out.find(" Host to Device Bandwidth, 2 Device(s)\n"), std::string::npos)
      << table.out;
}

}  // namespace
}  // namespace linksim
