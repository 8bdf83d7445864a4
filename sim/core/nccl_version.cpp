#include "sim/core/nccl_version.hpp"

#include <fmt/format.h>

#include <charconv>
#include <vector>

namespace linksim {
namespace {

// A whole number of at most `digits` digits, or -1.
int whole(std::string_view s, std::size_t digits) {
  if (s.empty() || s.size() > digits) return -1;
  int value = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  return ec == std::errc() && end == s.data() + s.size() ? value : -1;
}

NcclVersionError refused(std::string_view text) {
  return NcclVersionError(fmt::format(
      "\"{}\" is not an NCCL release; expected MAJOR.MINOR.PATCH such as 2.18.5, or its "
      "NCCL_VERSION_CODE such as 21805, from {} on",
      text, nccl_version_text(kOldestNcclVersion)));
}

}  // namespace

int parse_nccl_version(std::string_view text) {
  std::string_view rest = text;
  if (const auto dash = rest.find('-'); dash != std::string_view::npos) {
    if (whole(rest.substr(dash + 1), 3) < 0) throw refused(text);
    rest = rest.substr(0, dash);
  }
  int code = -1;
  if (rest.find('.') == std::string_view::npos) {
    code = whole(rest, 6);
  } else {
    std::vector<int> parts;
    for (std::size_t start = 0;;) {
      const auto dot = rest.find('.', start);
      parts.push_back(whole(rest.substr(start, dot - start), 2));
      if (dot == std::string_view::npos) break;
      start = dot + 1;
    }
    if (parts.size() == 3 && parts[0] == 2 && parts[1] >= 0 && parts[2] >= 0) {
      code = parts[0] * 10000 + parts[1] * 100 + parts[2];
    }
  }
  if (code < kOldestNcclVersion || code >= 30000) throw refused(text);
  return code;
}

std::string nccl_version_text(int code) {
  return fmt::format("{}.{}.{}", code / 10000, code / 100 % 100, code % 100);
}

}  // namespace linksim
