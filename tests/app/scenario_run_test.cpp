// The run/compare façade (sim/app/scenario_run.hpp): which machines run, and the checks on a
// caller's list.
#include "sim/app/scenario_run.hpp"

#include <gtest/gtest.h>

#include "sim/core/error.hpp"

namespace linksim::app {
namespace {

std::string run_error(const ScenarioRunOptions& options) {
  try {
    run_scenario(options);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(ScenarioRunTest, TheCallersMachinesReplaceTheScenariosInOrder) {
  // seed-gradient-sync names its own machines; the caller's two run instead, in its order, and
  // the progress callback hears of each before it runs: (0 of 2, first), (1 of 2, second).
  ScenarioRunOptions options;
  options.scenario = "seed-gradient-sync";
  options.machines = {"rtx4090-8x", "dgx-a100"};
  std::vector<std::string> heard;
  options.progress = [&](std::size_t done, std::size_t total, const std::string& machine) {
    heard.push_back(std::to_string(done) + "/" + std::to_string(total) + " " + machine);
  };
  const ScenarioRuns runs = run_scenario(options);
  ASSERT_EQ(runs.syncs.size(), 2u);
  EXPECT_EQ(runs.jobs[0].machine, "rtx4090-8x");
  EXPECT_EQ(runs.jobs[1].machine, "dgx-a100");
  EXPECT_EQ(heard, (std::vector<std::string>{"0/2 rtx4090-8x", "1/2 dgx-a100"}));
  EXPECT_FALSE(runs.serving());
}

TEST(ScenarioRunTest, AMachineNamedTwiceIsRefusedBeforeAnyRuns) {
  ScenarioRunOptions options;
  options.scenario = "seed-gradient-sync";
  options.machines = {"dgx-a100", "no-such-machine", "dgx-a100"};
  // The third name repeats the first; the check comes before loading, so the unknown second
  // machine is not what is reported.
  EXPECT_EQ(run_error(options), "<input>: machine \"dgx-a100\" is named twice");
}

TEST(ScenarioRunTest, AtMostSixtyFourMachinesRunInOneCall) {
  ScenarioRunOptions options;
  options.scenario = "seed-gradient-sync";
  for (int i = 0; i < 65; ++i)
    options.machines.push_back("m" + std::to_string(i));
  EXPECT_EQ(run_error(options),
            "<input>: 65 machines named; at most 64 can be compared in one run");
}

}  // namespace
}  // namespace linksim::app
