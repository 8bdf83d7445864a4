#pragma once
// `-j,--jobs N` for a command whose cases are independent (compare's machines, plan's
// candidates): N threads, default one per core, with output byte-identical to `--jobs 1`
// (sim/core/parallel_cases.hpp). Worded as nccl-tests' `--jobs`.

#include <CLI/CLI.hpp>
#include <string>

namespace linksim::cli {

// Adds `-j,--jobs N` to `cmd`, writing into `threads` (left at 0: one per core). `cases` names
// what runs at once, capitalised: "Machines", "Plans".
void add_jobs_option(CLI::App* cmd, int& threads, const std::string& cases);

}  // namespace linksim::cli
