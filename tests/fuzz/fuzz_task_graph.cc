// Task graphs on the shipped 2x RTX 2080 Ti machine.
#include "sim/core/json_view.hpp"
#include "sim/topo/loader.hpp"
#include "sim/work/task_graph.hpp"
#include "tests/fuzz/fuzz_guard.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace linksim;
  static const topo::Topology machine = topo::load_topology("rtx2080ti-2x");
  fuzz::expect_clean([&] {
    const Json doc = parse_json_text(fuzz::as_text(data, size), "fuzz.json");
    work::parse_task_graph(doc, "fuzz.json", machine);
  });
  return 0;
}
