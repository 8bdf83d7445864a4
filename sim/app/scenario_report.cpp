#include "sim/app/scenario_report.hpp"

#include "sim/core/json_view.hpp"
#include "sim/report/job_report.hpp"
#include "sim/report/serving_report.hpp"

namespace linksim::app {

std::string scenario_runs_json(const ScenarioRuns& runs) {
  Json all = Json::array();
  if (runs.serving()) {
    for (const auto& r : runs.servings)
      all.push_back(report::serving_json(r, runs.scenario));
  } else {
    for (const auto& j : runs.jobs)
      all.push_back(report::job_json(j, runs.scenario));
  }
  return all.dump(2) + "\n";
}

}  // namespace linksim::app
