// The fast task-graph reader (sim/work/task_graph_plain_reader.cpp) against the full one: it
// must build the same simulation for every valid graph, and take no graph that the full reader
// or the schema refuses, so that load_task_graph reports every bad input as before.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/core/json_view.hpp"
#include "sim/engine/summary.hpp"
#include "sim/report/formats.hpp"
#include "sim/work/task_graph.hpp"
#include "sim/work/task_graph_placement.hpp"
#include "tests/support/simple_copy_share.hpp"
#include "tests/support/task_graph_test_box.hpp"
#include "tests/support/temp_files.hpp"

namespace linksim::work {
namespace {

topo::Topology test_machine() {
  return testing::task_graph_test_box();
}

// Everything a graph's report depends on: tasks with their kinds, amounts, GPUs, dependencies
// and paths, then the JSON report of a run.
std::string fingerprint(const TaskGraph& g, const topo::Topology& t) {
  const engine::Simulation& sim = g.simulation;
  std::string out = g.description + "\n";
  auto to = std::back_inserter(out);
  for (engine::TaskId id = 0; id < sim.task_count(); ++id) {
    fmt::format_to(to, "{} {} {} {} {} deps", g.task_names[id], engine::to_string(sim.kind(id)),
                   sim.amount(id), sim.gpu(id), sim.peer_gpu(id));
    for (engine::TaskId d : sim.deps(id))
      fmt::format_to(to, " {}", d);
    out += " paths";
    for (const engine::PathShare& p : sim.paths(id)) {
      fmt::format_to(to, " {}@{}", p.share, sim.path_latency_s(p.path));
      for (engine::ChannelId c : sim.path_channels(p.path))
        fmt::format_to(to, ":{}", c);
    }
    out += "\n";
  }
  const engine::Names names{g.task_names, g.gpu_names, topo::channel_names(t)};
  return out + report::to_json(engine::summarize(sim, sim.run(), names));
}

TEST(TaskGraphPlainReader, BuildsTheSameSimulationAsTheFullReader) {
  const topo::Topology t = test_machine();
  const std::vector<std::string> graphs = {
      R"({"tasks": []})",
      R"({"description": "seed", "$schema": "x", "tasks": [
        {"id": "backward", "kind": "compute", "gpu": "gpu0", "duration": "100 ms"},
        {"id": "gradient", "kind": "transfer", "src": "gpu0", "dst": "gpu1", "bytes": "10 GB",
         "deps": ["backward"], "note": "n"}]})",
      // Forward references, repeated dependencies, integer bytes, every kind, ids out of order.
      R"({"tasks": [
        {"id": "f", "kind": "barrier", "deps": ["c", "d", "e", "c"]},
        {"id": "a", "kind": "compute", "gpu": "gpu0", "duration": "1 ms"},
        {"id": "b", "kind": "transfer", "src": "gpu0", "dst": "gpu1", "bytes": 1000000000,
         "deps": ["a", "a"]},
        {"id": "c", "kind": "transfer", "src": "gpu1", "dst": "gpu0", "bytes": "3 GB"},
        {"id": "d", "kind": "transfer", "src": "gpu0", "dst": "nic0", "bytes": "2 GiB",
         "deps": ["a"]},
        {"id": "e", "kind": "delay", "duration": "5 us", "deps": ["b"]},
        {"id": "g", "kind": "compute", "gpu": "gpu1", "duration": "0 s", "deps": ["f", "e"]}]})",
  };
  for (const std::string& text : graphs) {
    const auto fast = detail::read_valid_task_graph(text, t, LinkRates::line);
    ASSERT_TRUE(fast.has_value()) << text;
    const TaskGraph full = parse_task_graph(parse_json_text(text, "g.json"), "g.json", t);
    EXPECT_EQ(fingerprint(*fast, t), fingerprint(full, t)) << text;
  }
}

