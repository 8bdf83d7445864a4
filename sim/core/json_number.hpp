#pragma once
// A JSON number written in units::exact's shortest round-trip form, so that --format json output
// is byte-stable across runs.

#include <cmath>
#include <nlohmann/json.hpp>

#include "sim/core/units.hpp"

namespace linksim {

// JSON has no inf or NaN: a value that is not finite becomes null, and a caller that can meet
// one writes the reason beside it (accuracy's "error_note").
inline nlohmann::ordered_json exact_json_number(double value) {
  if (!std::isfinite(value)) return nullptr;
  return nlohmann::ordered_json::parse(units::exact(value));
}

}  // namespace linksim
