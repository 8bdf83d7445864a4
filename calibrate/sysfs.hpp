#pragma once
// PCIe link and NUMA facts about a device from sysfs (no NVML header is available here):
// <root>/bus/pci/devices/<bus id>/current_link_speed ("16.0 GT/s PCIe"), current_link_width
// ("16") and numa_node ("-1" when the platform does not say). Missing files leave fields as
// they are.

#include <string>

#include "calibrate/probe.hpp"

namespace linksim::calibrate {

// The CUDA runtime prints bus ids as "0000:19:00.0" in upper case; sysfs uses lower case.
std::string sysfs_bus_id(const std::string& pci_bus_id);
void fill_from_sysfs(DeviceInfo& device, const std::string& sysfs_root = "/sys");
// PCIe generation for a per-lane rate: 2.5 -> 1, 5 -> 2, 8 -> 3, 16 -> 4, 32 -> 5, 64 -> 6;
// 0 for anything else.
int pcie_generation_for(double gt_per_s);

}  // namespace linksim::calibrate
