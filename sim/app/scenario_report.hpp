#pragma once
// The JSON report of a scenario's runs, as `linksim run --format json` and `linksim compare
// --format json` print it: what a program (the Python binding) reads instead of the table.

#include <string>

#include "sim/app/scenario_run.hpp"

namespace linksim::app {

// A JSON array, one object per machine in the order run (report::serving_json for a serving
// scenario, else report::job_json), indented by 2 and newline-terminated: the CLI's bytes.
std::string scenario_runs_json(const ScenarioRuns& runs);

}  // namespace linksim::app