TEST(TaskGraphPlainReader, ARingWrittenPerTransferMatchesTheFullReader) {
  // Four GPUs would need a bigger machine; gpu0 <-> gpu1 <-> nic0 in a 3-member ring is the
  // same shape: 2 x (3 - 1) steps of 3 transfers, a barrier after each.
  const topo::Topology t = test_machine();
  const std::vector<std::string> members = {"gpu0", "gpu1", "nic0"};
  std::string text = R"({"tasks": [{"id": "b0", "kind": "barrier"})";
  for (int s = 0; s < 4; ++s) {
    std::string deps;
    for (std::size_t i = 0; i < members.size(); ++i) {
      const std::string id = fmt::format("s{}.{}", s, i);
      text += R"(, {"id": ")" + id + R"(", "kind": "transfer", "src": ")" + members[i] +
              R"(", "dst": ")" + members[(i + 1) % members.size()] +
              R"(", "bytes": 333333333, "deps": ["b)" + std::to_string(s) + R"("]})";
      deps += (i ? ", \"" : "\"") + id + "\"";
    }
    text += R"(, {"id": "b)" + std::to_string(s + 1) + R"(", "kind": "barrier", "deps": [)" + deps +
            "]}";
  }
  text += "]}";
  const auto fast = detail::read_valid_task_graph(text, t, LinkRates::payload);
  ASSERT_TRUE(fast.has_value());
  const TaskGraph full =
      parse_task_graph(parse_json_text(text, "g.json"), "g.json", t, LinkRates::payload);
  EXPECT_EQ(fingerprint(*fast, t), fingerprint(full, t));
  // Each step: 333333333 B at 26.24 GB/s of PCIe payload (32 GB/s x 0.82) on every hop, the
  // three hops on distinct directions. gpu0 -> gpu1 is NCCL's send, the slowest: 5.7 us of
  // Ring's Simple hop latency over PCI, its bytes over Simple's wire efficiency 0.904831
  // (370 / (450 x 0.958) x 68.0157 / (68.0157 - 3.5), sim/coll/protocol.cpp); the copies to and
  // from the NIC move raw bytes. Four steps: 4 x (5.7e-6 + 333333333 / (0.904831 x 26.24e9))
  // = 4 x 0.0140451 s = 0.0561803 s.
  const double simple_efficiency = testing::kSimpleCopyShare;
  EXPECT_NEAR(fast->simulation.run().makespan_s,
              4 * (5.7e-6 + 333333333 / (simple_efficiency * 26.24e9)), 1e-9);
}

