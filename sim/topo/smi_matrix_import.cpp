#include "sim/topo/smi_matrix_import.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <regex>
#include <set>

#include "sim/core/error.hpp"
#include "sim/topo/gpu_model.hpp"
#include "sim/topo/machine_writer.hpp"
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

bool is_gpu_column(const std::string& name) {
  return name.rfind("GPU", 0) == 0;
}

// The printout as a full square matrix: rows by label, and a cell lookup that falls back to the
// mirror cell where a NIC row is missing.
struct Cells {
  const SmiMatrix& m;
  std::map<std::string, const SmiRow*> rows;
  explicit Cells(const SmiMatrix& matrix) : m(matrix) {
    for (const auto& r : m.rows)
      rows[r.label] = &r;
  }
  std::string operator()(std::size_t r, std::size_t c) const {
    if (r == c) return "X";
    auto it = rows.find(m.columns[r]);
    if (it != rows.end() && it->second->cells.size() > c) return it->second->cells[c];
    auto jt = rows.find(m.columns[c]);
    if (jt != rows.end() && jt->second->cells.size() > r) return jt->second->cells[r];
    return "";
  }
  const SmiRow& row(std::size_t col) const { return *rows.at(m.columns[col]); }
};

// Every GPU row in full (NIC rows are optional: the GPU rows carry every GPU-NIC cell), and no
// NV# above what one GPU has. A truncated row is named at its line, a missing one at the header.
void check_importable(const SmiMatrix& m, const Cells& cells, const GpuModel& model,
                      const SmiImportOptions& options) {
  const std::size_t n = m.columns.size();
  for (const auto& c : m.columns) {
    auto it = cells.rows.find(c);
    if (!is_gpu_column(c)) continue;
    if (it == cells.rows.end()) {
      throw InputError(
          options.source, fmt::format("line {}", m.header_line),
          fmt::format("column {} has no row; importing needs every GPU row in full", c));
    }
    if (it->second->cells.size() < n) {
      throw InputError(options.source, fmt::format("line {}", it->second->line),
                       fmt::format("row {} is truncated: {} of {} cells; importing needs every "
                                   "GPU row in full",
                                   c, it->second->cells.size(), n));
    }
  }
  for (const auto& r : m.rows) {
    for (std::size_t c = 0; c < r.cells.size() && model.nvlink_links > 0; ++c) {
      if (r.cells[c].rfind("NV", 0) != 0 || std::stoi(r.cells[c].substr(2)) <= model.nvlink_links)
        continue;
      throw InputError(options.source, fmt::format("line {}", r.line),
                       fmt::format("{}/{} is {}, but a {} has {} NVLinks", r.label, m.columns[c],
                                   r.cells[c], options.gpu_model, model.nvlink_links));
    }
  }
}

// One CPU node of the imported machine: a NUMA domain as the printout shows it.
struct Domain {
  std::string numa;   // NUMA node number as printed; "" when the printout does not give one
  std::string cores;  // CPU affinity as printed; "" when not printed
  bool has_gpus = false;
};

struct Domains {
  std::vector<Domain> list;          // in the order the cpu nodes are written
  std::vector<std::size_t> of;       // per column: index into `list`
  std::vector<std::string> assumed;  // what the grouping had to assume
};

