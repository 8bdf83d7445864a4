// `linksim accuracy`: the Markdown report and its pictures (sim/cli/cmd_accuracy.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
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
  EXPECT_EQ(r.err, "linksim: error: " + dir.path() +
                       "/missing: at --plot: is not an existing folder to draw the pictures in\n");
  EXPECT_FALSE(fs::exists(dir.path() + "/a.md"));
  EXPECT_TRUE(r.out.empty());
}

// The shipped reference data has rows whose source rounds busbw to 0.00 GB/s: their error has no
// value, so the JSON says null and why (was "internal error: json parse_error", exit 1), and
// the CSV says n/a.
TEST(AccuracyCliTest, JsonAndCsvOfTheShippedDataCarryNoInfinity) {
  const auto json = run_linksim("accuracy --format json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto sets = nlohmann::json::parse(json.out);
  int without_ratio = 0;
  for (const auto& set : sets) {
    for (const auto& row : set["rows"]) {
      if (row["measured_busbw_Bps"] != 0) {
        EXPECT_TRUE(row["error"].is_number()) << row.dump();
        continue;
      }
      ++without_ratio;
      EXPECT_TRUE(row["error"].is_null()) << row.dump();
      EXPECT_EQ(row["error_note"], "n/a: the measured busbw is 0, so no ratio");
    }
  }
  // docs/ACCURACY.md's "(n/a)" rows: 3 on the 2080 Ti pair, 6 on the EFA v1 sets, 2 on the p5
  // pair (8 and 64 B).
  EXPECT_EQ(without_ratio, 11);
  // The CSV of those rows alone (a reference file of the shipped records whose busbw is 0):
  // the same rows, without every other set's simulations.
  nlohmann::json zeros = nlohmann::json::array();
  for (const auto& rec : nlohmann::json::parse(
           testing::read_file(testing::source_dir() + "/tests/data/reference/measurements.json"))) {
    if (rec.value("busbw_GBps", nlohmann::json()) == 0) zeros.push_back(rec);
  }
  const TempDir dir;
  const std::string reference = dir.write("zeros.json", zeros.dump());
  const auto csv = run_linksim("accuracy --format csv --reference " + reference);
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_EQ(csv.out.find("inf"), std::string::npos) << csv.out;
  // The header, the 11 rows, and NVIDIA's two H100 statements (held in the code, not the file).
  EXPECT_EQ(std::count(csv.out.begin(), csv.out.end(), '\n'), 14) << csv.out;
}

}  // namespace
}  // namespace linksim
