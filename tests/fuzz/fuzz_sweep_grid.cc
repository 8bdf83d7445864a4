// Sweep grids (sim/app/sweep_grid.cpp, docs/sweep-format.md): the schema, each dimension's
// values, the scenarios and machines a grid names (loaded to check them), and the points it
// makes. The input is written to a file of its own, as `linksim sweep FILE` reads one; the
// first and last points are taken apart as a sweep would take them.
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "sim/app/sweep_grid.hpp"
#include "tests/fuzz/fuzz_guard.hpp"

namespace {

// A folder of this process's own, made on the first input and removed at exit: grid.json is
// rewritten for every input.
class GridFolder {
 public:
  GridFolder()
      : dir_(std::filesystem::temp_directory_path() /
             ("linksim-fuzz-sweep-" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(dir_);
  }
  ~GridFolder() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  GridFolder(const GridFolder&) = delete;
  GridFolder& operator=(const GridFolder&) = delete;
  std::string file() const { return (dir_ / "grid.json").string(); }

 private:
  std::filesystem::path dir_;
};

const std::string& grid_file() {
  static const GridFolder folder;
  static const std::string path = folder.file();
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace linksim;
  const std::string text = fuzz::as_text(data, size);
  fuzz::expect_clean([&] {
    { std::ofstream(grid_file(), std::ios::binary | std::ios::trunc) << text; }
    const app::SweepGrid grid = app::load_sweep_grid(grid_file());
    const std::size_t points = grid.point_count();
    if (points == 0 || points > app::kMaxSweepPoints) {
      throw std::logic_error("a grid that loads has between 1 and kMaxSweepPoints points");
    }
    (void)grid.point(0);
    (void)grid.point(points - 1);
  });
  return 0;
}
