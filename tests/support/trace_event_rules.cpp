#include "tests/support/trace_event_rules.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>
#include <utility>

namespace linksim::testing {
namespace {

const std::set<std::string> kPhases = {"B", "E", "X", "i", "I", "C", "b", "n", "e", "s",
                                       "t", "f", "M", "P", "N", "O", "D", "R", "c"};

bool is_integer(const Json& v) {
  return v.is_number_integer() || v.is_number_unsigned();
}
bool is_finite_number(const Json& v) {
  return v.is_number() && std::isfinite(v.get<double>());
}

using Thread = std::pair<long long, long long>;  // (pid, tid)

struct Slice {
  double start = 0;
  double end = 0;
};

}  // namespace

std::vector<std::string> trace_event_problems(const Json& trace) {
  std::vector<std::string> problems;
  const auto problem = [&](std::size_t i, const std::string& what) {
    problems.push_back(fmt::format("event {}: {}", i, what));
  };
  if (!trace.is_object() || !trace.contains("traceEvents") || !trace["traceEvents"].is_array()) {
    return {"no traceEvents array"};
  }
  const Json& events = trace["traceEvents"];
  std::set<long long> named_pids;
  std::set<Thread> named_threads;
  std::set<long long> used_pids;
  std::set<Thread> used_threads;
  std::map<Thread, std::vector<Slice>> slices;
  std::map<Thread, std::vector<std::pair<double, std::string>>> begin_end;  // B/E in file order
  std::map<std::pair<long long, std::string>, double> counter_last_ts;
  struct FlowEnd {
    std::size_t index;
    std::string phase;
    Thread thread;
    double ts;
    bool enclosing;  // bound to the enclosing slice (else: the next slice)
  };
  std::map<std::string, std::vector<FlowEnd>> flows;

  for (std::size_t i = 0; i < events.size(); ++i) {
    const Json& e = events[i];
    if (!e.is_object() || !e.contains("ph") || !e["ph"].is_string()) {
      problem(i, "not an object with a string ph");
      continue;
    }
    const std::string ph = e["ph"].get<std::string>();
    if (!kPhases.count(ph)) {
      problem(i, "unknown phase " + ph);
      continue;
    }
    if (!e.contains("pid") || !is_integer(e["pid"]) || !e.contains("tid") ||
        !is_integer(e["tid"])) {
      problem(i, "pid and tid must be integers");
      continue;
    }
    const long long pid = e["pid"].get<long long>();
    const Thread thread{pid, e["tid"].get<long long>()};
    if (ph == "M") {
      const std::string name = e.value("name", "");
      const bool named =
          e.contains("args") && e["args"].contains("name") && e["args"]["name"].is_string();
      if (name == "process_name") {
        if (!named) problem(i, "process_name without args.name");
        named_pids.insert(pid);
      } else if (name == "thread_name") {
        if (!named) problem(i, "thread_name without args.name");
        named_threads.insert(thread);
      }
      continue;
    }
    if (!e.contains("ts") || !is_finite_number(e["ts"]) || e["ts"].get<double>() < 0) {
      problem(i, "ts must be a finite number >= 0");
      continue;
    }
    const double ts = e["ts"].get<double>();
    used_pids.insert(pid);
    if (ph == "X") {
      if (!e.contains("dur") || !is_finite_number(e["dur"]) || e["dur"].get<double>() < 0) {
        problem(i, "X without a finite dur >= 0");
        continue;
      }
      slices[thread].push_back({ts, ts + e["dur"].get<double>()});
      used_threads.insert(thread);
    } else if (ph == "B" || ph == "E") {
      begin_end[thread].emplace_back(ts, ph);
      used_threads.insert(thread);
    } else if (ph == "C") {
      if (!e.contains("args") || !e["args"].is_object() || e["args"].empty()) {
        problem(i, "counter without args");
      } else {
        for (const auto& [k, v] : e["args"].items()) {
          if (!is_finite_number(v)) problem(i, "counter arg " + k + " is not a finite number");
        }
      }
      const auto key = std::make_pair(pid, e.value("name", std::string()));
      const auto it = counter_last_ts.find(key);
      if (it != counter_last_ts.end() && ts < it->second) {
        problem(i, "counter " + key.second + " goes back in time");
      }
      counter_last_ts[key] = ts;
    } else if (ph == "s" || ph == "t" || ph == "f") {
      if (!e.contains("id") || !(is_integer(e["id"]) || e["id"].is_string())) {
        problem(i, "flow event without an id");
        continue;
      }
      const std::string id = e["id"].is_string() ? e["id"].get<std::string>() : e["id"].dump();
      const bool enclosing = ph != "f" || e.value("bp", "") == "e";
      flows[id].push_back({i, ph, thread, ts, enclosing});
      used_threads.insert(thread);
    }
  }

  for (auto& [thread, v] : begin_end) {
    std::stable_sort(v.begin(), v.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    int depth = 0;
    for (const auto& [ts, ph] : v) {
      depth += ph == "B" ? 1 : -1;
      if (depth < 0) break;
    }
    if (depth != 0) {
      problems.push_back(
          fmt::format("thread {}/{}: B and E do not balance", thread.first, thread.second));
    }
  }
  for (const auto& flow : flows) {
    const std::string& id = flow.first;
    const std::vector<FlowEnd>& ends = flow.second;
    const auto count = [&](const char* ph) {
      return std::count_if(ends.begin(), ends.end(),
                           [&](const FlowEnd& f) { return f.phase == ph; });
    };
    if (count("s") != 1 || count("f") != 1) {
      problems.push_back(
          fmt::format("flow {}: {} starts and {} finishes", id, count("s"), count("f")));
      continue;
    }
    double start_ts = 0;
    double finish_ts = 0;
    for (const FlowEnd& f : ends) {
      if (f.phase == "s") start_ts = f.ts;
      if (f.phase == "f") finish_ts = f.ts;
      const auto it = slices.find(f.thread);
      const bool bound = it != slices.end() &&
                         std::any_of(it->second.begin(), it->second.end(), [&](const Slice& s) {
                           return f.enclosing ? s.start <= f.ts && f.ts <= s.end : s.start >= f.ts;
                         });
      if (!bound) {
        problems.push_back(fmt::format("event {}: flow {} binds to no slice on {}/{}", f.index, id,
                                       f.thread.first, f.thread.second));
      }
    }
    if (finish_ts < start_ts)
      problems.push_back(fmt::format("flow {}: finishes before it starts", id));
  }
  for (long long pid : used_pids) {
    if (!named_pids.count(pid)) problems.push_back(fmt::format("pid {} has no process_name", pid));
  }
  for (const Thread& t : used_threads) {
    if (!named_threads.count(t)) {
      problems.push_back(fmt::format("thread {}/{} has no thread_name", t.first, t.second));
    }
  }
  return problems;
}

}  // namespace linksim::testing
