// The Chrome trace of small hand-built runs (sim/report/chrome_trace.hpp): the Trace Event
// Format's rules (tests/support/trace_event_rules.hpp), slice args with exact rates and the
// bounding link, utilisation counters at each change only, a flow arrow per cross-GPU
// dependency, and one set of processes per machine.
#include "sim/report/chrome_trace.hpp"

#include <gtest/gtest.h>

#include <set>

#include "sim/core/json_view.hpp"
#include "tests/support/trace_event_rules.hpp"

namespace linksim::report {
namespace {

using Ids = std::vector<engine::TaskId>;
using Shares = std::vector<engine::PathShare>;
using Channels = std::vector<engine::ChannelId>;

engine::RunOptions with_load() {
  engine::RunOptions o;
  o.record_channel_load = true;
  return o;
}

// The seed on NVLink 3 (300 GB/s): 0.1 s of backward on gpu0, 10 GB to gpu1 in 1/30 s, then
// 0.05 s of update on gpu1.
struct Seed {
  engine::Simulation sim{{300e9}, 2};
  engine::Timeline tl;
  engine::Names names{{"backward", "gradient", "update"}, {"gpu0", "gpu1"}, {"gpu0->gpu1"}};
  Seed() {
    const auto p = sim.add_path(Channels{0}, 0);
    const auto c = sim.add_compute(0, 0.1, Ids{});
    const auto x = sim.add_transfer(10e9, Shares{{p, 1.0}}, 0, 1, Ids{c});
    sim.add_compute(1, 0.05, Ids{x});
    tl = sim.run(with_load());
  }
};

std::vector<Json> events_with(const Json& trace, const std::string& ph) {
  std::vector<Json> out;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == ph) out.push_back(e);
  }
  return out;
}

const Json& slice_named(const Json& trace, const std::string& name, int pid) {
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == "X" && e["name"] == name && e["pid"] == pid) return e;
  }
  throw std::runtime_error("no slice " + name);
}

TEST(ChromeTrace, SeedFollowsTheFormatWithArgsCountersAndOneArrow) {
  Seed seed;
  const Json j = parse_json_text(to_chrome_trace(seed.sim, seed.tl, seed.names), "trace");
  const auto problems = testing::trace_event_problems(j);
  EXPECT_TRUE(problems.empty()) << problems.front();

  const Json& x = slice_named(j, "gradient", 1);
  EXPECT_EQ(x["tid"], 1000);
  EXPECT_EQ(x["args"]["bytes"].get<double>(), 10e9);
  EXPECT_EQ(x["args"]["from"], "gpu0");
  EXPECT_EQ(x["args"]["to"], "gpu1");
  EXPECT_EQ(x["args"]["rate"], "300 GB/s");
  EXPECT_DOUBLE_EQ(x["args"]["rate_Bps"].get<double>(), 300e9);
  EXPECT_EQ(x["args"]["link"], "gpu0->gpu1");
  EXPECT_DOUBLE_EQ(x["args"]["link_saturated_pct"].get<double>(), 100);

  // Saturated from the transfer's start to its end: two samples, nothing in between.
  const auto counters = events_with(j, "C");
  ASSERT_EQ(counters.size(), 2u);
  EXPECT_EQ(counters[0]["name"], "gpu0->gpu1");
  EXPECT_EQ(counters[0]["pid"], 3);
  EXPECT_EQ(counters[0]["ts"].get<double>(), seed.tl.task_start_s[1] * 1e6);
  EXPECT_EQ(counters[0]["args"]["utilisation %"].get<double>(), 100);
  EXPECT_EQ(counters[1]["ts"].get<double>(), seed.tl.task_end_s[1] * 1e6);
  EXPECT_EQ(counters[1]["args"]["utilisation %"].get<double>(), 0);

  // gradient (home gpu0) released update on gpu1: one arrow. backward -> gradient stays on gpu0.
  const auto starts = events_with(j, "s");
  const auto finishes = events_with(j, "f");
  ASSERT_EQ(starts.size(), 1u);
  ASSERT_EQ(finishes.size(), 1u);
  EXPECT_EQ(starts[0]["id"], finishes[0]["id"]);
  EXPECT_EQ(starts[0]["pid"], 1);
  EXPECT_EQ(starts[0]["tid"], 1000);
  EXPECT_EQ(finishes[0]["pid"], 2);
  EXPECT_EQ(finishes[0]["tid"], 0);
  EXPECT_EQ(finishes[0]["ts"].get<double>(), seed.tl.task_start_s[2] * 1e6);
}

