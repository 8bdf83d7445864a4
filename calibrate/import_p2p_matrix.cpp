#include "calibrate/import_p2p_matrix.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <utility>

#include "calibrate/text_lines.hpp"
#include "sim/core/error.hpp"
#include "sim/core/units.hpp"

namespace linksim::calibrate {
namespace {

enum class Section { none, uni, bidi, latency };

struct Matrix {
  int header_line = 0;
  std::vector<int> gpus;  // column labels
  std::vector<std::vector<double>> rows;
  std::vector<int> row_gpu;
  std::vector<int> row_line;
};

// Largest cell a matrix may hold: 1e6 GB/s is 1 PB/s, 1e6 us is one second.
constexpr double kMaxCell = units::kMaxBandwidth_Bps / 1e9;

// "(0 1 2)" for messages.
std::string label_list(const std::vector<int>& labels) {
  return fmt::format("({})", fmt::join(labels, " "));
}

// Column labels are distinct device numbers, within the machine when its size is known.
void read_labels(const std::vector<std::string>& label, const TextLine& line,
                 const std::string& file, const ImportOptions& options, Matrix& m) {
  for (std::size_t c = 1; c < label.size(); ++c) {
    const int gpu = static_cast<int>(
        parse_integer_cell(label[c], file, line.number, "matrix column label", kMaxDeviceIndex));
    if (std::find(m.gpus.begin(), m.gpus.end(), gpu) != m.gpus.end()) {
      throw InputError(file, line_location(line.number),
                       fmt::format("column {} appears twice", gpu));
    }
    m.gpus.push_back(gpu);
  }
  if (!options.expected_gpu_count) return;
  const int n = static_cast<int>(m.gpus.size());
  if (n != *options.expected_gpu_count) {
    throw InputError(file, line_location(line.number),
                     fmt::format("the log measured {} GPUs but the topology has {}", n,
                                 *options.expected_gpu_count));
  }
  for (const int gpu : m.gpus) {
    if (gpu >= n) {
      throw InputError(file, line_location(line.number),
                       fmt::format("GPU {} is beyond the topology's {} GPUs", gpu, n));
    }
  }
}

// A row label is one of the columns, once.
int read_row_label(const std::string& cell, const TextLine& line, const std::string& file,
                   const Matrix& m) {
  const int gpu = static_cast<int>(
      parse_integer_cell(cell, file, line.number, "matrix row label", kMaxDeviceIndex));
  if (std::find(m.gpus.begin(), m.gpus.end(), gpu) == m.gpus.end()) {
    throw InputError(
        file, line_location(line.number),
        fmt::format("row label {} is not one of the matrix's columns {}", gpu, label_list(m.gpus)));
  }
  const auto seen = std::find(m.row_gpu.begin(), m.row_gpu.end(), gpu);
  if (seen != m.row_gpu.end()) {
    throw InputError(file, line_location(line.number),
                     fmt::format("row {} appears twice (first at line {})", gpu,
                                 m.row_line[static_cast<std::size_t>(seen - m.row_gpu.begin())]));
  }
  return gpu;
}

// Reads a matrix whose label line is lines[i] ("D\D 0 1 2", "GPU 0 1", "CPU 0 1"). Returns the
// index of the first line after it.
std::size_t read_matrix(const std::vector<TextLine>& lines, std::size_t i, const std::string& file,
                        const ImportOptions& options, Matrix& m) {
  m.header_line = lines[i].number;
  read_labels(split_cells(lines[i].text), lines[i], file, options, m);
  if (m.gpus.empty()) {
    throw InputError(file, line_location(lines[i].number), "matrix header without GPU columns");
  }
  std::size_t j = i + 1;
  // Every numbered line under the header is a row: one after the last is refused by its label
  // (beyond the columns, or a second row of a GPU) rather than left unread.
  while (j < lines.size()) {
    const auto cells = split_cells(lines[j].text);
    if (cells.empty() || !is_number_cell(cells[0])) break;
    const int row_gpu = read_row_label(cells[0], lines[j], file, m);
    if (cells.size() != m.gpus.size() + 1) {
      throw InputError(
          file, line_location(lines[j].number),
          fmt::format("matrix row has {} values, expected {}", cells.size() - 1, m.gpus.size()));
    }
    std::vector<double> row;
    for (std::size_t c = 1; c < cells.size(); ++c) {
      const double v = parse_number_cell(cells[c], file, lines[j].number, "matrix cell");
      if (v > kMaxCell) {
        throw InputError(
            file, line_location(lines[j].number),
            fmt::format("matrix cell: {} is above the {:g} linksim accepts", cells[c], kMaxCell));
      }
      row.push_back(v);
    }
    m.row_gpu.push_back(row_gpu);
    m.rows.push_back(std::move(row));
    m.row_line.push_back(lines[j].number);
    ++j;
  }
  if (m.rows.size() != m.gpus.size()) {
    const int at = j < lines.size() ? lines[j].number : (lines.empty() ? 0 : lines.back().number);
    throw InputError(file, line_location(at),
                     fmt::format("matrix that starts at line {} has {} of its {} rows (truncated "
                                 "log or non-numeric row?)",
                                 m.header_line, m.rows.size(), m.gpus.size()));
  }
  return j;
}

// A "Device=0 CANNOT Access Peer Device=1" line.
struct PeerAccess {
  int line = 0;
  int a = 0;
  int b = 0;
};

PeerAccess read_peer_access(const std::vector<std::string>& cells, int number,
                            const std::string& file, const ImportOptions& options) {
  if (cells[1] != "CAN" && cells[1] != "CANNOT") {
    throw InputError(file, line_location(number),
                     fmt::format("expected \"CAN\" or \"CANNOT\", found \"{}\"", cells[1]));
  }
  PeerAccess p;
  p.line = number;
  p.a = static_cast<int>(
      parse_integer_cell(cells[0].substr(7), file, number, "device number", kMaxDeviceIndex));
  p.b = static_cast<int>(
      parse_integer_cell(cells[4].substr(7), file, number, "device number", kMaxDeviceIndex));
  for (const int d : {p.a, p.b})
    check_device_in_machine(d, options.expected_gpu_count, file, number);
  return p;
}

// The printout read line by line: peer-access lines and the connectivity matrix say which pairs
// can use P2P; each titled matrix ("Unidirectional P2P=Enabled Bandwidth Matrix (GB/s)") gives
// one record per cell.
class P2pReader {
 public:
  P2pReader(const std::string& file, const ImportOptions& options)
      : file_(file), options_(options) {}

