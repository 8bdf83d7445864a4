#include "sim/coll/nccl_selection.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>

#include "sim/coll/algorithm_registry.hpp"
#include "sim/core/error.hpp"
#include "sim/core/nccl_proto_list.hpp"

namespace linksim::coll {
namespace {

struct NameList {
  bool exclude = false;
  std::vector<std::string> names;
};

std::string trimmed(std::string_view s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) return "";
  const auto e = s.find_last_not_of(" \t");
  return std::string(s.substr(b, e - b + 1));
}

NameList split(std::string_view text, const std::string& source) {
  NameList out;
  std::string_view rest = text;
  if (!rest.empty() && rest.front() == '^') {
    out.exclude = true;
    rest.remove_prefix(1);
  }
  if (rest.find(':') != std::string_view::npos || rest.find(';') != std::string_view::npos) {
    throw InputError(source, "",
                     fmt::format("\"{}\": per-operation lists (op:list;...) are not modelled; give "
                                 "one list for every operation",
                                 text));
  }
  std::size_t start = 0;
  while (start <= rest.size()) {
    const auto comma = rest.find(',', start);
    const std::string name = trimmed(
        rest.substr(start, comma == std::string_view::npos ? rest.size() - start : comma - start));
    if (!name.empty()) out.names.push_back(name);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  if (out.names.empty()) throw InputError(source, "", fmt::format("\"{}\": names no entry", text));
  return out;
}

}  // namespace

std::vector<Algorithm> parse_nccl_algo(std::string_view text, const std::string& source) {
  const AlgorithmRegistry& registry = AlgorithmRegistry::builtin();
  const NameList list = split(text, source);
  std::vector<Algorithm> named;
  for (const auto& n : list.names) {
    const auto a = registry.find(n);
    if (!a) throw InputError(source, "", registry.unknown_name_message(n));
    named.push_back(*a);
  }
  std::vector<Algorithm> out;
  for (const auto* a : registry.algorithms()) {
    const bool listed = std::find(named.begin(), named.end(), a->id()) != named.end();
    if (listed != list.exclude) out.push_back(a->id());
  }
  if (out.empty()) throw InputError(source, "", fmt::format("\"{}\" allows no algorithm", text));
  return out;
}

std::vector<Protocol> parse_nccl_proto(std::string_view text, const std::string& source) {
  NcclProtocolMask allowed;
  try {
    allowed = parse_nccl_protocol_list(text);
  } catch (const NcclListError& e) {
    throw InputError(source, "", e.what());
  }
  std::vector<Protocol> out;
  for (Protocol p : {Protocol::ll, Protocol::ll128, Protocol::simple}) {
    if (allowed[static_cast<std::size_t>(p)]) out.push_back(p);
  }
  return out;
}

std::vector<Algorithm> without_nvls(const std::vector<Algorithm>& allowed) {
  std::vector<Algorithm> out;
  for (const auto* a : AlgorithmRegistry::builtin().algorithms()) {
    const bool kept =
        allowed.empty() || std::find(allowed.begin(), allowed.end(), a->id()) != allowed.end();
    std::string upper(a->name());
    std::transform(upper.begin(), upper.end(), upper.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    if (kept && upper.rfind("NVLS", 0) != 0) out.push_back(a->id());
  }
  return out;
}

}  // namespace linksim::coll
