#include "sim/topo/smi_matrix.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "sim/core/error.hpp"
#include "sim/topo/gpu_model.hpp"

namespace linksim::topo {
namespace {

std::string cell_for(const Router& router, NodeId a, NodeId b) {
  const PathClass c = router.path_class(a, b);
  if (c == PathClass::nvlink) return fmt::format("NV{}", router.nvlink_count(a, b));
  return std::string(to_string(c));
}

std::vector<std::string> split_ws(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  std::string tok;
  while (in >> tok)
    out.push_back(tok);
  return out;
}

bool is_device_label(const std::string& s) {
  static const std::regex re(R"((GPU|NIC)\d+|mlx5_\d+|mlx4_\d+|bnxt_re\d+|efa_\d+|ib\d+)");
  return std::regex_match(s, re);
}

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

SmiMatrix smi_matrix(const Topology& topo, const Router& router) {
  SmiMatrix m;
  const auto gpus = topo.nodes_of(NodeKind::gpu);
  const auto nics = topo.nodes_of(NodeKind::nic);
  std::vector<NodeId> devices(gpus);
  devices.insert(devices.end(), nics.begin(), nics.end());
  for (NodeId g : gpus)
    m.columns.push_back(fmt::format("GPU{}", topo.node(g).ordinal));
  for (NodeId n : nics) {
    m.columns.push_back(fmt::format("NIC{}", topo.node(n).ordinal));
    m.nic_names.push_back(topo.node(n).id);
  }
  for (NodeId r : devices) {
    SmiRow row;
    row.label = topo.node(r).kind == NodeKind::gpu ? fmt::format("GPU{}", topo.node(r).ordinal)
                                                   : fmt::format("NIC{}", topo.node(r).ordinal);
    for (NodeId c : devices)
      row.cells.push_back(cell_for(router, r, c));
    if (topo.node(r).kind == NodeKind::gpu) {
      auto cpu = router.host_socket(r);
      if (cpu) {
        const CpuInfo& info = *topo.node(*cpu).cpu;
        row.cpu_affinity = info.cores.empty() ? "N/A" : info.cores;
        row.numa_affinity = std::to_string(info.numa_node);
      } else {
        row.cpu_affinity = "N/A";
        row.numa_affinity = "N/A";
      }
      row.gpu_numa_id = "N/A";
    }
    m.rows.push_back(std::move(row));
  }
  return m;
}

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

namespace {

// A row against the header and the rows before it: a known label, once; X on the diagonal
// only; NV# from 1 to kMaxSmiNvlinks.
void check_row(const SmiMatrix& m, const SmiRow& row, const std::string& printed,
               const std::string& source) {
  const auto at = fmt::format("line {}", row.line);
  const auto self = std::find(m.columns.begin(), m.columns.end(), row.label);
  if (self == m.columns.end()) {
    throw InputError(source, at,
                     fmt::format("row {} is not one of the header's columns ({})", printed,
                                 fmt::join(m.columns, " ")));
  }
  for (const auto& earlier : m.rows) {
    if (earlier.label == row.label) {
      throw InputError(
          source, at,
          fmt::format("row {} appears twice (first at line {})", printed, earlier.line));
    }
  }
  const auto diagonal = static_cast<std::size_t>(self - m.columns.begin());
  for (std::size_t c = 0; c < row.cells.size(); ++c) {
    const std::string& cell = row.cells[c];
    if ((c == diagonal) != (cell == "X")) {
      throw InputError(source, at,
                       c == diagonal
                           ? fmt::format("{}/{} is \"{}\"; a device's own cell is X", printed,
                                         m.columns[c], cell)
                           : fmt::format("{}/{} is X, which only a device's own cell may be",
                                         printed, m.columns[c]));
    }
    if (cell.rfind("NV", 0) == 0) {
      const std::string digits = cell.substr(2);
      if (digits.size() > 3 || std::stoi(digits) < 1 || std::stoi(digits) > kMaxSmiNvlinks) {
        throw InputError(source, at,
                         fmt::format("{}/{} is {}: expected NV1 to NV{}", printed, m.columns[c],
                                     cell, kMaxSmiNvlinks));
      }
    }
  }
}

// nvidia-smi prints a symmetric matrix: cell (a, b) equals cell (b, a) wherever both rows have
// it. Blamed on the later row's line.
void check_symmetric(const SmiMatrix& m, const std::string& source) {
  std::map<std::string, std::size_t> column;
  for (std::size_t i = 0; i < m.columns.size(); ++i)
    column[m.columns[i]] = i;
  for (std::size_t a = 0; a < m.rows.size(); ++a) {
    for (std::size_t b = 0; b < a; ++b) {
      const SmiRow& late = m.rows[a];
      const SmiRow& early = m.rows[b];
      const std::size_t late_col = column[late.label];
      const std::size_t early_col = column[early.label];
      if (early_col >= late.cells.size() || late_col >= early.cells.size()) continue;
      if (late.cells[early_col] != early.cells[late_col]) {
        throw InputError(source, fmt::format("line {}", late.line),
                         fmt::format("{}/{} is {} but {}/{} (line {}) is {}; the matrix must be "
                                     "symmetric",
                                     late.label, early.label, late.cells[early_col], early.label,
                                     late.label, early.line, early.cells[late_col]));
      }
    }
  }
}

}  // namespace

SmiMatrix parse_smi_printout(const std::string& text, const std::string& source) {
  SmiMatrix m;
  std::istringstream in(text);
  std::string line;
  int line_no = 0;
  bool have_header = false;
  std::size_t device_columns = 0;
  std::map<std::string, std::string> column_alias;  // mlx5_0 -> NIC0
  while (std::getline(in, line)) {
    ++line_no;
    auto tokens = split_ws(line);
    if (tokens.empty()) {
      if (have_header && !m.rows.empty()) break;  // the legend follows a blank line
      continue;
    }
    if (!have_header) {
      if (std::find(tokens.begin(), tokens.end(), "GPU0") == tokens.end()) continue;
      // Header: device names, then "CPU Affinity", "NUMA Affinity", ...
      std::size_t nic = 0;
      std::size_t gpu = 0;
      for (const auto& t : tokens) {
        if (!is_device_label(t)) {
          // "GPUQ" is a damaged column, not the start of "CPU Affinity".
          if (t.rfind("GPU", 0) == 0) {
            throw InputError(source, fmt::format("line {}", line_no),
                             fmt::format("column {}: expected GPU{}", t, gpu));
          }
          break;
        }
        if (t.rfind("GPU", 0) == 0 && t != fmt::format("GPU{}", gpu++)) {
          throw InputError(source, fmt::format("line {}", line_no),
                           fmt::format("column {} is out of order: expected GPU{}", t, gpu - 1));
        }
        std::string name = t;
        if (t.rfind("GPU", 0) != 0) {
          name = fmt::format("NIC{}", nic++);
          column_alias[t] = name;
          m.nic_names.push_back(t.rfind("NIC", 0) == 0 ? "" : t);
        }
        m.columns.push_back(name);
      }
      device_columns = m.columns.size();
      m.has_affinity = line.find("CPU Affinity") != std::string::npos;
      m.header_line = line_no;
      have_header = true;
      continue;
    }
    if (!is_device_label(tokens[0])) {
      if (tokens[0] == "Legend:") break;
      if (tokens[0].rfind("GPU", 0) == 0) {
        throw InputError(source, fmt::format("line {}", line_no),
                         fmt::format("row label {}: expected a device such as GPU0", tokens[0]));
      }
      continue;  // nvidia-smi's "(truncated)" notes and similar
    }
    SmiRow row;
    row.label = column_alias.count(tokens[0]) ? column_alias[tokens[0]] : tokens[0];
    row.line = line_no;
    if (tokens.size() < 1 + device_columns) {
      // A truncated row: keep the cells that are there.
      for (std::size_t i = 1; i < tokens.size(); ++i)
        row.cells.push_back(tokens[i]);
    } else {
      for (std::size_t i = 1; i <= device_columns; ++i)
        row.cells.push_back(tokens[i]);
      std::vector<std::string> rest(tokens.begin() + 1 + static_cast<long>(device_columns),
                                    tokens.end());
      if (!rest.empty()) row.cpu_affinity = rest[0];
      // CPU lists such as 0-31,64-95 (or N/A); a damaged one would be imported as it stands.
      static const std::regex cpus_re(R"(N/A|\d+(-\d+)?(,\d+(-\d+)?)*,?|.*truncated.*)");
      if (m.has_affinity && !rest.empty() && !std::regex_match(rest[0], cpus_re)) {
        throw InputError(source, fmt::format("line {}", line_no),
                         fmt::format("{} CPU Affinity \"{}\": expected CPU numbers such as "
                                     "0-31,64-95",
                                     tokens[0], rest[0]));
      }
      if (rest.size() > 1) row.numa_affinity = rest[1];
      if (rest.size() > 2) row.gpu_numa_id = rest[2];
    }
    for (auto& c : row.cells) {
      if (c == "SOC") c = "SYS";  // pre-2018 legend
      static const std::regex cell_re(R"(X|NV\d+|PIX|PXB|PHB|NODE|SYS)");
      if (!std::regex_match(c, cell_re)) {
        // Truncation marks such as "112-127,240-25(truncated)" end a row early.
        if (c.find("truncated") != std::string::npos || c.find(',') != std::string::npos ||
            c.find('-') != std::string::npos) {
          row.cells.resize(static_cast<std::size_t>(&c - row.cells.data()));
          break;
        }
        throw InputError(source, fmt::format("line {}", line_no),
                         fmt::format("unexpected cell \"{}\" in row {}; expected X, NV#, PIX, PXB, "
                                     "PHB, NODE or SYS",
                                     c, tokens[0]));
      }
    }
    check_row(m, row, tokens[0], source);
    m.rows.push_back(std::move(row));
  }
  if (!have_header) {
    throw InputError(source, "",
                     "no nvidia-smi topo -m header found (a line naming GPU0, GPU1, ...)");
  }
  if (m.rows.empty()) throw InputError(source, "", "no device rows after the header");
  check_symmetric(m, source);
  return m;
}

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
    if (!row.numa_affinity.empty() && row.numa_affinity != it->second->numa_affinity) {
      diffs.push_back(fmt::format("{} NUMA Affinity: expected {}, got {}", row.label,
                                  row.numa_affinity, it->second->numa_affinity));
    }
  }
  return diffs;
}

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
      out.nodes.push_back({{"id", "nvswitch"}, {"kind", "nvswitch"}});
      out.links.push_back({{"for", {{"g", fmt::format("0..{}", gpu_cols.size() - 1)}}},
                           {"a", "gpu{g}"},
                           {"b", "nvswitch"},
                           {"kind", "nvlink"},
                           {"generation", nvlink_generation},
                           {"lanes", k}});
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
        out.links.push_back({{"a", gpu_id(gpu_cols[ai])},
                             {"b", gpu_id(gpu_cols[bi])},
                             {"kind", "nvlink"},
                             {"generation", nvlink_generation},
                             {"lanes", std::stoi(c.substr(2))}});
      }
    }
    out.assumed.push_back(
        fmt::format("NVLink generation {} for NV# pairs (from the GPU model)", nvlink_generation));
  }
  return out;
}

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
