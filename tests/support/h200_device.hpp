#pragma once
// The one GPU of the calibration tests' measured node: an H200 on PCIe 5.0 x16 in NUMA node 0,
// as the probe reports a real one (calibrate/probe.hpp).
#include "calibrate/probe.hpp"

namespace linksim::calibrate {

inline DeviceInfo h200_device() {
  DeviceInfo d;
  d.index = 0;
  d.name = "NVIDIA H200";
  d.pci_bus_id = "0000:19:00.0";
  d.memory_bytes = 141.0 * 1024 * 1024 * 1024;
  d.pcie_gt_per_s = 32;
  d.pcie_width = 16;
  d.numa_node = 0;
  return d;
}

}  // namespace linksim::calibrate
