#pragma once
// Communication kernels take SMs from concurrent compute (one CTA per NCCL channel): compute
// overlapped with communication runs at (1 - share) of its speed, share = channels / SMs by
// default. Overlap is only known once the job has run, so the job runs twice: once to find how
// much of each compute task overlaps communication, once with that part slowed.

#include <optional>
#include <utility>
#include <vector>

#include "sim/engine/simulation.hpp"
#include "sim/engine/timeline.hpp"
#include "sim/topo/topology.hpp"
#include "sim/work/comm_record.hpp"

namespace linksim::work {

// The SM share communication takes: the scenario's, else the job's most channels over the
// GPU's SMs, at most one half (0 when the GPU's SM count is unknown).
double comm_sm_share(std::optional<double> given, int max_channels, const topo::GpuModel& gpu);

// Fraction of each compute task's time that communication on its GPU overlapped, with
// communication as the engine's accounting defines it (the whole span of a collective the GPU
// takes part in: its kernel holds SMs from launch to end). `tasks`: (task, rank) pairs;
// `gpu_of_rank`: engine GPU index by rank.
std::vector<double> overlap_fractions(const engine::Simulation& sim, const engine::Timeline& tl,
                                      const std::vector<CommRecord>& records,
                                      const std::vector<std::pair<engine::TaskId, int>>& tasks,
                                      const std::vector<int>& gpu_of_rank);

// Per compute task, the factor its time grows by: its overlapped fraction runs at (1 - share).
std::vector<double> compute_slowdowns(const std::vector<double>& overlap_fractions, double share);

// Pass 2's graph. Compute task `tasks[k].first` takes `scale[k]` times its duration (the last
// entry wins where a task appears twice); every other task keeps its amount.
//
// with_compute_scaled (the old way, kept as the reference the tests hold the new one to): a copy
// of `sim` with those durations, the same channels, paths and tasks in the same order, each
// amount `sim.amount(t) * factor[t]` with factor 1.0 for the tasks not listed.
engine::Simulation with_compute_scaled(const engine::Simulation& sim,
                                       const std::vector<std::pair<engine::TaskId, int>>& tasks,
                                       const std::vector<double>& scale);
// scale_compute_in_place: the same durations set in `sim` itself, without copying 1.3M tasks.
// Bit for bit the graph the copy makes, as far as a run can tell: each listed task gets
// `amount * factor` from the same two doubles in the same order (one IEEE product, so the same
// bits), the others keep `amount`, which the copy's `amount * 1.0` equals exactly; channels,
// paths and dependencies are untouched, and the copy renumbers path sets one to one (equal ids
// stay equal, distinct stay distinct), which is all a run compares them by (group replay).
void scale_compute_in_place(engine::Simulation& sim,
                            const std::vector<std::pair<engine::TaskId, int>>& tasks,
                            const std::vector<double>& scale);

}  // namespace linksim::work
