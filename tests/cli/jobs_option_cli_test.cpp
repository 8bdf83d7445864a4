// `-j,--jobs N` on compare, run and plan (sim/cli/jobs_option.*): the output on 3 threads is the
// output on 1, byte for byte, in every format, on shipped scenarios with several machines; the
// error a sequential run reports wins; the option's range.
#include <gtest/gtest.h>

#include "tests/support/temp_files.hpp"

namespace linksim {
namespace {

using testing::run_linksim;

// The command on 1 and on 3 threads: exit 0, same stdout and stderr.
void expect_same_on_one_and_three(const std::string& command) {
  const auto one = run_linksim(command + " -j 1");
  ASSERT_EQ(one.exit_code, 0) << command << ": " << one.err;
  const auto three = run_linksim(command + " --jobs 3");
  EXPECT_EQ(three.exit_code, 0) << command << ": " << three.err;
  EXPECT_EQ(three.out, one.out) << command;
  EXPECT_EQ(three.err, one.err) << command;
  EXPECT_FALSE(one.out.empty()) << command;
}

TEST(JobsOptionCli, CompareIsTheSameOnThreeThreadsInEveryFormat) {
  // A training comparison (3 machines), an inference one (3) and a serving one (2).
  for (const char* scenario : {"default", "seed-70b-inference-tp8", "llama3-8b-serving"}) {
    for (const char* format : {"table", "json", "csv"}) {
      expect_same_on_one_and_three(std::string("compare ") + scenario + " --format " + format);
    }
  }
}

TEST(JobsOptionCli, GradientSyncAndRunAreTheSameOnThreeThreads) {
  // seed-gradient-sync prints the simple and the realistic runs of each machine.
  expect_same_on_one_and_three("compare seed-gradient-sync -t rtx4090-2x -t rtx4090-4x");
  expect_same_on_one_and_three("run default -t dgx-a100 -t rtx4090-8x -t dgx-h100 --format json");
  expect_same_on_one_and_three("run default -t dgx-a100 -t rtx4090-8x -t dgx-h100");
}

TEST(JobsOptionCli, PlanIsTheSameOnThreeThreadsInEveryFormat) {
  // default on rtx4090-8x then dgx-a100: 19 candidates on each (every one fits), the first 21
  // simulated, so the ranking mixes both machines.
  for (const char* format : {"table", "json", "csv"}) {
    expect_same_on_one_and_three(
        std::string("plan default -t rtx4090-8x -t dgx-a100 --max-plans 21 --format ") + format);
  }
}

TEST(JobsOptionCli, TheFirstBadMachineInTheOrderGivenIsReported) {
  // Both unknown machines fail; one thread stops at the first, and three report the same.
  const std::string command = "compare default -t dgx-a100 -t no-such-a -t no-such-b";
  const auto one = run_linksim(command + " -j 1");
  EXPECT_EQ(one.exit_code, 2);
  EXPECT_NE(one.err.find("no-such-a"), std::string::npos) << one.err;
  EXPECT_EQ(one.err.find("no-such-b"), std::string::npos) << one.err;
  const auto three = run_linksim(command + " -j 3");
  EXPECT_EQ(three.exit_code, 2);
  EXPECT_EQ(three.err, one.err);
  EXPECT_EQ(three.out, "");
}

TEST(JobsOptionCli, JobsIsAtLeastOneAndListedInHelp) {
  for (const char* command : {"compare", "run", "plan"}) {
    const auto zero = run_linksim(std::string(command) + " default -j 0");
    EXPECT_EQ(zero.exit_code, 2) << command;
    EXPECT_NE(zero.err.find("--jobs"), std::string::npos) << command << ": " << zero.err;
    const auto help = run_linksim(std::string(command) + " --help");
    EXPECT_NE(help.out.find("-j,--jobs"), std::string::npos) << command;
  }
}

}  // namespace
}  // namespace linksim
