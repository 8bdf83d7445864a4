#pragma once
// A run as a Chrome trace (Trace Event Format JSON), for Perfetto or chrome://tracing.
// Each GPU is a process with its compute and communication on threads (overlapping work goes
// to extra lanes, so slices never overlap on one thread); each channel that carried data is a
// thread of a "links" process, with a slice per busy interval. Times in microseconds.

#include <string>

#include "sim/engine/simulation.hpp"
#include "sim/engine/summary.hpp"

namespace linksim::report {

// REQUIRES: `timeline` recorded intervals.
std::string to_chrome_trace(const engine::Simulation& sim, const engine::Timeline& timeline,
                            const engine::Names& names);

}  // namespace linksim::report
