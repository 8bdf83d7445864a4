// A fabric kind is one row of fabric.cpp's table: its name, figures and parsing come from that
// row, and the two schemas that list the kinds must list exactly the table's names, in order.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/core/data_dir.hpp"
#include "sim/topo/fabric.hpp"

namespace linksim::topo {
namespace {

// Every array of strings in `j` that names both "infiniband" and "efa": a list of fabric kinds.
void kind_lists(const nlohmann::json& j, std::vector<std::vector<std::string>>& out) {
  if (j.is_array()) {
    std::vector<std::string> names;
    for (const auto& e : j) {
      if (e.is_string()) names.push_back(e.get<std::string>());
    }
    const auto has = [&](const char* n) {
      return std::find(names.begin(), names.end(), n) != names.end();
    };
    if (has("infiniband") && has("efa")) out.push_back(names);
  }
  if (j.is_structured()) {
    for (const auto& e : j)
      kind_lists(e, out);
  }
}

TEST(FabricKindTable, NamesRoundTripAndTheSchemasListExactlyTheTable) {
  const std::vector<std::string> names = fabric_kind_names();
  EXPECT_EQ(names, (std::vector<std::string>{"infiniband", "roce", "efa", "efa_v2", "efa_v3",
                                             "efa_v4", "tcpx", "tcpxo"}));
  for (const auto& n : names) {
    const auto kind = fabric_kind_from_string(n);
    ASSERT_TRUE(kind) << n;
    EXPECT_EQ(to_string(*kind), n);
    EXPECT_GT(fabric_figures(*kind).payload_efficiency, 0);
    EXPECT_LE(fabric_figures(*kind).payload_efficiency, 1);
    EXPECT_FALSE(fabric_figures(*kind).latency_source.empty()) << n;
  }
  EXPECT_FALSE(fabric_kind_from_string("myrinet"));
  // The machine schema (instance.network_kind, the fabric override) and the cluster schema.
  std::size_t lists = 0;
  for (const char* schema : {"/topologies/schema.json", "/topologies/clusters/schema.json"}) {
    std::ifstream in(data_dir() + schema);
    ASSERT_TRUE(in) << schema;
    std::vector<std::vector<std::string>> found;
    kind_lists(nlohmann::json::parse(in), found);
    EXPECT_FALSE(found.empty()) << schema;
    for (const auto& list : found)
      EXPECT_EQ(list, names) << schema << ": add the table's new kind to this list";
    lists += found.size();
  }
  EXPECT_EQ(lists, 3u);  // two in the machine schema, one in the cluster schema
}

// EFA by generation (sim/topo/fabric.cpp, scripts/fit-efa-latency.py): v1 fitted on the p3dn and
// p4de sweeps, v2 on the p5 pair (with p5's AMD host: 4.5 us, as the script prints it); v3 and v4
// have no public nccl-tests sweep and carry v2's figure, said to be assumed.
TEST(FabricKindTable, EachEfaGenerationCarriesItsOwnNicLatency) {
  EXPECT_DOUBLE_EQ(fabric_figures(FabricKind::efa).nic_latency_s, 32.5e-6);
  EXPECT_EQ(fabric_figures(FabricKind::efa).latency_basis, "fitted");
  EXPECT_DOUBLE_EQ(fabric_figures(FabricKind::efa_v2).nic_latency_s, 4.5e-6);
  EXPECT_EQ(fabric_figures(FabricKind::efa_v2).latency_basis, "fitted");
  for (const FabricKind k : {FabricKind::efa_v3, FabricKind::efa_v4}) {
    EXPECT_DOUBLE_EQ(fabric_figures(k).nic_latency_s, 4.5e-6) << to_string(k);
    EXPECT_EQ(fabric_figures(k).latency_basis, "assumed") << to_string(k);
  }
}

}  // namespace
}  // namespace linksim::topo
