// -o/--output on every command that prints a table (issue 37): "-" is standard output, a file
// gets exactly the bytes standard output would, an existing file needs --force; and CSV for
// nccl-tests and nvbandwidth, whose figures agree with their printouts.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/temp_files.hpp"

namespace linksim {
namespace {

using testing::read_file;
using testing::run_linksim;
using testing::shell_quote;
using testing::TempDir;

struct Printing {
  std::string command;  // before the output option
  std::string after;    // after it (nccl-tests' binary and its arguments)
  std::string option;   // "-o" or "--output"
};

std::vector<Printing> printing_commands() {
  return {
      {"topo show dgx-a100", "", "-o"},
      {"topo check dgx-1v", "", "-o"},
      {"topo dot rtx2080ti-2x", "", "-o"},
      {"topo list", "", "-o"},
      {"p2p -t rtx2080ti-2x", "", "-o"},
      {"bandwidth -t rtx2080ti-2x", "", "-o"},
      {"nvbandwidth --topology rtx3090-4x-nvlink-pairs -t 0", "", "-o"},
      {"completion bash", "", "-o"},
      {"nccl-tests --topology rtx2080ti-2x", "all_reduce_perf -b 8 -e 1M -f 64 -g 2", "--output"},
  };
}

TEST(OutputOptionCli, DashIsStandardOutputAndAFileGetsTheSameBytes) {
  for (const auto& c : printing_commands()) {
    SCOPED_TRACE(c.command);
    const auto plain = run_linksim(c.command + " " + c.after);
    ASSERT_EQ(plain.exit_code, 0) << plain.err;
    ASSERT_FALSE(plain.out.empty());

    const auto dash = run_linksim(c.command + " " + c.option + " - " + c.after);
    ASSERT_EQ(dash.exit_code, 0) << dash.err;
    EXPECT_EQ(dash.out, plain.out);

    TempDir dir;
    const std::string file = dir.path() + "/out.txt";
    const auto to_file =
        run_linksim(c.command + " " + c.option + " " + shell_quote(file) + " " + c.after);
    ASSERT_EQ(to_file.exit_code, 0) << to_file.err;
    EXPECT_EQ(to_file.out, "");
    EXPECT_EQ(read_file(file), plain.out);

    const auto again =
        run_linksim(c.command + " " + c.option + " " + shell_quote(file) + " " + c.after);
    EXPECT_EQ(again.exit_code, 2);
    EXPECT_NE(again.err.find("file exists; pass --force to overwrite it"), std::string::npos)
        << again.err;
    const auto forced =
        run_linksim(c.command + " " + c.option + " " + shell_quote(file) + " --force " + c.after);
    EXPECT_EQ(forced.exit_code, 0) << forced.err;
    EXPECT_EQ(read_file(file), plain.out);
  }
}

std::vector<std::vector<std::string>> csv_rows(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> fields;
    std::istringstream l(line);
    std::string f;
    while (std::getline(l, f, ','))
      fields.push_back(f);
    if (!line.empty() && line.back() == ',') fields.emplace_back();
    rows.push_back(fields);
  }
  return rows;
}

TEST(OutputOptionCli, NcclTestsCsvHasEachSizeTwiceWithTheFiguresOfItsTable) {
  const auto r = run_linksim(
      "nccl-tests --topology dgx-a100 --format csv all_reduce_perf -b 1K -e 1M -f 32 -g 8");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = csv_rows(r.out);
  // 1K, 32K, 1M: three sizes, each out of place and in place, after the header.
  ASSERT_EQ(rows.size(), 7u) << r.out;
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')),
            "size_bytes,count,type,redop,root,placement,time_us,algbw_GBps,busbw_GBps");
  const double sizes[] = {1024, 32768, 1048576};
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const auto& f = rows[i];
    ASSERT_EQ(f.size(), 9u);
    const double size = std::stod(f[0]);
    EXPECT_EQ(size, sizes[(i - 1) / 2]);
    EXPECT_EQ(std::stoll(f[1]), static_cast<long long>(size) / 4);  // floats
    EXPECT_EQ(f[2], "float");
    EXPECT_EQ(f[3], "sum");
    EXPECT_EQ(f[4], "-1");
    EXPECT_EQ(f[5], i % 2 == 1 ? "out-of-place" : "in-place");
    const double time_us = std::stod(f[6]);
    const double algbw = std::stod(f[7]);
    const double busbw = std::stod(f[8]);
    // algbw = size / time; an all-reduce's busbw = algbw x 2 (n - 1) / n = 1.75 algbw at n = 8.
    EXPECT_NEAR(algbw, size / (time_us * 1e-6) / 1e9, 1e-12 * algbw);
    EXPECT_NEAR(busbw, algbw * 1.75, 1e-12 * busbw);
  }
  // The text table prints the same times to two decimals.
  const auto table =
      run_linksim("nccl-tests --topology dgx-a100 all_reduce_perf -b 1K -e 1M -f 32 -g 8");
  ASSERT_EQ(table.exit_code, 0) << table.err;
  char printed[32];
  std::snprintf(printed, sizeof printed, "%.2f", std::stod(rows[5][6]));
  EXPECT_NE(table.out.find(printed), std::string::npos) << printed << "\n" << table.out;
}

TEST(OutputOptionCli, NvbandwidthCsvIsEveryCellOfItsMatrices) {
  const auto r = run_linksim(
      "nvbandwidth --topology rtx3090-4x-nvlink-pairs -t host_to_device_memcpy_ce --format csv");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = csv_rows(r.out);
  // One CPU row x four GPU columns.
  ASSERT_EQ(rows.size(), 5u) << r.out;
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')), "testcase,status,matrix,row,column,bandwidth_GBps");
  const auto text =
      run_linksim("nvbandwidth --topology rtx3090-4x-nvlink-pairs -t host_to_device_memcpy_ce");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  for (int column = 0; column < 4; ++column) {
    const auto& f = rows[static_cast<std::size_t>(column) + 1];
    ASSERT_EQ(f.size(), 6u);
    EXPECT_EQ(f[0], "host_to_device_memcpy_ce");
    EXPECT_EQ(f[1], "ok");
    EXPECT_EQ(f[3], "0");
    EXPECT_EQ(f[4], std::to_string(column));
    char printed[32];
    std::snprintf(printed, sizeof printed, "%.2f", std::stod(f[5]));
    EXPECT_NE(text.out.find(printed), std::string::npos) << printed;
  }
  const auto both =
      run_linksim("nvbandwidth --topology rtx3090-4x-nvlink-pairs -t 0 -j --format csv");
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_NE(both.err.find("give one"), std::string::npos) << both.err;
}

TEST(OutputOptionCli, NcclTestsKeepsMinusOForItsReductionOp) {
  // After the binary, -o is nccl-tests' own: the reduction (here prod).
  const auto r = run_linksim(
      "nccl-tests --topology rtx2080ti-2x --format csv all_reduce_perf -b 8 -e 8 -g 2 -o prod");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\n8,2,float,prod,-1,out-of-place,"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace linksim
