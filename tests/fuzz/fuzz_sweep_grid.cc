// Sweep grids (sim/app/sweep_grid.cpp, docs/sweep-format.md): the schema, each dimension's
// values, the scenarios and machines a grid names (loaded to check them), and the points it
// makes. The input is written to a file of its own, as `linksim sweep FILE` reads one; the
// first and last points are taken apart as a sweep would take them.
#include <stdexcept>

#include "sim/app/sweep_grid.hpp"
#include "tests/fuzz/fuzz_guard.hpp"
#include "tests/fuzz/fuzz_input_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace linksim;
  const std::string text = fuzz::as_text(data, size);
  fuzz::expect_clean([&] {
    static const fuzz::InputFile file("sweep", "grid.json");
    const app::SweepGrid grid = app::load_sweep_grid(file.write(text));
    const std::size_t points = grid.point_count();
    if (points == 0 || points > app::kMaxSweepPoints) {
      throw std::logic_error("a grid that loads has between 1 and kMaxSweepPoints points");
    }
    (void)grid.point(0);
    (void)grid.point(points - 1);
  });
  return 0;
}
