// NCCL's environment in `linksim nccl-tests`: NCCL_MIN/MAX_NCHANNELS bound the channels, and a
// variable linksim does not model is named once on stderr instead of silently dropped (issue 35).
#include <gtest/gtest.h>

#include <string>

#include "tests/support/environment_test.hpp"
#include "tests/support/temp_files.hpp"

namespace linksim {
namespace {

using testing::run_linksim;

// Sets NCCL variables for the linksim processes this test starts, and unsets them after.
class NcclEnvironmentCliTest : public testing::EnvironmentTest {};

constexpr const char* kRun =
    "nccl-tests --topology dgx-a100 all_reduce_perf -b 64M -e 64M -g 8 --explain";

// The explain line of the one size ("#   -> Ring/Simple 24 channel(s); ...").
std::string explain_line(const std::string& out) {
  const auto at = out.find("#   -> ");
  return at == std::string::npos ? std::string() : out.substr(at, out.find('\n', at) - at);
}

TEST_F(NcclEnvironmentCliTest, MaxChannelsBoundsTheChannelsRun) {
  const auto plain = run_linksim(kRun);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  // NCCL's pick on a DGX A100 at 64 MiB: Ring/Simple on the 24 channels its ring search gives.
  EXPECT_EQ(explain_line(plain.out).rfind("#   -> Ring/Simple 24 channel(s)", 0), 0u)
      << explain_line(plain.out);
  set("NCCL_MAX_NCHANNELS", "2");
  const auto two = run_linksim(kRun);
  ASSERT_EQ(two.exit_code, 0) << two.err;
  EXPECT_EQ(explain_line(two.out).rfind("#   -> Ring/Simple 2 channel(s)", 0), 0u)
      << explain_line(two.out);
  EXPECT_EQ(two.err.find("not modelled"), std::string::npos) << two.err;
  EXPECT_NE(two.out, plain.out);
}

TEST_F(NcclEnvironmentCliTest, AVariableNotModelledIsNamedOnceNeverDropped) {
  set("NCCL_IB_HCA", "mlx5_0");
  set("NCCL_CROSS_NIC", "1");
  set("NCCL_DEBUG", "INFO");  // changes no timing in a real run either: not named
  const auto r = run_linksim(kRun);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Named in the environment's order, whatever it is: count each line once.
  for (const char* name : {"NCCL_IB_HCA", "NCCL_CROSS_NIC"}) {
    const std::string line = std::string("linksim: note: ") + name + " is not modelled; ignored\n";
    const auto at = r.err.find(line);
    EXPECT_NE(at, std::string::npos) << r.err;
    EXPECT_EQ(r.err.find(line, at + 1), std::string::npos) << r.err;
  }
  EXPECT_EQ(r.err.find("NCCL_DEBUG"), std::string::npos) << r.err;
}

TEST_F(NcclEnvironmentCliTest, BadChannelBoundsAreRefused) {
  set("NCCL_MAX_NCHANNELS", "0");
  const auto zero = run_linksim(kRun);
  EXPECT_EQ(zero.exit_code, 2);
  EXPECT_EQ(zero.err,
            "linksim: error: NCCL_MAX_NCHANNELS: expected a whole number of channels from 1 to "
            "64, not \"0\"\n");
  EXPECT_EQ(zero.out, "");
  set("NCCL_MAX_NCHANNELS", "4");
  set("NCCL_MIN_NCHANNELS", "8");
  const auto crossed = run_linksim(kRun);
  EXPECT_EQ(crossed.exit_code, 2);
  EXPECT_EQ(crossed.err, "linksim: error: NCCL_MIN_NCHANNELS: 8 is above NCCL_MAX_NCHANNELS (4)\n");
}

// The footer's "# Avg bus bandwidth    : ..." line, without its newline.
std::string average_line(const std::string& out) {
  const auto at = out.find("# Avg bus bandwidth    : ");
  return at == std::string::npos ? std::string() : out.substr(at, out.find('\n', at) - at);
}

// Was "FAILED" with exit status 0; nccl-tests fails the run, and CI gates rely on its status.
TEST_F(NcclEnvironmentCliTest, AFailedBandwidthCheckFailsTheRun) {
  constexpr const char* kSmall =
      "nccl-tests --topology rtx2080ti-2x all_reduce_perf -b 8 -e 8 -g 2";
  set("NCCL_TESTS_MIN_BW", "1000");  // 1,000 GB/s: no 8-byte all-reduce on PCIe reaches it
  const auto failed = run_linksim(kSmall);
  EXPECT_EQ(failed.exit_code, 1);
  EXPECT_TRUE(average_line(failed.out).ends_with(" FAILED")) << average_line(failed.out);
  EXPECT_NE(failed.out.find("# Collective test concluded: all_reduce_perf\n"), std::string::npos);
  set("NCCL_TESTS_MIN_BW", "0");  // any average passes
  const auto passed = run_linksim(kSmall);
  EXPECT_EQ(passed.exit_code, 0) << passed.err;
  EXPECT_TRUE(average_line(passed.out).ends_with(" OK")) << average_line(passed.out);
}

}  // namespace
}  // namespace linksim
