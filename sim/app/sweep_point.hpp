#pragma once
// One point of a sweep grid (sim/app/sweep_grid.hpp) run as the command it stands for, and its
// row: `linksim run SCENARIO -t MACHINE --nodes N` with the point's plan fields (the row holds
// `run --format csv`'s figures, or `--format json`'s object), or `linksim nccl-tests` of one size
// (the out-of-place time and bandwidths). No simulation happens here: sim/app's run_scenario and
// simulate_nccl_tests do it, so a row and the command agree by construction.

#include <cstddef>
#include <string>

#include "sim/app/sweep_grid.hpp"
#include "sim/core/error.hpp"

namespace linksim::app {

enum class SweepFormat { csv, json };

// A point that could not run: the InputError at the grid's file and "/grid", naming the point
// and carrying the cause's words, with the point's index (the first failing index in grid order
// is the one a sequential run reports, on any number of threads or ranks).
class SweepPointFailed : public InputError {
 public:
  SweepPointFailed(std::size_t point, std::string file, std::string location, std::string message)
      : InputError(std::move(file), std::move(location), std::move(message)), point_(point) {}
  std::size_t point() const { return point_; }

 private:
  std::size_t point_;
};

// The CSV header line (with its newline): the grid's dimensions in order, then the figures.
std::string sweep_csv_header(const SweepGrid& grid);

// Point `index`'s row: a CSV line with its newline, or a JSON object on one line (no newline).
// A plan that does not fit the machine's memory is a row (status "does not fit" and the reason,
// as `linksim compare` reports it); any other InputError is thrown as SweepPointFailed.
// Thread-safe: points share nothing but the grid, which they only read.
std::string sweep_row(const SweepGrid& grid, std::size_t index, SweepFormat format);

}  // namespace linksim::app
