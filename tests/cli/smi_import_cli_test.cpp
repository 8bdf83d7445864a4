// `linksim topo import` on real `nvidia-smi topo -m` captures (issue 37, item 1): a printout
// whose cells no machine reproduces exits non-zero naming the cell and writes nothing; one that
// round-trips says so, and `topo show` prints its NIC legend as captured.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/support/temp_files.hpp"

namespace linksim {
namespace {

using testing::read_file;
using testing::run_linksim;
using testing::shell_quote;
using testing::source_dir;
using testing::TempDir;

TEST(SmiImportCliTest, ARealDgxA100With10NicsImportsAndShowsAsCaptured) {
  TempDir dir;
  const std::string capture = source_dir() + "/tests/data/real/smi/dgx-a100-10nic.txt";
  const std::string out = dir.path() + "/dgx.json";
  const auto r = run_linksim("topo import " + shell_quote(capture) +
                             " --gpu A100-SXM4-80GB --cpu-vendor amd -o " + shell_quote(out));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("linksim: the imported machine reproduces the printout cell by cell\n"),
            std::string::npos)
      << r.err;
  const auto shown = run_linksim("topo show " + shell_quote(out));
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  // PXB between the tray's GPUs and NICs (not PIX), and the legend's own names, then the
  // printout's closing empty line.
  EXPECT_NE(shown.out.find("\nNIC0\tPXB\tPXB\tSYS\tSYS\tSYS\tSYS\tSYS\tSYS\t X \tPXB\tSYS"),
            std::string::npos)
      << shown.out;
  const std::string tail = "  NIC8: mlx5_8\n  NIC9: mlx5_9\n\n";
  ASSERT_GE(shown.out.size(), tail.size());
  EXPECT_EQ(shown.out.substr(shown.out.size() - tail.size()), tail);
}

TEST(SmiImportCliTest, APrintoutNoMachineReproducesExitsNamingTheCell) {
  TempDir dir;
  const std::string printout = dir.write("pix.txt",
                                         "\tGPU0\tGPU1\tGPU2\tCPU Affinity\tNUMA Affinity\n"
                                         "GPU0\t X \tPIX\tPXB\t0-7\t0\n"
                                         "GPU1\tPIX\t X \tPIX\t0-7\t0\n"
                                         "GPU2\tPXB\tPIX\t X \t0-7\t0\n");
  const std::string out = dir.path() + "/m.json";
  const auto r = run_linksim("topo import " + shell_quote(printout) + " --gpu A100-SXM4-80GB -o " +
                             shell_quote(out));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "linksim: error: " + printout +
                       ": at line 2: GPU0/GPU2: expected PXB, got PIX in the machine rebuilt "
                       "from the printout; linksim cannot represent this cell together with the "
                       "rest of the matrix, so nothing was imported\n");
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST(SmiImportCliTest, NumaListsImportAndTheReportSaysHowTheyReprint) {
  TempDir dir;
  const std::string printout = dir.write("gb200.txt",
                                         "\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n"
                                         "GPU0\t X \tNV18\t0-71\t0,3-9,11-17\t\t2\n"
                                         "GPU1\tNV18\t X \t72-143\t1,19-25,27-33\t\t18\n");
  const auto r = run_linksim("topo import " + shell_quote(printout) +
                             " --gpu GB200 --cpu-vendor "
                             "nvidia -o " +
                             shell_quote(dir.path() + "/m.json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string report =
      "linksim: the imported machine reproduces every cell and NIC name of the printout; these "
      "affinities re-print otherwise (a machine file cannot hold them):\n"
      "  - GPU0 NUMA Affinity: expected 0,3-9,11-17, got 0\n"
      "  - GPU0 GPU NUMA ID: expected 2, got N/A\n"
      "  - GPU1 NUMA Affinity: expected 1,19-25,27-33, got 1\n"
      "  - GPU1 GPU NUMA ID: expected 18, got N/A\n";
  ASSERT_GE(r.err.size(), report.size());
  EXPECT_EQ(r.err.substr(r.err.size() - report.size()), report) << r.err;
}

}  // namespace
}  // namespace linksim
