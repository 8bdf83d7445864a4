// Task graphs on the shipped 2x RTX 2080 Ti machine, through both readers: the full one
// (parse_task_graph) and the fast one that load_task_graph tries first. The fast reader must
// never take a graph that the full one refuses, nor build a different simulation.
#include <cstdint>
#include <optional>

#include "sim/core/json_view.hpp"
#include "sim/topo/loader.hpp"
#include "sim/work/task_graph.hpp"
#include "sim/work/task_graph_loops.hpp"
#include "sim/work/task_graph_placement.hpp"
#include "tests/fuzz/fuzz_guard.hpp"

namespace {

// A graph whose loops expand beyond these many tasks or dependencies only costs the fuzzer
// time and memory (a million tasks read twice under ASan can pass libFuzzer's 10 s and 2 GB
// limits); the loader's own bounds (10 million tasks, 50 million dependencies) are held by
// tests/work/task_graph_repeat_test.cpp. Such inputs are skipped. Loops that cannot be read are
// left to the loader, which must refuse them cleanly.
constexpr std::uint64_t kMostFuzzedTasks = 100'000;
constexpr std::uint64_t kMostFuzzedDeps = 1'000'000;

bool expands_beyond_fuzz_limit(const std::string& text) {
  using namespace linksim;
  try {
    const Json doc = parse_json_text(text, "fuzz.json");
    const JsonView root(doc, "fuzz.json");
    if (!root.is_object() || !root.has("tasks") || !root.at("tasks").is_array()) return false;
    std::uint64_t tasks = 0;
    std::uint64_t deps = 0;
    for (const JsonView& task : root.at("tasks").elements()) {
      if (!task.is_object()) continue;
      std::uint64_t copies = 1;
      std::optional<work::detail::Loops> loops;
      if (task.has("for")) {
        loops = work::detail::read_loops(task.at("for"));
        copies = loops->count();
        tasks = work::detail::saturating_sum(tasks, copies);
      }
      if (!task.has("deps") || !task.at("deps").is_array()) continue;
      for (const JsonView& d : task.at("deps").elements()) {
        const std::uint64_t per_copy =
            d.is_object() && d.has("for")
                ? work::detail::read_loops(d.at("for"), loops ? &*loops : nullptr).count()
                : 1;
        deps =
            work::detail::saturating_sum(deps, work::detail::saturating_product(copies, per_copy));
      }
    }
    return tasks > kMostFuzzedTasks || deps > kMostFuzzedDeps;
  } catch (const InputError&) {
    return false;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace linksim;
  static const topo::Topology machine = topo::load_topology("rtx2080ti-2x");
  const std::string text = fuzz::as_text(data, size);
  if (expands_beyond_fuzz_limit(text)) return 0;
  fuzz::expect_clean([&] {
    const Json doc = parse_json_text(text, "fuzz.json");
    work::parse_task_graph(doc, "fuzz.json", machine);
  });
  fuzz::expect_clean([&] { work::read_task_graph_text(text, "fuzz.json", machine); });
  if (auto fast = work::detail::read_valid_task_graph(text, machine, work::LinkRates::line)) {
    // Outside expect_clean: an InputError here escapes, and libFuzzer reports it.
    const work::TaskGraph full =
        work::parse_task_graph(parse_json_text(text, "fuzz.json"), "fuzz.json", machine);
    if (full.simulation.task_count() != fast->simulation.task_count() ||
        full.task_names != fast->task_names) {
      __builtin_trap();
    }
  }
  return 0;
}
