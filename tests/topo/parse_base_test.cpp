// "base" through the loader's file-reader seam (sim/topo/parse_base.cpp, MachineFileReader in
// loader.hpp): a derived machine whose base is served from memory, and the error for a base
// that is not there, which names the derived file, the JSON path and the file looked for.
#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/topo/loader.hpp"
#include "tests/support/temp_files.hpp"

namespace linksim::topo {
namespace {

namespace fs = std::filesystem;

// Four A100s on one NVSwitch, 12 NVLink 3 links each.
constexpr const char* kBaseText = R"({
  "title": "four GPUs on a switch",
  "sources": ["hand-written test fixture"],
  "nodes": [
    {"id": "gpu", "kind": "gpu", "count": 4, "model": "A100-SXM4-80GB"},
    {"id": "nvsw", "kind": "nvswitch"}
  ],
  "links": [
    {"for": {"g": "0..3"}, "a": "gpu{g}", "b": "nvsw", "kind": "nvlink", "generation": 3,
     "lanes": 12}
  ]
})";

// Serves files from `files` by path and records every path it was asked for.
struct MemoryFiles {
  std::map<std::string, std::string> files;
  std::vector<std::string> asked;

  MachineFileReader reader() {
    return [this](const fs::path& path) -> std::optional<std::string> {
      asked.push_back(path.string());
      auto it = files.find(path.string());
      if (it == files.end()) return std::nullopt;
      return it->second;
    };
  }
};

Json derived_doc(const std::string& base) {
  Json doc = Json::parse(R"({"title": "a cloud instance", "sources": ["test"],
                            "instance": {"provider": "aws", "name": "x.large"}})");
  doc["base"] = base;
  return doc;
}

TEST(ParseBaseTest, DerivedMachineTakesItsBaseFromTheReader) {
  MemoryFiles memory;
  memory.files["mem/base.json"] = kBaseText;
  const Topology t = parse_topology(derived_doc("base.json"), "mem/derived.json", memory.reader());
  // The base is looked up beside the derived file: mem/ + base.json.
  EXPECT_EQ(memory.asked, std::vector<std::string>{"mem/base.json"});
  EXPECT_EQ(t.title, "a cloud instance");
  EXPECT_EQ(t.name, "derived");
  EXPECT_EQ(t.base, "base");
  ASSERT_TRUE(t.instance.has_value());
  EXPECT_EQ(t.instance->provider, "aws");
  // "count": 4 makes gpu0..gpu3; the switch is no GPU.
  EXPECT_EQ(t.count(NodeKind::gpu), 4u);
  ASSERT_EQ(t.links().size(), 4u);  // one per binding of g in 0..3
  EXPECT_EQ(t.node(t.link(2).a).id, "gpu2");
  // Inherited NVLink 3: 25 GB/s per link per direction * 12 links = 300 GB/s.
  EXPECT_DOUBLE_EQ(t.link(2).bandwidth_Bps, 300e9);
}

TEST(ParseBaseTest, MissingBaseInMemoryNamesTheFileAndTheBaseLookedFor) {
  MemoryFiles memory;  // no files at all
  try {
    parse_topology(derived_doc("gone.json"), "mem/derived.json", memory.reader());
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "mem/derived.json");
    EXPECT_EQ(std::string(e.what()),
              "mem/derived.json: at /base: base machine \"gone.json\" not found (looked for "
              "mem/gone.json)");
  }
}

TEST(ParseBaseTest, MissingBaseOnDiskNamesTheFileAndTheBaseLookedFor) {
  linksim::testing::TempDir dir;
  const std::string path = dir.write("derived.json", derived_doc("gone.json").dump());
  try {
    load_topology(path);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_EQ(std::string(e.what()), path +
                                         ": at /base: base machine \"gone.json\" not found "
                                         "(looked for " +
                                         dir.path() + "/gone.json)");
  }
}

}  // namespace
}  // namespace linksim::topo
