// Model files.
#include "sim/core/json_view.hpp"
#include "sim/work/model.hpp"
#include "tests/fuzz/fuzz_guard.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace linksim;
  fuzz::expect_clean([&] {
    const Json doc = parse_json_text(fuzz::as_text(data, size), "fuzz.json");
    work::parse_model(doc, "fuzz.json", "fuzz");
  });
  return 0;
}
