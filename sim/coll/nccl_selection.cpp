#include "sim/coll/nccl_selection.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>

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

// NCCL's ncclFuncStr (src/init.cc @v2.30.7-1), the prefixes parseList accepts.
constexpr std::array<std::string_view, 5> kNcclFunctions{"Broadcast", "Reduce", "AllGather",
                                                         "ReduceScatter", "AllReduce"};

std::optional<std::string_view> nccl_function_of(Op op) {
  switch (op) {
    case Op::broadcast:
      return kNcclFunctions[0];
    case Op::reduce:
      return kNcclFunctions[1];
    case Op::all_gather:
      return kNcclFunctions[2];
    case Op::reduce_scatter:
      return kNcclFunctions[3];
    case Op::all_reduce:
      return kNcclFunctions[4];
    default:
      return std::nullopt;
  }
}

bool same_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

struct Entry {
  std::optional<std::string> prefix;  // nullopt: every operation
  std::string list;
};

// parseList's entries (tuning.cc): strtok on ';' then ':' skips empty pieces.
std::vector<Entry> entries_of(std::string_view text, const std::string& source) {
  std::vector<Entry> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto semi = text.find(';', start);
    const std::string_view piece =
        text.substr(start, semi == std::string_view::npos ? text.size() - start : semi - start);
    if (!trimmed(piece).empty()) {
      const auto colon = piece.find(':');
      Entry e;
      if (colon == std::string_view::npos) {
        e.list = std::string(piece);
        if (!out.empty()) {
          throw InputError(source, "",
                           fmt::format("\"{}\": every entry but the first must name an operation "
                                       "(op:list), as NCCL requires",
                                       text));
        }
      } else {
        e.prefix = trimmed(piece.substr(0, colon));
        e.list = std::string(piece.substr(colon + 1));
        const bool known =
            std::any_of(kNcclFunctions.begin(), kNcclFunctions.end(),
                        [&](std::string_view f) { return same_ignoring_case(f, *e.prefix); });
        if (!known) {
          throw InputError(source, "",
                           fmt::format("\"{}\": unknown operation \"{}\"; expected one of {}", text,
                                       *e.prefix, fmt::join(kNcclFunctions, ", ")));
        }
      }
      out.push_back(std::move(e));
    }
    if (semi == std::string_view::npos) break;
    start = semi + 1;
  }
  if (out.empty()) throw InputError(source, "", fmt::format("\"{}\": names no entry", text));
  return out;
}

bool per_operation(std::string_view text) {
  return text.find(':') != std::string_view::npos || text.find(';') != std::string_view::npos;
}

}  // namespace

std::optional<std::string> nccl_list_for_op(std::string_view text, Op op,
                                            const std::string& source) {
  const auto function = nccl_function_of(op);
  std::optional<std::string> out;
  for (const Entry& e : entries_of(text, source)) {
    if (function && (!e.prefix || same_ignoring_case(*e.prefix, *function))) out = e.list;
  }
  return out;
}

std::vector<Algorithm> parse_nccl_algo(std::string_view text, const std::string& source,
                                       std::optional<Op> op) {
  if (op && per_operation(text)) {
    // Every entry's names are checked, as parseList checks them; only op's list is kept.
    for (const Entry& e : entries_of(text, source))
      parse_nccl_algo(e.list, source);
    const auto list = nccl_list_for_op(text, *op, source);
    return list ? parse_nccl_algo(*list, source) : std::vector<Algorithm>{};
  }
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

std::vector<Protocol> parse_nccl_proto(std::string_view text, const std::string& source,
                                       std::optional<Op> op) {
  if (op && per_operation(text)) {
    for (const Entry& e : entries_of(text, source))
      parse_nccl_proto(e.list, source);
    const auto list = nccl_list_for_op(text, *op, source);
    return list ? parse_nccl_proto(*list, source) : std::vector<Protocol>{};
  }
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
