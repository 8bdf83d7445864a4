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

}  // namespace
}  // namespace linksim
