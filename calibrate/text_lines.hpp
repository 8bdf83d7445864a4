#pragma once
// Helpers the log importers share: reading a file, splitting it into numbered lines and
// whitespace-separated cells, and reading a number from a cell with an InputError that names the
// file and line when the cell is not one.

#include <string>
#include <string_view>
#include <vector>

namespace linksim::calibrate {

struct TextLine {
  int number = 0;  // 1-based
  std::string text;
};

// Throws InputError(path) when the file cannot be read.
std::string read_text_file(const std::string& path);
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
// A non-negative integer; same errors.
long long parse_integer_cell(std::string_view cell, const std::string& file, int line,
                             std::string_view what);
// Whether the cell is a finite number (no exception).
bool is_number_cell(std::string_view cell);

}  // namespace linksim::calibrate