// Every input here is refused by the full reader or by the schema. The fast reader must give
// up on each, and load_task_graph must report it exactly as the full reader does.
TEST(TaskGraphPlainReader, GivesUpOnEveryBadInputAndTheErrorIsTheFullReaders) {
  const topo::Topology t = test_machine();
  const std::vector<std::string> bad = {
      "",
      "[]",
      R"({"tasks": {}})",
      R"({})",
      R"({"tasks": [], "extra": 1})",
      R"({"tasks": [], "description": 5})",
      R"({"tasks": [], "$schema": 5})",
      R"({"tasks": [1]})",
      R"({"tasks": [{"kind": "barrier"}]})",
      R"({"tasks": [{"id": "", "kind": "barrier"}]})",
      R"({"tasks": [{"id": 7, "kind": "barrier"}]})",
      R"({"tasks": [{"id": "a"}]})",
      R"({"tasks": [{"id": "a", "kind": "sleep"}]})",
      R"({"tasks": [{"id": "a", "kind": "barrier", "gpu": "gpu0"}]})",
      R"({"tasks": [{"id": "a", "kind": "barrier", "bogus": "x"}]})",
      R"({"tasks": [{"id": "a", "kind": "barrier", "note": 3}]})",
      R"({"tasks": [{"id": "a", "kind": "barrier", "deps": "b"}]})",
      R"({"tasks": [{"id": "a", "kind": "barrier", "deps": [1]}]})",
      R"({"tasks": [{"id": "a", "kind": "barrier", "deps": ["zz"]}]})",
      R"({"tasks": [{"id": "a", "kind": "barrier", "deps": [""]}]})",
      R"({"tasks": [{"id": "a", "kind": "barrier", "deps": ["a"]}]})",
      R"({"tasks": [{"id": "a", "kind": "barrier", "deps": ["b"]},
                    {"id": "b", "kind": "barrier", "deps": ["a"]}]})",
      R"({"tasks": [{"id": "a", "kind": "barrier"}, {"id": "a", "kind": "barrier"}]})",
      R"({"tasks": [{"id": "a", "kind": "compute", "gpu": "gpu0"}]})",
      R"({"tasks": [{"id": "a", "kind": "compute", "duration": "1 ms"}]})",
      R"({"tasks": [{"id": "a", "kind": "compute", "gpu": "cpu0", "duration": "1 ms"}]})",
      R"({"tasks": [{"id": "a", "kind": "compute", "gpu": "gpu9", "duration": "1 ms"}]})",
      R"({"tasks": [{"id": "a", "kind": "compute", "gpu": "gpu0", "duration": "1"}]})",
      R"({"tasks": [{"id": "a", "kind": "compute", "gpu": "gpu0", "duration": 1}]})",
      R"({"tasks": [{"id": "a", "kind": "compute", "gpu": "gpu0", "duration": "-1 ms"}]})",
      R"({"tasks": [{"id": "a", "kind": "compute", "gpu": "gpu0", "duration": "1e308 s"}]})",
      R"({"tasks": [{"id": "a", "kind": "delay", "duration": "1 parsec"}]})",
      R"({"tasks": [{"id": "a", "kind": "delay", "duration": "1 ms", "gpu": "gpu0"}]})",
      R"({"tasks": [{"id": "x", "kind": "transfer", "src": "gpu0", "dst": "gpu1"}]})",
      R"({"tasks": [{"id": "x", "kind": "transfer", "src": "gpu0", "dst": "gpu0", "bytes": 1}]})",
      R"({"tasks": [{"id": "x", "kind": "transfer", "src": "gpu0", "dst": "gpu2", "bytes": 1}]})",
      R"({"tasks": [{"id": "x", "kind": "transfer", "src": "gpu0", "dst": "gpu9", "bytes": 1}]})",
      R"({"tasks": [{"id": "x", "kind": "transfer", "src": "gpu0", "dst": "gpu1", "bytes": 0}]})",
      R"({"tasks": [{"id": "x", "kind": "transfer", "src": "gpu0", "dst": "gpu1", "bytes": -5}]})",
      R"({"tasks": [{"id": "x", "kind": "transfer", "src": "gpu0", "dst": "gpu1", "bytes": 1.5}]})",
      R"({"tasks": [{"id": "x", "kind": "transfer", "src": "gpu0", "dst": "gpu1", "bytes": 1e309}]})",
      R"({"tasks": [{"id": "x", "kind": "transfer", "src": "gpu0", "dst": "gpu1",
                     "bytes": 9000000000000000000}]})",
      R"({"tasks": [{"id": "x", "kind": "transfer", "src": "gpu0", "dst": "gpu1", "bytes": "0 GB"}]})",
      R"({"tasks": [{"id": "x", "kind": "transfer", "src": "gpu0", "dst": "gpu1", "bytes": "-5 GB"}]})",
      R"({"tasks": [{"id": "x", "kind": "transfer", "src": "gpu0", "dst": "gpu1",
                     "bytes": "1e308 GB"}]})",
      R"({"tasks": [{"id": "x", "kind": "transfer", "src": "gpu0", "dst": "gpu1", "bytes": "5"}]})",
      R"({"tasks": [{"id": "x", "kind": "transfer", "src": "gpu0", "dst": "gpu1", "bytes": true}]})",
      R"({"tasks": [{"id": "x", "kind": "transfer", "src": 0, "dst": "gpu1", "bytes": 1}]})",
      R"({"tasks": [{"id": "a", "kind": "barrier"}]} trailing)",
      R"({"tasks": [{"id": "a", "kind": "barrier", "deps": [[["a"]]]}]})",
      // Text that is not JSON (simdjson, the fast reader's parser, must refuse what nlohmann,
      // the full reader's, refuses): invalid UTF-8, raw control characters and a lone
      // surrogate in strings, commas missing or extra, brackets unbalanced, a second document.
      "{\"tasks\": [{\"id\": \"a\xff\", \"kind\": \"barrier\"}]}",
      "{\"tasks\": [{\"id\": \"a\xc3\", \"kind\": \"barrier\"}]}",
      "{\"tasks\": [{\"id\": \"a\tb\", \"kind\": \"barrier\"}]}",
      "{\"tasks\": [{\"id\": \"a\nb\", \"kind\": \"barrier\"}]}",
      R"({"tasks": [{"id": "a\ud800", "kind": "barrier"}]})",
      R"({"tasks": [{"id": "a\q", "kind": "barrier"}]})",
      R"({"tasks": [{"id": "a", "kind": "barrier",}]})",
      R"({"tasks": [{"id": "a", "kind": "barrier"},]})",
      R"({"tasks": [{"id": "a" "kind": "barrier"}]})",
      R"({"tasks": [{"id": "a", "kind": "barrier"} {"id": "b", "kind": "barrier"}]})",
      R"({"tasks": [{"id": "a", "kind": "barrier"}]}})",
      R"({"tasks": [{"id": "a", "kind": "barrier"}]}])",
      R"({"tasks": [{"id": "a", "kind": "barrier"}])",
      R"({"tasks": [{"id": "a", "kind": "barrier"}]} {"tasks": []})",
      R"({"tasks": [{"id": "x", "kind": "transfer", "src": "gpu0", "dst": "gpu1", "bytes": 01}]})",
      R"({"tasks": [{"id": "x", "kind": "transfer", "src": "gpu0", "dst": "gpu1", "bytes": 1x}]})",
  };
  testing::TempDir dir;
  for (const std::string& text : bad) {
    EXPECT_FALSE(detail::read_valid_task_graph(text, t, LinkRates::line).has_value()) << text;
    std::string full_error = "(no error)";
    try {
      parse_task_graph(parse_json_text(text, "g.json"), "g.json", t);
    } catch (const InputError& e) {
      full_error = e.what();
    }
    EXPECT_NE(full_error, "(no error)") << text;
    const std::string path = dir.write("g.json", text);
    std::string loaded_error = "(no error)";
    try {
      load_task_graph(path, t);
    } catch (const InputError& e) {
      loaded_error = e.what();
    }
    // The file name differs: g.json against its path in the temporary folder.
    EXPECT_EQ(loaded_error.substr(path.size()), full_error.substr(std::string("g.json").size()))
        << text;
  }
}