  std::vector<Record> read(const std::vector<TextLine>& lines) {
    for (std::size_t i = 0; i < lines.size();)
      i = read_line(lines, i);
    finish_section();
    check_peer_lines();
    if (out_.empty()) {
      throw InputError(file_, "",
                       "not p2pBandwidthLatencyTest output: no bandwidth or latency matrix");
    }
    return std::move(out_);
  }

 private:
  // Reads what starts at lines[i]; returns the index of the next line to read.
  std::size_t read_line(const std::vector<TextLine>& lines, std::size_t i) {
    const std::string& line = lines[i].text;
    const auto cells = split_cells(line);
    // "Device=0 CANNOT Access Peer Device=1"
    if (cells.size() == 5 && starts_with(cells[0], "Device=") && cells[2] == "Access" &&
        starts_with(cells[4], "Device=")) {
      const PeerAccess p = read_peer_access(cells, lines[i].number, file_, options_);
      can_access_[{p.a, p.b}] = cells[1] == "CAN";
      peer_lines_.push_back(p);
      return i + 1;
    }
    // "Device: 0, NVIDIA GeForce RTX 2080 Ti, pciBusID: 3d, ..." lists the GPUs the test saw.
    if (cells.size() >= 2 && cells[0] == "Device:" && cells[1].size() > 1 &&
        cells[1].back() == ',') {
      const int number = lines[i].number;
      const int d =
          static_cast<int>(parse_integer_cell(cells[1].substr(0, cells[1].size() - 1), file_,
                                              number, "device number", kMaxDeviceIndex));
      check_device_in_machine(d, options_.expected_gpu_count, file_, number);
      peer_lines_.push_back({number, d, d});
      return i + 1;
    }
    // "     D\D     0     1" then rows of 0/1.
    if (contains(line, "P2P Connectivity Matrix") && i + 1 < lines.size()) {
      return connectivity_matrix(lines, i + 1);
    }
    const bool bw_title = contains(line, "Bandwidth") && contains(line, "Matrix");
    const bool lat_title = contains(line, "Latency") && contains(line, "Matrix");
    if ((bw_title || lat_title) && contains(line, "P2P=")) {
      section_title(line, lines[i].number, lat_title);
      return i + 1;
    }
    if (section_ != Section::none && !cells.empty() &&
        (cells[0] == "D\\D" || cells[0] == "GPU" || cells[0] == "CPU")) {
      return data_matrix(lines, i, cells[0] == "CPU");
    }
    return i + 1;
  }

