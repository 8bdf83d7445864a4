#pragma once
// A first topology document for a node that has only been discovered, not described: one cpu
// node per NUMA node the GPUs report, each GPU joined to its NUMA node's cpu by a PCIe link of
// the generation and width sysfs reports, and an inline gpu_models entry per distinct device
// name. Peer links are not guessed: without NVML the runtime cannot say how many NVLinks join a
// pair, so GPU-to-GPU traffic routes over PCIe until the file is edited (the notes say so).
// `linksim calibrate` then fits this skeleton's links from the probe's measurements.

#include <string>
#include <vector>

#include "calibrate/probe.hpp"
#include "sim/core/json_view.hpp"

namespace linksim::calibrate {

// `hbm_bandwidth_Bps` and `peak_fp32_tflops` per device come from the probe (D2D copy, GEMM)
// where measured; 0 falls back to placeholders named in the notes.
struct SkeletonInputs {
  std::vector<DeviceInfo> devices;
  std::vector<double> hbm_bandwidth_Bps;  // per device, may be shorter
  std::vector<double> peak_fp32_tflops;   // per device, may be shorter
  std::string title;
};

Json node_skeleton(const SkeletonInputs& inputs);

}  // namespace linksim::calibrate
