// The installed C++ package's calls (include/linksim/, sim/api): the printed columns' units, the
// step breakdown, and errors that name the option. tests/package/ builds a program against the
// installed tree and holds its output to the CLI's bytes.
#include <gtest/gtest.h>

#include <filesystem>
#include <linksim/linksim.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/support/temp_files.hpp"
#include "tests/support/thrown_message.hpp"

namespace linksim {
namespace {

TEST(PackageApi, NcclTestsRowsAreThePrintedColumns) {
  NcclTestsOptions options;
  options.binary = "all_reduce_perf";
  options.arguments = {"-b", "1M", "-e", "4M", "-f", "2", "-g", "8"};
  options.machine = "dgx-a100";
  const NcclTestsResult r = simulate_nccl_tests(options);
  EXPECT_EQ(r.machine, "dgx-a100");
  EXPECT_EQ(r.ranks, 8u);
  ASSERT_EQ(r.rows.size(), 3u);  // 1, 2 and 4 MiB
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    const NcclTestsRow& row = r.rows[i];
    EXPECT_EQ(row.size_bytes, (std::uint64_t{1} << 20) << i);
    EXPECT_EQ(row.count, row.size_bytes / 4);  // float
    EXPECT_EQ(row.type, "float");
    EXPECT_EQ(row.redop, "sum");
    EXPECT_EQ(row.root, -1);
    // algbw = size / time, in GB/s from bytes and microseconds: size / (time_us x 1e-6) / 1e9
    // = size / time_us / 1e3.
    EXPECT_NEAR(row.algbw_GBps, static_cast<double>(row.size_bytes) / row.time_us / 1e3,
                1e-12 * row.algbw_GBps);
    // An all-reduce moves 2 (n - 1) / n of the data per rank: 2 x 7 / 8 = 1.75 on 8 ranks.
    EXPECT_NEAR(row.busbw_GBps, 1.75 * row.algbw_GBps, 1e-12 * row.busbw_GBps);
    // On several ranks in place moves the same data as out of place.
    EXPECT_EQ(row.in_place_time_us, row.time_us);
    // The printout shows each row's busbw to two decimals (nccl-tests' %6.2f).
    char busbw[32];
    std::snprintf(busbw, sizeof busbw, "%6.2f", row.busbw_GBps);
    EXPECT_NE(r.printout.find(busbw), std::string::npos) << busbw << "\n" << r.printout;
  }
  EXPECT_TRUE(r.json.empty());  // no -J
  EXPECT_TRUE(r.json_path.empty());
}

TEST(PackageApi, NcclTestsJsonIsReturnedNotWritten) {
  // -J FILE in a folder that exists: the printout names FILE as nccl-tests does, the content
  // comes back, and no file appears.
  const testing::TempDir dir;
  const std::string path = dir.path() + "/nccl.json";
  NcclTestsOptions options;
  options.binary = "all_reduce_perf";
  options.arguments = {"-b", "1M", "-e", "1M", "-g", "8", "-J", path};
  options.machine = "dgx-a100";
  const NcclTestsResult r = simulate_nccl_tests(options);
  EXPECT_EQ(r.json_path, path);
  EXPECT_NE(r.printout.find("# Writing JSON output to " + path), std::string::npos);
  EXPECT_EQ(r.json.rfind("{", 0), 0u) << r.json.substr(0, 80);
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(PackageApi, BadOptionsAreNamed) {
  NcclTestsOptions options;
  options.binary = "all_reduce_perf";
  options.machine = "dgx-a100";
  options.nodes = -1;
  try {
    simulate_nccl_tests(options);
    ADD_FAILURE() << "nodes = -1 accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "");
    EXPECT_EQ(e.location(), "NcclTestsOptions::nodes");
    EXPECT_EQ(e.message(),
              "expected 0 (as the file says) or a whole number from 1 to 65536, got -1");
  }
  EXPECT_EQ(testing::thrown_message<InputError>([] { simulate_nccl_tests({}); }),
            "NcclTestsOptions::binary: required, e.g. \"all_reduce_perf\"; got nothing");
  EXPECT_EQ(
      testing::thrown_message<InputError>([] { run_sweep({.grid = "g.json", .format = "xml"}); }),
      "SweepOptions::format: expected \"csv\" or \"json\", got \"xml\"");
  EXPECT_EQ(testing::thrown_message<InputError>(
                [] { run_scenario({.scenario = "default", .threads = -2}); }),
            "RunOptions::threads: expected 0 (one per core) or a whole number from 1 to 1024, got "
            "-2");
}

TEST(PackageApi, AMachineFileErrorNamesTheFile) {
  const testing::TempDir dir;
  const std::string path = dir.write("bad-machine.json", "{\"gpus\": 3}");
  try {
    load_machine({.name_or_path = path});
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_FALSE(e.message().empty());
  }
}

TEST(PackageApi, LoadMachineListsDevicesAndLinks) {
  const Machine m = load_machine({.name_or_path = "dgx-a100"});
  EXPECT_EQ(m.name, "dgx-a100");
  EXPECT_FALSE(m.is_cluster);
  int gpus = 0;
  for (const auto& d : m.devices)
    if (d.kind == "gpu") {
      ++gpus;
      EXPECT_EQ(d.architecture, "ampere");
    }
  EXPECT_EQ(gpus, 8);
  // GPU0's NVLink: 12 NVLink 3 links at 25 GB/s each way = 300 GB/s, however the file groups
  // them (two to each of six NVSwitches).
  double nvlink_Bps = 0;
  for (const auto& l : m.links)
    if (l.kind == "nvlink" && (l.a == "gpu0" || l.b == "gpu0")) nvlink_Bps += l.bandwidth_Bps;
  EXPECT_NEAR(nvlink_Bps, 300e9, 1.0);
  EXPECT_EQ(m.smi_view.rfind("\tGPU0", 0), 0u) << m.smi_view.substr(0, 40);
  // A cluster of two: every device twice, plus the fabric's switches.
  const Machine two = load_machine({.name_or_path = "dgx-a100", .nodes = 2});
  EXPECT_TRUE(two.is_cluster);
  EXPECT_EQ(two.hosts, 2);
}

TEST(PackageApi, ScenarioStepsAddUp) {
  RunOptions options;
  options.scenario = "default";
  options.machines = {"dgx-a100"};
  options.ranges = false;
  const RunResult r = run_scenario(options);
  EXPECT_EQ(r.scenario, "default");
  ASSERT_EQ(r.machines.size(), 1u);
  const MachineRun& m = r.machines[0];
  EXPECT_EQ(m.machine, "dgx-a100");
  EXPECT_EQ(m.gpus, 8);
  EXPECT_TRUE(m.failure.empty());
  ASSERT_TRUE(m.step.has_value());
  const StepBreakdown& s = *m.step;
  EXPECT_GT(s.step_s, 0);
  EXPECT_NEAR(s.compute_s + s.exposed_comm_s + s.idle_s, s.step_s, 1e-12 * s.step_s);
  EXPECT_LE(s.exposed_comm_s, s.comm_s);
  // The report is the CLI's JSON: one object per machine, with the same figures.
  const nlohmann::json report = nlohmann::json::parse(r.report_json);
  ASSERT_EQ(report.size(), 1u);
  EXPECT_EQ(report[0]["machine"], "dgx-a100");
  EXPECT_EQ(report[0]["step_s"].get<double>(), s.step_s);
  EXPECT_EQ(report[0]["idle_s"].get<double>(), s.idle_s);
}

TEST(PackageApi, AGradientSyncHasItsSimulatedStep) {
  // The seed's gradient sync: each machine's simulated step (not the seed's simple model), as
  // the JSON report prints it, adding up as a job's does.
  RunOptions options;
  options.scenario = "seed-gradient-sync";
  options.ranges = false;
  const RunResult r = run_scenario(options);
  const nlohmann::json report = nlohmann::json::parse(r.report_json);
  ASSERT_EQ(report.size(), r.machines.size());
  ASSERT_FALSE(r.machines.empty());
  for (std::size_t i = 0; i < r.machines.size(); ++i) {
    const MachineRun& m = r.machines[i];
    ASSERT_TRUE(m.step.has_value()) << m.machine;
    EXPECT_EQ(report[i]["step_s"].get<double>(), m.step->step_s);
    EXPECT_NEAR(m.step->compute_s + m.step->exposed_comm_s + m.step->idle_s, m.step->step_s,
                1e-12 * m.step->step_s)
        << m.machine;
  }
}

}  // namespace
}  // namespace linksim
