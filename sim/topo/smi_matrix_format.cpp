#include "sim/topo/smi_matrix_format.hpp"

#include <fmt/format.h>

#include "sim/core/csv.hpp"
#include "sim/core/json_view.hpp"

namespace linksim::topo {

namespace {

// A row's affinity part for the printed columns: "\t<cpus>", then "\t<numa>", then
// "\t\t<gpu numa id>" (nvidia-smi pads the NUMA Affinity column with a second tab). NIC rows
// print the same tabs with empty values.
std::string affinity_part(const SmiMatrix& m, const SmiRow& row) {
  std::string out;
  const std::size_t n = m.affinity_columns.size();
  if (n > 0) out += "\t" + row.cpu_affinity;
  if (n > 1) out += "\t" + row.numa_affinity;
  if (n > 2) out += "\t\t" + row.gpu_numa_id;
  return out;
}

}  // namespace

// nvidia-smi's printf layout, as real printouts show it: every cell ends at a tab, the diagonal
// is " X ", then the affinity part. The header starts with a tab for the row-label column.
std::string format_smi_matrix(const SmiMatrix& m) {
  std::string out;
  for (const auto& c : m.columns)
    out += "\t" + c;
  for (const auto& a : m.affinity_columns)
    out += "\t" + a;
  out += "\n";
  for (const auto& row : m.rows) {
    out += row.label;
    for (const auto& cell : row.cells)
      out += "\t" + (cell == "X" ? std::string(" X ") : cell);
    out += affinity_part(m, row);
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
    out += "\n";  // nvidia-smi ends the NIC legend with an empty line
  }
  return out;
}

std::string smi_matrix_json(const SmiMatrix& m) {
  Json rows = Json::array();
  for (const auto& row : m.rows) {
    Json r = {{"device", row.label}, {"cells", row.cells}};
    if (m.has_affinity()) {
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
  if (m.has_affinity()) out += ",CPU Affinity,NUMA Affinity,GPU NUMA ID";
  out += "\n";
  for (const auto& row : m.rows) {
    out += row.label;
    for (const auto& cell : row.cells)
      out += "," + csv_field(cell);
    if (m.has_affinity()) {
      out += "," + csv_field(row.cpu_affinity) + "," + csv_field(row.numa_affinity) + "," +
             csv_field(row.gpu_numa_id);
    }
    out += "\n";
  }
  return out;
}

}  // namespace linksim::topo
