#include "calibrate/text_lines.hpp"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cmath>

#include "sim/core/error.hpp"

namespace linksim::calibrate {

std::vector<TextLine> split_lines(const std::string& text) {
  std::vector<TextLine> out;
  std::size_t start = 0;
  int number = 1;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    out.push_back({number++, std::move(line)});
    start = end + 1;
  }
  return out;
}

std::vector<std::string> split_cells(std::string_view line) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i])))
      ++i;
    std::size_t j = i;
    while (j < line.size() && !std::isspace(static_cast<unsigned char>(line[j])))
      ++j;
    if (j > i) out.emplace_back(line.substr(i, j - i));
    i = j;
  }
  return out;
}

std::string trim(std::string_view text) {
  std::size_t b = 0;
  std::size_t e = text.size();
  while (b < e && std::isspace(static_cast<unsigned char>(text[b])))
    ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(text[e - 1])))
    --e;
  return std::string(text.substr(b, e - b));
}

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

std::string line_location(int line) {
  return fmt::format("line {}", line);
}

namespace {
bool parse_double(std::string_view cell, double& value) {
  if (cell.empty()) return false;
  const char* first = cell.data();
  const char* last = cell.data() + cell.size();
  if (*first == '+') ++first;
  auto [ptr, ec] = std::from_chars(first, last, value);
  return ec == std::errc() && ptr == last && std::isfinite(value);
}
}  // namespace

bool is_number_cell(std::string_view cell) {
  double v = 0;
  return parse_double(cell, v);
}

double parse_number_cell(std::string_view cell, const std::string& file, int line,
                         std::string_view what) {
  double v = 0;
  if (!parse_double(cell, v)) {
    throw InputError(file, line_location(line),
                     fmt::format("{}: expected a number, found \"{}\"", what, cell));
  }
  return v;
}

long long parse_integer_cell(std::string_view cell, const std::string& file, int line,
                             std::string_view what, long long max) {
  long long v = 0;
  auto [ptr, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), v);
  const bool digits_only = ptr == cell.data() + cell.size();
  if (ec == std::errc::result_out_of_range && digits_only) {
    throw InputError(file, line_location(line),
                     fmt::format("{}: {} is above the {} linksim accepts", what, cell, max));
  }
  if (cell.empty() || ec != std::errc() || !digits_only || v < 0) {
    throw InputError(file, line_location(line),
                     fmt::format("{}: expected a non-negative integer, found \"{}\"", what, cell));
  }
  if (v > max) {
    throw InputError(file, line_location(line),
                     fmt::format("{}: {} is above the {} linksim accepts", what, cell, max));
  }
  return v;
}

double parse_measure_cell(std::string_view cell, const std::string& file, int line,
                          std::string_view what, bool allow_zero, double max) {
  const double v = parse_number_cell(cell, file, line, what);
  if (allow_zero ? v < 0 : !(v > 0)) {
    throw InputError(file, line_location(line),
                     fmt::format("{}: expected {}, found \"{}\"", what,
                                 allow_zero ? "a number >= 0" : "a positive number", cell));
  }
  if (v > max) {
    throw InputError(file, line_location(line),
                     fmt::format("{}: {} is above the {:g} linksim accepts", what, cell, max));
  }
  return v;
}

void check_device_in_machine(int device, const std::optional<int>& gpu_count,
                             const std::string& file, int line) {
  if (gpu_count && device >= *gpu_count) {
    throw InputError(file, line_location(line),
                     fmt::format("device {} is beyond the topology's {} GPUs", device, *gpu_count));
  }
}

}  // namespace linksim::calibrate
