#include "calibrate/import_nvbandwidth.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "calibrate/text_lines.hpp"
#include "sim/core/error.hpp"
#include "sim/core/units.hpp"

namespace linksim::calibrate {
namespace {

struct Testcase {
  std::string name;
  int line = 0;
  bool row_is_source = true;  // "->" (false for "<-")
  bool both_ways = false;     // "<->"
  bool row_is_cpu = false;
  bool column_is_cpu = false;
  std::vector<int> columns;
  std::vector<int> rows;  // labels read so far
  int rows_read = 0;
  bool has_matrix = false;
};

std::string kind_for(const Testcase& t) {
  const bool uni = !t.both_ways && t.name.find("bidirectional") == std::string::npos;
  const bool plain = t.name.find("memcpy") != std::string::npos &&
                     t.name.find("all_") == std::string::npos &&
                     t.name.find("_all") == std::string::npos;
  if (uni && plain) {
    if (starts_with(t.name, "host_to_device")) return std::string(kind::h2d);
    if (starts_with(t.name, "device_to_host")) return std::string(kind::d2h);
    if (starts_with(t.name, "device_to_device")) return std::string(kind::p2p_uni);
  }
  return "nvbandwidth:" + t.name;
}

// A row's label: in a GPU-by-GPU matrix one of the columns, once; a GPU row within the machine;
// in a CPU(row) matrix 0, the one row nvbandwidth prints for the host (its 1 x GPUs matrix).
int read_row_label(Testcase& t, const std::string& cell, const std::string& file, int number,
                   const ImportOptions& options) {
  const int row =
      static_cast<int>(parse_integer_cell(cell, file, number, "row label", kMaxDeviceIndex));
  if (t.row_is_cpu && row != 0) {
    throw InputError(file, line_location(number),
                     fmt::format("row label {} is not the host's row; a CPU(row) matrix has one "
                                 "row, labelled 0",
                                 row));
  }
  if (!t.row_is_cpu && !t.column_is_cpu &&
      std::find(t.columns.begin(), t.columns.end(), row) == t.columns.end()) {
    throw InputError(file, line_location(number),
                     fmt::format("row label {} is not one of the matrix's columns ({})", row,
                                 fmt::join(t.columns, " ")));
  }
  if (std::find(t.rows.begin(), t.rows.end(), row) != t.rows.end()) {
    throw InputError(file, line_location(number), fmt::format("row {} appears twice", row));
  }
  if (!t.row_is_cpu && options.expected_gpu_count && row >= *options.expected_gpu_count) {
    throw InputError(
        file, line_location(number),
        fmt::format("GPU {} is beyond the topology's {} GPUs", row, *options.expected_gpu_count));
  }
  t.rows.push_back(row);
  return row;
}

// "memcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)": which way the matrix reads.
void read_matrix_title(Testcase& t, const std::string& line, const std::string& file, int number) {
  if (!contains(line, "bandwidth (GB/s)")) {
    throw InputError(file, line_location(number),
                     fmt::format("expected a bandwidth in GB/s, found \"{}\"", line));
  }
  t.both_ways = contains(line, "<->");
  t.row_is_source = !contains(line, "<-") || t.both_ways;
  const auto row_pos = line.find("(row)");
  t.row_is_cpu = line.substr(0, row_pos).find("CPU") != std::string::npos;
  t.column_is_cpu = line.substr(row_pos).find("CPU") != std::string::npos;
  t.has_matrix = true;
}

// "SUM <testcase> <GB/s>" closes a testcase; one with several matrices names each SUM after
// it: "<testcase>_read1", ...
void read_sum(const Testcase& t, const std::vector<std::string>& cells, const std::string& file,
              int number) {
  const bool named =
      cells.size() == 3 && (cells[1] == t.name || starts_with(cells[1], t.name + "_"));
  if (!named) {
    throw InputError(file, line_location(number),
                     fmt::format("expected \"SUM {} <GB/s>\"", t.name));
  }
  parse_number_cell(cells[2], file, number, "SUM");
  if (t.has_matrix && t.rows_read == 0) {
    throw InputError(file, line_location(number),
                     fmt::format("testcase \"{}\" has no matrix rows", t.name));
  }
}

// The column labels: distinct, and GPUs within the machine when its size is known.
void read_columns(Testcase& t, const std::vector<std::string>& cells, const std::string& file,
                  int number, const ImportOptions& options) {
  for (const auto& c : cells) {
    const int label =
        static_cast<int>(parse_integer_cell(c, file, number, "column label", kMaxDeviceIndex));
    if (std::find(t.columns.begin(), t.columns.end(), label) != t.columns.end()) {
      throw InputError(file, line_location(number), fmt::format("column {} appears twice", label));
    }
    if (!t.column_is_cpu && options.expected_gpu_count && label >= *options.expected_gpu_count) {
      throw InputError(file, line_location(number),
                       fmt::format("GPU {} is beyond the topology's {} GPUs", label,
                                   *options.expected_gpu_count));
    }
    t.columns.push_back(label);
  }
  const int gpus = static_cast<int>(t.columns.size());
  if (!t.column_is_cpu && options.expected_gpu_count && gpus != *options.expected_gpu_count) {
    throw InputError(file, line_location(number),
                     fmt::format("the log measured {} GPUs but the topology has {}", gpus,
                                 *options.expected_gpu_count));
  }
}

// One matrix row: a record per measured cell. nvbandwidth prints N/A for a pair it did not
// measure; a measured copy takes time, so a cell of 0 (or below) is damage, not a pair to skip.
void read_row(Testcase& t, const std::vector<std::string>& cells, const std::string& file,
              int number, const ImportOptions& options, double size_bytes,
              std::vector<Record>& out) {
  if (cells.size() != t.columns.size() + 1) {
    throw InputError(file, line_location(number),
                     fmt::format("matrix row has {} values, expected {} (truncated?)",
                                 cells.size() - 1, t.columns.size()));
  }
  const int row = read_row_label(t, cells[0], file, number, options);
  ++t.rows_read;
  for (std::size_t c = 1; c < cells.size(); ++c) {
    if (cells[c] == "N/A") continue;
    const double value = parse_measure_cell(cells[c], file, number, "bandwidth (GB/s)", true,
                                            units::kMaxBandwidth_Bps / 1e9);
    if (value == 0) {
      throw InputError(file, line_location(number),
                       fmt::format("bandwidth (GB/s): expected a positive number, found \"{}\" "
                                   "(nvbandwidth prints N/A for a pair it does not measure)",
                                   cells[c]));
    }
    const int row_gpu = t.row_is_cpu ? -1 : row;
    const int col_gpu = t.column_is_cpu ? -1 : t.columns[c - 1];
    Record r;
    r.kind = kind_for(t);
    r.variant = t.name;
    r.src_gpu = t.row_is_source ? row_gpu : col_gpu;
    r.dst_gpu = t.row_is_source ? col_gpu : row_gpu;
    const bool peer = r.src_gpu >= 0 && r.dst_gpu >= 0 && r.src_gpu != r.dst_gpu;
    r.gpu_count = peer ? 2 : 1;
    if (peer) r.p2p_enabled = true;
    r.size_bytes = size_bytes;
    r.bandwidth_Bps = value * 1e9;
    r.time_s = size_bytes / r.bandwidth_Bps;
    r.source_file = file;
    r.source_line = number;
    out.push_back(std::move(r));
  }
}

// "Device 0: A100-SXM4-80GB (00000000:07:00)" before the testcases: a GPU the tool saw, within
// the machine when its size is known.
void read_device_line(const std::vector<std::string>& cells, const std::string& file, int number,
                      const ImportOptions& options) {
  const int device = static_cast<int>(parse_integer_cell(
      cells[1].substr(0, cells[1].size() - 1), file, number, "device number", kMaxDeviceIndex));
  check_device_in_machine(device, options.expected_gpu_count, file, number);
}

}  // namespace

std::vector<Record> import_nvbandwidth(const std::string& text, const std::string& file,
                                       const ImportOptions& options, double size_bytes) {
  std::vector<Record> out;
  Testcase t;
  bool open = false;  // a testcase awaits its SUM line
  // One run measures each testcase once: a second block is a second run pasted in, which the
  // fit would count twice.
  std::map<std::string, int> first_line;
  for (const auto& [number, raw] : split_lines(text)) {
    const std::string line = trim(raw);
    const auto cells = split_cells(line);
    if (starts_with(line, "Running ") && line.back() == '.') {
      if (open) {
        throw InputError(file, line_location(number),
                         fmt::format("testcase \"{}\" (line {}) has no SUM line", t.name, t.line));
      }
      t = Testcase{};
      t.name = line.substr(8, line.size() - 9);
      t.line = number;
      open = true;
      const auto [seen, fresh] = first_line.emplace(t.name, number);
      if (!fresh) {
        throw InputError(file, line_location(number),
                         fmt::format("testcase \"{}\" runs a second time (first at line {}); give "
                                     "one run per file",
                                     t.name, seen->second));
      }
    } else if (!open) {
      if (cells.size() >= 2 && cells[0] == "Device" && cells[1].size() > 1 &&
          cells[1].back() == ':') {
        read_device_line(cells, file, number, options);
      }
    } else if (starts_with(line, "Waived")) {
      open = false;
    } else if (contains(line, "(row)") && contains(line, "(column)")) {
      read_matrix_title(t, line, file, number);
    } else if (starts_with(line, "SUM ")) {
      read_sum(t, cells, file, number);
      open = false;
    } else if (!t.has_matrix || cells.empty()) {
      continue;
    } else if (t.columns.empty()) {
      read_columns(t, cells, file, number, options);
    } else {
      read_row(t, cells, file, number, options, size_bytes, out);
    }
  }
  if (open) {
    throw InputError(file, line_location(t.line),
                     fmt::format("truncated log: testcase \"{}\" has no SUM line", t.name));
  }
  if (out.empty()) {
    throw InputError(file, "", "not nvbandwidth output: no \"Running <testcase>.\" with a matrix");
  }
  return out;
}

std::vector<Record> import_nvbandwidth_file(const std::string& path, const ImportOptions& options) {
  return import_nvbandwidth(read_text_file(path), path, options);
}

}  // namespace linksim::calibrate
