#pragma once
// The Trace Event Format's rules (the format Perfetto and chrome://tracing read), checked on a
// parsed trace, for tests of anything that writes one. Perfetto's own trace_processor fetches
// its engine at run time, which test machines cannot reach; these are the rules it applies that
// a writer can break:
// - every event is an object with a known phase ("ph"); every event but metadata has a
//   numeric, finite, non-negative "ts" and integer "pid" and "tid";
// - complete slices ("X") have "dur" >= 0; "B" and "E" balance per thread, in time order;
// - flow events ("s", "t", "f") carry an "id"; each id has one start and one finish, the finish
//   not before the start; a binding point "bp": "e" (and every "s" and "t") lies within a slice
//   on its thread, and a finish without it has a slice starting at or after it there;
// - counters ("C") carry a non-empty "args" object of finite numbers, and each counter series
//   (pid, name) comes in time order;
// - every pid used has a "process_name" metadata event, and every (pid, tid) with slices or
//   flow events a "thread_name" one.

#include <string>
#include <vector>

#include "sim/core/json_view.hpp"

namespace linksim::testing {

// Every rule the trace breaks, one line each (event index and what is wrong); empty when valid.
std::vector<std::string> trace_event_problems(const Json& trace);

}  // namespace linksim::testing
