#include "sim/topo/cpu_list.hpp"

#include <fmt/format.h>

#include <cctype>

namespace linksim::topo {

std::optional<std::string> cpu_list_problem(const std::string& list) {
  const std::optional<std::string> shape =
      fmt::format("expected CPU numbers and ranges such as 0-31,64-95, got \"{}\"", list);
  std::size_t at = 0;
  // The digits at `at` (a run too long for a long counts as past the limit), or -1 for none.
  const auto number = [&](std::string& text) -> long {
    const std::size_t from = at;
    while (at < list.size() && std::isdigit(static_cast<unsigned char>(list[at])) != 0)
      ++at;
    text = list.substr(from, at - from);
    if (text.empty()) return -1;
    return text.size() > 9 ? kMaxLinuxCpus : std::stol(text);
  };
  while (true) {
    std::string lo_text;
    std::string hi_text;
    const long lo = number(lo_text);
    if (lo < 0) return shape;
    long hi = lo;
    hi_text = lo_text;
    if (at < list.size() && list[at] == '-') {
      ++at;
      hi = number(hi_text);
      if (hi < 0) return shape;
    }
    if (hi < lo) {
      return fmt::format("the range {}-{} runs backwards; expected low-high such as 0-31", lo_text,
                         hi_text);
    }
    if (hi >= kMaxLinuxCpus) {
      return fmt::format(
          "CPU {} is beyond the {} CPUs Linux numbers; expected CPU numbers such "
          "as 0-31,64-95",
          hi_text, kMaxLinuxCpus);
    }
    if (at == list.size()) return std::nullopt;
    if (list[at] != ',') return shape;
    ++at;
    if (at == list.size()) return std::nullopt;  // nvidia-smi may end a list with a comma
  }
}

}  // namespace linksim::topo
