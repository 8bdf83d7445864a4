// LINKSIM_DATA, the folder of shipped machines, models and scenarios (sim/core/data_dir.hpp):
// a wrong value is blamed on the variable, and what is not a regular file in it is no machine.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "tests/support/temp_files.hpp"

namespace linksim {
namespace {

using testing::run_linksim;
using testing::source_dir;
using testing::TempDir;

// Sets LINKSIM_DATA for the linksim processes this test starts (each test runs in a process of
// its own under ctest), and unsets it after.
class DataDirCliTest : public ::testing::Test {
 protected:
  void use_data_dir(const std::string& dir) { ::setenv("LINKSIM_DATA", dir.c_str(), 1); }
  void TearDown() override { ::unsetenv("LINKSIM_DATA"); }
};

// Was "default: cannot open file", naming neither the variable nor the folder.
TEST_F(DataDirCliTest, AMissingFolderIsBlamedOnTheVariable) {
  use_data_dir("/nonexistent-linksim-data");
  const auto r = run_linksim("run default");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "linksim: error: LINKSIM_DATA: \"/nonexistent-linksim-data\" is not a folder; "
            "expected the folder that holds topologies/, models/ and scenarios/ (or leave "
            "LINKSIM_DATA unset for the shipped ones)\n");
  EXPECT_EQ(r.out, "");
}

// A FIFO named like a machine: opening it blocked until a writer came, so `topo list` hung.
// It is no machine; the list holds the one real file.
TEST_F(DataDirCliTest, AFifoAmongTheMachinesIsNotAMachine) {
  const TempDir dir;
  std::filesystem::create_directories(dir.path() + "/topologies");
  std::filesystem::copy_file(source_dir() + "/topologies/dgx-a100.json",
                             dir.path() + "/topologies/dgx-a100.json");
  ASSERT_EQ(::mkfifo((dir.path() + "/topologies/pipe.json").c_str(), 0600), 0);
  use_data_dir(dir.path());
  const auto r = run_linksim("topo list --format csv");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("pipe"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("dgx-a100"), std::string::npos) << r.out;
  // Named directly, it is refused unopened.
  const auto named = run_linksim("topo show " + dir.path() + "/topologies/pipe.json");
  EXPECT_EQ(named.exit_code, 2);
  EXPECT_EQ(named.err, "linksim: error: " + dir.path() +
                           "/topologies/pipe.json: is not a regular file (a FIFO); expected a "
                           "file\n");
}

}  // namespace
}  // namespace linksim
