#include "calibrate/import_p2p_matrix.hpp"

#include <fmt/format.h>

#include <map>
#include <utility>

#include "calibrate/text_lines.hpp"
#include "sim/core/error.hpp"

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

// Reads a matrix whose label line is lines[i] ("D\D 0 1 2", "GPU 0 1", "CPU 0 1"). Returns the
// index of the first line after it.
std::size_t read_matrix(const std::vector<TextLine>& lines, std::size_t i, const std::string& file,
                        Matrix& m) {
  const auto label = split_cells(lines[i].text);
  m.header_line = lines[i].number;
  for (std::size_t c = 1; c < label.size(); ++c) {
    m.gpus.push_back(static_cast<int>(
        parse_integer_cell(label[c], file, lines[i].number, "matrix column label")));
  }
  if (m.gpus.empty()) {
    throw InputError(file, line_location(lines[i].number), "matrix header without GPU columns");
  }
  std::size_t j = i + 1;
  while (j < lines.size() && m.rows.size() < m.gpus.size()) {
    const auto cells = split_cells(lines[j].text);
    if (cells.empty() || !is_number_cell(cells[0])) break;
    if (cells.size() != m.gpus.size() + 1) {
      throw InputError(
          file, line_location(lines[j].number),
          fmt::format("matrix row has {} values, expected {}", cells.size() - 1, m.gpus.size()));
    }
    m.row_gpu.push_back(
        static_cast<int>(parse_integer_cell(cells[0], file, lines[j].number, "matrix row label")));
    std::vector<double> row;
    for (std::size_t c = 1; c < cells.size(); ++c) {
      row.push_back(parse_number_cell(cells[c], file, lines[j].number, "matrix cell"));
    }
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

}  // namespace

std::vector<Record> import_p2p_matrix(const std::string& text, const std::string& file,
                                      const ImportOptions& options) {
  const auto lines = split_lines(text);
  std::vector<Record> out;
  std::map<std::pair<int, int>, bool> can_access;  // (src, dst) -> peer access possible
  Section section = Section::none;
  bool p2p = false;
  int section_line = 0;
  int gpu_count = -1;
  int first_matrix_line = 0;
  bool section_has_matrix = false;

  auto finish_section = [&]() {
    if (section != Section::none && !section_has_matrix) {
      throw InputError(file, line_location(section_line),
                       "matrix title without a matrix (truncated log?)");
    }
  };

  for (std::size_t i = 0; i < lines.size();) {
    const std::string& line = lines[i].text;
    const int number = lines[i].number;
    const auto cells = split_cells(line);
    // "Device=0 CANNOT Access Peer Device=1"
    if (cells.size() == 5 && starts_with(cells[0], "Device=") && cells[2] == "Access" &&
        starts_with(cells[4], "Device=")) {
      const int a =
          static_cast<int>(parse_integer_cell(cells[0].substr(7), file, number, "device number"));
      const int b =
          static_cast<int>(parse_integer_cell(cells[4].substr(7), file, number, "device number"));
      can_access[{a, b}] = cells[1] == "CAN";
      ++i;
      continue;
    }
    if (contains(line, "P2P Connectivity Matrix")) {
      // "     D\D     0     1" then rows of 0/1.
      if (i + 1 < lines.size()) {
        Matrix m;
        i = read_matrix(lines, i + 1, file, m);
        for (std::size_t r = 0; r < m.rows.size(); ++r) {
          for (std::size_t c = 0; c < m.gpus.size(); ++c) {
            if (m.row_gpu[r] != m.gpus[c])
              can_access[{m.row_gpu[r], m.gpus[c]}] = m.rows[r][c] != 0;
          }
        }
        continue;
      }
    }
    const bool bw_title = contains(line, "Bandwidth") && contains(line, "Matrix");
    const bool lat_title = contains(line, "Latency") && contains(line, "Matrix");
    if ((bw_title || lat_title) && contains(line, "P2P=")) {
      finish_section();
      section_line = number;
      section_has_matrix = false;
      p2p = contains(line, "P2P=Enabled");
      if (lat_title) {
        if (!contains(line, "(us)")) {
          throw InputError(file, line_location(number), "latency matrix not in us");
        }
        section = Section::latency;
      } else {
        if (!contains(line, "(GB/s)")) {
          throw InputError(file, line_location(number),
                           "bandwidth matrix not in GB/s (mixed or unknown units)");
        }
        section = contains(line, "Bidirectional") ? Section::bidi : Section::uni;
      }
      ++i;
      continue;
    }
    if (section != Section::none && !cells.empty() &&
        (cells[0] == "D\\D" || cells[0] == "GPU" || cells[0] == "CPU")) {
      Matrix m;
      const std::size_t next = read_matrix(lines, i, file, m);
      section_has_matrix = true;
      const int n = static_cast<int>(m.gpus.size());
      if (gpu_count < 0) {
        gpu_count = n;
        first_matrix_line = number;
        if (options.expected_gpu_count && n != *options.expected_gpu_count) {
          throw InputError(file, line_location(number),
                           fmt::format("the log measured {} GPUs but the topology has {}", n,
                                       *options.expected_gpu_count));
        }
      } else if (n != gpu_count) {
        throw InputError(file, line_location(number),
                         fmt::format("matrix has {} GPUs, the one at line {} has {}", n,
                                     first_matrix_line, gpu_count));
      }
      const bool cpu_timer = cells[0] == "CPU";
      for (std::size_t r = 0; r < m.rows.size(); ++r) {
        for (std::size_t c = 0; c < m.gpus.size(); ++c) {
          const int src = m.row_gpu[r];
          const int dst = m.gpus[c];
          const double value = m.rows[r][c];
          Record rec;
          rec.src_gpu = src;
          rec.dst_gpu = dst;
          rec.source_file = file;
          rec.source_line = m.row_line[r];
          if (section == Section::latency) {
            if (src == dst) continue;  // a local 1-byte copy: not a link figure
            rec.kind = kind::p2p_latency;
            rec.variant = cpu_timer ? "cpu_timer" : "gpu_timer";
            rec.gpu_count = 2;
            rec.size_bytes = kP2pTestLatencyBytes;
            rec.time_s = value * 1e-6;
          } else {
            if (value <= 0) {
              throw InputError(file, line_location(m.row_line[r]),
                               fmt::format("bandwidth {} GB/s is not positive", value));
            }
            rec.bandwidth_Bps = value * 1e9;
            rec.size_bytes = kP2pTestCopyBytes;
            if (src == dst) {
              rec.kind = kind::d2d;
              rec.variant = section == Section::bidi ? "p2pBandwidthLatencyTest bidirectional"
                                                     : "p2pBandwidthLatencyTest";
              rec.gpu_count = 1;
              // The diagonal counts read + write, twice that when bidirectional.
              const double counted = kP2pTestCopyBytes * (section == Section::bidi ? 4 : 2);
              rec.time_s = counted / rec.bandwidth_Bps;
            } else {
              rec.kind = section == Section::bidi ? kind::p2p_bidi : kind::p2p_uni;
              rec.gpu_count = 2;
              const double counted = kP2pTestCopyBytes * (section == Section::bidi ? 2 : 1);
              rec.time_s = counted / rec.bandwidth_Bps;
            }
          }
          if (src != dst) {
            bool access = true;
            if (auto it = can_access.find({src, dst}); it != can_access.end()) access = it->second;
            rec.p2p_enabled = p2p && access;
          }
          out.push_back(std::move(rec));
        }
      }
      i = next;
      continue;
    }
    ++i;
  }
  finish_section();
  if (out.empty()) {
    throw InputError(file, "",
                     "not p2pBandwidthLatencyTest output: no bandwidth or latency matrix");
  }
  return out;
}

std::vector<Record> import_p2p_matrix_file(const std::string& path, const ImportOptions& options) {
  return import_p2p_matrix(read_text_file(path), path, options);
}

}  // namespace linksim::calibrate
