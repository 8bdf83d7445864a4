// A machine file's totals (parse_totals.cpp): nodes and links summed over all entries, counted
// before anything is expanded, and the messages for a "for" range past its own bound.
#include <gtest/gtest.h>

#include <string>

#include "sim/core/error.hpp"
#include "sim/topo/loader.hpp"
#include "tests/support/temp_files.hpp"

namespace linksim::topo {
namespace {

using linksim::testing::TempDir;

std::string load_error(const Json& doc) {
  TempDir dir;
  const std::string path = dir.write("machine.json", doc.dump());
  try {
    load_topology(path);
  } catch (const InputError& e) {
    const std::string what = e.what();
    return what.substr(what.find("machine.json"));
  }
  return "(loaded)";
}

Json machine_with_links(const Json& links) {
  Json doc = Json::parse(R"({"title": "t", "nodes": [
    {"id": "gpu", "kind": "gpu", "count": 2, "model": "L40S"},
    {"id": "cpu0", "kind": "cpu", "vendor": "intel", "model": "x"}], "links": []})");
  doc["links"] = links;
  return doc;
}

Json million_links() {
  return Json::parse(R"({"for": {"a": "0..999999"}, "a": "gpu0", "b": "cpu0", "kind": "pcie",
    "generation": 4})");
}

TEST(ExpansionTotals, LinksOverTheFileTotalAreRefusedAtTheEntryThatCrossesIt) {
  // Fifty entries of 1,000,000 links each (each within its own bound): 50 million links, which
  // ran for minutes and took 10 GB. Refused at the third, which passes 2,000,000 (1,000,000
  // links load in about 3 s and 0.9 GB).
  Json links = Json::array();
  for (int i = 0; i < 50; ++i)
    links.push_back(million_links());
  EXPECT_EQ(load_error(machine_with_links(links)),
            "machine.json: at /links/2/for: link entry \"gpu0\" to \"cpu0\" (1000000 links) "
            "brings the file to 3000000 links; expected at most 2000000 links in all");
  // Entries without a "for" count as one link each: two full entries and one more link cross.
  links = Json::array();
  for (int i = 0; i < 2; ++i)
    links.push_back(million_links());
  links.push_back(Json::parse(R"({"a": "gpu1", "b": "cpu0", "kind": "pcie", "generation": 4})"));
  EXPECT_EQ(load_error(machine_with_links(links)),
            "machine.json: at /links/2: link entry \"gpu1\" to \"cpu0\" (1 link) brings the "
            "file to 2000001 links; expected at most 2000000 links in all");
}

TEST(ExpansionTotals, AnEntrysOwnBadLoopIsReportedByItsParser) {
  // An entry whose "for" is past its own bound is not counted: the links parser names it.
  Json links = Json::array();
  links.push_back(Json::parse(R"({"for": {"a": "0..999999", "b": "0..9"}, "a": "gpu0",
    "b": "cpu0", "kind": "pcie", "generation": 4})"));
  EXPECT_EQ(load_error(machine_with_links(links)),
            "machine.json: at /links/0/for: the \"for\" variables make 1000000 x 10 "
            "combinations; expected at most 1000000 in all");
}

TEST(ExpansionTotals, NodesOverTheFileTotalAreRefusedAtTheEntryThatCrossesIt) {
  // Twenty entries of 1,000,000 GPUs: 20 million nodes, which ran out of time and memory.
  Json doc = machine_with_links(Json::array());
  doc["nodes"] = Json::array();
  for (int i = 0; i < 20; ++i) {
    doc["nodes"].push_back({{"id", "gpu" + std::to_string(i) + "_"},
                            {"kind", "gpu"},
                            {"count", 1000000},
                            {"model", "L40S"}});
  }
  EXPECT_EQ(load_error(doc),
            "machine.json: at /nodes/1/count: node entry \"gpu1_\" (1000000 nodes) brings the "
            "file to 2000000 nodes; expected at most 1000000 nodes in all");
  // A node without "count" is one node.
  doc["nodes"] = Json::parse(R"([{"id": "gpu", "kind": "gpu", "count": 1000000, "model": "L40S"},
    {"id": "cpu0", "kind": "cpu", "vendor": "intel", "model": "x"}])");
  EXPECT_EQ(load_error(doc),
            "machine.json: at /nodes/1: node entry \"cpu0\" (1 node) brings the file to 1000001 "
            "nodes; expected at most 1000000 nodes in all");
}

TEST(ExpansionTotals, ARangePastItsBoundSaysHowManyValuesItHas) {
  const auto with_range = [](const std::string& range) {
    Json link = million_links();
    link["for"]["a"] = range;
    return machine_with_links(Json::array({link}));
  };
  const std::string at = "machine.json: at /links/0/for/a: ";
  const std::string bound = "expected at most 1000001 values (hi - lo at most 1000000)";
  EXPECT_EQ(load_error(with_range("0..9999999")),
            at + "the range \"0..9999999\" has 10000000 values; " + bound);
  EXPECT_EQ(load_error(with_range("0..9223372036854775807")),
            at + "the range \"0..9223372036854775807\" has 9223372036854775808 values; " + bound);
  EXPECT_EQ(load_error(with_range("-9223372036854775808..9223372036854775807")),
            at +
                "the range \"-9223372036854775808..9223372036854775807\" has "
                "18446744073709551616 values; " +
                bound);
  EXPECT_EQ(
      load_error(with_range("0..99999999999999999999999")),
      at + "the range \"0..99999999999999999999999\" has a bound beyond 64-bit integers; " + bound);
  EXPECT_EQ(load_error(with_range("5..3")),
            at + "the range \"5..3\" ends before it starts; expected \"lo..hi\" with lo <= hi");
  EXPECT_EQ(load_error(with_range("0-9")),
            at + "expected a range \"lo..hi\" (inclusive, lo <= hi) or an array of integers, got "
                 "\"0-9\"");
}

}  // namespace
}  // namespace linksim::topo
