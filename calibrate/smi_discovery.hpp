#pragma once
// The node's `nvidia-smi topo -m`, for NVLink discovery by `linksim calibrate`
// (calibrate/node_skeleton.hpp): nvidia-smi ships with the driver and prints each GPU pair's
// NV# link count, which is what NVML would tell and NVML's headers are not in the toolkit here.

#include <optional>
#include <string>

#include "sim/topo/smi_matrix.hpp"

namespace linksim::calibrate {

struct SmiDiscovery {
  std::optional<topo::SmiMatrix> matrix;
  std::string note;  // why there is no matrix, for the user; empty when there is one
};

// From `saved_path` when given (a printout saved earlier; unreadable is an InputError naming the
// file and line), else by running nvidia-smi: its absence or an unreadable printout only loses
// NVLink discovery, and `note` says so.
SmiDiscovery discover_smi_matrix(const std::string& saved_path);

}  // namespace linksim::calibrate
