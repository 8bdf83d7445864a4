#include "sim/topo/smi_matrix_format.hpp"

#include <fmt/format.h>

namespace linksim::topo {

std::string format_smi_matrix(const SmiMatrix& m) {
  std::string out = "        ";
  for (const auto& c : m.columns)
    out += fmt::format("{:<8}", c);
  if (m.has_affinity) out += "CPU Affinity    NUMA Affinity   GPU NUMA ID";
  while (!out.empty() && out.back() == ' ')
    out.pop_back();
  out += "\n";
  for (const auto& row : m.rows) {
    std::string line = fmt::format("{:<8}", row.label);
    for (const auto& cell : row.cells)
      line += fmt::format("{:<8}", cell == "X" ? " X" : cell);
    if (m.has_affinity && !row.cpu_affinity.empty()) {
      line += fmt::format("{:<16}{:<16}{}", row.cpu_affinity, row.numa_affinity, row.gpu_numa_id);
    }
    while (!line.empty() && line.back() == ' ')
      line.pop_back();
    out += line + "\n";
  }
  out +=
      "\nLegend:\n\n"
      "  X    = Self\n"
      "  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes "
      "(e.g., QPI/UPI)\n"
      "  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges "
      "within a NUMA node\n"
      "  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)\n"
      "  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host "
      "Bridge)\n"
      "  PIX  = Connection traversing at most a single PCIe bridge\n"
      "  NV#  = Connection traversing a bonded set of # NVLinks\n";
  if (!m.nic_names.empty()) {
    out += "\nNIC Legend:\n\n";
    for (std::size_t i = 0; i < m.nic_names.size(); ++i) {
      out += fmt::format("  NIC{}: {}\n", i, m.nic_names[i]);
    }
  }
  return out;
}

}  // namespace linksim::topo
