#pragma once
// Loading the CUDA probe module (liblinksim_cuda_probe.so, built beside the linksim binary when
// nvcc is found) at run time, so only `linksim calibrate` pays for the CUDA libraries.

#include <memory>
#include <string>

#include "calibrate/probe.hpp"

namespace linksim::calibrate {

// The module is looked for in $LINKSIM_CUDA_PROBE (a path), else beside the running binary.
// nullptr with `why_not` set when it is missing, cannot load (no CUDA runtime), or finds no GPU.
std::unique_ptr<Probe> load_cuda_probe(std::string& why_not);

}  // namespace linksim::calibrate
