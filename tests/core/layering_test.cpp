// The layers of layers.txt (../shared/design.md's table) hold in the sources: no file includes a
// header of a layer its own layer may not use. The build enforces the same table through
// include paths (CMakeLists.txt); this test names the file, line and rule a change breaks.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/temp_files.hpp"

namespace linksim {
namespace {

struct Layer {
  std::string name;
  std::string folder;             // relative to the source root, e.g. "sim/work"
  std::vector<std::string> uses;  // layer names
};

// layers.txt: "layer folder uses..." per line; '#' starts a comment line.
std::vector<Layer> parse_layers(const std::string& text) {
  std::vector<Layer> layers;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    Layer layer;
    if (!(words >> layer.name) || layer.name.front() == '#') continue;
    words >> layer.folder;
    for (std::string use; words >> use;)
      layer.uses.push_back(use);
    layers.push_back(std::move(layer));
  }
  return layers;
}

// The layer whose folder holds `path` (relative to the source root), if any.
const Layer* layer_of(const std::vector<Layer>& layers, const std::string& path) {
  const Layer* best = nullptr;
  for (const Layer& l : layers) {
    const bool inside = path.rfind(l.folder + "/", 0) == 0;
    if (inside && (!best || l.folder.size() > best->folder.size())) best = &l;
  }
  return best;
}

// "only core, topo" or "no other layer".
std::string allowed(const std::vector<std::string>& uses) {
  return uses.empty() ? "no other layer" : fmt::format("only {}", fmt::join(uses, ", "));
}

// Every include in `text` (the file at `path`) of a layer that `path`'s layer may not use.
std::vector<std::string> layering_violations(const std::vector<Layer>& layers,
                                             const std::string& path, const std::string& text) {
  const Layer* self = layer_of(layers, path);
  if (!self) return {fmt::format("{}: in no layer's folder of layers.txt", path)};
  static const std::regex include(R"(^\s*#\s*include\s*"([^"]+)\")");
  std::vector<std::string> out;
  std::istringstream lines(text);
  std::string line;
  for (int number = 1; std::getline(lines, line); ++number) {
    std::smatch m;
    if (!std::regex_search(line, m, include)) continue;
    const std::string included = m[1];
    if (included.find("..") != std::string::npos) {  // would slip past the include paths
      out.push_back(
          fmt::format("{}:{}: includes \"{}\" by a relative path; name it from the "
                      "source root (layers.txt)",
                      path, number, included));
      continue;
    }
    const Layer* used = layer_of(layers, included);
    if (!used || used == self) continue;
    if (std::find(self->uses.begin(), self->uses.end(), used->name) != self->uses.end()) continue;
    out.push_back(fmt::format(
        "{}:{}: includes \"{}\" of layer {}, but layer {} ({}) may use {} (layers.txt)", path,
        number, included, used->name, self->name, self->folder, allowed(self->uses)));
  }
  return out;
}

// The table itself: folders exist, and each layer uses only layers listed above it (so the
// table reads bottom-up and has no cycle).
std::vector<std::string> table_errors(const std::vector<Layer>& layers, const std::string& root) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    if (!std::filesystem::is_directory(root + "/" + layers[i].folder)) {
      out.push_back(fmt::format("layer {}: no folder {}", layers[i].name, layers[i].folder));
    }
    for (const std::string& use : layers[i].uses) {
      const auto below = std::find_if(layers.begin(), layers.begin() + static_cast<long>(i),
                                      [&](const Layer& l) { return l.name == use; });
      if (below == layers.begin() + static_cast<long>(i)) {
        out.push_back(fmt::format("layer {} uses {}, which is not a layer listed above it",
                                  layers[i].name, use));
      }
    }
  }
  return out;
}

const std::vector<Layer>& shipped_layers() {
  static const std::vector<Layer> layers =
      parse_layers(testing::read_file(testing::source_dir() + "/layers.txt"));
  return layers;
}

TEST(LayeringTest, TheTableReadsBottomUp) {
  const std::vector<Layer>& layers = shipped_layers();
  ASSERT_GE(layers.size(), 10u);  // core, net, engine, topo, coll, work, report, calibrate, ...
  EXPECT_EQ(layers.front().name, "core");
  EXPECT_TRUE(layers.front().uses.empty());
  const std::vector<std::string> errors = table_errors(layers, testing::source_dir());
  EXPECT_TRUE(errors.empty()) << fmt::format("{}", fmt::join(errors, "\n"));
}

TEST(LayeringTest, NoIncludeReachesUp) {
  const std::string root = testing::source_dir();
  const std::vector<Layer>& layers = shipped_layers();
  // Every layer's folder, and all of sim/ (a new folder there must join the table).
  std::vector<std::string> folders{"sim"};
  for (const Layer& l : layers)
    folders.push_back(l.folder);
  std::vector<std::string> files;
  for (const std::string& folder : folders) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root + "/" + folder)) {
      const std::string ext = entry.path().extension().string();
      if (!entry.is_regular_file() || (ext != ".cpp" && ext != ".hpp" && ext != ".cu")) continue;
      files.push_back(std::filesystem::relative(entry.path(), root).generic_string());
    }
  }
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  ASSERT_GT(files.size(), 100u);  // the scan found the sources
  std::vector<std::string> violations;
  for (const std::string& file : files) {
    for (std::string& v : layering_violations(layers, file, testing::read_file(root + "/" + file)))
      violations.push_back(std::move(v));
  }
  EXPECT_TRUE(violations.empty()) << fmt::format("{}", fmt::join(violations, "\n"));
}

