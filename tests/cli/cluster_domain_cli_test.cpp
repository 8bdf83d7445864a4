// The shipped clusters of issue 12's second round end to end: the p5en pair's topo show against
// its golden (tests/data/golden, scripts/update-golden.sh), and the GB200 NVL72 rack's summary
// lines (its whole matrix, 72 GPU and 72 NIC columns, is too large for a golden).
#include <gtest/gtest.h>

#include "tests/support/temp_files.hpp"

namespace linksim::testing {
namespace {

TEST(ClusterDomainCli, P5enPairGolden) {
  const CommandResult r = run_linksim("topo show aws-p5en-x2 --summary");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, read_file(source_dir() + "/tests/data/golden/topo-show-aws-p5en-x2.txt"));
}

TEST(ClusterDomainCli, Nvl72RackShowsOneDomain) {
  const CommandResult r = run_linksim("topo show gb200-nvl72 --summary");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // 18 trays x 4 GPUs, 18 switch chips, 18 x 2 Graces; one domain of 18 trays.
  EXPECT_NE(r.out.find("GPUs                72x GB200"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("switches            18 NVSwitch"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("36 socket(s)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Cluster: 1 NVLink domain of 18x gb200-nvl72-tray-cx7 (72 GPUs)"),
            std::string::npos)
      << r.out;
}

}  // namespace
}  // namespace linksim::testing
