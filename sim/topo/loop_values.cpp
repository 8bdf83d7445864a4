#include "sim/topo/loop_values.hpp"

#include <fmt/format.h>

#include <limits>
#include <stdexcept>
#include <string>

namespace linksim::topo {
namespace {

// A range "lo..hi" as read: its bounds, or why it is not one.
struct ParsedRange {
  enum class Problem { none, malformed, reversed, too_many } problem = Problem::none;
  std::int64_t lo = 0;
  std::uint64_t span = 0;       // hi - lo, when problem is none
  bool beyond_64_bits = false;  // too_many because a bound does not fit a 64-bit integer
};

ParsedRange parse_range(const std::string& text) {
  ParsedRange r;
  const auto dots = text.find("..");
  if (dots == std::string::npos) return {ParsedRange::Problem::malformed};
  std::int64_t hi = 0;
  try {
    std::size_t u1 = 0;
    std::size_t u2 = 0;
    r.lo = std::stoll(text.substr(0, dots), &u1);
    hi = std::stoll(text.substr(dots + 2), &u2);
    if (u1 != dots || u2 != text.size() - dots - 2) return {ParsedRange::Problem::malformed};
  } catch (const std::out_of_range&) {
    // Digits that do not fit 64 bits: a range far too long, unless it is also junk.
    r.problem = ParsedRange::Problem::too_many;
    r.beyond_64_bits = true;
    return r;
  } catch (const std::exception&) {
    return {ParsedRange::Problem::malformed};
  }
  if (hi < r.lo) return {ParsedRange::Problem::reversed};
  // hi - lo in unsigned arithmetic: it cannot overflow once lo <= hi.
  r.span = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(r.lo);
  if (r.span > static_cast<std::uint64_t>(kMaxLoopValues - 1))
    r.problem = ParsedRange::Problem::too_many;
  return r;
}

[[noreturn]] void fail_range(const JsonView& v, const std::string& text, const ParsedRange& r) {
  const std::string expected = fmt::format("expected at most {} values (hi - lo at most {})",
                                           kMaxLoopValues, kMaxLoopValues - 1);
  switch (r.problem) {
    case ParsedRange::Problem::too_many:
      if (r.beyond_64_bits) {
        v.fail(
            fmt::format("the range \"{}\" has a bound beyond 64-bit integers; {}", text, expected));
      }
      // span + 1 is at most 2^64; say it in full without overflowing.
      v.fail(
          r.span == std::numeric_limits<std::uint64_t>::max()
              ? fmt::format("the range \"{}\" has 18446744073709551616 values; {}", text, expected)
              : fmt::format("the range \"{}\" has {} values; {}", text, r.span + 1, expected));
    case ParsedRange::Problem::reversed:
      v.fail(fmt::format(
          "the range \"{}\" ends before it starts; expected \"lo..hi\" with lo <= hi", text));
    default:
      v.fail(fmt::format(
          "expected a range \"lo..hi\" (inclusive, lo <= hi) or an array of integers, got \"{}\"",
          text));
  }
}

}  // namespace

std::vector<std::int64_t> loop_values(const JsonView& v) {
  std::vector<std::int64_t> out;
  if (v.is_array()) {
    for (const auto& e : v.elements())
      out.push_back(e.as_integer());
    if (out.empty()) v.fail("expected at least one value");
    return out;
  }
  const std::string text = v.as_string();
  const ParsedRange r = parse_range(text);
  if (r.problem != ParsedRange::Problem::none) fail_range(v, text, r);
  out.reserve(r.span + 1);
  for (std::uint64_t k = 0; k <= r.span; ++k)  // not "i <= hi; ++i", which overflows at 2^63 - 1
    out.push_back(r.lo + static_cast<std::int64_t>(k));
  return out;
}

std::optional<std::uint64_t> loop_value_count(const JsonView& v) {
  if (v.is_array()) {
    const std::size_t n = v.raw().size();
    return n == 0 ? std::nullopt : std::optional<std::uint64_t>(n);
  }
  if (!v.is_string()) return std::nullopt;
  const ParsedRange r = parse_range(v.as_string());
  if (r.problem != ParsedRange::Problem::none) return std::nullopt;
  return r.span + 1;
}

}  // namespace linksim::topo
