// The repeat form of task graphs (docs/task-graph-format.md, "Repeated tasks"): a task with
// "for" stands for one task per binding of its loops, its strings templates over them; a
// dependency entry may loop too. Expanded by the full reader (sim/work/task_graph.cpp).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/core/json_view.hpp"
#include "sim/work/task_graph.hpp"
#include "tests/support/task_graph_test_box.hpp"
#include "tests/support/temp_files.hpp"
#include "tests/support/thrown_message.hpp"

namespace linksim::work {
namespace {

topo::Topology test_machine() {
  return testing::task_graph_test_box();
}

// Through the entry point run-graph uses (the fast reader gives up on "for"; the full one
// expands it).
TaskGraph read(const std::string& text, const topo::Topology& t) {
  return read_task_graph_text(text, "graph.json", t);
}

std::string error_of(const std::string& text) {
  const topo::Topology t = test_machine();
  return testing::thrown_message<InputError>([&] { read(text, t); });
}

std::string task_line(const TaskGraph& g, engine::TaskId id) {
  const engine::Simulation& sim = g.simulation;
  std::string out = g.task_names[id] + " " + std::string(engine::to_string(sim.kind(id)));
  if (sim.kind(id) == engine::TaskKind::transfer) {
    out += " " + g.gpu_names[static_cast<std::size_t>(sim.gpu(id))] + "->" +
           g.gpu_names[static_cast<std::size_t>(sim.peer_gpu(id))] + " " +
           std::to_string(static_cast<long long>(sim.amount(id)));
  }
  for (engine::TaskId d : sim.deps(id))
    out += " <" + g.task_names[d];
  return out;
}

TEST(TaskGraphRepeat, TwoLoopsExpandFirstKeySlowest) {
  const topo::Topology t = test_machine();
  // a takes 1 then 0 (an array keeps its order), b 0 then 1; a varies slowest.
  const TaskGraph g = read(R"({"tasks": [
    {"id": "t{a}_{b}", "for": {"a": [1, 0], "b": "0..1"}, "kind": "transfer",
     "src": "gpu{a}", "dst": "gpu{1 - a}", "bytes": "{(b + 1) * 1000} B"},
    {"id": "all", "kind": "barrier", "deps": [{"for": {"x": [1, 0], "y": "0..1"}, "id": "t{x}_{y}"}]},
    {"id": "a{b}", "kind": "barrier"}]})",
                           t);
  ASSERT_EQ(g.simulation.task_count(), 6u);
  // Tasks enter in canonical order (dependencies first, then by id): a{b} (no "for": taken as
  // written), t0_0, t0_1, t1_0, t1_1, then all. Binding (a, b) gives t{a}_{b}, gpu{a} ->
  // gpu{1 - a} and (b + 1) x 1000 bytes; "all" depends on all four (x, y) in [1, 0] x [0, 1]
  // (the simulation lists dependencies in its own task order).
  std::vector<std::string> lines;
  for (engine::TaskId id = 0; id < g.simulation.task_count(); ++id)
    lines.push_back(task_line(g, id));
  EXPECT_EQ(lines, (std::vector<std::string>{
                       "a{b} barrier",
                       "t0_0 transfer gpu0->gpu1 1000",
                       "t0_1 transfer gpu0->gpu1 2000",
                       "t1_0 transfer gpu1->gpu0 1000",
                       "t1_1 transfer gpu1->gpu0 2000",
                       "all barrier <t0_0 <t0_1 <t1_0 <t1_1",
                   }));
}

// A range may end at the largest integer: two tasks, and no step past it.
TEST(TaskGraphRepeat, RangeEndingAtTheLargestInteger) {
  const topo::Topology t = test_machine();
  const TaskGraph g = read(R"({"tasks": [{"id": "a{i}",
    "for": {"i": "9223372036854775806..9223372036854775807"}, "kind": "barrier"}]})",
                           t);
  EXPECT_EQ(g.task_names,
            (std::vector<std::string>{"a9223372036854775806", "a9223372036854775807"}));
}