bool is_numa_number(const std::string& s) {
  return !s.empty() && s.size() <= 4 &&
         std::all_of(s.begin(), s.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
}

// GPUs group by their NUMA affinity; where it is N/A or not printed, by their CPU affinity;
// where that is missing too, GPUs that are not SYS to each other share a domain. No domain gets
// a NUMA number the printout does not show.
void group_gpus(const SmiMatrix& m, const Cells& cells, const std::vector<std::size_t>& gpu_cols,
                const SmiImportOptions& options, Domains& d) {
  Groups not_sys(m.columns.size());
  for (std::size_t a : gpu_cols) {
    for (std::size_t b : gpu_cols) {
      if (a != b && cells(a, b) != "SYS") not_sys.join(a, b);
    }
  }
  std::map<std::string, std::size_t> by_key;
  bool grouped_by_cores = false;
  bool grouped_by_sys = false;
  for (std::size_t g : gpu_cols) {
    const SmiRow& r = cells.row(g);
    const std::string& numa = r.numa_affinity;
    if (!numa.empty() && numa != "N/A" && !is_numa_number(numa)) {
      throw InputError(options.source, fmt::format("line {}", r.line),
                       fmt::format("{} NUMA Affinity \"{}\": expected a NUMA node number or N/A",
                                   r.label, r.numa_affinity));
    }
    const bool cores_known = !r.cpu_affinity.empty() && r.cpu_affinity != "N/A" &&
                             r.cpu_affinity.find("truncated") == std::string::npos;
    std::string key;
    if (is_numa_number(numa)) {
      key = "numa " + std::to_string(std::stoi(numa));
    } else if (cores_known) {
      key = "cpus " + r.cpu_affinity;
      grouped_by_cores = true;
    } else {
      key = fmt::format("group {}", not_sys.find(g));
      grouped_by_sys = true;
    }
    auto [it, fresh] = by_key.emplace(key, d.list.size());
    if (fresh) {
      d.list.push_back({is_numa_number(numa) ? std::to_string(std::stoi(numa)) : "",
                        cores_known ? r.cpu_affinity : "", true});
    }
    d.of[g] = it->second;
  }
  if (grouped_by_cores) {
    d.assumed.push_back(
        "GPUs without a NUMA affinity are grouped into CPU nodes by their CPU affinity");
  }
  if (grouped_by_sys) {
    d.assumed.push_back(
        "GPUs without NUMA or CPU affinity share a CPU node unless the printout shows SYS "
        "between them");
  }
}

// NICs take the domain of a GPU they are closest to (anything but SYS). NICs that are SYS to
// every GPU sit on a CPU node without GPUs, shared by the NICs that are not SYS to each other;
// the printout names no NUMA node for it, so it gets none.
void place_nics(const SmiMatrix& m, const Cells& cells, const std::vector<std::size_t>& gpu_cols,
                const std::vector<std::size_t>& nic_cols, Domains& d) {
  static const std::map<std::string, int> rank{{"PIX", 0}, {"PXB", 1}, {"PHB", 2}, {"NODE", 3}};
  constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  std::vector<std::string> gpu_less;
  for (std::size_t c : nic_cols)
    d.of[c] = kNone;
  for (std::size_t c : nic_cols) {
    int best = 99;
    for (std::size_t g : gpu_cols) {
      auto it = rank.find(cells(g, c));
      if (it != rank.end() && it->second < best) {
        best = it->second;
        d.of[c] = d.of[g];
      }
    }
    if (d.of[c] != kNone) continue;
    for (std::size_t other : nic_cols) {
      const std::string cell = cells(c, other);
      if (other != c && d.of[other] != kNone && cell != "SYS" && !cell.empty()) {
        d.of[c] = d.of[other];
      }
    }
    if (d.of[c] == kNone) {
      d.of[c] = d.list.size();
      d.list.push_back({"", "", false});
    }
    gpu_less.push_back(m.columns[c]);
  }
  if (!gpu_less.empty()) {
    d.assumed.push_back(fmt::format(
        "{} SYS to every GPU: on a CPU node without GPUs, whose NUMA node the printout does not "
        "show",
        fmt::join(gpu_less, ", ")));
  }
}

// Domains with a NUMA number first, in number order; then the others as found.
Domains numa_domains(const SmiMatrix& m, const Cells& cells,
                     const std::vector<std::size_t>& gpu_cols,
                     const std::vector<std::size_t>& nic_cols, const SmiImportOptions& options) {
  Domains d;
  d.of.assign(m.columns.size(), 0);
  group_gpus(m, cells, gpu_cols, options, d);
  place_nics(m, cells, gpu_cols, nic_cols, d);
  std::vector<std::size_t> order(d.list.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const Domain& x = d.list[a];
    const Domain& y = d.list[b];
    if (x.numa.empty() != y.numa.empty()) return !x.numa.empty();
    return !x.numa.empty() && std::stoi(x.numa) < std::stoi(y.numa);
  });
  std::vector<std::size_t> new_index(order.size());
  Domains sorted;
  for (std::size_t i = 0; i < order.size(); ++i) {
    new_index[order[i]] = i;
    sorted.list.push_back(d.list[order[i]]);
  }
  sorted.of = d.of;
  for (auto& o : sorted.of)
    o = new_index[o];
  sorted.assumed = d.assumed;
  return sorted;
}

// The NICs' node ids: their names from the printout (the NIC legend, or mlx5_N columns) when
// every NIC has a distinct usable one, else nic0..nicN-1.
std::vector<std::string> nic_ids(const SmiMatrix& m, std::size_t nic_count,
                                 std::vector<std::string>& assumed) {
  static const std::regex usable(R"([A-Za-z][A-Za-z0-9_.:-]*)");
  static const std::regex taken(R"((gpu|cpu|pcie_switch|nvswitch)\d*)");
  std::vector<std::string> ids;
  std::set<std::string> seen;
  bool named = m.nic_names.size() == nic_count;
  for (std::size_t i = 0; named && i < nic_count; ++i) {
    const std::string& name = m.nic_names[i];
    named = std::regex_match(name, usable) && !std::regex_match(name, taken) &&
            seen.insert(name).second;
    ids.push_back(name);
  }
  if (named) return ids;
  ids.clear();
  for (std::size_t i = 0; i < nic_count; ++i)
    ids.push_back(fmt::format("nic{}", i));
  if (nic_count > 0) {
    assumed.push_back("NICs are named nic0..nic" + std::to_string(nic_count - 1) +
                      " (the printout has no NIC legend with a distinct name for each)");
  }
  return ids;
}

