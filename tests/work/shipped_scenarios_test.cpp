// Every shipped scenario validates against scenarios/schema.json and loads.
#include <gtest/gtest.h>

#include <filesystem>

#include "sim/core/data_dir.hpp"
#include "sim/core/json_view.hpp"
#include "sim/core/schema_check.hpp"
#include "sim/work/scenario.hpp"

namespace linksim::work {
namespace {

TEST(ShippedScenariosTest, EveryScenarioValidatesAndLoads) {
  const Json schema = read_json_file(data_dir() + "/scenarios/schema.json");
  const auto files = shipped_scenario_files();
  ASSERT_GE(files.size(), 8u);
  for (const auto& f : files) {
    const auto problems = schema_violations(read_json_file(f), schema);
    EXPECT_TRUE(problems.empty()) << f << ": " << (problems.empty() ? "" : problems.front());
    const Scenario s = load_scenario(f);
    EXPECT_FALSE(s.topologies.empty()) << f;
  }
}

}  // namespace
}  // namespace linksim::work
