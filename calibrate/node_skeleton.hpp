#pragma once
// A first topology document for a node that has only been discovered, not described: one cpu
// node per NUMA node the GPUs report, each GPU joined to its NUMA node's cpu by a PCIe link of
// the generation and width sysfs reports, and an inline gpu_models entry per distinct device
// name. NVLinks come from `nvidia-smi topo -m` when it ran (the driver ships it; NVML itself
// is not needed): its NV# cells give each pair's link count, an all-NV# matrix beyond the
// GPU's link budget an NVSwitch plane (topo::nvlink_fabric_from_smi), and the compute
// capability the NVLink generation. Without the printout peer links are not guessed, and
// GPU-to-GPU traffic routes over PCIe until the file is edited (the notes say so).
// `linksim calibrate` then fits this skeleton's links from the probe's measurements.

#include <optional>
#include <string>
#include <vector>

#include "calibrate/probe.hpp"
#include "sim/core/json_view.hpp"
#include "sim/topo/smi_matrix.hpp"

namespace linksim::calibrate {

// `hbm_bandwidth_Bps` and `peak_fp32_tflops` per device come from the probe (D2D copy, GEMM)
// where measured; 0 falls back to placeholders named in the notes.
struct SkeletonInputs {
  std::vector<DeviceInfo> devices;
  std::vector<double> hbm_bandwidth_Bps;  // per device, may be shorter
  std::vector<double> peak_fp32_tflops;   // per device, may be shorter
  std::string title;
  // `nvidia-smi topo -m` of the node, when it could be run or was given.
  std::optional<topo::SmiMatrix> smi;
};

struct NvlinkGeneration {
  int generation = 0;     // 0: the architecture has no NVLink
  int links_per_gpu = 0;  // NVLinks a GPU of this architecture has at most
};
// By compute capability: 6.0 P100 NVLink 1 (4 links), 7.0 V100 NVLink 2 (6), 8.0 A100 NVLink 3
// (12), 8.6 GA102 NVLink 3 bridge (4), 9.0 H100/H200 NVLink 4 (18), 10.0 B200 NVLink 5 (18).
NvlinkGeneration nvlink_generation_for(int compute_major, int compute_minor);

Json node_skeleton(const SkeletonInputs& inputs);

}  // namespace linksim::calibrate
