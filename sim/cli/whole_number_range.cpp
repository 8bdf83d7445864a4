#include "sim/cli/whole_number_range.hpp"

#include <fmt/format.h>

#include <charconv>
#include <string>

namespace linksim::cli {

CLI::Validator whole_number_range(long long lo, long long hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        const char* begin = text.data();
        const char* end = text.data() + text.size();
        if (begin != end && *begin == '+') ++begin;  // as CLI11 itself reads "+4"
        long long value = 0;
        const auto [stop, error] = std::from_chars(begin, end, value);
        if (error == std::errc() && stop == end && begin != end && value >= lo && value <= hi) {
          return "";
        }
        return fmt::format("expected a whole number from {} to {}, got \"{}\"", lo, hi, text);
      },
      fmt::format("INT in [{} - {}]", lo, hi));
}

}  // namespace linksim::cli
