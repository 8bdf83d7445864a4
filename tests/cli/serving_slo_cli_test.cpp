// A serving scenario with an SLO and no request rate: linksim searches each machine's highest
// rate that meets every p99 bound, reports the run there, and ranks by $/Mtoken at that rate
// (issue 39; scenarios/llama3-8b-serving-slo.json, sim/work/serving_capacity.hpp).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/support/temp_files.hpp"

namespace linksim {
namespace {

using testing::run_linksim;

TEST(ServingSloCli, EachMachineReportsItsHighestRateUnderTheSlo) {
  const auto r = run_linksim("compare llama3-8b-serving-slo --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = nlohmann::json::parse(r.out);
  ASSERT_EQ(rows.size(), 2u);
  for (const auto& row : rows) {
    SCOPED_TRACE(row.at("machine").get<std::string>());
    ASSERT_EQ(row.at("status"), "ok");
    // The scenario's bounds: p99 TTFT <= 1 s, p99 TPOT <= 50 ms.
    EXPECT_EQ(row.at("slo").at("ttft_p99_s"), 1.0);
    EXPECT_EQ(row.at("slo").at("tpot_p99_s"), 0.05);
    EXPECT_EQ(row.at("meets_slo"), true);
    const auto& c = row.at("capacity");
    ASSERT_EQ(c.at("feasible"), true);
    ASSERT_EQ(c.at("bounded"), true);
    // The figures are the run at the answer, and the answer met the SLO there.
    const double max_rate = row.at("max_rate_per_s").get<double>();
    EXPECT_EQ(row.at("request_rate_per_s").get<double>(), max_rate);
    EXPECT_LE(row.at("ttft").at("p99_s").get<double>(), 1.0);
    EXPECT_LE(row.at("tpot").at("p99_s").get<double>(), 0.05);
    // The bracket: a simulated rate that misses lies above it, within the 1% tolerance.
    const double failing = c.at("failing_rate_per_s").get<double>();
    EXPECT_GT(failing, max_rate);
    EXPECT_LE(failing - max_rate, 0.01 * max_rate);
    EXPECT_EQ(row.at("max_rate_cost_per_mtoken_usd"), row.at("cost_per_mtoken_usd"));
  }
  // Ranked cheapest per Mtoken at each one's capacity: the A100s before the A10Gs.
  EXPECT_EQ(rows[0].at("machine"), "aws-p4d.24xlarge");
  EXPECT_EQ(rows[1].at("machine"), "aws-g5.48xlarge");
  EXPECT_LT(rows[0].at("max_rate_cost_per_mtoken_usd").get<double>(),
            rows[1].at("max_rate_cost_per_mtoken_usd").get<double>());
  // A larger GPU serves more requests per second under the same bound.
  EXPECT_GT(rows[0].at("max_rate_per_s").get<double>(), rows[1].at("max_rate_per_s").get<double>());
}

TEST(ServingSloCli, TheTextTableNamesTheSloAndTheRate) {
  const auto r = run_linksim("compare llama3-8b-serving-slo");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("SLO: p99 TTFT <= 1 s, TPOT <= 50 ms\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("max req/s"), std::string::npos) << r.out;
}

TEST(ServingSloCli, AnSloBoundThatIsNotAboveZeroIsRefusedWithItsPath) {
  testing::TempDir dir;
  const std::string path =
      dir.write("slo.json",
                R"({"title": "t", "topologies": ["dgx-a100"], "model": "llama3-8b",
          "job": {"kind": "serving", "slo": {"ttft_p99_s": 0, "tpot_p99_s": 0.05}},
          "plan": {"data": 8}})");
  const auto r = run_linksim("run " + testing::shell_quote(path));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_NE(r.err.find("at /job/slo/ttft_p99_s"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("expected a time in seconds above 0"), std::string::npos) << r.err;
}

TEST(ServingSloCli, WithoutAnSloTheRequestRateIsStillRequired) {
  testing::TempDir dir;
  const std::string path =
      dir.write("norate.json",
                R"({"title": "t", "topologies": ["dgx-a100"], "model": "llama3-8b",
                    "job": {"kind": "serving"}, "plan": {"data": 8}})");
  const auto r = run_linksim("run " + testing::shell_quote(path));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.err.find("at /job: missing required field \"request_rate\""), std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace linksim
