#pragma once
// The measurements file `linksim calibrate` writes beside the machine: devices and records as
// JSON (SI units, keys with the unit: "size_bytes", "time_s", "bandwidth_Bps"), readable back.

#include <string>
#include <vector>

#include "calibrate/probe.hpp"
#include "sim/core/json_view.hpp"

namespace linksim::calibrate {

Json measurements_to_json(const ProbeResult& result, const std::string& date);
// Throws InputError naming the file and JSON pointer for a malformed file.
ProbeResult measurements_from_json(const Json& document, const std::string& file);

}  // namespace linksim::calibrate
