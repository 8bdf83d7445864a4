#include "calibrate/sysfs.hpp"

#include <cctype>
#include <cmath>
#include <fstream>
#include <sstream>

namespace linksim::calibrate {
namespace {
bool read_first_line(const std::string& path, std::string& line) {
  std::ifstream in(path);
  return static_cast<bool>(std::getline(in, line));
}
}  // namespace

std::string sysfs_bus_id(const std::string& pci_bus_id) {
  std::string out;
  for (char c : pci_bus_id)
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  // cudaDeviceGetPCIBusId may give an 8-digit domain ("00000000:19:00.0"); sysfs uses 4.
  const auto colon = out.find(':');
  if (colon != std::string::npos && colon > 4) out = out.substr(colon - 4);
  return out;
}

void fill_from_sysfs(DeviceInfo& device, const std::string& sysfs_root) {
  const std::string dir = sysfs_root + "/bus/pci/devices/" + sysfs_bus_id(device.pci_bus_id);
  std::string line;
  if (read_first_line(dir + "/current_link_speed", line)) {
    std::istringstream s(line);
    double gt = 0;
    if (s >> gt) device.pcie_gt_per_s = gt;
  }
  if (read_first_line(dir + "/current_link_width", line)) {
    std::istringstream s(line);
    int w = 0;
    if (s >> w) device.pcie_width = w;
  }
  if (read_first_line(dir + "/numa_node", line)) {
    std::istringstream s(line);
    int n = -1;
    if (s >> n) device.numa_node = n;
  }
}

int pcie_generation_for(double gt_per_s) {
  const double rates[] = {2.5, 5, 8, 16, 32, 64};
  for (int i = 0; i < 6; ++i) {
    if (std::abs(gt_per_s - rates[i]) < 0.01) return i + 1;
  }
  return 0;
}

}  // namespace linksim::calibrate
