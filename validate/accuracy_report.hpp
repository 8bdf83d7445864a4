#pragma once
// docs/ACCURACY.md: prediction against measurement, per reference set and size.

#include <string>
#include <vector>

#include "validate/accuracy.hpp"

namespace linksim::validate {

std::string format_accuracy_markdown(const std::vector<AccuracySet>& sets);

}  // namespace linksim::validate
