#pragma once
// The CUDA probe (cuda_probe.cu, built only when nvcc is found). This header holds no CUDA
// types, so CPU-only code may include it behind LINKSIM_HAVE_CUDA.

#include <memory>
#include <string>

#include "calibrate/probe.hpp"

namespace linksim::calibrate {

// A probe over every visible CUDA device, or nullptr with `why_not` set ("no CUDA device found:
// <runtime error>") when there is none.
std::unique_ptr<Probe> make_cuda_probe(std::string& why_not);

}  // namespace linksim::calibrate
