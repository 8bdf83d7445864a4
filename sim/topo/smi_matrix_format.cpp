#include "sim/topo/smi_matrix_format.hpp"

#include <fmt/format.h>

#include "sim/core/csv.hpp"
#include "sim/core/json_view.hpp"

namespace linksim::topo {

// nvidia-smi's printf layout, as real printouts show it: every cell ends at a tab, the diagonal
// is " X ", and a row's affinity part is "\t<cpus>\t<numa>\t\t<gpu numa id>" (NIC rows print the
// same tabs with empty values). The header starts with a tab for the row-label column.
std::string format_smi_matrix(const SmiMatrix& m) {
  std::string out;
  for (const auto& c : m.columns)
    out += "\t" + c;
  if (m.has_affinity) out += "\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID";
  out += "\n";
  for (const auto& row : m.rows) {
    out += row.label;
    for (const auto& cell : row.cells)
      out += "\t" + (cell == "X" ? std::string(" X ") : cell);
    if (m.has_affinity) {
      out += fmt::format("\t{}\t{}\t\t{}", row.cpu_affinity, row.numa_affinity, row.gpu_numa_id);
    }
    out += "\n";
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

std::string smi_matrix_json(const SmiMatrix& m) {
  Json rows = Json::array();
  for (const auto& row : m.rows) {
    Json r = {{"device", row.label}, {"cells", row.cells}};
    if (m.has_affinity) {
      r["cpu_affinity"] = row.cpu_affinity;
      r["numa_affinity"] = row.numa_affinity;
      r["gpu_numa_id"] = row.gpu_numa_id;
    }
    rows.push_back(std::move(r));
  }
  Json nics = Json::object();
  for (std::size_t i = 0; i < m.nic_names.size(); ++i)
    nics[fmt::format("NIC{}", i)] = m.nic_names[i];
  const Json doc = {{"columns", m.columns}, {"rows", rows}, {"nic_legend", nics}};
  return doc.dump(2) + "\n";
}

std::string smi_matrix_csv(const SmiMatrix& m) {
  std::string out = "device";
  for (const auto& c : m.columns)
    out += "," + c;
  if (m.has_affinity) out += ",CPU Affinity,NUMA Affinity,GPU NUMA ID";
  out += "\n";
  for (const auto& row : m.rows) {
    out += row.label;
    for (const auto& cell : row.cells)
      out += "," + csv_field(cell);
    if (m.has_affinity) {
      out += "," + csv_field(row.cpu_affinity) + "," + csv_field(row.numa_affinity) + "," +
             csv_field(row.gpu_numa_id);
    }
    out += "\n";
  }
  return out;
}

}  // namespace linksim::topo
