#include "calibrate/import_bandwidth_test.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "calibrate/text_lines.hpp"
#include "sim/core/error.hpp"
#include "sim/core/units.hpp"

namespace linksim::calibrate {

namespace {

// The printout read line by line: "Device N:" lines say which device the next sections
// measured, each "... Bandwidth, N Device(s)" section names a direction and each table under it
// gives one record per "<bytes> <bandwidth>" row.
class BandwidthTestReader {
 public:
  BandwidthTestReader(const std::string& file, const ImportOptions& options)
      : file_(file), options_(options) {}

  std::vector<Record> read(const std::string& text) {
    for (const auto& [number, raw] : split_lines(text))
      read_line(number, trim(raw));
    close_table();
    if (out_.empty()) throw InputError(file_, "", "not bandwidthTest output: no bandwidth table");
    if (options_.expected_gpu_count && max_device_ >= *options_.expected_gpu_count) {
      throw InputError(file_, line_location(max_device_line_),
                       fmt::format("the log measured device {} but the topology has {} GPUs",
                                   max_device_, *options_.expected_gpu_count));
    }
    return std::move(out_);
  }

 private:
  void read_line(int number, const std::string& line) {
    const auto cells = split_cells(line);
    if (starts_with(line, "Device ") && cells.size() >= 2 && cells[1].back() == ':') {
      device_ = static_cast<int>(parse_integer_cell(cells[1].substr(0, cells[1].size() - 1), file_,
                                                    number, "device number", kMaxDeviceIndex));
      if (device_ > max_device_) {
        max_device_ = device_;
        max_device_line_ = number;
      }
      return;
    }
    if (contains(line, "Bandwidth,") && contains(line, "Device(s)")) {
      device_count(number, cells);
      return section(number, line);
    }
    if (contains(line, "Memory Transfers")) {
      memory_ = starts_with(line, "PAGEABLE") ? "pageable" : "pinned";
      return;
    }
    if (starts_with(line, "Transfer Size")) return table_header(number, line);
    if (table_line_ != 0 && cells.size() == 2 && is_number_cell(cells[0])) {
      return row(number, cells);
    }
    if (table_line_ != 0 && !cells.empty() && table_rows_ == 0 && !line.empty()) {
      throw InputError(
          file_, line_location(number),
          fmt::format("expected \"<bytes> <bandwidth>\" in the table, found \"{}\"", line));
    }
    if (table_line_ != 0 && (line.empty() || table_rows_ > 0)) close_table();
  }

  // "Host to Device Bandwidth, 2 Device(s)": the devices the section measured (--device=all
  // measures every one), at least 1 and no more than the machine has.
  void device_count(int number, const std::vector<std::string>& cells) const {
    const auto at = std::find(cells.begin(), cells.end(), "Device(s)");
    if (at == cells.begin() || at == cells.end()) {
      throw InputError(file_, line_location(number),
                       "expected \"<N> Device(s)\" at the end of the section title");
    }
    const long long n =
        parse_integer_cell(*(at - 1), file_, number, "device count", kMaxDeviceIndex + 1);
    if (n < 1) {
      throw InputError(file_, line_location(number),
                       fmt::format("device count: expected at least 1, found {}", n));
    }
    if (options_.expected_gpu_count && n > *options_.expected_gpu_count) {
      throw InputError(file_, line_location(number),
                       fmt::format("the section measured {} devices but the topology has {} GPUs",
                                   n, *options_.expected_gpu_count));
    }
  }

  void close_table() {
    if (table_line_ != 0 && table_rows_ == 0) {
      throw InputError(file_, line_location(table_line_),
                       "bandwidthTest table without rows (truncated log?)");
    }
    table_line_ = 0;
    table_rows_ = 0;
  }

  void section(int number, const std::string& line) {
    close_table();
    if (starts_with(line, "Host to Device")) {
      direction_ = kind::h2d;
    } else if (starts_with(line, "Device to Host")) {
      direction_ = kind::d2h;
    } else if (starts_with(line, "Device to Device")) {
      direction_ = kind::d2d;
    } else {
      throw InputError(file_, line_location(number),
                       fmt::format("unknown bandwidthTest section \"{}\"", line));
    }
    unit_Bps_ = 0;
  }

  // "Transfer Size (Bytes)  Bandwidth(GB/s)": every table of a file in one unit.
  void table_header(int number, const std::string& line) {
    close_table();
    if (contains(line, "(GB/s)")) {
      unit_Bps_ = 1e9;
    } else if (contains(line, "(MB/s)")) {
      unit_Bps_ = 1048576.0;  // the old sample's MB is 2^20 bytes
    } else {
      throw InputError(file_, line_location(number),
                       fmt::format("unknown bandwidth unit in \"{}\"", line));
    }
    if (file_unit_Bps_ == 0) {
      file_unit_Bps_ = unit_Bps_;
      file_unit_line_ = number;
    } else if (file_unit_Bps_ != unit_Bps_) {
      throw InputError(file_, line_location(number),
                       fmt::format("mixed units: this table is in {}, the one at line {} in {}",
                                   unit_Bps_ == 1e9 ? "GB/s" : "MB/s", file_unit_line_,
                                   file_unit_Bps_ == 1e9 ? "GB/s" : "MB/s"));
    }
    if (direction_.empty()) {
      throw InputError(file_, line_location(number),
                       "bandwidth table outside a \"... Bandwidth, N Device(s)\" section");
    }
    table_line_ = number;
  }

  void row(int number, const std::vector<std::string>& cells) {
    Record r;
    r.kind = direction_;
    r.variant = memory_;
    r.gpu_count = 1;
    r.size_bytes = static_cast<double>(parse_integer_cell(
        cells[0], file_, number, "transfer size", static_cast<long long>(units::kMaxBytes)));
    r.bandwidth_Bps = parse_measure_cell(cells[1], file_, number, "bandwidth", false,
                                         units::kMaxBandwidth_Bps / unit_Bps_) *
                      unit_Bps_;
    if (r.bandwidth_Bps <= 0 || r.size_bytes <= 0) {
      throw InputError(file_, line_location(number), "size and bandwidth must be positive");
    }
    const double counted = direction_ == kind::d2d ? 2 * r.size_bytes : r.size_bytes;
    r.time_s = counted / r.bandwidth_Bps;
    if (direction_ == kind::h2d) r.dst_gpu = device_;
    if (direction_ == kind::d2h) r.src_gpu = device_;
    if (direction_ == kind::d2d) r.src_gpu = r.dst_gpu = device_;
    r.source_file = file_;
    r.source_line = number;
    out_.push_back(std::move(r));
    ++table_rows_;
  }

  const std::string& file_;
  const ImportOptions& options_;
  std::vector<Record> out_;
  std::string direction_;  // kind::h2d / d2h / d2d, empty outside a section
  std::string memory_ = "pinned";
  int device_ = 0;
  int max_device_ = -1;
  int max_device_line_ = 0;
  double unit_Bps_ = 0;       // of the current table; 0 before its header
  double file_unit_Bps_ = 0;  // first unit seen in the file
  int file_unit_line_ = 0;
  int table_line_ = 0;  // header line of the table being read
  int table_rows_ = 0;
};

}  // namespace

std::vector<Record> import_bandwidth_test(const std::string& text, const std::string& file,
                                          const ImportOptions& options) {
  return BandwidthTestReader(file, options).read(text);
}

std::vector<Record> import_bandwidth_test_file(const std::string& path,
                                               const ImportOptions& options) {
  return import_bandwidth_test(read_text_file(path), path, options);
}

}  // namespace linksim::calibrate
