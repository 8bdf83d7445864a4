#pragma once
// Plain advice derived from a simulated result: said only when the numbers support it.

#include <string>
#include <vector>

namespace linksim::work {

struct JobResult;
struct Scenario;

std::vector<std::string> advise(const JobResult& result, const Scenario& scenario);

}  // namespace linksim::work
