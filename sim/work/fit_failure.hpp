#pragma once
// What a plan that does not fit is told: the memory breakdown, then the smallest plan that fits
// and that this machine can run, or how many GPUs the job needs.

#include <string>

#include "sim/topo/topology.hpp"
#include "sim/work/memory.hpp"
#include "sim/work/model.hpp"
#include "sim/work/scenario.hpp"

namespace linksim::work {

std::string does_not_fit_message(const topo::Topology& machine, const ModelSpec& model,
                                 const Scenario& sc, const topo::GpuModel& gpu,
                                 const FitResult& fit);

}  // namespace linksim::work
