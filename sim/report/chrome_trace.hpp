#pragma once
// A run as a Chrome trace (Trace Event Format JSON), for Perfetto or chrome://tracing; what it
// holds is docs/traces.md's. In short, per machine:
// - each GPU is a process with its compute, its communication and (for jobs) the operations
//   its communication belongs to on threads (overlapping work goes to extra lanes, so slices
//   never overlap on one thread); every slice carries args: bytes, rate, the link that bound
//   it, the collective's group, algorithm, protocol and channels, the layer of a compute;
// - flow arrows join a task to the one it released on another GPU;
// - a "links" process has a thread per channel that carried data, with a slice per busy
//   interval, and a counter per channel: percent of its capacity in use, at each change.
// Several machines each get their own processes (pids in ranges that do not overlap, names
// prefixed with the machine). Times in microseconds. Deterministic: the same runs, the same
// bytes.

#include <span>
#include <string>

#include "sim/engine/names.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/engine/timeline.hpp"

namespace linksim::report {

// One machine's run. Utilisation counters and bounding links need the channels' load
// (engine::RunOptions::record_channel_load); flow arrows and operations need task times.
struct TraceRun {
  std::string machine;  // prefixes process names ("dgx-a100: gpu0"); "" for none
  const engine::Simulation* simulation = nullptr;
  const engine::Timeline* timeline = nullptr;
  const engine::Names* names = nullptr;
};

// REQUIRES: every run's timeline recorded intervals; pointers set.
std::string to_chrome_trace(std::span<const TraceRun> runs);

// One run, its process names unprefixed.
std::string to_chrome_trace(const engine::Simulation& sim, const engine::Timeline& timeline,
                            const engine::Names& names);

}  // namespace linksim::report
