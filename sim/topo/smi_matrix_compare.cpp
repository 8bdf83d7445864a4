#include "sim/topo/smi_matrix_compare.hpp"

#include <fmt/format.h>

#include <map>

namespace linksim::topo {
namespace {

// An affinity value the reference knows: printed, not N/A, not cut short by nvidia-smi.
bool known(const std::string& value) {
  return !value.empty() && value != "N/A" && value.find("truncated") == std::string::npos;
}

}  // namespace

std::vector<SmiDifference> smi_differences(const SmiMatrix& reference, const SmiMatrix& actual) {
  using Kind = SmiDifference::Kind;
  std::vector<SmiDifference> diffs;
  std::map<std::string, const SmiRow*> actual_rows;
  for (const auto& r : actual.rows)
    actual_rows[r.label] = &r;
  std::map<std::string, std::size_t> actual_col;
  for (std::size_t i = 0; i < actual.columns.size(); ++i)
    actual_col[actual.columns[i]] = i;
  for (const auto& col : reference.columns) {
    if (!actual_col.count(col)) {
      diffs.push_back(
          {Kind::cell, fmt::format("column {} is missing", col), reference.header_line});
    }
  }
  for (const auto& row : reference.rows) {
    auto it = actual_rows.find(row.label);
    if (it == actual_rows.end()) {
      diffs.push_back({Kind::cell, fmt::format("row {} is missing", row.label), row.line});
      continue;
    }
    const SmiRow& got = *it->second;
    for (std::size_t i = 0; i < row.cells.size() && i < reference.columns.size(); ++i) {
      auto c = actual_col.find(reference.columns[i]);
      if (c == actual_col.end() || c->second >= got.cells.size()) continue;
      if (got.cells[c->second] != row.cells[i]) {
        diffs.push_back({Kind::cell,
                         fmt::format("{}/{}: expected {}, got {}", row.label, reference.columns[i],
                                     row.cells[i], got.cells[c->second]),
                         row.line});
      }
    }
    const std::pair<const char*, std::pair<const std::string*, const std::string*>> affinities[] = {
        {kSmiCpuAffinity, {&row.cpu_affinity, &got.cpu_affinity}},
        {kSmiNumaAffinity, {&row.numa_affinity, &got.numa_affinity}},
        {kSmiGpuNumaId, {&row.gpu_numa_id, &got.gpu_numa_id}}};
    for (const auto& [column, values] : affinities) {
      if (!known(*values.first) || *values.first == *values.second) continue;
      diffs.push_back({Kind::affinity,
                       fmt::format("{} {}: expected {}, got {}", row.label, column, *values.first,
                                   *values.second),
                       row.line});
    }
  }
  for (std::size_t i = 0; i < reference.nic_names.size(); ++i) {
    const std::string& want = reference.nic_names[i];
    const std::string got = i < actual.nic_names.size() ? actual.nic_names[i] : "";
    if (!want.empty() && want != got) {
      diffs.push_back({Kind::nic_name, fmt::format("NIC{} name: expected {}, got {}", i, want, got),
                       reference.header_line});
    }
  }
  return diffs;
}

std::vector<std::string> compare_smi(const SmiMatrix& reference, const SmiMatrix& actual) {
  std::vector<std::string> out;
  for (const auto& d : smi_differences(reference, actual))
    out.push_back(d.text);
  return out;
}

}  // namespace linksim::topo
