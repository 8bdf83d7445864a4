#include "sim/topo/smi_matrix_parse.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <regex>
#include <sstream>

#include "sim/core/error.hpp"
#include "sim/topo/cpu_list.hpp"
#include "sim/topo/smi_matrix_ansi.hpp"

namespace linksim::topo {
namespace {

// The longest line a printout may have, characters: a 72-GPU printout's rows are under 1,000.
constexpr std::size_t kMaxPrintoutLineChars = 4096;

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

// The "NIC Legend:" block after the matrix ("  NIC0: mlx5_0"): the NICs' device names, which
// the matrix's NIC# columns stand for.
void read_nic_legend(std::istream& in, int line_no, SmiMatrix& m, const std::string& source) {
  static const std::regex entry_re(R"(\s*NIC(\d{1,4}):\s*(\S+)\s*)");
  bool in_legend = false;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    if (!in_legend) {
      in_legend = line.rfind("NIC Legend:", 0) == 0;
      continue;
    }
    std::smatch match;
    if (split_ws(line).empty()) continue;
    if (!std::regex_match(line, match, entry_re)) break;  // whatever follows the printout
    const auto nic = static_cast<std::size_t>(std::stoi(match[1].str()));
    if (nic >= m.nic_names.size()) {
      throw InputError(source, fmt::format("line {}", line_no),
                       fmt::format("NIC legend names NIC{}, but the matrix has {} NIC columns", nic,
                                   m.nic_names.size()));
    }
    m.nic_names[nic] = match[2].str();
  }
}

// Where the matrix's header puts its columns: the NICs' own names (mlx5_0) read as NIC0, ...
using ColumnAliases = std::map<std::string, std::string>;

// The header line: device names, then "CPU Affinity", "NUMA Affinity", ...
void read_header(const std::vector<std::string>& tokens, const std::string& line, int line_no,
                 const std::string& source, SmiMatrix& m, ColumnAliases& column_alias) {
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
  m.affinity_columns.clear();
  for (const char* column : {kSmiCpuAffinity, kSmiNumaAffinity, kSmiGpuNumaId}) {
    if (line.find(column) != std::string::npos) m.affinity_columns.emplace_back(column);
  }
  m.header_line = line_no;
}

bool prints(const SmiMatrix& m, const char* column) {
  return std::find(m.affinity_columns.begin(), m.affinity_columns.end(), column) !=
         m.affinity_columns.end();
}

// What is wrong with a NUMA Affinity value, or nullopt: nvidia-smi prints a node number, a list
// of numbers and ranges ("0-1", "0,2", GB200's "0,3-9,11-17"), or N/A. Linux numbers at most
// 1024 NUMA nodes (NODES_SHIFT 10), so a number has at most four digits and stays below 1024.
std::optional<std::string> numa_list_problem(const std::string& value) {
  static const std::regex list_re(R"(\d{1,4}(-\d{1,4})?(,\d{1,4}(-\d{1,4})?)*)");
  if (value == "N/A") return std::nullopt;
  if (!std::regex_match(value, list_re)) {
    return "expected a NUMA node number, a list or range of them such as 0-1 or 0,2, or N/A";
  }
  static const std::regex part_re(R"((\d+)(?:-(\d+))?)");
  for (auto it = std::sregex_iterator(value.begin(), value.end(), part_re);
       it != std::sregex_iterator(); ++it) {
    const int low = std::stoi((*it)[1].str());
    const int high = (*it)[2].matched ? std::stoi((*it)[2].str()) : low;
    if (high >= 1024) {
      return fmt::format("NUMA node {} is beyond the 1024 nodes Linux numbers", high);
    }
    if (high < low) {
      return fmt::format("the range {}-{} runs backwards; expected low-high such as 0-1", low,
                         high);
    }
  }
  return std::nullopt;
}

// The row's device cells and, after them, its CPU and NUMA affinity and GPU NUMA id.
void read_cells_and_affinity(const std::vector<std::string>& tokens, int line_no,
                             const SmiMatrix& m, const std::string& source, SmiRow& row) {
  const std::size_t device_columns = m.columns.size();
  if (tokens.size() < 1 + device_columns) {
    // A truncated row: keep the cells that are there.
    for (std::size_t i = 1; i < tokens.size(); ++i)
      row.cells.push_back(tokens[i]);
    return;
  }
  for (std::size_t i = 1; i <= device_columns; ++i)
    row.cells.push_back(tokens[i]);
  std::vector<std::string> rest(tokens.begin() + 1 + static_cast<long>(device_columns),
                                tokens.end());
  if (!rest.empty()) row.cpu_affinity = rest[0];
  // CPU lists such as 0-31,64-95 (or N/A); a damaged one would be imported as it stands.
  static const std::regex cpus_re(R"(N/A|\d+(-\d+)?(,\d+(-\d+)?)*,?|.*truncated.*)");
  if (m.has_affinity() && !rest.empty() && !std::regex_match(rest[0], cpus_re)) {
    throw InputError(source, fmt::format("line {}", line_no),
                     fmt::format("{} CPU Affinity \"{}\": expected CPU numbers such as "
                                 "0-31,64-95",
                                 tokens[0], rest[0]));
  }
  if (m.has_affinity() && !rest.empty() && rest[0] != "N/A" &&
      rest[0].find("truncated") == std::string::npos) {
    if (const auto problem = cpu_list_problem(rest[0])) {
      throw InputError(source, fmt::format("line {}", line_no),
                       fmt::format("{} CPU Affinity \"{}\": {}", tokens[0], rest[0], *problem));
    }
  }
  // Only the columns the header names: a value under no NUMA header is not a NUMA node.
  if (rest.size() > 1 && prints(m, kSmiNumaAffinity)) row.numa_affinity = rest[1];
  if (rest.size() > 2 && prints(m, kSmiGpuNumaId)) row.gpu_numa_id = rest[2];
  if (prints(m, kSmiNumaAffinity) && !row.numa_affinity.empty()) {
    if (const auto problem = numa_list_problem(row.numa_affinity)) {
      throw InputError(
          source, fmt::format("line {}", line_no),
          fmt::format("{} NUMA Affinity \"{}\": {}", tokens[0], row.numa_affinity, *problem));
    }
  }
  static const std::regex gpu_numa_re(R"(N/A|\d{1,4})");
  if (prints(m, kSmiGpuNumaId) && !row.gpu_numa_id.empty() &&
      !std::regex_match(row.gpu_numa_id, gpu_numa_re)) {
    throw InputError(source, fmt::format("line {}", line_no),
                     fmt::format("{} GPU NUMA ID \"{}\": expected a NUMA node number or N/A",
                                 tokens[0], row.gpu_numa_id));
  }
}

// Cells in today's legend (SOC reads as SYS); a truncation mark ends the row there.
void normalize_cells(const std::string& printed, int line_no, const std::string& source,
                     SmiRow& row) {
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
                                   c, printed));
    }
  }
}

