#pragma once
// An engine::Summary as text: a table for people, JSON and CSV for programs. Numbers in JSON and
// CSV are written with units::exact (shortest round-trip form), so equal runs give equal bytes.

#include <string>

#include "sim/engine/summary.hpp"

namespace linksim::report {

std::string to_table(const engine::Summary& summary);
std::string to_json(const engine::Summary& summary);
// Long format, one value per row: section,name,field,value (e.g. "gpu,gpu0,comm_s,0.3125").
std::string to_csv(const engine::Summary& summary);

}  // namespace linksim::report
