#pragma once
// What `linksim run` and `linksim compare` print: a job's step breakdown for people, the same
// as JSON and CSV, and a side-by-side table of machines a planner can act on.

#include <string>
#include <vector>

#include "sim/core/json_view.hpp"
#include "sim/work/gradient_sync_sim.hpp"
#include "sim/work/job_sim.hpp"
#include "sim/work/plan_search.hpp"

namespace linksim::report {

std::string format_job(const work::JobResult& r, const work::Scenario& sc);
Json job_json(const work::JobResult& r, const work::Scenario& sc);
std::string jobs_csv(const std::vector<work::JobResult>& results, const work::Scenario& sc);
// One row per machine: step time, communication share, tokens/s, price per hour, cost per
// step and per million tokens.
std::string format_comparison(const std::vector<work::JobResult>& results,
                              const work::Scenario& sc);
// The seed's gradient example: simple model beside the simulated all-reduce, per machine.
std::string format_gradient_sync(const std::vector<work::GradientSyncResult>& results,
                                 const work::Scenario& sc);

// `linksim plan`: the `top` best plans, one row each with its split, and how many were
// enumerated, fitted and simulated; as JSON and CSV every simulated plan, best first.
std::string format_plans(const work::PlanSearchResult& result, const work::Scenario& sc,
                         std::size_t top);
Json plans_json(const work::PlanSearchResult& result, const work::Scenario& sc);
std::string plans_csv(const work::PlanSearchResult& result, const work::Scenario& sc);

}  // namespace linksim::report
