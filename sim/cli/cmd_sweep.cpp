// `linksim sweep GRID`: every point of a grid of scenarios x machines x plans, or of nccl-tests
// sizes x machines (docs/sweep-format.md), one CSV or JSON row each, in the grid's order. On
// threads (-j), or under mpirun / srun over ranks (sweep_mpi.hpp): the same bytes either way.
#include <optional>
#include <string>

#include "sim/app/sweep_grid.hpp"
#include "sim/app/sweep_run.hpp"
#include "sim/cli/command_outputs.hpp"
#include "sim/cli/commands.hpp"
#include "sim/cli/jobs_option.hpp"
#include "sim/cli/progress.hpp"
#include "sim/cli/sweep_mpi.hpp"

namespace linksim::cli {
namespace {

struct SweepArgs {
  std::string grid;
  std::string output;
  std::string format = "csv";
  int jobs = 0;  // threads per process; 0: one per core (one per rank under MPI)
  bool force = false;
};

app::SweepFormat format_of(const SweepArgs& a) {
  return a.format == "json" ? app::SweepFormat::json : app::SweepFormat::csv;
}

void sweep_in_one_process(const SweepArgs& a) {
  CommandOutputs outputs(a.force);
  outputs.claim(a.output);
  const app::SweepGrid grid = app::load_sweep_grid(a.grid);
  Progress progress("sweep", "points", grid.point_count());
  const std::vector<std::string> rows = app::sweep_rows(
      grid, app::rank_points(grid.point_count(), 0, 1), format_of(a), a.jobs, progress.callback());
  progress.finish();
  outputs.put(a.output, app::sweep_output(grid, format_of(a), rows));
  outputs.write();
}

// Every rank reads the grid and runs its share; rank 0 alone claims and writes the output.
// A rank is one process of the launcher's choosing, so its threads default to one.
void sweep_over_ranks(const SweepArgs& a) {
  CommandOutputs outputs(a.force);
  std::optional<app::SweepGrid> grid;
  const std::vector<std::string> rows = gather_rows_over_ranks([&](int rank, int ranks) {
    if (rank == 0) outputs.claim(a.output);
    grid = app::load_sweep_grid(a.grid);
    return app::sweep_rows(*grid, app::rank_points(grid->point_count(), rank, ranks), format_of(a),
                           a.jobs > 0 ? a.jobs : 1);
  });
  outputs.put(a.output, app::sweep_output(*grid, format_of(a), rows));  // rank 0 only
  outputs.write();
}

}  // namespace

void register_sweep(CLI::App& app) {
  auto a = std::make_shared<SweepArgs>();
  auto* cmd = app.add_subcommand(
      "sweep",
      "Run a grid of scenarios x machines x nodes x plans, or of nccl-tests sizes x machines: "
      "one CSV or JSON row per point, in the grid's order (threads with -j; ranks under mpirun)");
  cmd->add_option("grid", a->grid, "Sweep grid file (docs/sweep-format.md)")->required();
  cmd->add_option("-o,--output", a->output, "Write the rows here instead of stdout (- is stdout)")
      ->check(output_file_name());
  cmd->add_option("--format", a->format, "csv or json")->check(CLI::IsMember({"csv", "json"}));
  cmd->add_flag("--force", a->force, "Overwrite the output file");
  add_jobs_option(cmd, a->jobs, "Points");
  add_quiet_flag(cmd);
  cmd->callback([a] {
    if (launched_by_mpi()) {
      sweep_over_ranks(*a);
    } else {
      sweep_in_one_process(*a);
    }
  });
}

}  // namespace linksim::cli