// Random damage to a valid graph (a byte changed, dropped or repeated), many times over: whenever
// the fast reader still takes the text, the full reader takes it too and builds the same thing.
TEST(TaskGraphPlainReader, NeverTakesWhatTheFullReaderRefuses) {
  const topo::Topology t = test_machine();
  const std::string valid = R"({"description": "d", "tasks": [
    {"id": "a", "kind": "compute", "gpu": "gpu0", "duration": "1 ms"},
    {"id": "b", "kind": "transfer", "src": "gpu0", "dst": "gpu1", "bytes": 1000, "deps": ["a"]},
    {"id": "c", "kind": "transfer", "src": "gpu1", "dst": "nic0", "bytes": "2 KB", "deps": ["b"]},
    {"id": "d", "kind": "delay", "duration": "5 us", "deps": ["b", "c"]},
    {"id": "e", "kind": "barrier", "deps": ["d"], "note": "end"}]})";
  std::mt19937 rng(14);
  const std::string alphabet = "{}[]\",:0123456789 abcdegknpsuy-.e";
  int taken = 0;
  for (int trial = 0; trial < 1000; ++trial) {
    std::string text = valid;
    for (int k = 0; k < 1 + static_cast<int>(rng() % 3); ++k) {
      const std::size_t at = rng() % text.size();
      switch (rng() % 3) {
        case 0:
          text[at] = alphabet[rng() % alphabet.size()];
          break;
        case 1:
          text.erase(at, 1);
          break;
        default:
          text.insert(at, 1, text[at]);
          break;
      }
    }
    const auto fast = detail::read_valid_task_graph(text, t, LinkRates::line);
    if (!fast) continue;
    ++taken;
    TaskGraph full = parse_task_graph(parse_json_text("{\"tasks\": []}", "g.json"), "g.json", t);
    ASSERT_NO_THROW(full = parse_task_graph(parse_json_text(text, "g.json"), "g.json", t)) << text;
    EXPECT_EQ(fingerprint(*fast, t), fingerprint(full, t)) << text;
  }
  // Some damage leaves a valid graph (a digit of a size or a note changed): the check is not
  // empty.
  EXPECT_GT(taken, 0);
}