// The PCIe tree of each domain, rebuilt from the classes: PIX groups share a leaf switch, PXB
// groups an upper switch, PHB groups a host bridge; NODE means different host bridges.
struct PcieTree {
  const SmiMatrix& m;
  const Cells& cells;
  const std::vector<std::string>& device_ids;  // per column
  int pcie_gen = 4;
  std::vector<NodeEntry> nodes{};
  std::vector<LinkEntry> links{};
  int switch_count = 0;
  int host_bridges = 0;

  LinkEntry pcie(const std::string& a, const std::string& b) const {
    return pcie_link_entry(a, b, pcie_gen, 16);
  }
  std::string new_switch() {
    const std::string id = fmt::format("pcie_switch{}", switch_count++);
    nodes.push_back(node_entry(id, "pcie_switch"));
    return id;
  }
  void build(std::size_t domain, const std::vector<std::size_t>& local) {
    const std::size_t n = m.columns.size();
    Groups leaf(n);
    Groups upper(n);
    Groups bridge(n);
    for (std::size_t a : local) {
      for (std::size_t b : local) {
        if (a == b) continue;
        const std::string c = cells(a, b);
        if (c == "PIX") leaf.join(a, b);
        if (c == "PIX" || c == "PXB") upper.join(a, b);
        if (c == "PIX" || c == "PXB" || c == "PHB") bridge.join(a, b);
      }
    }
    std::map<std::size_t, std::set<std::size_t>> leaves_in_upper;
    std::map<std::size_t, std::set<std::size_t>> members_of_leaf;
    for (std::size_t d : local) {
      leaves_in_upper[upper.find(d)].insert(leaf.find(d));
      members_of_leaf[leaf.find(d)].insert(d);
    }
    std::map<std::size_t, int> bridge_ids;
    std::map<std::size_t, std::string> upper_switch;
    std::map<std::size_t, std::string> leaf_switch;
    const std::string cpu = fmt::format("cpu{}", domain);
    for (std::size_t d : local) {
      const std::size_t b = bridge.find(d);
      if (!bridge_ids.count(b)) bridge_ids[b] = host_bridges++;
      const std::size_t u = upper.find(d);
      const std::size_t l = leaf.find(d);
      std::string parent = cpu;
      if (leaves_in_upper[u].size() > 1) {
        if (!upper_switch.count(u)) {
          upper_switch[u] = new_switch();
          LinkEntry up = pcie(upper_switch[u], cpu);
          up.host_bridge = bridge_ids[b];
          links.push_back(up);
        }
        parent = upper_switch[u];
      }
      if (members_of_leaf[l].size() > 1) {
        if (!leaf_switch.count(l)) {
          leaf_switch[l] = new_switch();
          LinkEntry sw = pcie(leaf_switch[l], parent);
          if (parent == cpu) sw.host_bridge = bridge_ids[b];
          links.push_back(sw);
        }
        links.push_back(pcie(device_ids[d], leaf_switch[l]));
        continue;
      }
      LinkEntry up = pcie(device_ids[d], parent);
      if (parent == cpu) up.host_bridge = bridge_ids[b];
      links.push_back(up);
    }
  }
};

// One cpu node per domain ("cpu<i>"), with a NUMA number and cores where the printout shows
// them; returns each as "cpu0 (NUMA 1)" for the assumptions.
std::vector<std::string> add_cpu_nodes(const Domains& domains, const SmiImportOptions& options,
                                       std::vector<NodeEntry>& nodes) {
  std::vector<std::string> listed;
  for (std::size_t i = 0; i < domains.list.size(); ++i) {
    const Domain& dom = domains.list[i];
    NodeEntry cpu = node_entry(fmt::format("cpu{}", i), "cpu");
    cpu.vendor = options.cpu_vendor;
    cpu.socket = static_cast<int>(i);
    cpu.cores = dom.cores;
    if (!dom.numa.empty()) cpu.numa_node = std::stoi(dom.numa);
    listed.push_back(dom.numa.empty() ? fmt::format("cpu{} (no NUMA number)", i)
                                      : fmt::format("cpu{} (NUMA {})", i, dom.numa));
    nodes.push_back(cpu);
  }
  return listed;
}

