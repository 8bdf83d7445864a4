// Task graphs on the shipped 2x RTX 2080 Ti machine, through both readers: the full one
// (parse_task_graph) and the fast one that load_task_graph tries first. The fast reader must
// never take a graph that the full one refuses, nor build a different simulation.
#include "sim/core/json_view.hpp"
#include "sim/topo/loader.hpp"
#include "sim/work/task_graph.hpp"
#include "sim/work/task_graph_placement.hpp"
#include "tests/fuzz/fuzz_guard.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace linksim;
  static const topo::Topology machine = topo::load_topology("rtx2080ti-2x");
  const std::string text = fuzz::as_text(data, size);
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
