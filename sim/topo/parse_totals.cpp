// Bounds on a whole machine file's expansion: each node entry's "count" and each link entry's
// "for" is bounded on its own (parse_nodes.cpp, parse_loops.cpp), but fifty entries each at
// their bound would still be fifty times too many. The totals are counted from the counts and
// loop ranges alone, before anything is expanded.
#include <fmt/format.h>

#include <cstdint>
#include <optional>

#include "sim/topo/loader_sections.hpp"
#include "sim/topo/loop_values.hpp"

namespace linksim::topo {
namespace {

// Nodes entry `nv` makes; nullopt when its count is not one parse_nodes accepts (it says why).
std::optional<std::uint64_t> node_count(const JsonView& nv) {
  if (!nv.is_object()) return std::nullopt;
  const auto count = nv.get("count");
  if (!count) return 1;
  if (!count->raw().is_number_integer()) return std::nullopt;
  const std::int64_t n = count->raw().get<std::int64_t>();
  if (n < 1 || n > kMaxNodesPerEntry) return std::nullopt;
  return static_cast<std::uint64_t>(n);
}

// Links entry `lv` makes; nullopt when its "for" is not one loop_bindings accepts (it says why).
std::optional<std::uint64_t> link_count(const JsonView& lv) {
  if (!lv.is_object()) return std::nullopt;
  const auto loops = lv.get("for");
  if (!loops) return 1;
  if (!loops->is_object()) return std::nullopt;
  std::uint64_t product = 1;
  for (const auto& [name, values] : loops->members()) {
    const auto n = loop_value_count(values);
    if (!n) return std::nullopt;
    product *= *n;  // at most 1e6 x 1,000,001 here: no overflow
    if (product > kMaxLoopBindings) return std::nullopt;
  }
  return product;
}

std::string quoted_or(const JsonView& v, const char* key, const char* fallback) {
  const auto field = v.get(key);
  return field && field->is_string() ? fmt::format("\"{}\"", field->as_string()) : fallback;
}

void check_node_total(const JsonView& nodes) {
  std::uint64_t total = 0;
  for (const auto& nv : nodes.elements()) {
    const auto n = node_count(nv);
    if (!n) continue;
    total += *n;
    if (total > kMaxNodesPerFile) {
      const JsonView where = nv.has("count") ? nv.at("count") : nv;
      where.fail(fmt::format(
          "node entry {} ({} node{}) brings the file to {} nodes; expected at most {} nodes in all",
          quoted_or(nv, "id", "without an id"), *n, *n == 1 ? "" : "s", total, kMaxNodesPerFile));
    }
  }
}

void check_link_total(const JsonView& links) {
  std::uint64_t total = 0;
  for (const auto& lv : links.elements()) {
    const auto n = link_count(lv);
    if (!n) continue;
    total += *n;
    if (total > kMaxLinksPerFile) {
      const JsonView where = lv.has("for") ? lv.at("for") : lv;
      where.fail(fmt::format(
          "link entry {} to {} ({} link{}) brings the file to {} links; expected at most {} "
          "links in all",
          quoted_or(lv, "a", "?"), quoted_or(lv, "b", "?"), *n, *n == 1 ? "" : "s", total,
          kMaxLinksPerFile));
    }
  }
}

}  // namespace

void check_expansion_totals(const JsonView& root) {
  if (const auto nodes = root.get("nodes"); nodes && nodes->is_array()) check_node_total(*nodes);
  if (const auto links = root.get("links"); links && links->is_array()) check_link_total(*links);
}

}  // namespace linksim::topo
