#pragma once
// What `linksim run` and `linksim compare` print for a serving scenario
// (sim/work/serving.hpp): latencies, throughput and cost per machine, as text, JSON and CSV.

#include <string>
#include <vector>

#include "sim/core/json_view.hpp"
#include "sim/work/serving.hpp"

namespace linksim::report {

std::string format_serving(const work::ServingResult& r, const work::Scenario& sc);
// One row per machine: TTFT, TPOT and end-to-end p50/p99, tokens/s, $/Mtoken.
std::string format_serving_comparison(const std::vector<work::ServingResult>& results,
                                      const work::Scenario& sc);
Json serving_json(const work::ServingResult& r, const work::Scenario& sc);
std::string servings_csv(const std::vector<work::ServingResult>& results, const work::Scenario& sc);

}  // namespace linksim::report
