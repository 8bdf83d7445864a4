// linksim::run_sweep (include/linksim/sweep.hpp): sim/app's sweep on threads.
#include <linksim/sweep.hpp>

#include "sim/api/option_checks.hpp"
#include "sim/app/sweep_grid.hpp"
#include "sim/app/sweep_run.hpp"
#include "sim/core/error.hpp"

namespace linksim {

std::string run_sweep(const SweepOptions& options) {
  api::check_given("SweepOptions::grid", options.grid, "scenarios/sweeps/llama-plans.json");
  if (options.format != "csv" && options.format != "json") {
    throw InputError("", "SweepOptions::format",
                     "expected \"csv\" or \"json\", got \"" + options.format + "\"");
  }
  api::check_count("SweepOptions::threads", options.threads, 0, "one per core", 1, 1024);
  const app::SweepGrid grid = app::load_sweep_grid(options.grid);
  return app::run_sweep(grid,
                        options.format == "json" ? app::SweepFormat::json : app::SweepFormat::csv,
                        options.threads);
}

}  // namespace linksim
