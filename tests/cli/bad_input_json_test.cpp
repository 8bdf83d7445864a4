// Bad JSON input of every kind through the command line (issue 13): each refused case of the
// shared corpus in tests/data/agreement/ (schema and loader refusals alike) exits 2 with one
// stderr line naming the file, the JSON pointer and what was expected (as listed in
// locations.tsv), prints nothing on stdout and writes no output file.
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/temp_files.hpp"

namespace linksim {
namespace {

using testing::run_linksim;
using testing::shell_quote;
using testing::source_dir;
using testing::TempDir;

struct JsonCase {
  std::string file;      // under tests/data/agreement/, e.g. "scenario/reject/title-empty.json"
  std::string location;  // JSON pointer the error must name
  std::string says;      // and a part of what it says was expected there
};

std::vector<JsonCase> corpus_cases() {
  std::vector<JsonCase> out;
  std::ifstream in(source_dir() + "/tests/data/agreement/locations.tsv");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const auto tab = line.find('\t');
    const auto tab2 = line.find('\t', tab + 1);
    if (tab == std::string::npos || tab2 == std::string::npos) continue;
    out.push_back(
        {line.substr(0, tab), line.substr(tab + 1, tab2 - tab - 1), line.substr(tab2 + 1)});
  }
  return out;
}

std::string kind_of(const JsonCase& c) {
  return c.file.substr(0, c.file.find('/'));
}

// The command that reads the case, and the file its error must name. A model is read through
// a scenario beside it that names it.
std::pair<std::string, std::string> command_for(const JsonCase& c, const TempDir& dir,
                                                const std::string& out) {
  const std::string path = source_dir() + "/tests/data/agreement/" + c.file;
  const std::string kind = kind_of(c);
  const std::string to = " -o " + shell_quote(out);
  if (kind == "topology") return {"run seed-gradient-sync -t " + shell_quote(path) + to, path};
  if (kind == "scenario") return {"run " + shell_quote(path) + to, path};
  if (kind == "task_graph") {
    return {"run-graph " + shell_quote(path) + " -t rtx2080ti-2x" + to, path};
  }
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  const std::string model = dir.write("model.json", text.str());
  const std::string scenario =
      dir.write("uses-model.json",
                R"({"title": "t", "topologies": ["rtx2080ti-2x"], "model": "model.json",
          "job": {"kind": "training", "global_batch": 2}, "plan": {"data": 2}})");
  return {"run " + shell_quote(scenario) + to, model};
}

// gtest prints a failing case by its file.
void PrintTo(const JsonCase& c, std::ostream* os) {
  *os << c.file;
}

class BadJsonInput : public ::testing::TestWithParam<JsonCase> {};

TEST_P(BadJsonInput, ExitsTwoWithOneLineNamingFileAndPointer) {
  const JsonCase& c = GetParam();
  TempDir dir;
  const std::string out = dir.path() + "/out.txt";
  const auto [args, blamed] = command_for(c, dir, out);
  const auto r = run_linksim(args);
  EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
  EXPECT_EQ(r.out, "");
  const std::string where = "linksim: error: " + blamed + ": at " + c.location + ": ";
  EXPECT_EQ(r.err.rfind(where, 0), 0u) << r.err;
  EXPECT_NE(r.err.find(c.says, where.size()), std::string::npos) << "expected " << c.says << "\n"
                                                                 << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "not one line:\n" << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
}

std::string case_name(const ::testing::TestParamInfo<JsonCase>& info) {
  std::string name;
  for (char ch : info.param.file.substr(0, info.param.file.size() - 5)) {
    name += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Agreement, BadJsonInput, ::testing::ValuesIn(corpus_cases()), case_name);

// The table is the corpus: it must hold every kind, and at least the cases listed here.
TEST(BadJsonInputTable, CoversEveryKind) {
  const auto cases = corpus_cases();
  EXPECT_GE(cases.size(), 100u);
  for (const char* kind : {"topology", "scenario", "model", "task_graph"}) {
    std::size_t n = 0;
    for (const auto& c : cases)
      n += kind_of(c) == kind;
    EXPECT_GE(n, 15u) << kind;
  }
}

}  // namespace
}  // namespace linksim