TEST(LayeringTest, AnIncludeThatReachesUpIsNamedWithItsRule) {
  // Today's fixed violation, fed back in memory: work may not include report.
  const std::string text =
      "#pragma once\n"
      "#include <vector>\n"
      "#include \"sim/coll/communicator.hpp\"\n"
      "#include \"sim/report/summary.hpp\"\n";
  EXPECT_EQ(layering_violations(shipped_layers(), "sim/work/job_sim.hpp", text),
            std::vector<std::string>{
                "sim/work/job_sim.hpp:4: includes \"sim/report/summary.hpp\" of layer report, but "
                "layer work (sim/work) may use only core, topo, coll, engine (layers.txt)"});
}

TEST(LayeringTest, SidewaysIncludesAndOtherComponentsAreCheckedToo) {
  // topo may use core only: engine is not below it. net may use core only. Spacing inside the
  // directive does not hide an include. calibrate may not use validate.
  EXPECT_EQ(layering_violations(shipped_layers(), "sim/topo/routing.cpp",
                                "#include \"sim/core/error.hpp\"\n"
                                "  #  include \"sim/engine/simulation.hpp\"\n"),
            std::vector<std::string>{
                "sim/topo/routing.cpp:2: includes \"sim/engine/simulation.hpp\" of layer engine, "
                "but layer topo (sim/topo) may use only core (layers.txt)"});
  EXPECT_EQ(layering_violations(shipped_layers(), "sim/core/units.cpp",
                                "#include \"sim/net/solver.hpp\"\n"),
            std::vector<std::string>{"sim/core/units.cpp:1: includes \"sim/net/solver.hpp\" of "
                                     "layer net, but layer core (sim/core) may use no other layer "
                                     "(layers.txt)"});
  EXPECT_EQ(layering_violations(shipped_layers(), "calibrate/probe.cpp",
                                "#include \"validate/accuracy.hpp\"\n"),
            std::vector<std::string>{
                "calibrate/probe.cpp:1: includes \"validate/accuracy.hpp\" of layer validate, but "
                "layer calibrate (calibrate) may use only core, topo, coll, engine (layers.txt)"});
}

TEST(LayeringTest, AllowedIncludesPassOthersMustBeRootedAndInTheTable) {
  EXPECT_TRUE(layering_violations(shipped_layers(), "sim/coll/algorithms/ring.cpp",
                                  "#include \"sim/coll/protocol.hpp\"\n"
                                  "#include \"sim/topo/routing.hpp\"\n"
                                  "#include \"sim/engine/simulation.hpp\"\n")
                  .empty());
  EXPECT_EQ(layering_violations(shipped_layers(), "sim/work/memory.cpp",
                                "#include \"../report/formats.hpp\"\n"),
            std::vector<std::string>{"sim/work/memory.cpp:1: includes \"../report/formats.hpp\" "
                                     "by a relative path; name it from the source root "
                                     "(layers.txt)"});
  EXPECT_EQ(layering_violations(shipped_layers(), "sim/python/binding.cpp", ""),
            std::vector<std::string>{"sim/python/binding.cpp: in no layer's folder of layers.txt"});
}

TEST(LayeringTest, ATableWithAForwardUseIsRejected) {
  const std::vector<Layer> layers = parse_layers(
      "# layer folder uses\n"
      "core sim/core topo\n"
      "topo sim/topo core\n");
  EXPECT_EQ(table_errors(layers, testing::source_dir()),
            std::vector<std::string>{"layer core uses topo, which is not a layer listed above it"});
}

}  // namespace
}  // namespace linksim
