// linksim: simulate multi-GPU communication cost on a described machine.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>

#include "sim/cli/commands.hpp"
#include "sim/core/error.hpp"

int main(int argc, char** argv) {
  CLI::App app{
      "linksim: predicts how long multi-GPU communication takes on a given machine, and how a "
      "step splits into compute, communication and exposed communication."};
  app.set_version_flag("--version", std::string("linksim ") + LINKSIM_VERSION);
  app.require_subcommand(1);
  linksim::cli::register_topo(app);
  linksim::cli::register_run_graph(app);
  linksim::cli::register_nccl_tests(app);
  linksim::cli::register_copy_bench(app);
  linksim::cli::register_accuracy(app);
  linksim::cli::register_run(app);
  linksim::cli::register_compare(app);
  linksim::cli::register_calibrate(app);
  linksim::cli::register_fit(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const linksim::InputError& e) {
    fmt::print(stderr, "linksim: error: {}\n", e.what());
    return linksim::kInputErrorExitCode;
  } catch (const std::exception& e) {
    fmt::print(stderr, "linksim: internal error: {}\n", e.what());
    return 1;
  }
  return 0;
}
