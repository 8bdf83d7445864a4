// `compare` reports every machine it was given: one that has fewer GPUs than the plan uses is a
// row saying so, not the end of the run (issue 39), in every format; alone, it is still an error.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/support/temp_files.hpp"

namespace linksim {
namespace {

using testing::run_linksim;

// seed-70b-inference-tp8's plan: data 1 x tensor 8 x pipeline 1 = 8 GPUs.
constexpr const char* kTooSmall =
    "the plan uses data 1 x tensor 8 x pipeline 1 = 8 GPUs but rtx4090-4x has 4; expected the "
    "degrees to multiply to at most 4 (or run it on more nodes)";

TEST(CompareEveryMachineCli, AMachineWithTooFewGpusIsARowAndTheOthersRun) {
  const auto r = run_linksim("compare seed-70b-inference-tp8 -t rtx4090-4x -t dgx-a100");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(std::string("does not fit: ") + kTooSmall), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("dgx-a100"), std::string::npos) << r.out;

  const auto j =
      run_linksim("compare seed-70b-inference-tp8 -t rtx4090-4x -t dgx-a100 --format json");
  ASSERT_EQ(j.exit_code, 0) << j.err;
  const auto rows = nlohmann::json::parse(j.out);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].at("machine"), "rtx4090-4x");
  EXPECT_EQ(rows[0].at("status"), "does not fit");
  EXPECT_EQ(rows[0].at("failure"), kTooSmall);
  EXPECT_EQ(rows[1].at("machine"), "dgx-a100");
  EXPECT_EQ(rows[1].at("status"), "ok");
  EXPECT_FALSE(rows[1].contains("failure"));
  EXPECT_GT(rows[1].at("step_s").get<double>(), 0);
}

TEST(CompareEveryMachineCli, AloneTheMachineTooSmallIsStillAnError) {
  const auto r = run_linksim("run seed-70b-inference-tp8 -t rtx4090-4x");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(kTooSmall), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
}

}  // namespace
}  // namespace linksim
