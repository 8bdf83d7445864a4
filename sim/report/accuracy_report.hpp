#pragma once
// docs/ACCURACY.md: prediction against measurement, per reference set and size.

#include <string>
#include <vector>

#include "sim/coll/accuracy.hpp"

namespace linksim::report {

std::string format_accuracy_markdown(const std::vector<coll::AccuracySet>& sets);

}  // namespace linksim::report
