// `linksim sweep` end to end: the shipped example grids' rows against what `linksim run` and
// `linksim nccl-tests` print for the same points, the same bytes at any -j, and bad grids.
// tests/cli/sweep_mpi_test.sh (a ctest test where MPI is found) compares mpirun's output.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "sim/core/json_view.hpp"
#include "tests/support/temp_files.hpp"

namespace linksim {
namespace {

using testing::read_file;
using testing::run_linksim;
using testing::shell_quote;
using testing::source_dir;
using testing::TempDir;

std::string plans_grid() {
  return source_dir() + "/scenarios/sweeps/llama2-7b-plans.json";
}
std::string sizes_grid() {
  return source_dir() + "/scenarios/sweeps/all-reduce-sizes.json";
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    out.push_back(line);
  return out;
}

// `line` after its first `n` comma-separated fields (none of them quoted).
std::string after_fields(const std::string& line, int n) {
  std::size_t at = 0;
  for (int i = 0; i < n; ++i)
    at = line.find(',', at) + 1;
  return line.substr(at);
}

std::vector<std::string> fields_of(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  for (std::string f; std::getline(in, f, ',');)
    out.push_back(f);
  return out;
}

// The shipped scenario with the point's plan fields, written under its own name so that
// `linksim run` reports the same scenario name.
std::string variant_scenario(const TempDir& dir, const Json& point) {
  Json doc = read_json_file(source_dir() + "/scenarios/llama2-7b-4090-vs-a100.json");
  doc.erase("$schema");
  for (const char* key : {"data", "tensor", "zero_stage"})
    doc["plan"][key] = point.at(key);
  return dir.write("llama2-7b-4090-vs-a100.json", doc.dump(2));
}

TEST(SweepCli, ScenarioRowsAreWhatRunPrints) {
  const auto csv = run_linksim("sweep " + shell_quote(plans_grid()));
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_EQ(csv.err, "");
  const auto json = run_linksim("sweep --format json " + shell_quote(plans_grid()));
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const Json points = parse_json_text(json.out, "stdout");
  const auto rows = lines_of(csv.out);
  ASSERT_EQ(points.size(), 8u);  // 2 machines x 2 tensor x 2 zero_stage, data fills
  ASSERT_EQ(rows.size(), 9u);
  EXPECT_EQ(rows[0],
            "scenario,machine,data,tensor,zero_stage,gpus,status,step_s,request_s,compute_s,"
            "comm_s,exposed_comm_s,hidden_comm_s,idle_s,comm_share,tokens_per_s,"
            "price_per_hour_usd,failure");
  int ran = 0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const Json& p = points[i];
    // The grid's nesting order: machine, then tensor, then zero_stage fastest.
    EXPECT_EQ(p.at("machine"), i < 4 ? "dgx-a100" : "rtx4090-8x");
    EXPECT_EQ(p.at("tensor"), (i / 2) % 2 == 0 ? 1 : 2);
    EXPECT_EQ(p.at("zero_stage"), i % 2 == 0 ? 1 : 3);
    TempDir dir;
    const std::string scenario = variant_scenario(dir, p);
    const std::string machine = p.at("machine").get<std::string>();
    const auto run_csv =
        run_linksim("run " + shell_quote(scenario) + " -t " + machine + " --format csv");
    const auto run_json =
        run_linksim("run " + shell_quote(scenario) + " -t " + machine + " --format json");
    if (run_csv.exit_code == 0) {
      ++ran;
      EXPECT_EQ(after_fields(rows[i + 1], 5), after_fields(lines_of(run_csv.out).at(1), 2));
      ASSERT_EQ(run_json.exit_code, 0) << run_json.err;
      EXPECT_EQ(p.at("report"), parse_json_text(run_json.out, "run").at(0));
    } else {
      // `run` on one machine fails where the plan does not fit; the sweep keeps a row.
      ASSERT_EQ(run_csv.exit_code, 2) << run_csv.err;
      EXPECT_EQ(p.at("report").at("status"), "does not fit");
      EXPECT_NE(run_csv.err.find(p.at("report").at("failure").get<std::string>()),
                std::string::npos)
          << run_csv.err;
    }
  }
  EXPECT_GE(ran, 4);
}

// The out-of-place time and bandwidths of the one data row nccl-tests printed.
std::vector<std::string> printed_row(const std::string& printout) {
  for (const auto& line : lines_of(printout)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream in(line);
    std::vector<std::string> words;
    for (std::string w; in >> w;)
      words.push_back(w);
    return {words.at(0), words.at(5), words.at(6), words.at(7)};  // size, time, algbw, busbw
  }
  return {};
}

// `value` printed as `printed` is: equal to within half its last digit.
void expect_printed_as(double value, const std::string& printed) {
  const auto dot = printed.find('.');
  const int decimals = dot == std::string::npos ? 0 : static_cast<int>(printed.size() - dot - 1);
  EXPECT_LE(std::abs(value - std::stod(printed)), 0.5 * std::pow(10.0, -decimals) + 1e-9)
      << value << " printed as " << printed;
}

TEST(SweepCli, NcclTestsRowsAreWhatNcclTestsPrints) {
  const auto r = run_linksim("sweep " + shell_quote(sizes_grid()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = lines_of(r.out);
  ASSERT_EQ(rows.size(), 13u);  // header + 3 machines x 4 sizes
  EXPECT_EQ(rows[0], "machine,size,size_bytes,count,type,redop,time_us,algbw_GBps,busbw_GBps");
  const std::vector<std::string> sizes = {"8", "64K", "8M", "256M"};
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const auto f = fields_of(rows[i]);
    ASSERT_EQ(f.size(), 9u) << rows[i];
    const std::string size = sizes[(i - 1) % 4];
    const auto printed = run_linksim("nccl-tests --topology " + f[0] + " all_reduce_perf -g 8 -b " +
                                     size + " -e " + size);
    ASSERT_EQ(printed.exit_code, 0) << printed.err;
    const auto p = printed_row(printed.out);
    ASSERT_EQ(p.size(), 4u);
    EXPECT_EQ(f[2], p[0]);
    expect_printed_as(std::stod(f[6]), p[1]);
    expect_printed_as(std::stod(f[7]), p[2]);
    expect_printed_as(std::stod(f[8]), p[3]);
  }
}

TEST(SweepCli, SameBytesOnAnyNumberOfThreads) {
  for (const auto& grid : {plans_grid(), sizes_grid()}) {
    for (const char* format : {"csv", "json"}) {
      const std::string args = "sweep --format " + std::string(format) + " " + shell_quote(grid);
      const auto one = run_linksim(args + " -j 1");
      const auto three = run_linksim(args + " -j 3");
      ASSERT_EQ(one.exit_code, 0) << one.err;
      EXPECT_EQ(one.out, three.out) << grid << " " << format;
    }
  }
}

TEST(SweepCli, WritesTheOutputFileWhole) {
  TempDir dir;
  const std::string out = dir.path() + "/rows.csv";
  const auto r = run_linksim("sweep " + shell_quote(sizes_grid()) + " -o " + shell_quote(out));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(read_file(out), run_linksim("sweep " + shell_quote(sizes_grid())).out);
  const auto again = run_linksim("sweep " + shell_quote(sizes_grid()) + " -o " + shell_quote(out));
  EXPECT_EQ(again.exit_code, 2);  // an existing file needs --force
}

// A grid refused with its whole message.
struct BadGrid {
  std::string grid_json;
  std::string expected;  // FILE stands for the grid's path, SRC for the source tree
};

void expect_refused(const BadGrid& bad) {
  TempDir dir;
  const std::string file = dir.write("grid.json", bad.grid_json);
  const std::string out = dir.path() + "/rows.csv";
  const auto r = run_linksim("sweep " + shell_quote(file) + " -o " + shell_quote(out));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  std::string expected = bad.expected;
  expected.replace(expected.find("FILE"), 4, file);
  if (const auto src = expected.find("SRC"); src != std::string::npos) {
    expected.replace(src, 3, source_dir());
  }
  EXPECT_EQ(r.err, expected);
  EXPECT_FALSE(std::ifstream(out).good()) << "nothing is written";
}

TEST(SweepCli, EmptyDimension) {
  expect_refused({R"({"grid": {"scenario": ["default"], "machine": [], "tensor": [1]}})",
                  "linksim: error: FILE: at /grid/machine: expected at least one value; an "
                  "empty dimension has no points\n"});
}

TEST(SweepCli, UnknownKey) {
  expect_refused({R"({"grid": {"scenario": ["default"], "machine": ["dgx-a100"], "tensr": [1]}})",
                  "linksim: error: FILE: at /grid/tensr: unknown field \"tensr\"; expected one of: "
                  "scenario, machine, nodes, data, tensor, pipeline, expert, zero_stage, "
                  "shard_group, micro_batches, sequence_parallel, prefetch_depth\n"});
}

TEST(SweepCli, UnknownMachine) {
  expect_refused({R"({"grid": {"scenario": ["default"], "machine": ["dgx-a100", "dgx-a1000"]}})",
                  "linksim: error: FILE: at /grid/machine/1: dgx-a1000: cannot open file for "
                  "reading\n"});
}

TEST(SweepCli, UnknownScenario) {
  expect_refused({R"({"grid": {"scenario": ["no-such-scenario"], "machine": ["dgx-a100"]}})",
                  "linksim: error: FILE: at /grid/scenario/0: no-such-scenario: cannot open file "
                  "for reading\n"});
}

TEST(SweepCli, FailingPointStopsTheSweep) {
  // Tensor parallelism 3 does not divide Llama 2 7B's 32 heads: the second point is not a plan.
  expect_refused(
      {R"({"grid": {"scenario": ["llama2-7b-4090-vs-a100"], "machine": ["dgx-a100"], "data": [1], "tensor": [8, 3]}})",
       "linksim: error: FILE: at /grid (point 1: scenario=llama2-7b-4090-vs-a100, "
       "machine=dgx-a100, data=1, tensor=3): SRC/scenarios/llama2-7b-4090-vs-a100.json: at "
       "/plan/tensor: tensor parallelism 3 does not divide llama2-7b's 32 heads\n"});
}

TEST(SweepCli, APointTooLargeForTheMachineIsARow) {
  // Tensor parallelism over 16 GPUs of an 8-GPU machine does not fit it, as a plan that needs
  // more memory does not: a row saying so, and the sweep goes on.
  TempDir dir;
  const std::string file = dir.write(
      "grid.json",
      R"({"grid": {"scenario": ["llama2-7b-4090-vs-a100"], "machine": ["dgx-a100"], "data": [1], "tensor": [16, 8]}})");
  const auto r = run_linksim("sweep " + shell_quote(file));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(
      r.out.find("\nllama2-7b-4090-vs-a100,dgx-a100,1,16,8,does not fit,,,,,,,,,,,the plan uses "
                 "data 1 x tensor 16 x pipeline 1 = 16 GPUs but dgx-a100 has 8; expected the "
                 "degrees to multiply to at most 8 (or run it on more nodes)\n"),
      std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\nllama2-7b-4090-vs-a100,dgx-a100,1,8,8,ok,"), std::string::npos) << r.out;
}

TEST(SweepCli, SizesComeFromTheGrid) {
  expect_refused(
      {R"({"nccl_tests": {"binary": "all_reduce_perf", "args": ["-g", "8", "-b", "8"]}, "grid": {"machine": ["dgx-a100"], "size": [8]}})",
       "linksim: error: FILE: at /nccl_tests/args/2: \"-b\" sets the sizes, which come "
       "from /grid/size, one per point\n"});
}

}  // namespace
}  // namespace linksim
