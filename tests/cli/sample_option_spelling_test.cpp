// The CUDA samples' single-dash options on `linksim bandwidth` and `linksim p2p`
// (sim/cli/sample_option_spelling.hpp): spelt with two dashes before parsing, the same report.
#include "sim/cli/sample_option_spelling.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/temp_files.hpp"

namespace linksim::cli {
namespace {

std::vector<std::string> respelled(std::vector<std::string> words) {
  std::vector<char*> args;
  for (auto& w : words)
    args.push_back(w.data());
  std::vector<std::string> storage;
  spell_sample_options_with_two_dashes(args, storage);
  return {args.begin(), args.end()};
}

TEST(SampleOptionSpelling, OnlyTheSamplesOwnNamesOnTheirCommands) {
  EXPECT_EQ(respelled({"linksim", "bandwidth", "-t", "dgx-h100", "-device=all", "-mode=shmoo",
                       "-htod", "--dtoh", "-bogus"}),
            (std::vector<std::string>{"linksim", "bandwidth", "-t", "dgx-h100", "--device=all",
                                      "--mode=shmoo", "--htod", "--dtoh", "-bogus"}));
  EXPECT_EQ(respelled({"linksim", "p2p", "-t", "x", "-p2p_read", "-numElems=1000", "-device=0"}),
            (std::vector<std::string>{"linksim", "p2p", "-t", "x", "--p2p_read", "--numElems=1000",
                                      "-device=0"}));
  // Another command's arguments are its own (nccl-tests has -d, -e of its own).
  EXPECT_EQ(respelled({"linksim", "run", "-device=all"}),
            (std::vector<std::string>{"linksim", "run", "-device=all"}));
}

TEST(SampleOptionSpelling, APastedSampleLineGivesTheSameReport) {
  const auto one = testing::run_linksim("bandwidth -t dgx-h100 -device=all -htod");
  const auto two = testing::run_linksim("bandwidth -t dgx-h100 --device=all --htod");
  ASSERT_EQ(two.exit_code, 0) << two.err;
  EXPECT_EQ(one.exit_code, 0) << one.err;
  EXPECT_EQ(one.out, two.out);
  const auto p2p_one = testing::run_linksim("p2p -t rtx4090-2x -p2p_read");
  const auto p2p_two = testing::run_linksim("p2p -t rtx4090-2x --p2p_read");
  ASSERT_EQ(p2p_two.exit_code, 0) << p2p_two.err;
  EXPECT_EQ(p2p_one.out, p2p_two.out);
}

}  // namespace
}  // namespace linksim::cli
