#pragma once
// `linksim accuracy` for programs (--format json|csv): every reference set and row of
// docs/ACCURACY.md at full precision, in SI units, numbers in their shortest round-trip form.
//
// JSON: [{"name", "topology", "topology_file", "source", "note", "median_abs_error",
//   "max_abs_error", "rows": [{"op", "size_bytes", "measured_busbw_Bps", "predicted_busbw_Bps",
//   "error" (predicted / measured - 1), "choice", "counted", and "error_note" where "error" is
//   null: a measured busbw of 0}]}]. JSON has no inf, so no row's error is one.
// CSV: one line per row, "set,topology,op,size_bytes,measured_busbw_Bps,predicted_busbw_Bps,
//   error,choice,counted,error_note" (error "n/a" where the note says why).

#include <string>
#include <vector>

#include "validate/accuracy.hpp"

namespace linksim::validate {

std::string accuracy_json(const std::vector<AccuracySet>& sets);
std::string accuracy_csv(const std::vector<AccuracySet>& sets);

}  // namespace linksim::validate
