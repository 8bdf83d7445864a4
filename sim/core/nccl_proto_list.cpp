#include "sim/core/nccl_proto_list.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "sim/core/ascii_case.hpp"

namespace linksim {
namespace {

std::string_view trimmed(std::string_view s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

}  // namespace

std::optional<std::size_t> nccl_protocol_index(std::string_view name) {
  const std::string key = ascii_lower(name);
  for (std::size_t i = 0; i < kNcclProtocolNames.size(); ++i) {
    if (key == ascii_lower(kNcclProtocolNames[i])) return i;
  }
  return std::nullopt;
}

std::string nccl_protocol_list_text(const NcclProtocolMask& allowed) {
  std::string list;
  for (std::size_t i = 0; i < kNcclProtocolNames.size(); ++i) {
    if (!allowed[i]) continue;
    if (!list.empty()) list += ',';
    list += kNcclProtocolNames[i];
  }
  return list;
}

NcclProtocolMask parse_nccl_protocol_list(std::string_view text) {
  std::string_view rest = text;
  const bool exclude = !rest.empty() && rest.front() == '^';
  if (exclude) rest.remove_prefix(1);
  if (rest.find(':') != std::string_view::npos || rest.find(';') != std::string_view::npos) {
    throw NcclListError(
        fmt::format("\"{}\": per-operation lists (op:list;...) are not modelled; give one list "
                    "for every operation",
                    text));
  }
  NcclProtocolMask named{false, false, false};
  bool any = false;
  for (std::size_t start = 0; start <= rest.size();) {
    const auto comma = rest.find(',', start);
    const std::size_t end = comma == std::string_view::npos ? rest.size() : comma;
    const std::string_view name = trimmed(rest.substr(start, end - start));
    if (!name.empty()) {
      any = true;
      const auto index = nccl_protocol_index(name);
      if (!index) {
        throw NcclListError(
            fmt::format("unknown protocol \"{}\" in \"{}\"; expected a list of LL, LL128 and "
                        "Simple, or ^list for all but those",
                        name, text));
      }
      named[*index] = true;
    }
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  if (!any) throw NcclListError(fmt::format("\"{}\": names no protocol", text));
  NcclProtocolMask allowed{};
  for (std::size_t i = 0; i < allowed.size(); ++i)
    allowed[i] = named[i] != exclude;
  if (std::none_of(allowed.begin(), allowed.end(), [](bool b) { return b; })) {
    throw NcclListError(fmt::format("\"{}\" allows no protocol", text));
  }
  return allowed;
}

}  // namespace linksim
