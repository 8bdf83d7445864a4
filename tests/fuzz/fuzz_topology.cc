// Topology files: JSON parsing (depth, number overflow) and the loader with its templates.
#include "sim/core/json_view.hpp"
#include "sim/topo/loader.hpp"
#include "tests/fuzz/fuzz_guard.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace linksim;
  fuzz::expect_clean([&] {
    const Json doc = parse_json_text(fuzz::as_text(data, size), "fuzz.json");
    topo::parse_topology(doc, "fuzz.json");
  });
  return 0;
}
