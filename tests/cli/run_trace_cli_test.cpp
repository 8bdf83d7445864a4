// `linksim run SCENARIO --trace FILE` on a scenario of two machines: both are drawn, each as
// its own processes named after it, the trace follows the Trace Event Format's rules, and the
// report on stdout is the one without --trace.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "sim/core/json_view.hpp"
#include "tests/support/temp_files.hpp"
#include "tests/support/trace_event_rules.hpp"

namespace linksim {
namespace {

using testing::run_linksim;
using testing::shell_quote;
using testing::TempDir;

TEST(RunTraceCli, DrawsEveryMachineAsItsOwnProcesses) {
  TempDir dir;
  dir.write("m.json", R"({"title": "m", "layers": 2, "hidden": 1024, "heads": 8,
    "ffn_hidden": 4096, "vocab": 1000})");
  const std::string scenario =
      dir.write("s.json", R"({"title": "t", "topologies": ["rtx4090-2x", "a10-4x-pcie"],
        "model": "m.json", "compute": {"efficiency": 0.5},
        "job": {"kind": "training", "global_batch": 2, "sequence_length": 256},
        "plan": {"data": 2, "tensor": 1}})");
  const std::string trace = dir.path() + "/t.json";
  const auto plain = run_linksim("run " + shell_quote(scenario));
  const auto traced =
      run_linksim("run " + shell_quote(scenario) + " --trace " + shell_quote(trace));
  ASSERT_EQ(traced.exit_code, 0) << traced.err;
  EXPECT_EQ(traced.out, plain.out);
  EXPECT_EQ(traced.err, "");

  const Json j = parse_json_text(testing::read_file(trace), trace);
  const auto problems = testing::trace_event_problems(j);
  EXPECT_TRUE(problems.empty()) << problems.front();
  std::map<std::string, std::set<int>> pids_of;  // machine -> its pids
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] != "M" || e["name"] != "process_name") continue;
    const std::string name = e["args"]["name"];
    pids_of[name.substr(0, name.find(": "))].insert(e["pid"].get<int>());
  }
  ASSERT_EQ(pids_of.size(), 2u);
  // The job's two GPUs and the links on each machine: the first from pid 1, the second after.
  EXPECT_EQ(pids_of["rtx4090-2x"], (std::set<int>{1, 2, 3}));
  EXPECT_EQ(pids_of["a10-4x-pcie"], (std::set<int>{4, 5, 6}));
}

}  // namespace
}  // namespace linksim