// Escapes in ids, names and keys: where the fast reader takes the text, it reads what the full
// reader reads ("a\u0062" is the id "ab" to both).
TEST(TaskGraphPlainReader, ReadsEscapesAsTheFullReaderDoes) {
  const topo::Topology t = test_machine();
  const std::vector<std::string> texts = {
      R"({"tasks": [{"id": "a\u0062", "kind": "barrier"}, {"id": "c", "kind": "barrier",
                    "deps": ["ab"]}]})",
      R"({"tasks": [{"id": "a\"q\\", "kind": "barrier"}, {"id": "c", "kind": "barrier",
                    "deps": ["a\"q\\"]}]})",
      R"({"tasks": [{"id": "x", "kind": "transfer", "src": "gpu\u0030", "dst": "gpu1",
                    "bytes": 7}]})",
      R"({"tasks": [{"i\u0064": "a", "kind": "barrier"}]})",
      R"({"description": "\u00e9t\u00e9 \ud83d\ude00", "tasks": []})",
  };
  int taken = 0;
  for (const std::string& text : texts) {
    const TaskGraph full = parse_task_graph(parse_json_text(text, "g.json"), "g.json", t);
    const auto fast = detail::read_valid_task_graph(text, t, LinkRates::line);
    if (!fast) continue;
    ++taken;
    EXPECT_EQ(fingerprint(*fast, t), fingerprint(full, t)) << text;
  }
  // All but the escaped key ("i\u0064", which it leaves to the full reader) are taken.
  EXPECT_EQ(taken, 4);
}

// A key given twice is left to the full reader, whatever it makes of it.
TEST(TaskGraphPlainReader, GivesUpOnARepeatedKey) {
  const topo::Topology t = test_machine();
  EXPECT_FALSE(detail::read_valid_task_graph(
                   R"({"tasks": [{"id": "a", "kind": "barrier", "id": "b"}]})", t, LinkRates::line)
                   .has_value());
  EXPECT_FALSE(detail::read_valid_task_graph(R"({"tasks": [], "tasks": []})", t, LinkRates::line)
                   .has_value());
}

TEST(TaskGraphPlainReader, PatternsAreTheSchemas) {
  const Json schema = read_json_file(testing::source_dir() + "/docs/task-graph.schema.json");
  const Json& defs = schema["definitions"];
  EXPECT_EQ(defs["duration"]["pattern"].get<std::string>(), detail::kDurationPattern);
  EXPECT_EQ(defs["bytes"]["oneOf"][1]["pattern"].get<std::string>(), detail::kBytesPattern);
  EXPECT_EQ(defs["bytes"]["oneOf"][0]["maximum"].get<std::int64_t>(), 1000000000000000000);
}

}  // namespace
}  // namespace linksim::work
