#include "sim/api/option_checks.hpp"

#include <fmt/format.h>

#include "sim/core/error.hpp"

namespace linksim::api {

void check_count(const std::string& option, int value, int unset, const std::string& unset_means,
                 int low, int high) {
  if (value == unset || (value >= low && value <= high)) return;
  throw InputError("", option,
                   fmt::format("expected {} ({}) or a whole number from {} to {}, got {}", unset,
                               unset_means, low, high, value));
}

void check_given(const std::string& option, const std::string& value, const std::string& example) {
  if (!value.empty()) return;
  throw InputError("", option, fmt::format("required, e.g. \"{}\"; got nothing", example));
}

}  // namespace linksim::api
