#pragma once
// Copying an engine graph: the same tasks, paths and channels in the same order, so that the
// copy runs exactly as the original, with new durations where the caller gives them. A job
// reruns its graph with SM-slowed compute (job_sim.cpp) and copies a recorded collective at
// every repeat (recorded_collective.hpp) this way.

#include <functional>
#include <span>

#include "sim/engine/simulation.hpp"

namespace linksim::work {

// Appends `from` to `to`: `from`'s channels past the first `shared_channels` (which both
// simulations share, ids unchanged) as new channels of `to`, every path up to the last one a
// task uses, and every task in order, `amount(t)` giving task t's duration or bytes. `from`'s
// first task also waits for `first_deps`. Returns the id in `to` of `from`'s task 0.
engine::TaskId append_graph(const engine::Simulation& from, std::size_t shared_channels,
                            engine::Simulation& to, std::span<const engine::TaskId> first_deps,
                            const std::function<double(engine::TaskId)>& amount);

// A new simulation with `from`'s channels, GPUs and graph, task t taking `amount(t)`.
engine::Simulation copy_graph(const engine::Simulation& from,
                              const std::function<double(engine::TaskId)>& amount);

}  // namespace linksim::work