// The PCIe trees of every domain, and the domains joined all to all (SYS between any two) by
// the vendor's socket link.
void add_host_links(const SmiMatrix& m, const Cells& cells, const Domains& domains,
                    const std::vector<std::string>& device_ids, const GpuModel& model,
                    const SmiImportOptions& options, MachineDocument& doc) {
  PcieTree tree{m, cells, device_ids, model.pcie_generation};
  for (std::size_t dom = 0; dom < domains.list.size(); ++dom) {
    std::vector<std::size_t> local;
    for (std::size_t d = 0; d < m.columns.size(); ++d) {
      if (domains.of[d] == dom) local.push_back(d);
    }
    tree.build(dom, local);
  }
  doc.nodes.insert(doc.nodes.end(), tree.nodes.begin(), tree.nodes.end());
  doc.links.insert(doc.links.end(), tree.links.begin(), tree.links.end());
  const char* socket_link = options.cpu_vendor == "amd" ? "xgmi" : "upi";
  for (std::size_t i = 0; i < domains.list.size(); ++i) {
    for (std::size_t j = i + 1; j < domains.list.size(); ++j) {
      doc.links.push_back(
          link_entry(fmt::format("cpu{}", i), fmt::format("cpu{}", j), socket_link));
    }
  }
}

}  // namespace

SmiImport import_smi(const SmiMatrix& m, const SmiImportOptions& options) {
  SmiImport out;
  const auto model = find_gpu_model(options.gpu_model);
  if (!model) {
    throw InputError(options.source, "",
                     fmt::format("unknown GPU model \"{}\"; known models: {}", options.gpu_model,
                                 fmt::join(gpu_model_names(), ", ")));
  }
  std::vector<std::size_t> gpu_cols;
  std::vector<std::size_t> nic_cols;
  for (std::size_t i = 0; i < m.columns.size(); ++i)
    (is_gpu_column(m.columns[i]) ? gpu_cols : nic_cols).push_back(i);
  const Cells cells(m);
  check_importable(m, cells, *model, options);
  const Domains domains = numa_domains(m, cells, gpu_cols, nic_cols, options);

  std::vector<std::string> device_ids(m.columns.size());
  for (std::size_t g : gpu_cols)
    device_ids[g] = "gpu" + m.columns[g].substr(3);
  const auto nics = nic_ids(m, nic_cols.size(), out.assumed);
  for (std::size_t i = 0; i < nic_cols.size(); ++i)
    device_ids[nic_cols[i]] = nics[i];

  MachineDocument doc;
  doc.schema = "./schema.json";
  doc.title = options.title.empty() ? fmt::format("{}x {} (imported from nvidia-smi topo -m)",
                                                  gpu_cols.size(), options.gpu_model)
                                    : options.title;
  doc.sources = {options.source.empty() ? "nvidia-smi topo -m printout"
                                        : "nvidia-smi topo -m printout: " + options.source};
  doc.nodes.push_back(node_entry("gpu", "gpu"));
  doc.nodes.back().count = gpu_cols.size();
  doc.nodes.back().model = options.gpu_model;
  const std::vector<std::string> numa_listed = add_cpu_nodes(domains, options, doc.nodes);
  for (const auto& id : nics)
    doc.nodes.push_back(node_entry(id, "nic"));
  const int nvgen = model->nvlink_generation > 0 ? model->nvlink_generation : 3;
  NvlinkFabric fabric = nvlink_fabric_from_smi(m, nvgen, model->nvlink_links);
  doc.nodes.insert(doc.nodes.end(), fabric.nodes.begin(), fabric.nodes.end());
  doc.links = std::move(fabric.links);
  for (auto& a : fabric.assumed)
    out.assumed.push_back(std::move(a));
  add_host_links(m, cells, domains, device_ids, *model, options, doc);

  out.assumed.insert(out.assumed.end(), domains.assumed.begin(), domains.assumed.end());
  out.assumed.push_back(fmt::format("PCIe {}.0 x16 for every PCIe link (from the GPU model)",
                                    model->pcie_generation));
  out.assumed.push_back(fmt::format(
      "each NUMA domain is a cpu node from vendor \"{}\" ({}), joined to the others by {}",
      options.cpu_vendor, fmt::join(numa_listed, ", "),
      options.cpu_vendor == "amd" ? "xGMI" : "UPI"));
  out.assumed.push_back("link latencies are the per-kind defaults (docs/topology-format.md)");
  if (!nic_cols.empty()) out.assumed.push_back("NICs have no network links (single node)");
  out.document = write_machine_document(doc);
  return out;
}

}  // namespace linksim::topo
