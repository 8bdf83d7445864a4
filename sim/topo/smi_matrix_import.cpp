#include "sim/topo/smi_matrix_import.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "sim/core/error.hpp"
#include "sim/topo/gpu_model.hpp"
#include "sim/topo/smi_matrix_nvlink.hpp"

namespace linksim::topo {
namespace {

// Union-find over device indices.
struct Groups {
  std::vector<std::size_t> parent;
  explicit Groups(std::size_t n) : parent(n) {
    for (std::size_t i = 0; i < n; ++i)
      parent[i] = i;
  }
  std::size_t find(std::size_t x) {
    while (parent[x] != x)
      x = parent[x] = parent[parent[x]];
    return x;
  }
  void join(std::size_t a, std::size_t b) {
    a = find(a);
    b = find(b);
    if (a != b) parent[std::max(a, b)] = std::min(a, b);
  }
};

}  // namespace

SmiImport import_smi(const SmiMatrix& m, const SmiImportOptions& options) {
  SmiImport out;
  auto model = find_gpu_model(options.gpu_model);
  if (!model) {
    throw InputError(options.source, "--gpu",
                     fmt::format("unknown GPU model \"{}\"; known models: {}", options.gpu_model,
                                 fmt::join(gpu_model_names(), ", ")));
  }
  std::vector<std::size_t> gpu_cols;
  std::vector<std::size_t> nic_cols;
  for (std::size_t i = 0; i < m.columns.size(); ++i) {
    (m.columns[i].rfind("GPU", 0) == 0 ? gpu_cols : nic_cols).push_back(i);
  }
  const std::size_t n = m.columns.size();
  // A full square matrix is needed to rebuild a machine.
  std::map<std::string, const SmiRow*> rows;
  for (const auto& r : m.rows)
    rows[r.label] = &r;
  for (const auto& c : m.columns) {
    auto it = rows.find(c);
    const bool is_gpu = c.rfind("GPU", 0) == 0;
    // NIC rows are optional: the GPU rows carry every GPU-NIC cell, and NIC-NIC cells are
    // then assumed from the NICs' GPUs.
    // A truncated row is named at its line, a missing one at the header that lists it.
    if (is_gpu && it == rows.end()) {
      throw InputError(
          options.source, fmt::format("line {}", m.header_line),
          fmt::format("column {} has no row; importing needs every GPU row in full", c));
    }
    if (is_gpu && it->second->cells.size() < n) {
      throw InputError(options.source, fmt::format("line {}", it->second->line),
                       fmt::format("row {} is truncated: {} of {} cells; importing needs every "
                                   "GPU row in full",
                                   c, it->second->cells.size(), n));
    }
  }
  // No pair can bond more NVLinks than one GPU has.
  for (const auto& r : m.rows) {
    for (std::size_t c = 0; c < r.cells.size() && model->nvlink_links > 0; ++c) {
      if (r.cells[c].rfind("NV", 0) != 0 || std::stoi(r.cells[c].substr(2)) <= model->nvlink_links)
        continue;
      throw InputError(options.source, fmt::format("line {}", r.line),
                       fmt::format("{}/{} is {}, but a {} has {} NVLinks", r.label, m.columns[c],
                                   r.cells[c], options.gpu_model, model->nvlink_links));
    }
  }
  auto cell = [&](std::size_t r, std::size_t c) -> std::string {
    if (r == c) return "X";
    auto it = rows.find(m.columns[r]);
    if (it != rows.end() && it->second->cells.size() > c) return it->second->cells[c];
    auto jt = rows.find(m.columns[c]);
    if (jt != rows.end() && jt->second->cells.size() > r) return jt->second->cells[r];
    return "";
  };

  // NUMA domains: one cpu node per distinct NUMA affinity of the GPUs.
  std::vector<std::string> numa_of(n);
  std::map<std::string, std::string> cores_of;
  std::vector<std::string> numa_ids;
  for (std::size_t g : gpu_cols) {
    const SmiRow& r = *rows[m.columns[g]];
    std::string numa = r.numa_affinity.empty() || r.numa_affinity == "N/A" ? "0" : r.numa_affinity;
    // A NUMA node number as nvidia-smi prints it (at most 4 digits), so that stoi below holds.
    if (numa.size() > 4 ||
        !std::all_of(numa.begin(), numa.end(), [](char ch) { return ch >= '0' && ch <= '9'; })) {
      throw InputError(options.source, fmt::format("line {}", r.line),
                       fmt::format("{} NUMA Affinity \"{}\": expected a NUMA node number or N/A",
                                   r.label, r.numa_affinity));
    }
    numa_of[g] = numa;
    if (!cores_of.count(numa)) {
      cores_of[numa] = r.cpu_affinity;
      numa_ids.push_back(numa);
    }
  }
  // NICs take the NUMA domain of a GPU they are closest to (anything but SYS). NICs that are
  // SYS to every GPU sit on a NUMA node without GPUs; NICs that are not SYS to each other
  // share one.
  int next_numa = 0;
  for (const auto& id : numa_ids)
    next_numa = std::max(next_numa, std::stoi(id) + 1);
  for (std::size_t c : nic_cols) {
    numa_of[c] = "";
    int best = 99;
    for (std::size_t g : gpu_cols) {
      static const std::map<std::string, int> rank{{"PIX", 0}, {"PXB", 1}, {"PHB", 2}, {"NODE", 3}};
      auto it = rank.find(cell(g, c));
      if (it != rank.end() && it->second < best) {
        best = it->second;
        numa_of[c] = numa_of[g];
      }
    }
    if (!numa_of[c].empty()) continue;
    for (std::size_t other : nic_cols) {
      if (other != c && !numa_of[other].empty() && cell(c, other) != "SYS" &&
          cell(c, other) != "") {
        numa_of[c] = numa_of[other];
      }
    }
    if (numa_of[c].empty()) {
      numa_of[c] = std::to_string(next_numa++);
      numa_ids.push_back(numa_of[c]);
      cores_of[numa_of[c]] = "";
    }
  }
  std::sort(numa_ids.begin(), numa_ids.end(), [](const std::string& a, const std::string& b) {
    return a.size() != b.size() ? a.size() < b.size() : a < b;
  });

  Json doc;
  doc["$schema"] = "./schema.json";
  doc["title"] = options.title.empty() ? fmt::format("{}x {} (imported from nvidia-smi topo -m)",
                                                     gpu_cols.size(), options.gpu_model)
                                       : options.title;
  doc["sources"] =
      Json::array({options.source.empty() ? "nvidia-smi topo -m printout"
                                          : "nvidia-smi topo -m printout: " + options.source});
  Json nodes = Json::array();
  Json links = Json::array();
  nodes.push_back(
      {{"id", "gpu"}, {"kind", "gpu"}, {"count", gpu_cols.size()}, {"model", options.gpu_model}});
  for (std::size_t i = 0; i < numa_ids.size(); ++i) {
    Json cpu = {{"id", fmt::format("cpu{}", i)},
                {"kind", "cpu"},
                {"vendor", options.cpu_vendor},
                {"socket", static_cast<int>(i)},
                {"numa_node", std::stoi(numa_ids[i])}};
    if (!cores_of[numa_ids[i]].empty() && cores_of[numa_ids[i]] != "N/A") {
      cpu["cores"] = cores_of[numa_ids[i]];
    }
    nodes.push_back(cpu);
  }
  if (!nic_cols.empty()) {
    nodes.push_back({{"id", "nic"}, {"kind", "nic"}, {"count", nic_cols.size()}});
  }
  auto device_id = [&](std::size_t col) {
    const auto& name = m.columns[col];
    return name.rfind("GPU", 0) == 0 ? "gpu" + name.substr(3) : "nic" + name.substr(3);
  };
  auto cpu_id = [&](const std::string& numa) {
    const auto it = std::find(numa_ids.begin(), numa_ids.end(), numa);
    return fmt::format("cpu{}", it - numa_ids.begin());
  };

  const int pcie_gen = model->pcie_generation;
  const int nvgen = model->nvlink_generation > 0 ? model->nvlink_generation : 3;
  NvlinkFabric fabric = nvlink_fabric_from_smi(m, nvgen, model->nvlink_links);
  for (auto& node : fabric.nodes)
    nodes.push_back(std::move(node));
  for (auto& link : fabric.links)
    links.push_back(std::move(link));
  for (auto& a : fabric.assumed)
    out.assumed.push_back(std::move(a));

  // PCIe tree per NUMA domain, rebuilt from the classes: PIX groups share a leaf switch, PXB
  // groups an upper switch, PHB groups a host bridge; NODE means different host bridges.
  std::vector<std::size_t> devices(gpu_cols);
  devices.insert(devices.end(), nic_cols.begin(), nic_cols.end());
  std::sort(devices.begin(), devices.end());
  int switch_count = 0;
  int host_bridges = 0;
  for (const auto& numa : numa_ids) {
    std::vector<std::size_t> local;
    for (std::size_t d : devices) {
      if (numa_of[d] == numa) local.push_back(d);
    }
    Groups leaf(n);
    Groups upper(n);
    Groups bridge(n);
    for (std::size_t a : local) {
      for (std::size_t b : local) {
        if (a == b) continue;
        const std::string c = cell(a, b);
        if (c == "PIX") leaf.join(a, b);
        if (c == "PIX" || c == "PXB") upper.join(a, b);
        if (c == "PIX" || c == "PXB" || c == "PHB") bridge.join(a, b);
      }
    }
    std::map<std::size_t, int> bridge_ids;
    std::map<std::size_t, std::string> upper_switch;
    std::map<std::size_t, std::string> leaf_switch;
    std::map<std::size_t, std::set<std::size_t>> leaves_in_upper;
    std::map<std::size_t, std::set<std::size_t>> members_of_leaf;
    for (std::size_t d : local) {
      leaves_in_upper[upper.find(d)].insert(leaf.find(d));
      members_of_leaf[leaf.find(d)].insert(d);
    }
    for (std::size_t d : local) {
      const std::size_t b = bridge.find(d);
      if (!bridge_ids.count(b)) bridge_ids[b] = host_bridges++;
      const std::size_t u = upper.find(d);
      const std::size_t l = leaf.find(d);
      const bool multi_leaf = leaves_in_upper[u].size() > 1;
      const bool leaf_has_peers = members_of_leaf[l].size() > 1;
      auto pcie = [&](const std::string& a, const std::string& bb) {
        return Json{{"a", a}, {"b", bb}, {"kind", "pcie"}, {"generation", pcie_gen}, {"width", 16}};
      };
      std::string parent = cpu_id(numa);
      bool parent_is_cpu = true;
      if (multi_leaf) {
        if (!upper_switch.count(u)) {
          upper_switch[u] = fmt::format("pcie_switch{}", switch_count++);
          nodes.push_back({{"id", upper_switch[u]}, {"kind", "pcie_switch"}});
          Json up = pcie(upper_switch[u], cpu_id(numa));
          up["host_bridge"] = bridge_ids[b];
          links.push_back(up);
        }
        parent = upper_switch[u];
        parent_is_cpu = false;
      }
      if (leaf_has_peers) {
        if (!leaf_switch.count(l)) {
          leaf_switch[l] = fmt::format("pcie_switch{}", switch_count++);
          nodes.push_back({{"id", leaf_switch[l]}, {"kind", "pcie_switch"}});
          Json up = pcie(leaf_switch[l], parent);
          if (parent_is_cpu) up["host_bridge"] = bridge_ids[b];
          links.push_back(up);
        }
        links.push_back(pcie(device_id(d), leaf_switch[l]));
      } else {
        Json up = pcie(device_id(d), parent);
        if (parent_is_cpu) up["host_bridge"] = bridge_ids[b];
        links.push_back(up);
      }
    }
  }
  // NUMA domains joined all to all (SYS between any two).
  for (std::size_t i = 0; i < numa_ids.size(); ++i) {
    for (std::size_t j = i + 1; j < numa_ids.size(); ++j) {
      links.push_back({{"a", fmt::format("cpu{}", i)},
                       {"b", fmt::format("cpu{}", j)},
                       {"kind", options.cpu_vendor == "amd" ? "xgmi" : "upi"}});
    }
  }
  out.assumed.push_back(
      fmt::format("PCIe {}.0 x16 for every PCIe link (from the GPU model)", pcie_gen));
  out.assumed.push_back(fmt::format(
      "each NUMA node ({}) is a cpu node from vendor \"{}\", joined to the others by {}",
      fmt::join(numa_ids, ", "), options.cpu_vendor, options.cpu_vendor == "amd" ? "xGMI" : "UPI"));
  out.assumed.push_back("link latencies are the per-kind defaults (docs/topology-format.md)");
  if (!nic_cols.empty()) out.assumed.push_back("NICs have no network links (single node)");
  doc["nodes"] = nodes;
  doc["links"] = links;
  out.document = doc;
  return out;
}
}  // namespace linksim::topo
