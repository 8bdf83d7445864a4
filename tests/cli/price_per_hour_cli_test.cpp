// `--price-per-hour X` on run, compare and plan: every machine priced at X dollars per
// node-hour instead of its file's list price, and a bare machine priced at all; and the date of
// a file's list price printed beside every cost.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "tests/support/temp_files.hpp"

namespace linksim {
namespace {

using testing::run_linksim;

TEST(PricePerHourCli, ABareMachineGetsThePriceAndSaysItWasGiven) {
  // dgx-h100 is no cloud instance: no cost without the option. With --price-per-hour 40 it costs
  // 40 $/h, and a step of step_s seconds 40 / 3600 x step_s dollars.
  const auto bare = run_linksim("run default -t dgx-h100 --format json -q");
  ASSERT_EQ(bare.exit_code, 0) << bare.err;
  EXPECT_FALSE(nlohmann::json::parse(bare.out)[0].contains("price_per_hour_usd"));
  const auto priced = run_linksim("run default -t dgx-h100 --format json -q --price-per-hour 40");
  ASSERT_EQ(priced.exit_code, 0) << priced.err;
  const auto run = nlohmann::json::parse(priced.out)[0];
  EXPECT_EQ(run["price_per_hour_usd"], 40.0);
  EXPECT_EQ(run["price_as_of"], "given");
  const auto table = run_linksim("run default -t dgx-h100 -q --price-per-hour 40");
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("  cost               $40.00/hour (price given), $"), std::string::npos)
      << table.out;
}

TEST(PricePerHourCli, AClusterCostsItsNodesTimesThePriceAndTheListPriceShowsItsDate) {
  // llama3-8b-2xp4d-or-1xp5 runs on 2x p4d (list 21.957642 $/h a node, as of 2026-07-20: 2 x
  // 21.957642 = 43.915284) and 1x p5 (55.04 $/h). Given 55 $/node-hour: 2 x 55 = 110 $/h, and
  // 55 $/h for the p5.
  const auto listed = run_linksim("run llama3-8b-2xp4d-or-1xp5 -q");
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_NE(listed.out.find("  cost               $43.92/hour (price as of 2026-07-20)"),
            std::string::npos)
      << listed.out;
  EXPECT_NE(listed.out.find("  cost               $55.04/hour (price as of 2026-07-20)"),
            std::string::npos);
  const auto given = run_linksim("run llama3-8b-2xp4d-or-1xp5 -q --price-per-hour 55");
  ASSERT_EQ(given.exit_code, 0) << given.err;
  EXPECT_NE(given.out.find("  cost               $110.00/hour (price given)"), std::string::npos)
      << given.out;
  EXPECT_NE(given.out.find("  cost               $55.00/hour (price given)"), std::string::npos);
}

TEST(PricePerHourCli, ANegativePriceIsRefused) {
  const auto r = run_linksim("run default -q --price-per-hour -3");
  EXPECT_EQ(r.exit_code, 2);  // CLI11's usage error
  EXPECT_NE(r.err.find("--price-per-hour"), std::string::npos) << r.err;
}

TEST(PricePerHourCli, TopoListPrintsEachPricesDate) {
  const auto r = run_linksim("topo list --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  int priced = 0;
  for (const auto& m : nlohmann::json::parse(r.out)) {
    if (m["price_per_hour_usd"].is_null()) {
      EXPECT_TRUE(m["price_as_of"].is_null()) << m["machine"];
      continue;
    }
    ++priced;
    EXPECT_TRUE(m["price_as_of"].is_string()) << m["machine"];
  }
  EXPECT_GE(priced, 6);
}

}  // namespace
}  // namespace linksim