TEST(TaskGraphRepeat, RepeatedDelaysAndCollectives) {
  const topo::Topology t = test_machine();
  // d0 .. d2 in a chain of {(k + 1) x 2} ms: 2 + 4 + 6 = 12 ms.
  const TaskGraph chain = read(R"({"tasks": [
    {"id": "d0", "kind": "delay", "duration": "2 ms"},
    {"id": "d{k}", "for": {"k": "1..2"}, "kind": "delay", "duration": "{(k + 1) * 2} ms",
     "deps": ["d{k - 1}"]}]})",
                               t);
  EXPECT_DOUBLE_EQ(chain.simulation.run().makespan_s, 0.012);
  const TaskGraph coll = read(R"({"tasks": [
    {"id": "ar{k}", "for": {"k": "0..1"}, "kind": "collective", "op": "all_reduce",
     "bytes": "{k + 1} MB", "gpus": ["gpu{k}", "gpu{1 - k}"]}]})",
                              t);
  ASSERT_EQ(coll.comm_ops.size(), 2u);
}

// The 8-GPU ring all-reduce of 1e9 bytes (bench/ring_graph.py's graph): 14 steps of 8
// transfers of 125,000,000 bytes, gpu i -> gpu (i + 1) % 8, a barrier b{s + 1} after step s.
std::string ring_task_by_task() {
  std::string out = R"({"description": "Ring all-reduce of 1e9 bytes on 8 GPUs, one task per )"
                    R"(transfer, in the repeat form: 14 steps of 8 transfers of 125,000,000 )"
                    R"(bytes (gpu i to gpu i+1), a barrier after each; 127 tasks written as 3",)"
                    "\n\"tasks\": [{\"id\": \"b0\", \"kind\": \"barrier\"}";
  for (int s = 0; s < 14; ++s) {
    std::string deps;
    for (int i = 0; i < 8; ++i) {
      out += ",\n{\"id\": \"s" + std::to_string(s) + "." + std::to_string(i) +
             "\", \"kind\": \"transfer\", \"src\": \"gpu" + std::to_string(i) +
             "\", \"dst\": \"gpu" + std::to_string((i + 1) % 8) +
             "\", \"bytes\": 125000000, \"deps\": [\"b" + std::to_string(s) + "\"]}";
      deps +=
          std::string(i ? ", " : "") + "\"s" + std::to_string(s) + "." + std::to_string(i) + "\"";
    }
    out += ",\n{\"id\": \"b" + std::to_string(s + 1) + "\", \"kind\": \"barrier\", \"deps\": [" +
           deps + "]}";
  }
  return out + "]}\n";
}

TEST(TaskGraphRepeat, ShippedRingGivesTheSameReportAsTaskByTask) {
  testing::TempDir dir;
  const std::string flat = dir.write("ring-8.json", ring_task_by_task());
  const std::string repeat = testing::source_dir() + "/scenarios/graphs/ring-8-repeat.json";
  for (const char* format : {"json", "csv"}) {
    const std::string args = std::string(" --topology dgx-h100 --tasks all --format ") + format;
    const auto a = testing::run_linksim("run-graph " + testing::shell_quote(flat) + args);
    const auto b = testing::run_linksim("run-graph " + testing::shell_quote(repeat) + args);
    ASSERT_EQ(a.exit_code, 0) << a.err;
    ASSERT_EQ(b.exit_code, 0) << b.err;
    EXPECT_EQ(a.out, b.out);
    EXPECT_NE(a.out.find("s13.7"), std::string::npos);  // all 127 tasks are listed
  }
}

TEST(TaskGraphRepeat, DuplicateIdAfterExpansion) {
  EXPECT_EQ(error_of(R"({"tasks": [
    {"id": "step{s}", "for": {"s": "3..4", "r": "1..2"}, "kind": "delay", "duration": "1 ms"}]})"),
            "graph.json: at /tasks/0/id: task \"step{s}\" (s=3, r=2): duplicate task id \"step3\" "
            "(first at /tasks/0, s=3, r=1)");
  EXPECT_EQ(error_of(R"({"tasks": [{"id": "x1", "kind": "barrier"},
    {"id": "x{i}", "for": {"i": "0..2"}, "kind": "barrier"}]})"),
            "graph.json: at /tasks/1/id: task \"x{i}\" (i=1): duplicate task id \"x1\" (first at "
            "/tasks/0)");
}

TEST(TaskGraphRepeat, DependencyOnAMissingId) {
  // i = 0 names a-1: no silent dropping; the first step is written as its own task instead.
  EXPECT_EQ(error_of(R"({"tasks": [
    {"id": "a{i}", "for": {"i": "0..2"}, "kind": "barrier", "deps": ["a{i - 1}"]}]})"),
            "graph.json: at /tasks/0/deps/0: task \"a{i}\" (i=0): dependency \"a-1\" is not a "
            "task id");
  EXPECT_EQ(error_of(R"({"tasks": [
    {"id": "a{i}", "for": {"i": "0..2"}, "kind": "barrier"},
    {"id": "all", "kind": "barrier", "deps": [{"for": {"i": "0..3"}, "id": "a{i}"}]}]})"),
            "graph.json: at /tasks/1/deps/0/id: task \"all\": dependency \"a3\" (i=3) is not a "
            "task id");
}

