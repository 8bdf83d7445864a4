// `linksim accuracy`: the Markdown report and its pictures (sim/cli/cmd_accuracy.cpp).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/support/temp_files.hpp"

namespace linksim {
namespace {

namespace fs = std::filesystem;
using testing::run_linksim;
using testing::TempDir;

TEST(AccuracyCliTest, ReportHasTheBandTableAndThePicturesOneMachineEach) {
  const TempDir dir;
  const auto r = run_linksim("accuracy -o " + dir.path() + "/a.md --plot " + dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string md = testing::read_file(dir.path() + "/a.md");
  EXPECT_NE(md.find("| machine file | op | below 256 KiB | 256 KiB - 128 MiB | above 128 MiB |"),
            std::string::npos);
  EXPECT_NE(md.find("Simple slice synchronisation"), std::string::npos);
  // A picture for every set with a sweep (3 rows or more), none for NVIDIA's two statements.
  EXPECT_TRUE(fs::exists(dir.path() + "/dgx-a100.png"));
  EXPECT_TRUE(fs::exists(dir.path() + "/azure-nd-h100-v5.png"));
  EXPECT_TRUE(fs::exists(dir.path() + "/rtx2080ti-2x.png"));
  EXPECT_FALSE(fs::exists(dir.path() + "/dgx-h100.png"));
  // PNG signature.
  EXPECT_EQ(testing::read_file(dir.path() + "/dgx-a100.png").substr(1, 3), "PNG");
}

TEST(AccuracyCliTest, APlotFolderThatIsNotThereIsRefusedBeforeAnythingIsWritten) {
  const TempDir dir;
  const auto r =
      run_linksim("accuracy -o " + dir.path() + "/a.md --plot " + dir.path() + "/missing");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_FALSE(fs::exists(dir.path() + "/a.md"));
  EXPECT_TRUE(r.out.empty());
}

}  // namespace
}  // namespace linksim
