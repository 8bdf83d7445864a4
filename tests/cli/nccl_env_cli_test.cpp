// nccl-tests honours NCCL's environment as a real run would.
#include <gtest/gtest.h>

#include <cstdlib>

#include "tests/support/temp_files.hpp"

namespace linksim {
namespace {

using testing::run_linksim;

// The one data row of a one-size sweep.
std::string row_of(const std::string& out) {
  std::string row;
  std::size_t at = 0;
  while (at < out.size()) {
    const auto end = out.find('\n', at);
    const std::string line = out.substr(at, end - at);
    if (!line.empty() && line[0] != '#') row = line;
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return row;
}

TEST(NcclEnvCliTest, NcclAlgoRingGivesTheRingFigure) {
  const std::string sweep = "nccl-tests --topology dgx-h100 all_reduce_perf -b 8G -e 8G -g 8";
  const std::string picked = row_of(run_linksim(sweep).out);
  const std::string ring = row_of(run_linksim(sweep + " --algo Ring").out);
  ASSERT_FALSE(ring.empty());
  // NVLS wins at 8 GiB on the NVSwitch machine when nothing is set, so the two rows differ.
  EXPECT_NE(picked, ring);
  ::setenv("NCCL_ALGO", "Ring", 1);
  const auto with_env = run_linksim(sweep);
  ::unsetenv("NCCL_ALGO");
  ASSERT_EQ(with_env.exit_code, 0) << with_env.err;
  EXPECT_EQ(row_of(with_env.out), ring);
  ::setenv("NCCL_NVLS_ENABLE", "0", 1);
  const auto no_nvls = run_linksim(sweep + " --explain");
  ::unsetenv("NCCL_NVLS_ENABLE");
  EXPECT_EQ(no_nvls.out.find("NVLS"), std::string::npos) << no_nvls.out;
  ::setenv("NCCL_ALGO", "Bogus", 1);
  const auto bad = run_linksim(sweep);
  ::unsetenv("NCCL_ALGO");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err,
            "linksim: error: NCCL_ALGO: unknown algorithm \"Bogus\"; expected one of Ring, Tree, "
            "NVLS, P2P, PAT, NVLSTree, CollNetDirect, CollNetChain\n");
}

}  // namespace
}  // namespace linksim
