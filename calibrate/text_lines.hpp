#pragma once
// Helpers the log importers share: reading a file, splitting it into numbered lines and
// whitespace-separated cells, and reading a number from a cell with an InputError that names the
// file and line when the cell is not one.

#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/text_file.hpp"

namespace linksim::calibrate {

struct TextLine {
  int number = 0;  // 1-based
  std::string text;
};

// Reading the file is core's read_text_file (sim/core/text_file.hpp), included here.
// Splits on '\n', dropping a trailing '\r' from each line.
std::vector<TextLine> split_lines(const std::string& text);
std::vector<std::string> split_cells(std::string_view line);
std::string trim(std::string_view text);
bool starts_with(std::string_view text, std::string_view prefix);
bool contains(std::string_view text, std::string_view part);

// "line N".
std::string line_location(int line);
// A finite decimal number (e.g. "12.25", "1e-3"); throws InputError naming the file, line and
// `what` otherwise.
double parse_number_cell(std::string_view cell, const std::string& file, int line,
                         std::string_view what);
// A non-negative integer no larger than `max`; same errors.
long long parse_integer_cell(std::string_view cell, const std::string& file, int line,
                             std::string_view what,
                             long long max = std::numeric_limits<long long>::max());
// A measured figure: finite, positive (or >= 0 when `allow_zero`) and at most `max` in the
// cell's own unit, so that 1e308 GB/s never becomes an infinite rate. Same errors.
double parse_measure_cell(std::string_view cell, const std::string& file, int line,
                          std::string_view what, bool allow_zero, double max);

// Largest GPU or device number a log may name (nvidia-smi and CUDA number devices from 0).
inline constexpr long long kMaxDeviceIndex = 65535;
// A device a log names ("Device 0: ...", "Device: 0, ..."), within a machine of `gpu_count`
// GPUs when that is known: else InputError at `line`, "device N is beyond the topology's M GPUs".
void check_device_in_machine(int device, const std::optional<int>& gpu_count,
                             const std::string& file, int line);
// Whether the cell is a finite number (no exception).
bool is_number_cell(std::string_view cell);

}  // namespace linksim::calibrate