TEST(ChromeTrace, UtilisationIsAShareOfCapacityAndTheLinkIsTheOneAtCapacity) {
  // T1: 10 GB over a (100 GB/s) then b (200 GB/s); T2: 5 GB over b alone, both at 0. Fair
  // shares: 100 GB/s each, so b is full until T2 ends at 0.05 s, then at half until 0.1 s.
  engine::Simulation sim({100e9, 200e9}, 2);
  const auto ab = sim.add_path(Channels{0, 1}, 0);
  const auto b = sim.add_path(Channels{1}, 0);
  sim.add_transfer(10e9, Shares{{ab, 1.0}}, 0, 1, Ids{});
  sim.add_transfer(5e9, Shares{{b, 1.0}}, 0, 1, Ids{});
  engine::RunOptions o = with_load();
  o.reuse_isolated_groups = false;
  const engine::Timeline tl = sim.run(o);
  const engine::Names names{{"t1", "t2"}, {"gpu0", "gpu1"}, {"a", "b"}};
  const Json j = parse_json_text(to_chrome_trace(sim, tl, names), "trace");
  const auto problems = testing::trace_event_problems(j);
  EXPECT_TRUE(problems.empty()) << problems.front();

  std::vector<std::pair<double, double>> on_a;
  std::vector<std::pair<double, double>> on_b;
  for (const auto& c : events_with(j, "C")) {
    (c["name"] == "a" ? on_a : on_b)
        .emplace_back(c["ts"].get<double>(), c["args"]["utilisation %"].get<double>());
  }
  using Series = std::vector<std::pair<double, double>>;
  EXPECT_EQ(on_a, (Series{{0, 100}, {1e5, 0}}));
  EXPECT_EQ(on_b, (Series{{0, 100}, {5e4, 50}, {1e5, 0}}));
  EXPECT_EQ(slice_named(j, "t1", 1)["args"]["link"], "a");
  EXPECT_EQ(slice_named(j, "t2", 1)["args"]["link"], "b");
  // b's one busy interval: 100% for half of it, 50% for the rest.
  for (const auto& s : events_with(j, "X")) {
    if (s["cat"] != "link" || s["tid"] != 1) continue;
    EXPECT_DOUBLE_EQ(s["args"]["mean_pct"].get<double>(), 75);
    EXPECT_DOUBLE_EQ(s["args"]["peak_pct"].get<double>(), 100);
    EXPECT_DOUBLE_EQ(s["args"]["bytes"].get<double>(), 15e9);
  }
}

TEST(ChromeTrace, EachMachineHasItsOwnProcesses) {
  Seed one;
  Seed two;
  const std::vector<TraceRun> runs = {{"m1", &one.sim, &one.tl, &one.names},
                                      {"m2", &two.sim, &two.tl, &two.names}};
  const Json j = parse_json_text(to_chrome_trace(runs), "trace");
  const auto problems = testing::trace_event_problems(j);
  EXPECT_TRUE(problems.empty()) << problems.front();
  std::map<int, std::string> processes;
  for (const auto& m : events_with(j, "M")) {
    if (m["name"] == "process_name") processes[m["pid"].get<int>()] = m["args"]["name"];
  }
  EXPECT_EQ(processes, (std::map<int, std::string>{{1, "m1: gpu0"},
                                                   {2, "m1: gpu1"},
                                                   {3, "m1: links"},
                                                   {4, "m2: gpu0"},
                                                   {5, "m2: gpu1"},
                                                   {6, "m2: links"}}));
  EXPECT_EQ(events_with(j, "s").size(), 2u);  // one arrow per machine, ids distinct (checked)
}

TEST(TraceEventRules, CatchWhatTheWriterMustNotDo) {
  // Each rule breaks on a trace that breaks it.
  const auto problems_of = [](const std::string& events) {
    return testing::trace_event_problems(
        parse_json_text(R"({"traceEvents": [)" + events + "]}", "trace"));
  };
  const std::string named =
      R"({"ph": "M", "name": "process_name", "pid": 1, "tid": 0, "args": {"name": "p"}},
         {"ph": "M", "name": "thread_name", "pid": 1, "tid": 0, "args": {"name": "t"}},)";
  EXPECT_TRUE(problems_of(named + R"({"ph": "X", "pid": 1, "tid": 0, "ts": 0, "dur": 1})").empty());
  EXPECT_FALSE(problems_of(named + R"({"ph": "Q", "pid": 1, "tid": 0, "ts": 0})").empty());
  EXPECT_FALSE(
      problems_of(named + R"({"ph": "X", "pid": 1, "tid": 0, "ts": 0, "dur": -1})").empty());
  EXPECT_FALSE(problems_of(named + R"({"ph": "B", "pid": 1, "tid": 0, "ts": 0})").empty());
  EXPECT_FALSE(
      problems_of(named + R"({"ph": "X", "pid": 2, "tid": 0, "ts": 0, "dur": 1})").empty());
  EXPECT_FALSE(
      problems_of(named + R"({"ph": "X", "pid": 1, "tid": 7, "ts": 0, "dur": 1})").empty());
  EXPECT_FALSE(
      problems_of(named +
                  R"({"ph": "C", "name": "c", "pid": 1, "tid": 0, "ts": 2, "args": {"v": 1}},
                                      {"ph": "C", "name": "c", "pid": 1, "tid": 0, "ts": 1, "args": {"v": 1}})")
          .empty());
  EXPECT_FALSE(
      problems_of(named +
                  R"({"ph": "C", "name": "c", "pid": 1, "tid": 0, "ts": 1, "args": {"v": "x"}})")
          .empty());
  const std::string slice = named + R"({"ph": "X", "pid": 1, "tid": 0, "ts": 0, "dur": 1},)";
  EXPECT_TRUE(problems_of(slice + R"({"ph": "s", "id": 1, "pid": 1, "tid": 0, "ts": 0},
                                     {"ph": "f", "bp": "e", "id": 1, "pid": 1, "tid": 0, "ts": 1})")
                  .empty());
  EXPECT_FALSE(problems_of(slice + R"({"ph": "s", "id": 1, "pid": 1, "tid": 0, "ts": 0})").empty());
  EXPECT_FALSE(problems_of(slice + R"({"ph": "s", "id": 1, "pid": 1, "tid": 0, "ts": 0},
                                      {"ph": "f", "bp": "e", "id": 1, "pid": 1, "tid": 0, "ts": 5})")
                   .empty());
}

}  // namespace
}  // namespace linksim::report
