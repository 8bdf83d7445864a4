#include "sim/topo/loop_values.hpp"

#include <fmt/format.h>

#include <exception>
#include <string>

namespace linksim::topo {

std::vector<std::int64_t> loop_values(const JsonView& v) {
  std::vector<std::int64_t> out;
  if (v.is_array()) {
    for (const auto& e : v.elements())
      out.push_back(e.as_integer());
    if (out.empty()) v.fail("expected at least one value");
    return out;
  }
  const std::string text = v.as_string();
  const auto dots = text.find("..");
  std::int64_t lo = 0;
  std::int64_t hi = -1;
  bool ok = dots != std::string::npos;
  if (ok) {
    try {
      std::size_t u1 = 0;
      std::size_t u2 = 0;
      lo = std::stoll(text.substr(0, dots), &u1);
      hi = std::stoll(text.substr(dots + 2), &u2);
      ok = u1 == dots && u2 == text.size() - dots - 2;
    } catch (const std::exception&) {
      ok = false;
    }
  }
  // hi - lo in unsigned arithmetic: it cannot overflow once lo <= hi.
  const auto span = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo);
  if (!ok || hi < lo || span > static_cast<std::uint64_t>(kMaxLoopValues - 1)) {
    v.fail(
        fmt::format("expected a range \"lo..hi\" (inclusive, lo <= hi) or an array of "
                    "integers, got \"{}\"",
                    text));
  }
  out.reserve(span + 1);
  for (std::uint64_t k = 0; k <= span; ++k)  // not "i <= hi; ++i", which overflows at 2^63 - 1
    out.push_back(lo + static_cast<std::int64_t>(k));
  return out;
}

}  // namespace linksim::topo
