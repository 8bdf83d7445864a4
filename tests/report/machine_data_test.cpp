// topo check / topo list for programs (sim/report/machine_data.hpp).
#include "sim/report/machine_data.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "sim/topo/loader.hpp"
#include "tests/support/temp_files.hpp"
#include "tests/support/two_gpu_host.hpp"

namespace linksim::report {
namespace {

std::size_t fields(const std::string& line) {
  return static_cast<std::size_t>(std::count(line.begin(), line.end(), ',')) + 1;
}

TEST(MachineDataTest, CheckJsonCountsWhatTheFileHolds) {
  testing::TempDir dir;
  const topo::Topology t =
      topo::load_topology(dir.write("host.json", testing::two_gpu_host_json()));
  const auto j = nlohmann::json::parse(machine_check_json(t));
  // The fixture: 2 A100s, 2 PCIe switches, 1 CPU, no NVSwitch, no fabric (one host).
  EXPECT_EQ(j["gpus"], 2);
  EXPECT_EQ(j["gpu_models"]["A100-SXM4-80GB"], 2);
  EXPECT_EQ(j["pcie_switches"], 2);
  EXPECT_EQ(j["cpus"], 1);
  EXPECT_EQ(j["nvswitches"], 0);
  EXPECT_FALSE(j.contains("fabric"));
  // Two GPUs: one ordered pair each way, both over their NVLink bundle.
  EXPECT_EQ(j["transports"]["nvlink"], 2);
  EXPECT_EQ(j["fastest_pair"]["transport"], "nvlink");
}

TEST(MachineDataTest, CheckCsvHasOneValuePerName) {
  testing::TempDir dir;
  const topo::Topology t =
      topo::load_topology(dir.write("host.json", testing::two_gpu_host_json()));
  const std::string csv = machine_check_csv(t);
  const auto newline = csv.find('\n');
  ASSERT_NE(newline, std::string::npos);
  const std::string header = csv.substr(0, newline);
  const std::string row = csv.substr(newline + 1, csv.size() - newline - 2);
  EXPECT_EQ(header.rfind("machine,file,title,gpus,", 0), 0u) << header;
  // The title "2x A100, one NIC per GPU" holds a comma, so it is quoted and adds one comma
  // that is not a separator.
  EXPECT_NE(row.find(",\"2x A100, one NIC per GPU\","), std::string::npos) << row;
  EXPECT_EQ(fields(row), fields(header) + 1);
}

TEST(MachineDataTest, ListCsvJoinsModelsAndLeavesAnUnknownPriceEmpty) {
  testing::TempDir dir;
  const topo::Topology t =
      topo::load_topology(dir.write("host.json", testing::two_gpu_host_json()));
  EXPECT_EQ(machines_list_csv({t}),
            "machine,gpus,gpu_models,price_per_hour_usd,price_as_of,title\n"
            "host,2,2x A100-SXM4-80GB,,,\"2x A100, one NIC per GPU\"\n");
  const auto j = nlohmann::json::parse(machines_list_json({t}));
  EXPECT_TRUE(j[0]["price_per_hour_usd"].is_null());
  EXPECT_TRUE(j[0]["price_as_of"].is_null());
}

}  // namespace
}  // namespace linksim::report
