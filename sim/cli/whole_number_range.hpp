#pragma once
// A check for an integer option, worded for what is wrong: "abc" and "1.5" are not whole
// numbers, which CLI::Range reports as "Value abc not in range 1 to 1024".

#include <CLI/CLI.hpp>

namespace linksim::cli {

// Accepts a whole number (decimal digits, an optional sign) from `lo` to `hi`; anything else
// fails as "expected a whole number from LO to HI, got "TEXT"", which CLI11 prefixes with the
// option's name ("--jobs: ...").
CLI::Validator whole_number_range(long long lo, long long hi);

}  // namespace linksim::cli
