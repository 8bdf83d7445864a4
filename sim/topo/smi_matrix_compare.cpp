#include "sim/topo/smi_matrix_compare.hpp"

#include <fmt/format.h>

#include <map>

namespace linksim::topo {

std::vector<std::string> compare_smi(const SmiMatrix& reference, const SmiMatrix& actual) {
  std::vector<std::string> diffs;
  std::map<std::string, const SmiRow*> actual_rows;
  for (const auto& r : actual.rows)
    actual_rows[r.label] = &r;
  std::map<std::string, std::size_t> actual_col;
  for (std::size_t i = 0; i < actual.columns.size(); ++i)
    actual_col[actual.columns[i]] = i;
  for (const auto& col : reference.columns) {
    if (!actual_col.count(col)) diffs.push_back(fmt::format("column {} is missing", col));
  }
  for (const auto& row : reference.rows) {
    auto it = actual_rows.find(row.label);
    if (it == actual_rows.end()) {
      diffs.push_back(fmt::format("row {} is missing", row.label));
      continue;
    }
    for (std::size_t i = 0; i < row.cells.size() && i < reference.columns.size(); ++i) {
      auto c = actual_col.find(reference.columns[i]);
      if (c == actual_col.end()) continue;
      const std::string& got = it->second->cells.at(c->second);
      if (got != row.cells[i]) {
        diffs.push_back(fmt::format("{}/{}: expected {}, got {}", row.label, reference.columns[i],
                                    row.cells[i], got));
      }
    }
    if (!row.cpu_affinity.empty() && row.cpu_affinity.find("truncated") == std::string::npos &&
        row.cpu_affinity != it->second->cpu_affinity) {
      diffs.push_back(fmt::format("{} CPU Affinity: expected {}, got {}", row.label,
                                  row.cpu_affinity, it->second->cpu_affinity));
    }
    // N/A: the printout does not know the node; linksim's CPU nodes always have a number.
    if (!row.numa_affinity.empty() && row.numa_affinity != "N/A" &&
        row.numa_affinity != it->second->numa_affinity) {
      diffs.push_back(fmt::format("{} NUMA Affinity: expected {}, got {}", row.label,
                                  row.numa_affinity, it->second->numa_affinity));
    }
  }
  for (std::size_t i = 0; i < reference.nic_names.size(); ++i) {
    const std::string& want = reference.nic_names[i];
    const std::string got = i < actual.nic_names.size() ? actual.nic_names[i] : "";
    if (!want.empty() && want != got) {
      diffs.push_back(fmt::format("NIC{} name: expected {}, got {}", i, want, got));
    }
  }
  return diffs;
}
}  // namespace linksim::topo