  void remember_labels(const Matrix& m) {
    for (int g : m.gpus) {
      if (std::find(labels_.begin(), labels_.end(), g) == labels_.end()) labels_.push_back(g);
    }
  }

  std::size_t connectivity_matrix(const std::vector<TextLine>& lines, std::size_t header) {
    Matrix m;
    const std::size_t next = read_matrix(lines, header, file_, options_, m);
    remember_labels(m);
    for (std::size_t r = 0; r < m.rows.size(); ++r) {
      for (std::size_t c = 0; c < m.gpus.size(); ++c) {
        if (m.row_gpu[r] != m.gpus[c]) can_access_[{m.row_gpu[r], m.gpus[c]}] = m.rows[r][c] != 0;
      }
    }
    return next;
  }

  void finish_section() const {
    if (section_ != Section::none && !section_has_matrix_) {
      throw InputError(file_, line_location(section_line_),
                       "matrix title without a matrix (truncated log?)");
    }
  }

  void section_title(const std::string& line, int number, bool latency) {
    finish_section();
    section_line_ = number;
    section_has_matrix_ = false;
    p2p_ = contains(line, "P2P=Enabled");
    if (latency) {
      if (!contains(line, "(us)")) {
        throw InputError(file_, line_location(number), "latency matrix not in us");
      }
      section_ = Section::latency;
      return;
    }
    if (!contains(line, "(GB/s)")) {
      throw InputError(file_, line_location(number),
                       "bandwidth matrix not in GB/s (mixed or unknown units)");
    }
    section_ = contains(line, "Bidirectional") ? Section::bidi : Section::uni;
  }

  // Every matrix has as many GPUs as the first (and as the machine, when it is known).
  void check_gpu_count(int n, int number) {
    if (gpu_count_ < 0) {
      gpu_count_ = n;
      first_matrix_line_ = number;
      if (options_.expected_gpu_count && n != *options_.expected_gpu_count) {
        throw InputError(file_, line_location(number),
                         fmt::format("the log measured {} GPUs but the topology has {}", n,
                                     *options_.expected_gpu_count));
      }
    } else if (n != gpu_count_) {
      throw InputError(file_, line_location(number),
                       fmt::format("matrix has {} GPUs, the one at line {} has {}", n,
                                   first_matrix_line_, gpu_count_));
    }
  }

