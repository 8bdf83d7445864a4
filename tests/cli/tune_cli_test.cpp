// `linksim tune` end to end: where the file goes (-o FILE, -o -), the same bytes for any -j,
// bad input as one error line and exit code 2, and a golden file for one small machine.
#include <gtest/gtest.h>

#include "tests/support/golden.hpp"
#include "tests/support/nccl_tuner_conf_parser.hpp"
#include "tests/support/temp_files.hpp"

namespace linksim {
namespace {

using testing::read_file;
using testing::run_linksim;
using testing::shell_quote;
using testing::TempDir;

TEST(TuneCli, WritesTheFileOrStandardOutputTheSameForAnyJobs) {
  const std::string args = "tune -t dgx-h100 --nodes 2 --min-bytes 64K --max-bytes 256K";
  const auto out = run_linksim(args + " -o - -j 1");
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_EQ(out.out.rfind("# NCCL tuner configuration for NCCL's example tuner plugin", 0), 0u);
  EXPECT_NE(out.out.find("# Machine: dgx-h100-x2 "), std::string::npos) << out.out;
  const testing::TunerConfParse parsed = testing::parse_tuner_conf(out.out);
  EXPECT_TRUE(parsed.errors.empty()) << parsed.errors.front();
  for (const auto& e : parsed.entries) {
    EXPECT_EQ(e.nodes, 2);
    EXPECT_EQ(e.ranks, 16);
  }
  TempDir dir;
  const std::string file = dir.path() + "/nccl_tuner.conf";
  const auto written = run_linksim(args + " -j 3 -o " + shell_quote(file));
  ASSERT_EQ(written.exit_code, 0) << written.err;
  EXPECT_EQ(written.out, "");
  EXPECT_EQ(read_file(file), out.out);
  // An existing file needs --force.
  const auto again = run_linksim(args + " -o " + shell_quote(file));
  EXPECT_EQ(again.exit_code, 2);
}

TEST(TuneCli, BadInputIsOneErrorLineAndExitCodeTwo) {
  const auto unknown = run_linksim("tune -t no-such-machine -o -");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("no-such-machine"), std::string::npos) << unknown.err;
  EXPECT_EQ(unknown.out, "");
  const auto too_many = run_linksim("tune -t dgx-h100 --np 9");
  EXPECT_EQ(too_many.exit_code, 2);
  EXPECT_EQ(too_many.err,
            "linksim: error: --np: 9 ranks, but dgx-h100 has 8 GPUs (--nodes N runs it on N "
            "nodes)\n");
  const auto size = run_linksim("tune -t dgx-h100 --max-bytes lots");
  EXPECT_EQ(size.exit_code, 2);
  EXPECT_NE(size.err.find("--max-bytes: expected a whole number of bytes"), std::string::npos)
      << size.err;
  const auto margin = run_linksim("tune -t dgx-h100 --margin -3");
  EXPECT_EQ(margin.exit_code, 2);
  EXPECT_NE(margin.err.find("--margin"), std::string::npos) << margin.err;
}

TEST(TuneCli, GoldenForADgxH100) {
  testing::expect_golden("tune -t dgx-h100 --max-bytes 256M", "tune-dgx-h100.conf");
}

}  // namespace
}  // namespace linksim
