// The schemas and the loaders agree (issue 13): over the shared corpus in tests/data/agreement/
// and every shipped file, a document is accepted by both or refused by both. Layout:
//   <kind>/accept/       both accept;
//   <kind>/reject/       the schema refuses, and so does the loader;
//   <kind>/loader-only/  what no JSON Schema can say (cross-field rules, names of shipped
//                        files, magnitudes inside "10 GB" strings): the loader refuses with its
//                        own check, the schema lets it through.
// A loader refusal names the file and a location on one line.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/core/schema_check.hpp"
#include "sim/topo/loader.hpp"
#include "sim/work/model.hpp"
#include "sim/work/scenario.hpp"
#include "sim/work/task_graph.hpp"
#include "tests/support/temp_files.hpp"

namespace linksim {
namespace {

namespace fs = std::filesystem;

struct Kind {
  std::string folder;  // under tests/data/agreement/
  std::string schema_path;
  std::function<void(const std::string&)> load;
};

std::vector<Kind> kinds() {
  return {
      {"topology", topology_schema_path(),
       [](const std::string& f) { (void)topo::load_topology(f); }},
      {"scenario", scenario_schema_path(),
       [](const std::string& f) { (void)work::load_scenario(f); }},
      {"model", model_schema_path(), [](const std::string& f) { (void)work::load_model(f); }},
      {"task_graph", task_graph_schema_path(),
       [](const std::string& f) {
         static const topo::Topology machine = topo::load_topology("rtx2080ti-2x");
         (void)work::load_task_graph(f, machine);
       }},
  };
}

std::vector<std::string> json_files(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.path().extension() == ".json" && e.path().filename() != "schema.json") {
      out.push_back(e.path().string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string corpus(const Kind& kind, const std::string& verdict) {
  return testing::source_dir() + "/tests/data/agreement/" + kind.folder + "/" + verdict;
}

// The loader's refusal, or "" when it accepts.
std::string load_error(const Kind& kind, const std::string& file) {
  try {
    kind.load(file);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

std::vector<std::string> schema_problems(const Kind& kind, const std::string& file) {
  return schema_violations(read_json_file(file), read_json_file(kind.schema_path));
}

void expect_refusal_names_file(const std::string& error, const std::string& file) {
  EXPECT_EQ(error.rfind(file + ": at ", 0), 0u) << error;
  EXPECT_EQ(error.find('\n'), std::string::npos) << error;
}

TEST(SchemaAgreement, EveryKindHasCasesOfEachVerdict) {
  for (const Kind& kind : kinds()) {
    for (const char* verdict : {"accept", "reject", "loader-only"}) {
      EXPECT_FALSE(json_files(corpus(kind, verdict)).empty()) << kind.folder << "/" << verdict;
    }
  }
}

TEST(SchemaAgreement, AcceptedByBoth) {
  for (const Kind& kind : kinds()) {
    for (const auto& file : json_files(corpus(kind, "accept"))) {
      EXPECT_EQ(load_error(kind, file), "") << file;
      EXPECT_EQ(schema_problems(kind, file), std::vector<std::string>{}) << file;
    }
  }
}

TEST(SchemaAgreement, RefusedByBoth) {
  for (const Kind& kind : kinds()) {
    for (const auto& file : json_files(corpus(kind, "reject"))) {
      const std::string error = load_error(kind, file);
      EXPECT_NE(error, "") << file << " was accepted by the loader";
      if (!error.empty()) expect_refusal_names_file(error, file);
      EXPECT_FALSE(schema_problems(kind, file).empty()) << file << " was accepted by the schema";
    }
  }
}

// The loader refuses these by its own checks, not through the schema, which accepts them.
TEST(SchemaAgreement, RefusedByTheLoaderAloneWhereNoSchemaCanSay) {
  for (const Kind& kind : kinds()) {
    for (const auto& file : json_files(corpus(kind, "loader-only"))) {
      const std::string error = load_error(kind, file);
      EXPECT_NE(error, "") << file << " was accepted by the loader";
      if (!error.empty()) expect_refusal_names_file(error, file);
      EXPECT_EQ(error.find("does not match"), std::string::npos) << error;
      EXPECT_EQ(schema_problems(kind, file), std::vector<std::string>{}) << file;
    }
  }
}

// Every shipped machine, model and scenario loads and conforms.
TEST(SchemaAgreement, ShippedFilesConform) {
  const std::vector<std::pair<std::size_t, std::vector<std::string>>> shipped{
      {0, topo::shipped_topology_files()},
      {1, work::shipped_scenario_files()},
      {2, work::shipped_model_files()},
      {3, json_files(testing::source_dir() + "/scenarios/graphs")},
  };
  auto all = kinds();
  // A shipped graph runs on rtx2080ti-2x unless it needs more GPUs: then on the machine its
  // docs name.
  const auto load_graph = all[3].load;
  all[3].load = [load_graph](const std::string& f) {
    if (fs::path(f).filename() != "ring-8-repeat.json") return load_graph(f);
    static const topo::Topology machine = topo::load_topology("dgx-h100");
    (void)work::load_task_graph(f, machine);
  };
  for (const auto& [index, files] : shipped) {
    EXPECT_FALSE(files.empty()) << all[index].folder;
    for (const auto& file : files) {
      EXPECT_EQ(load_error(all[index], file), "") << file;
      EXPECT_EQ(schema_problems(all[index], file), std::vector<std::string>{}) << file;
    }
  }
}

}  // namespace
}  // namespace linksim