  std::size_t data_matrix(const std::vector<TextLine>& lines, std::size_t header, bool cpu_timer) {
    Matrix m;
    const std::size_t next = read_matrix(lines, header, file_, options_, m);
    remember_labels(m);
    section_has_matrix_ = true;
    check_gpu_count(static_cast<int>(m.gpus.size()), lines[header].number);
    for (std::size_t r = 0; r < m.rows.size(); ++r) {
      for (std::size_t c = 0; c < m.gpus.size(); ++c) {
        const int src = m.row_gpu[r];
        const int dst = m.gpus[c];
        // A latency diagonal is a local 1-byte copy: not a link figure.
        if (section_ == Section::latency && src == dst) continue;
        Record rec = section_ == Section::latency
                         ? latency_record(m.rows[r][c], m.row_line[r], cpu_timer)
                         : bandwidth_record(m.rows[r][c], src, dst, m.row_line[r]);
        rec.src_gpu = src;
        rec.dst_gpu = dst;
        rec.source_file = file_;
        rec.source_line = m.row_line[r];
        if (src != dst) {
          bool access = true;
          if (auto it = can_access_.find({src, dst}); it != can_access_.end()) access = it->second;
          rec.p2p_enabled = p2p_ && access;
        }
        out_.push_back(std::move(rec));
      }
    }
    return next;
  }

  Record latency_record(double value, int line, bool cpu_timer) const {
    if (!(value > 0)) {
      throw InputError(file_, line_location(line),
                       fmt::format("latency {} us is not positive", value));
    }
    Record rec;
    rec.kind = kind::p2p_latency;
    rec.variant = cpu_timer ? "cpu_timer" : "gpu_timer";
    rec.gpu_count = 2;
    rec.size_bytes = kP2pTestLatencyBytes;
    rec.time_s = value * 1e-6;
    return rec;
  }

  Record bandwidth_record(double value, int src, int dst, int line) const {
    if (value <= 0) {
      throw InputError(file_, line_location(line),
                       fmt::format("bandwidth {} GB/s is not positive", value));
    }
    const bool bidi = section_ == Section::bidi;
    Record rec;
    rec.bandwidth_Bps = value * 1e9;
    rec.size_bytes = kP2pTestCopyBytes;
    if (src == dst) {
      rec.kind = kind::d2d;
      rec.variant = bidi ? "p2pBandwidthLatencyTest bidirectional" : "p2pBandwidthLatencyTest";
      rec.gpu_count = 1;
      // The diagonal counts read + write, twice that when bidirectional.
      rec.time_s = kP2pTestCopyBytes * (bidi ? 4 : 2) / rec.bandwidth_Bps;
    } else {
      rec.kind = bidi ? kind::p2p_bidi : kind::p2p_uni;
      rec.gpu_count = 2;
      rec.time_s = kP2pTestCopyBytes * (bidi ? 2 : 1) / rec.bandwidth_Bps;
    }
    return rec;
  }

  // Device and peer-access lines name only GPUs the matrices have.
  void check_peer_lines() const {
    for (const auto& p : peer_lines_) {
      for (const int d : {p.a, p.b}) {
        if (!labels_.empty() && std::find(labels_.begin(), labels_.end(), d) == labels_.end()) {
          throw InputError(
              file_, line_location(p.line),
              fmt::format("device {} is not one of the matrices' GPUs {}", d, label_list(labels_)));
        }
      }
    }
  }

  const std::string& file_;
  const ImportOptions& options_;
  std::vector<Record> out_;
  std::map<std::pair<int, int>, bool> can_access_;  // (src, dst) -> peer access possible
  Section section_ = Section::none;
  bool p2p_ = false;
  int section_line_ = 0;
  int gpu_count_ = -1;
  int first_matrix_line_ = 0;
  bool section_has_matrix_ = false;
  std::vector<PeerAccess> peer_lines_;  // and "Device: N," lines, as a = b = N
  std::vector<int> labels_;             // every GPU a matrix names, in first-seen order
};

}  // namespace

std::vector<Record> import_p2p_matrix(const std::string& text, const std::string& file,
                                      const ImportOptions& options) {
  return P2pReader(file, options).read(split_lines(text));
}

std::vector<Record> import_p2p_matrix_file(const std::string& path, const ImportOptions& options) {
  return import_p2p_matrix(read_text_file(path), path, options);
}

}  // namespace linksim::calibrate