// A device row, labelled as the header's columns are.
SmiRow read_row(const std::vector<std::string>& tokens, int line_no, const SmiMatrix& m,
                const ColumnAliases& column_alias, const std::string& source) {
  SmiRow row;
  const auto alias = column_alias.find(tokens[0]);
  row.label = alias != column_alias.end() ? alias->second : tokens[0];
  row.line = line_no;
  read_cells_and_affinity(tokens, line_no, m, source, row);
  normalize_cells(tokens[0], line_no, source, row);
  return row;
}

}  // namespace

SmiMatrix parse_smi_printout(const std::string& raw, const std::string& source) {
  SmiMatrix m;
  const std::string text = strip_terminal_escapes(raw);
  // std::regex matches by recursion as deep as its input is long, so a line of megabytes would
  // overflow the stack (found by fuzzing). No line of a real printout comes near this bound.
  {
    std::istringstream lines(text);
    std::string line;
    for (int no = 1; std::getline(lines, line); ++no) {
      if (line.size() > kMaxPrintoutLineChars) {
        throw InputError(source, fmt::format("line {}", no),
                         fmt::format("{} characters; an nvidia-smi topo -m printout's lines are "
                                     "at most {} (is this the printout?)",
                                     line.size(), kMaxPrintoutLineChars));
      }
    }
  }
  std::istringstream in(text);
  std::string line;
  int line_no = 0;
  bool have_header = false;
  ColumnAliases column_alias;
  while (std::getline(in, line)) {
    ++line_no;
    auto tokens = split_ws(line);
    if (tokens.empty()) {
      if (have_header && !m.rows.empty()) break;  // the legend follows a blank line
      continue;
    }
    if (!have_header) {
      if (std::find(tokens.begin(), tokens.end(), "GPU0") == tokens.end()) continue;
      read_header(tokens, line, line_no, source, m, column_alias);
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
    SmiRow row = read_row(tokens, line_no, m, column_alias, source);
    check_row(m, row, tokens[0], source);
    m.rows.push_back(std::move(row));
  }
  if (!have_header) {
    throw InputError(source, "",
                     "no nvidia-smi topo -m header found (a line naming GPU0, GPU1, ...)");
  }
  if (m.rows.empty()) throw InputError(source, "", "no device rows after the header");
  check_symmetric(m, source);
  read_nic_legend(in, line_no, m, source);
  return m;
}
}  // namespace linksim::topo
