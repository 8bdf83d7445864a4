#pragma once
// Runs gnuplot on a script that writes `<png>.tmp`, then moves it into place: the picture
// appears whole or not at all. Throws InputError when gnuplot is missing or fails.

#include <string>

namespace linksim::cli {

void run_gnuplot(const std::string& script, const std::string& png_path, bool force);

}  // namespace linksim::cli
