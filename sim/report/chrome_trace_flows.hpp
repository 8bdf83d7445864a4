#pragma once
// The dependencies a trace draws as flow arrows: those whose two ends are on different GPUs.
//
// A task is drawn on its home GPU: a compute task on its GPU; a transfer on its source GPU, or
// its destination where the source is no GPU (a copy from host memory). Delays and barriers
// have no home: a dependency through them counts from the homed task behind them that ended
// last (the one that released the dependent), so a collective's closing barrier becomes one
// arrow from its last transfer, not one from each.

#include <utility>
#include <vector>

#include "sim/engine/simulation.hpp"
#include "sim/engine/timeline.hpp"

namespace linksim::report {

// The GPU a trace draws `task` on, or engine::kNoGpu.
int home_gpu(const engine::Simulation& sim, engine::TaskId task);

// (from, to) pairs of homed tasks on different GPUs where `to` depends on `from`, directly or
// through tasks without a home; ordered by `to`, then `from`, without repeats.
// REQUIRES: `timeline` has task end times.
std::vector<std::pair<engine::TaskId, engine::TaskId>> cross_gpu_dependencies(
    const engine::Simulation& sim, const engine::Timeline& timeline);

}  // namespace linksim::report
