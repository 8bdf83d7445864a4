#include "calibrate/import_bandwidth_test.hpp"

#include <fmt/format.h>

#include "calibrate/text_lines.hpp"
#include "sim/core/error.hpp"
#include "sim/core/units.hpp"

namespace linksim::calibrate {

std::vector<Record> import_bandwidth_test(const std::string& text, const std::string& file,
                                          const ImportOptions& options) {
  std::vector<Record> out;
  std::string direction;  // kind::h2d / d2h / d2d, empty outside a section
  std::string memory = "pinned";
  int device = 0;
  int max_device = -1;
  int max_device_line = 0;
  double unit_Bps = 0;       // of the current table; 0 before its header
  double file_unit_Bps = 0;  // first unit seen in the file
  int file_unit_line = 0;
  int table_line = 0;  // header line of the table being read
  int table_rows = 0;

  auto close_table = [&]() {
    if (table_line != 0 && table_rows == 0) {
      throw InputError(file, line_location(table_line),
                       "bandwidthTest table without rows (truncated log?)");
    }
    table_line = 0;
    table_rows = 0;
  };

  for (const auto& [number, raw] : split_lines(text)) {
    const std::string line = trim(raw);
    const auto cells = split_cells(line);
    if (starts_with(line, "Device ") && cells.size() >= 2 && cells[1].back() == ':') {
      device = static_cast<int>(parse_integer_cell(cells[1].substr(0, cells[1].size() - 1), file,
                                                   number, "device number", kMaxDeviceIndex));
      if (device > max_device) {
        max_device = device;
        max_device_line = number;
      }
      continue;
    }
    if (contains(line, "Bandwidth,") && contains(line, "Device(s)")) {
      close_table();
      if (starts_with(line, "Host to Device")) {
        direction = kind::h2d;
      } else if (starts_with(line, "Device to Host")) {
        direction = kind::d2h;
      } else if (starts_with(line, "Device to Device")) {
        direction = kind::d2d;
      } else {
        throw InputError(file, line_location(number),
                         fmt::format("unknown bandwidthTest section \"{}\"", line));
      }
      unit_Bps = 0;
      continue;
    }
    if (contains(line, "Memory Transfers")) {
      memory = starts_with(line, "PAGEABLE") ? "pageable" : "pinned";
      continue;
    }
    if (starts_with(line, "Transfer Size")) {
      close_table();
      if (contains(line, "(GB/s)")) {
        unit_Bps = 1e9;
      } else if (contains(line, "(MB/s)")) {
        unit_Bps = 1048576.0;  // the old sample's MB is 2^20 bytes
      } else {
        throw InputError(file, line_location(number),
                         fmt::format("unknown bandwidth unit in \"{}\"", line));
      }
      if (file_unit_Bps == 0) {
        file_unit_Bps = unit_Bps;
        file_unit_line = number;
      } else if (file_unit_Bps != unit_Bps) {
        throw InputError(file, line_location(number),
                         fmt::format("mixed units: this table is in {}, the one at line {} in {}",
                                     unit_Bps == 1e9 ? "GB/s" : "MB/s", file_unit_line,
                                     file_unit_Bps == 1e9 ? "GB/s" : "MB/s"));
      }
      if (direction.empty()) {
        throw InputError(file, line_location(number),
                         "bandwidth table outside a \"... Bandwidth, N Device(s)\" section");
      }
      table_line = number;
      continue;
    }
    if (table_line != 0 && cells.size() == 2 && is_number_cell(cells[0])) {
      Record r;
      r.kind = direction;
      r.variant = memory;
      r.gpu_count = 1;
      r.size_bytes = static_cast<double>(parse_integer_cell(
          cells[0], file, number, "transfer size", static_cast<long long>(units::kMaxBytes)));
      r.bandwidth_Bps = parse_measure_cell(cells[1], file, number, "bandwidth", false,
                                           units::kMaxBandwidth_Bps / unit_Bps) *
                        unit_Bps;
      if (r.bandwidth_Bps <= 0 || r.size_bytes <= 0) {
        throw InputError(file, line_location(number), "size and bandwidth must be positive");
      }
      const double counted = direction == kind::d2d ? 2 * r.size_bytes : r.size_bytes;
      r.time_s = counted / r.bandwidth_Bps;
      if (direction == kind::h2d) r.dst_gpu = device;
      if (direction == kind::d2h) r.src_gpu = device;
      if (direction == kind::d2d) r.src_gpu = r.dst_gpu = device;
      r.source_file = file;
      r.source_line = number;
      out.push_back(std::move(r));
      ++table_rows;
      continue;
    }
    if (table_line != 0 && !cells.empty() && table_rows == 0 && !line.empty()) {
      throw InputError(
          file, line_location(number),
          fmt::format("expected \"<bytes> <bandwidth>\" in the table, found \"{}\"", line));
    }
    if (table_line != 0 && (line.empty() || table_rows > 0)) close_table();
  }
  close_table();
  if (out.empty()) {
    throw InputError(file, "", "not bandwidthTest output: no bandwidth table");
  }
  if (options.expected_gpu_count && max_device >= *options.expected_gpu_count) {
    throw InputError(file, line_location(max_device_line),
                     fmt::format("the log measured device {} but the topology has {} GPUs",
                                 max_device, *options.expected_gpu_count));
  }
  return out;
}

std::vector<Record> import_bandwidth_test_file(const std::string& path,
                                               const ImportOptions& options) {
  return import_bandwidth_test(read_text_file(path), path, options);
}

}  // namespace linksim::calibrate
