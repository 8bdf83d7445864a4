#pragma once
// A JSON number written in units::exact's shortest round-trip form, so that --format json output
// is byte-stable across runs.

#include <nlohmann/json.hpp>

#include "sim/core/units.hpp"

namespace linksim {

inline nlohmann::ordered_json exact_json_number(double value) {
  return nlohmann::ordered_json::parse(units::exact(value));
}

}  // namespace linksim
