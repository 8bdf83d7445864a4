#include "sim/topo/smi_matrix_domains.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>

#include "sim/topo/index_groups.hpp"

namespace linksim::topo {
namespace {

bool known(const std::string& value) {
  return !value.empty() && value != "N/A" && value.find("truncated") == std::string::npos;
}

// What a GPU's affinity says about its NUMA node: "numa <as printed>", else "cpus <as
// printed>", else "" (nothing known).
std::string affinity_key(const SmiRow* row) {
  if (row == nullptr) return "";
  if (known(row->numa_affinity)) return "numa " + row->numa_affinity;
  if (known(row->cpu_affinity)) return "cpus " + row->cpu_affinity;
  return "";
}

// The first NUMA node a NUMA Affinity names: "0,3-9,11-17" -> "0", "1-2" -> "1".
std::string first_numa_node(const std::string& affinity) {
  const auto end = affinity.find_first_of(",-");
  return std::to_string(std::stoi(affinity.substr(0, end)));
}

bool is_pcie_class_within_a_node(const std::string& cell) {
  return cell == "PIX" || cell == "PXB" || cell == "PHB" || cell == "NODE";
}

// Domains with a NUMA number first, in number order; then the others as found.
SmiDomains sorted_by_numa(SmiDomains d) {
  std::vector<std::size_t> order(d.list.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const SmiDomain& x = d.list[a];
    const SmiDomain& y = d.list[b];
    if (x.numa.empty() != y.numa.empty()) return !x.numa.empty();
    return !x.numa.empty() && std::stoi(x.numa) < std::stoi(y.numa);
  });
  std::vector<std::size_t> new_index(order.size());
  SmiDomains sorted;
  for (std::size_t i = 0; i < order.size(); ++i) {
    new_index[order[i]] = i;
    sorted.list.push_back(d.list[order[i]]);
  }
  sorted.of = d.of;
  for (auto& o : sorted.of)
    o = new_index[o];
  sorted.assumed = std::move(d.assumed);
  return sorted;
}

}  // namespace

SmiDomains smi_numa_domains(const SmiCells& cells) {
  const SmiMatrix& m = cells.matrix();
  const std::size_t n = m.columns.size();
  std::vector<std::string> key(n);
  for (std::size_t c = 0; c < n; ++c) {
    if (is_smi_gpu_column(m.columns[c])) key[c] = affinity_key(cells.row(c));
  }
  IndexGroups groups(n);
  for (std::size_t a = 0; a < n; ++a) {
    for (std::size_t b = a + 1; b < n; ++b) {
      if (is_pcie_class_within_a_node(cells(a, b))) groups.join(a, b);
    }
  }
  // NV# pairs of one affinity then join their domains, unless the printout shows SYS between
  // the two domains' devices (a GPU pair's NICs SYS to another pair's, with every GPU on one
  // NUMA node: a VM, or a BIOS that hides NUMA): one domain would re-print that SYS as NODE.
  const auto sys_between = [&](std::size_t a, std::size_t b) {
    const std::size_t ra = groups.find(a);
    const std::size_t rb = groups.find(b);
    for (std::size_t x = 0; x < n; ++x) {
      if (groups.find(x) != ra) continue;
      for (std::size_t y = 0; y < n; ++y) {
        if (groups.find(y) == rb && cells(x, y) == "SYS") return true;
      }
    }
    return false;
  };
  for (std::size_t a = 0; a < n; ++a) {
    for (std::size_t b = a + 1; b < n; ++b) {
      const bool nv_pair = cells(a, b).rfind("NV", 0) == 0 && is_smi_gpu_column(m.columns[a]) &&
                           is_smi_gpu_column(m.columns[b]);
      if (nv_pair && key[a] == key[b] && groups.find(a) != groups.find(b) && !sys_between(a, b)) {
        groups.join(a, b);
      }
    }
  }

  SmiDomains d;
  d.of.assign(n, 0);
  std::map<std::size_t, std::size_t> domain_of_root;
  std::map<std::size_t, std::size_t> first_gpu_of_domain;
  std::vector<std::string> listed_numa;     // GPUs whose NUMA list became one number
  std::vector<std::string> other_affinity;  // GPUs sharing a domain with another affinity
  std::vector<std::string> gpu_less;        // NICs on domains without GPUs
  bool by_cores = false;
  bool unknown = false;
  for (std::size_t c = 0; c < n; ++c) {
    const auto [it, fresh] = domain_of_root.emplace(groups.find(c), d.list.size());
    if (fresh) d.list.emplace_back();
    d.of[c] = it->second;
    SmiDomain& dom = d.list[it->second];
    if (!is_smi_gpu_column(m.columns[c])) continue;
    const SmiRow* row = cells.row(c);
    by_cores = by_cores || key[c].rfind("cpus ", 0) == 0;
    unknown = unknown || key[c].empty();
    const auto [first, first_here] = first_gpu_of_domain.emplace(it->second, c);
    if (first_here) {
      dom.has_gpus = true;
      if (row != nullptr && known(row->numa_affinity)) {
        dom.numa = first_numa_node(row->numa_affinity);
      }
      if (row != nullptr && known(row->cpu_affinity)) dom.cores = row->cpu_affinity;
    }
    if (row != nullptr && known(row->numa_affinity) && row->numa_affinity != dom.numa) {
      (key[c] == key[first->second] ? listed_numa : other_affinity).push_back(m.columns[c]);
    } else if (key[c] != key[first->second]) {
      other_affinity.push_back(m.columns[c]);
    }
  }
  for (std::size_t c = 0; c < n; ++c) {
    if (!d.list[d.of[c]].has_gpus) gpu_less.push_back(m.columns[c]);
  }
  if (by_cores) {
    d.assumed.push_back(
        "GPUs without a NUMA affinity are grouped into CPU nodes by their CPU affinity");
  }
  if (unknown) {
    d.assumed.push_back(
        "GPUs without NUMA or CPU affinity share a CPU node unless the printout shows SYS "
        "between them");
  }
  if (!listed_numa.empty()) {
    const bool one = listed_numa.size() == 1;
    d.assumed.push_back(fmt::format(
        "{} {} a list of NUMA nodes; a machine file's CPU node has one NUMA number, the first "
        "listed, so {} NUMA Affinity re-prints as that number",
        fmt::join(listed_numa, ", "), one ? "prints" : "print", one ? "its" : "their"));
  }
  if (!other_affinity.empty()) {
    const bool one = other_affinity.size() == 1;
    d.assumed.push_back(fmt::format(
        "{} {} a CPU node with a GPU of another affinity (the printout shows a PCIe class other "
        "than SYS between them or their NICs); {} affinity re-prints as that GPU's",
        fmt::join(other_affinity, ", "), one ? "shares" : "share", one ? "its" : "their"));
  }
  if (!gpu_less.empty()) {
    d.assumed.push_back(fmt::format(
        "{} SYS to every GPU: on a CPU node without GPUs, whose NUMA node the printout does not "
        "show",
        fmt::join(gpu_less, ", ")));
  }
  return sorted_by_numa(std::move(d));
}

}  // namespace linksim::topo
