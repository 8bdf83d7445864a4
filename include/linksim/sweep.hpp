#pragma once
// A grid of runs (docs/sweep-format.md): `linksim sweep FILE` as a call, on threads.
//
//   linksim::SweepOptions options;
//   options.grid = "scenarios/sweeps/llama-plans.json";
//   std::cout << linksim::run_sweep(options);
//
// Part of the installed C++ package (docs/cpp-api.md): standard headers only. Throws
// linksim::InputError for a bad grid, and for the first point (in grid order) that fails.

#include <string>

namespace linksim {

struct SweepOptions {
  // The grid file. Required.
  std::string grid;
  // "csv" (a header, then one line per point) or "json" (an array of row objects). Default
  // "csv".
  std::string format = "csv";
  // Points simulated at once. Default 0: one per core. The output is the same for any count.
  int threads = 0;
};

// One row per point in grid order, as `linksim sweep FILE --format F` writes it.
std::string run_sweep(const SweepOptions& options);

}  // namespace linksim