TEST(TaskGraphRepeat, BadLoops) {
  const std::string bound = "expected at most 1000001 values (hi - lo at most 1000000)";
  EXPECT_EQ(error_of(R"({"tasks": [{"id": "a{i}", "for": {"i": "3..1"}, "kind": "barrier"}]})"),
            "graph.json: at /tasks/0/for/i: the range \"3..1\" ends before it starts; expected "
            "\"lo..hi\" with lo <= hi");
  EXPECT_EQ(error_of(R"({"tasks": [{"id": "a{i}", "for": {"i": "0.5"}, "kind": "barrier"}]})"),
            "graph.json: at /tasks/0/for/i: expected a range \"lo..hi\" (inclusive, lo <= hi) or "
            "an array of integers, got \"0.5\"");
  // 0..1000001 is 1,000,002 values, one more than a loop may have.
  EXPECT_EQ(
      error_of(R"({"tasks": [{"id": "a{i}", "for": {"i": "0..1000001"}, "kind": "barrier"}]})"),
      "graph.json: at /tasks/0/for/i: the range \"0..1000001\" has 1000002 values; " + bound);
  // hi - lo is 2^64 - 1 here: refused, without overflowing (sim/topo/loop_values.cpp).
  EXPECT_EQ(
      error_of(
          R"({"tasks": [{"id": "a{i}", "for": {"i": "-9223372036854775808..9223372036854775807"},
    "kind": "barrier"}]})"),
      "graph.json: at /tasks/0/for/i: the range \"-9223372036854775808..9223372036854775807\" "
      "has 18446744073709551616 values; " +
          bound);
  EXPECT_EQ(error_of(R"({"tasks": [{"id": "a", "for": {}, "kind": "barrier"}]})"),
            "graph.json: at /tasks/0/for: expected at least one loop variable");
  EXPECT_EQ(error_of(R"({"tasks": [{"id": "a", "for": "0..3", "kind": "barrier"}]})"),
            "graph.json: at /tasks/0/for: expected an object of loop variables such as {\"r\": "
            "\"0..7\"}, got a string");
  EXPECT_EQ(error_of(R"({"tasks": [{"id": "a", "for": {"2x": "0..1"}, "kind": "barrier"}]})"),
            "graph.json: at /tasks/0/for/2x: loop variable \"2x\": expected a name of letters, "
            "digits and '_' that does not start with a digit");
  EXPECT_EQ(error_of(R"({"tasks": [{"id": "a{s}", "for": {"s": "0..1"}, "kind": "barrier"},
    {"id": "b{s}", "for": {"s": "0..1"}, "kind": "barrier",
     "deps": [{"for": {"s": "0..1"}, "id": "a{s}"}]}]})"),
            "graph.json: at /tasks/1/deps/0/for/s: loop variable \"s\" is already the task's");
}

