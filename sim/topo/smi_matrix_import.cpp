#include "sim/topo/smi_matrix_import.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <regex>
#include <set>

#include "sim/core/error.hpp"
#include "sim/topo/gpu_model.hpp"
#include "sim/topo/index_groups.hpp"
#include "sim/topo/loader.hpp"
#include "sim/topo/machine_writer.hpp"
#include "sim/topo/routing.hpp"
#include "sim/topo/smi_matrix_cells.hpp"
#include "sim/topo/smi_matrix_compare.hpp"
#include "sim/topo/smi_matrix_domains.hpp"
#include "sim/topo/smi_matrix_nvlink.hpp"

namespace linksim::topo {
namespace {

// Every GPU row in full (NIC rows are optional: the GPU rows carry every GPU-NIC cell), and no
// NV# above what one GPU has. A truncated row is named at its line, a missing one at the header.
void check_importable(const SmiMatrix& m, const SmiCells& cells, const GpuModel& model,
                      const SmiImportOptions& options) {
  const std::size_t n = m.columns.size();
  for (std::size_t c = 0; c < n; ++c) {
    if (!is_smi_gpu_column(m.columns[c])) continue;
    const SmiRow* row = cells.row(c);
    if (row == nullptr) {
      throw InputError(
          options.source, fmt::format("line {}", m.header_line),
          fmt::format("column {} has no row; importing needs every GPU row in full", m.columns[c]));
    }
    if (row->cells.size() < n) {
      throw InputError(options.source, fmt::format("line {}", row->line),
                       fmt::format("row {} is truncated: {} of {} cells; importing needs every "
                                   "GPU row in full",
                                   m.columns[c], row->cells.size(), n));
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

// The NICs' node ids: each NIC's name from the printout (the NIC legend, or an mlx5_N column)
// as printed, so the machine's NIC legend and NCCL_IB_HCA built from it read the same; "nic<i>"
// for a NIC the printout names not at all, or with a name that cannot be a node id (another
// device's, a repeated one).
std::vector<std::string> nic_ids(const SmiMatrix& m, std::size_t nic_count,
                                 std::vector<std::string>& assumed) {
  static const std::regex usable(R"([A-Za-z][A-Za-z0-9_.:-]*)");
  static const std::regex taken(R"((gpu|cpu|pcie_switch|nvswitch)\d*)");
  std::set<std::string> printed;
  for (const auto& name : m.nic_names)
    printed.insert(name);
  std::vector<std::string> ids;
  std::vector<std::string> unnamed;
  std::set<std::string> seen;
  for (std::size_t i = 0; i < nic_count; ++i) {
    const std::string name = i < m.nic_names.size() ? m.nic_names[i] : "";
    if (std::regex_match(name, usable) && !std::regex_match(name, taken) &&
        seen.insert(name).second) {
      ids.push_back(name);
      continue;
    }
    std::string id = fmt::format("nic{}", i);
    while (printed.count(id) != 0 || !seen.insert(id).second)
      id += "_";
    ids.push_back(id);
    unnamed.push_back(fmt::format("NIC{} is {}", i, id));
  }
  if (!unnamed.empty()) {
    assumed.push_back(
        fmt::format("{} (the printout's NIC legend gives no distinct name that can be a node id)",
                    fmt::join(unnamed, ", ")));
  }
  return ids;
}

// The PCIe tree of each domain, rebuilt from the classes: PIX groups share a leaf switch, PXB
// groups an upper switch, PHB groups a host bridge; NODE means different host bridges. Under an
// upper switch every device sits below a leaf switch of its own group, even alone: two devices
// hanging straight off the upper switch would be PIX to each other, not the PXB printed (a DGX
// A100's GPU0, GPU1, mlx5_0 and mlx5_1 are PXB to each other, with no PIX pair among them).
struct PcieTree {
  const SmiMatrix& m;
  const SmiCells& cells;
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
    IndexGroups leaf(n);
    IndexGroups upper(n);
    IndexGroups bridge(n);
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
      if (members_of_leaf[l].size() > 1 || parent != cpu) {
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
std::vector<std::string> add_cpu_nodes(const SmiDomains& domains, const SmiImportOptions& options,
                                       std::vector<NodeEntry>& nodes) {
  std::vector<std::string> listed;
  for (std::size_t i = 0; i < domains.list.size(); ++i) {
    const SmiDomain& dom = domains.list[i];
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

// What add_host_links built, for the assumptions.
struct HostLinks {
  int pcie_switches = 0;
  int host_bridges = 0;
  std::vector<std::string> socket_pairs;  // "cpu0-cpu1"
};

// The PCIe trees of every domain, and the domains joined all to all (SYS between any two) by
// one link of the vendor's socket kind each.
HostLinks add_host_links(const SmiMatrix& m, const SmiCells& cells, const SmiDomains& domains,
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
  HostLinks built{tree.switch_count, tree.host_bridges, {}};
  const char* socket_link = options.cpu_vendor == "amd" ? "xgmi" : "upi";
  for (std::size_t i = 0; i < domains.list.size(); ++i) {
    for (std::size_t j = i + 1; j < domains.list.size(); ++j) {
      doc.links.push_back(
          link_entry(fmt::format("cpu{}", i), fmt::format("cpu{}", j), socket_link));
      built.socket_pairs.push_back(fmt::format("cpu{}-cpu{}", i, j));
    }
  }
  return built;
}

// The imported machine prints every class and every NIC name the printout shows, or the import
// fails at the first cell it cannot reproduce: a machine that prints another matrix is never
// handed back. Affinity columns a machine file cannot hold (NUMA lists, GPU NUMA IDs) are the
// assumptions' business, not failures.
void check_round_trip(const SmiMatrix& m, const Json& document, const SmiImportOptions& options) {
  const Topology t = parse_topology(document, options.source + " (imported)");
  const Router router(t);
  for (const auto& d : smi_differences(m, smi_matrix(t, router))) {
    if (d.kind == SmiDifference::Kind::affinity) continue;
    throw InputError(options.source, fmt::format("line {}", d.line),
                     fmt::format("{} in the machine rebuilt from the printout; linksim cannot "
                                 "represent this cell together with the rest of the matrix, so "
                                 "nothing was imported",
                                 d.text));
  }
}

// "1 PCIe switch", "2 PCIe switches".
std::string count_of(std::size_t n, const char* one, const char* many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

// What the import assumed about the host: every count and kind the printout does not show.
void add_host_assumptions(const HostLinks& built, const std::vector<std::string>& numa_listed,
                          const GpuModel& model, const SmiImportOptions& options,
                          std::vector<std::string>& assumed) {
  assumed.push_back(
      fmt::format("PCIe {}.0 x16 for every PCIe link (from the GPU model)", model.pcie_generation));
  if (built.pcie_switches > 0) {
    assumed.push_back(fmt::format(
        "{}: one per group of devices PIX to each other (or alone under a PXB group), and one "
        "above each PXB group; the printout shows neither how many bridges a PXB path crosses "
        "nor how wide they are",
        count_of(static_cast<std::size_t>(built.pcie_switches), "PCIe switch", "PCIe switches")));
  }
  assumed.push_back(fmt::format(
      "{}: one per group of devices PHB (or closer) to each other; devices NODE to each other "
      "are on different ones",
      count_of(static_cast<std::size_t>(built.host_bridges), "PCIe host bridge",
               "PCIe host bridges")));
  const std::string socket_kind = options.cpu_vendor == "amd" ? "xGMI" : "UPI";
  assumed.push_back(
      fmt::format("{} of vendor \"{}\" (given or the default; nvidia-smi does not print it): {}",
                  count_of(numa_listed.size(), "cpu node", "cpu nodes"), options.cpu_vendor,
                  fmt::join(numa_listed, ", ")));
  if (!built.socket_pairs.empty()) {
    assumed.push_back(fmt::format(
        "1 {} link, of {}'s default generation and speed, between each pair of cpu nodes ({}): "
        "the printout shows SYS, not how many socket links there are nor their kind or speed",
        socket_kind, socket_kind, fmt::join(built.socket_pairs, ", ")));
  }
  assumed.push_back("link latencies are the per-kind defaults (docs/topology-format.md)");
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
    (is_smi_gpu_column(m.columns[i]) ? gpu_cols : nic_cols).push_back(i);
  const SmiCells cells(m);
  check_importable(m, cells, *model, options);
  const SmiDomains domains = smi_numa_domains(cells);

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
  const HostLinks built = add_host_links(m, cells, domains, device_ids, *model, options, doc);

  out.assumed.insert(out.assumed.end(), domains.assumed.begin(), domains.assumed.end());
  add_host_assumptions(built, numa_listed, *model, options, out.assumed);
  if (!nic_cols.empty()) {
    out.assumed.push_back(fmt::format(
        "{} of no particular model, at the nic kind's default port bandwidth, with no network "
        "links (single node): the printout names neither model nor speed",
        count_of(nic_cols.size(), "NIC", "NICs")));
  }
  out.document = write_machine_document(doc);
  check_round_trip(m, out.document, options);
  return out;
}

}  // namespace linksim::topo
