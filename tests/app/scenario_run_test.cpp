// The run/compare façade (sim/app/scenario_run.hpp): which machines run, and the checks on a
// caller's list.
#include "sim/app/scenario_run.hpp"

#include <gtest/gtest.h>

#include "sim/core/error.hpp"
#include "tests/support/temp_files.hpp"
#include "tests/support/thrown_message.hpp"

namespace linksim::app {
namespace {

std::string run_error(const ScenarioRunOptions& options) {
  return testing::thrown_message<InputError>([&] { run_scenario(options); });
}

TEST(ScenarioRunTest, TheCallersMachinesReplaceTheScenariosInOrder) {
  // seed-gradient-sync names its own machines; the caller's two run instead, in its order, and
  // the progress callback hears of each before it runs: (0 of 2, first), (1 of 2, second), then
  // (2 of 2) at the end. One thread: the order of a plain loop.
  ScenarioRunOptions options;
  options.scenario = "seed-gradient-sync";
  options.machines = {"rtx4090-8x", "dgx-a100"};
  options.threads = 1;
  std::vector<std::string> heard;
  options.progress = [&](std::size_t done, std::size_t total, const std::string& machine) {
    heard.push_back(std::to_string(done) + "/" + std::to_string(total) + " " + machine);
  };
  const ScenarioRuns runs = run_scenario(options);
  ASSERT_EQ(runs.syncs.size(), 2u);
  EXPECT_EQ(runs.jobs[0].machine, "rtx4090-8x");
  EXPECT_EQ(runs.jobs[1].machine, "dgx-a100");
  EXPECT_EQ(heard, (std::vector<std::string>{"0/2 rtx4090-8x", "1/2 dgx-a100", "2/2 "}));
  EXPECT_FALSE(runs.serving());
}

TEST(ScenarioRunTest, AGradientSyncReportsTheEnergyOfItsSimulatedStep) {
  // The seed's sync on a DGX A100: all 8 GPUs (400 W board power) busy; 0.1 s computing, the
  // rest of the simulated step T waiting on the all-reduce; the host's 3,300 W non-GPU budget
  // throughout. At the point constants (idle 0.10, compute 1.0, wait 0.3, host 0.6): computing
  // 400 W, waiting 40 + 360 x 0.3 = 148 W, so 8 x (0.1 x 400 + (T - 0.1) x 148) +
  // 0.6 x 3,300 x T = 320 + 1,184 (T - 0.1) + 1,980 T joules.
  ScenarioRunOptions options;
  options.scenario = "seed-gradient-sync";
  options.machines = {"dgx-a100"};
  const ScenarioRuns runs = run_scenario(options);
  ASSERT_EQ(runs.syncs.size(), 1u);
  const work::JobResult& r = runs.syncs[0].realistic;
  ASSERT_TRUE(r.energy.has_value());
  EXPECT_NEAR(r.compute_s, 0.1, 1e-12);
  const double T = r.step_s;
  EXPECT_NEAR(r.energy->step_j, 320 + 1184 * (T - 0.1) + 1980 * T, 1e-9);
  EXPECT_TRUE(r.energy->includes_hosts);
  EXPECT_EQ(runs.jobs[0].energy->step_j, r.energy->step_j);  // what the JSON report prints
}

TEST(ScenarioRunTest, AMachineNamedTwiceIsRefusedBeforeAnyRuns) {
  ScenarioRunOptions options;
  options.scenario = "seed-gradient-sync";
  options.machines = {"dgx-a100", "no-such-machine", "dgx-a100"};
  // The third name repeats the first; the check comes before loading, so the unknown second
  // machine is not what is reported.
  EXPECT_EQ(run_error(options), "--topology: machine \"dgx-a100\" is named twice");
}

TEST(ScenarioRunTest, ThreeThreadsGiveTheOneThreadResultsInTheOrderNamed) {
  // Four machines on 1 and on 3 threads: the same machines in the order named, the same
  // figures to the bit (each machine is simulated on its own), and the progress ends (4 of 4).
  ScenarioRunOptions options;
  options.scenario = "default";
  options.machines = {"rtx4090-8x", "dgx-a100", "l4-8x-pcie", "dgx-h100"};
  options.threads = 1;
  const ScenarioRuns one = run_scenario(options);
  options.threads = 3;
  std::string last;
  options.progress = [&](std::size_t done, std::size_t total, const std::string& machine) {
    last = std::to_string(done) + "/" + std::to_string(total) + " " + machine;
  };
  const ScenarioRuns three = run_scenario(options);
  EXPECT_EQ(last, "4/4 ");
  ASSERT_EQ(one.jobs.size(), 4u);
  ASSERT_EQ(three.jobs.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(three.jobs[i].machine, options.machines[i]);
    EXPECT_EQ(three.jobs[i].failure, one.jobs[i].failure) << i;
    EXPECT_EQ(three.jobs[i].step_s, one.jobs[i].step_s) << i;
    EXPECT_EQ(three.jobs[i].exposed_comm_s, one.jobs[i].exposed_comm_s) << i;
    EXPECT_EQ(three.jobs[i].advice, one.jobs[i].advice) << i;
  }
}

TEST(ScenarioRunTest, TheFirstFailingMachineInTheOrderNamedIsReported) {
  // Two unknown machines after a good one, on 3 threads: whichever fails first in time, the
  // error is the second machine's, as one thread (which stops there) reports it.
  ScenarioRunOptions options;
  options.scenario = "seed-gradient-sync";
  options.machines = {"rtx4090-2x", "no-such-machine-a", "no-such-machine-b"};
  options.threads = 1;
  const std::string sequential = run_error(options);
  EXPECT_NE(sequential.find("no-such-machine-a"), std::string::npos) << sequential;
  options.threads = 3;
  EXPECT_EQ(run_error(options), sequential);
}

TEST(ScenarioRunTest, ResultsKeepFiguresOnlyUnlessTheFirstIsTraced) {
  // A comparison keeps no timelines; a trace keeps the first machine's run alone.
  ScenarioRunOptions options;
  options.scenario = "default";
  options.machines = {"rtx4090-8x", "dgx-a100"};
  options.threads = 2;
  const ScenarioRuns plain = run_scenario(options);
  for (const auto& j : plain.jobs) {
    EXPECT_EQ(j.simulation, nullptr) << j.machine;
    EXPECT_EQ(j.timeline, nullptr) << j.machine;
    EXPECT_EQ(j.names, nullptr) << j.machine;
  }
  options.trace_first_machine = true;
  const ScenarioRuns traced = run_scenario(options);
  EXPECT_NE(traced.jobs[0].simulation, nullptr);
  EXPECT_NE(traced.jobs[0].timeline, nullptr);
  EXPECT_NE(traced.jobs[0].names, nullptr);
  EXPECT_EQ(traced.jobs[1].simulation, nullptr);
  EXPECT_EQ(traced.jobs[0].step_s, plain.jobs[0].step_s);  // recording changes no figure
}

TEST(ScenarioRunTest, AtMost1024MachinesRunInOneCall) {
  // 1025 names are refused before any is loaded (none of these exists).
  ScenarioRunOptions options;
  options.scenario = "seed-gradient-sync";
  for (int i = 0; i < 1025; ++i)
    options.machines.push_back("m" + std::to_string(i));
  EXPECT_EQ(run_error(options),
            "--topology: 1025 machines named; at most 1024 can be compared in one run");
}

TEST(ScenarioRunTest, AScenariosOwnListIsBoundedAtItsTopologies) {
  // The same bound on the scenario's own /topologies, named with the file and the JSON path; it
  // comes before the check for a machine named twice.
  testing::TempDir dir;
  std::string names;
  for (int i = 0; i < 1025; ++i)
    names += std::string(i ? ", " : "") + "\"dgx-a100\"";
  ScenarioRunOptions options;
  options.scenario = dir.write("many.json", R"({"title": "t", "topologies": [)" + names +
                                                R"(], "model": "llama2-7b",
    "job": {"kind": "training", "global_batch": 16, "sequence_length": 2048},
    "plan": {"data": 8}})");
  EXPECT_EQ(run_error(options), options.scenario +
                                    ": at /topologies: 1025 machines named; at most 1024 can be "
                                    "compared in one run");
}

}  // namespace
}  // namespace linksim::app