TEST(TaskGraphRepeat, TemplateErrorsNameTheFieldAndTheBinding) {
  EXPECT_EQ(error_of(R"({"tasks": [{"id": "t{i}", "for": {"i": "1..2"}, "kind": "transfer",
    "src": "gpu0", "dst": "gpu{2 / (2 - i)}", "bytes": 1}]})"),
            "graph.json: at /tasks/0/dst: task \"t{i}\" (i=2): bad template \"gpu{2 / (2 - i)}\": "
            "division by zero");
  EXPECT_EQ(error_of(R"({"tasks": [{"id": "t{i * 9223372036854775807}", "for": {"i": "0..2"},
    "kind": "barrier"}]})"),
            "graph.json: at /tasks/0/id: task \"t{i * 9223372036854775807}\" (i=2): bad template "
            "\"t{i * 9223372036854775807}\": result does not fit a 64-bit integer");
  EXPECT_EQ(error_of(R"({"tasks": [{"id": "t{i}", "for": {"i": "0..1"}, "kind": "transfer",
    "src": "gpu{i}", "dst": "gpu{i + 2}", "bytes": 1}]})"),
            "graph.json: at /tasks/0/dst: task \"t{i}\" (i=1): unknown endpoint \"gpu3\": no such "
            "node in topology \"test-box\"");
  // gpu2 reaches nothing: found when the tasks are placed, and named with its binding.
  EXPECT_EQ(error_of(R"({"tasks": [{"id": "t{i}", "for": {"i": [0, 2]}, "kind": "transfer",
    "src": "gpu{i}", "dst": "cpu0", "bytes": 1}]})"),
            "graph.json: at /tasks/0/dst: task \"t{i}\" (i=2): no route from gpu2 to cpu0 in "
            "topology \"test-box\"");
  EXPECT_EQ(error_of(R"({"tasks": [{"id": "t{i}", "for": {"i": "0..1"}, "kind": "delay",
    "duration": "{i} parsecs"}]})"),
            "graph.json: at /tasks/0/duration: task \"t{i}\" (i=0): expected a time such as "
            "\"1.2 us\", \"500 ns\" or \"3 ms\", got \"0 parsecs\"");
  EXPECT_EQ(error_of(R"({"tasks": [{"id": "all", "kind": "barrier",
    "deps": [{"for": {"i": "0..1"}, "id": "a{i / 0}"}]}]})"),
            "graph.json: at /tasks/0/deps/0/id: task \"all\": bad template \"a{i / 0}\": division "
            "by zero (i=0)");
  EXPECT_EQ(error_of(R"({"tasks": [{"id": "a{i}", "for": {"i": "0..1"}, "kind": "barrier",
    "deps": ["a{1 - i}"]}]})"),
            "graph.json: at /tasks/0/deps: task \"a{i}\" (i=0): dependency cycle: a0 -> a1 -> a0");
}

TEST(TaskGraphRepeat, ExpansionIsBoundedBeforeItIsDone) {
  // 1,000,000 x 11 = 11,000,000 tasks, over the 10,000,000 a graph may have: refused from the
  // loops alone, without building any of them.
  EXPECT_EQ(error_of(R"({"tasks": [{"id": "t{a}_{b}", "for": {"a": "0..999999", "b": "0..10"},
    "kind": "barrier"}]})"),
            "graph.json: at /tasks/0/for: the graph would have 11000000 tasks with this one's "
            "copies; expected at most 10000000");
  // 9,000,000 + 1,000,001 = 10,000,001: the total counts.
  EXPECT_EQ(error_of(R"({"tasks": [
    {"id": "t{a}_{b}", "for": {"a": "0..999999", "b": "0..8"}, "kind": "barrier"},
    {"id": "u{a}", "for": {"a": "0..1000000"}, "kind": "barrier"}]})"),
            "graph.json: at /tasks/1/for: the graph would have 10000001 tasks with this one's "
            "copies; expected at most 10000000");
  // 100 barriers of 1,000,000 dependencies each: 1e8, over 5e7.
  EXPECT_EQ(error_of(R"({"tasks": [{"id": "b{s}", "for": {"s": "0..99"}, "kind": "barrier",
    "deps": [{"for": {"i": "0..999999"}, "id": "x{i}"}]}]})"),
            "graph.json: at /tasks/0/deps: the graph would have 100000000 dependencies with this "
            "task's; expected at most 50000000");
}

TEST(TaskGraphRepeat, ForWhereItDoesNotBelong) {
  EXPECT_EQ(error_of(R"({"for": {"i": "0..1"}, "tasks": []})"),
            "graph.json: at /for: unknown field \"for\"; expected one of: $schema, description, "
            "tasks");
  EXPECT_EQ(
      error_of(R"({"tasks": [{"id": "a", "kind": "barrier"}, {"id": "b", "kind": "barrier",
    "deps": [{"for": {"i": "0..1"}, "id": "a", "deps": []}]}]})"),
      "graph.json: at /tasks/1/deps/0/deps: unknown field \"deps\"; expected one of: for, id");
  EXPECT_EQ(error_of(R"({"tasks": [{"id": "a", "kind": "barrier"}, {"id": "b", "kind": "barrier",
    "deps": [{"id": "a"}]}]})"),
            "graph.json: at /tasks/1/deps/0: missing required field \"for\"");
  EXPECT_EQ(error_of(R"({"tasks": [{"id": "a{i}", "for": {"i": "0..1"}, "kind": "barrier",
    "src": "gpu0"}]})"),
            "graph.json: at /tasks/0/src: task \"a{i}\" (i=0): unknown field \"src\"; expected one "
            "of: id, kind, deps, note, for");
}

}  // namespace
}  // namespace linksim::work
