#include "sim/topo/smi_matrix_nvlink.hpp"

#include <fmt/format.h>

#include <map>
#include <set>

namespace linksim::topo {

NvlinkFabric nvlink_fabric_from_smi(const SmiMatrix& m, int nvlink_generation,
                                    int nvlink_links_per_gpu) {
  NvlinkFabric out;
  std::vector<std::size_t> gpu_cols;
  for (std::size_t i = 0; i < m.columns.size(); ++i) {
    if (m.columns[i].rfind("GPU", 0) == 0) gpu_cols.push_back(i);
  }
  std::map<std::string, const SmiRow*> rows;
  for (const auto& r : m.rows)
    rows[r.label] = &r;
  const auto cell = [&](std::size_t r, std::size_t c) -> std::string {
    const auto it = rows.find(m.columns[r]);
    if (it == rows.end() || c >= it->second->cells.size()) return "";
    return it->second->cells[c];
  };
  const auto gpu_id = [&](std::size_t col) { return "gpu" + m.columns[col].substr(3); };
  // All pairs NV with one count, more than the GPU's links allow point to point, means an
  // NVSwitch fabric.
  std::set<std::string> nv_counts;
  bool all_nv = gpu_cols.size() > 2;
  for (std::size_t a : gpu_cols) {
    for (std::size_t b : gpu_cols) {
      if (a == b) continue;
      const std::string c = cell(a, b);
      if (c.rfind("NV", 0) == 0) {
        nv_counts.insert(c);
      } else {
        all_nv = false;
      }
    }
  }
  if (all_nv && nv_counts.size() == 1) {
    const int k = std::stoi(nv_counts.begin()->substr(2));
    if (k * static_cast<int>(gpu_cols.size() - 1) > nvlink_links_per_gpu) {
      out.nodes.push_back(node_entry("nvswitch", "nvswitch"));
      LinkEntry plane = nvlink_link_entry("gpu{g}", "nvswitch", nvlink_generation, k);
      plane.loop = {{"g", fmt::format("0..{}", gpu_cols.size() - 1)}};
      out.links.push_back(plane);
      out.assumed.push_back(fmt::format(
          "every GPU pair is NV{}: modelled as one NVSwitch plane with {} NVLink {} links per GPU "
          "(the printout does not show how many switch chips there are)",
          k, k, nvlink_generation));
      nv_counts.clear();
    }
  }
  if (!nv_counts.empty()) {
    for (std::size_t ai = 0; ai < gpu_cols.size(); ++ai) {
      for (std::size_t bi = ai + 1; bi < gpu_cols.size(); ++bi) {
        const std::string c = cell(gpu_cols[ai], gpu_cols[bi]);
        if (c.rfind("NV", 0) != 0) continue;
        out.links.push_back(nvlink_link_entry(gpu_id(gpu_cols[ai]), gpu_id(gpu_cols[bi]),
                                              nvlink_generation, std::stoi(c.substr(2))));
      }
    }
    out.assumed.push_back(
        fmt::format("NVLink generation {} for NV# pairs (from the GPU model)", nvlink_generation));
  }
  return out;
}
}  // namespace linksim::topo
