#pragma once
// A sweep's points run on threads, and its output put together: what `linksim sweep` does in
// one process, and what each MPI rank does with its share (sim/cli/sweep_mpi.hpp). The output
// depends only on the grid and the format, never on the thread or rank count: rows are placed
// by point index, and the error reported is the first failing point's in grid order.
//
//   const app::SweepGrid grid = app::load_sweep_grid("scenarios/sweeps/llama-plans.json");
//   std::cout << app::run_sweep(grid, app::SweepFormat::csv, /*threads=*/0);

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "sim/app/sweep_grid.hpp"
#include "sim/app/sweep_point.hpp"

namespace linksim::app {

// Points a rank of `ranks` takes, rank r: r, r + ranks, r + 2 ranks, ... (round robin, so
// neighbouring points, often of similar cost, spread over the ranks). Empty for a rank beyond
// the point count.
std::vector<std::size_t> rank_points(std::size_t point_count, int rank, int ranks);

// The rows of `points` (sweep_row), in the order given, on `threads` threads (0: one per
// core). `progress(done, total)` after each point; may be empty. Throws the SweepPointFailed of
// the first failing point in the order given.
std::vector<std::string> sweep_rows(
    const SweepGrid& grid, const std::vector<std::size_t>& points, SweepFormat format, int threads,
    const std::function<void(std::size_t, std::size_t)>& progress = {});

// The output for every point's row in point order: the CSV header then the lines, or a JSON
// array of the row objects indented by 2, newline-terminated.
std::string sweep_output(const SweepGrid& grid, SweepFormat format,
                         const std::vector<std::string>& rows);

// Every point on `threads` threads, then sweep_output.
std::string run_sweep(const SweepGrid& grid, SweepFormat format, int threads);

}  // namespace linksim::app
