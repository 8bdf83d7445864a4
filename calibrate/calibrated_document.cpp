#include "calibrate/calibrated_document.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <filesystem>
#include <map>

#include "sim/core/error.hpp"

namespace linksim::calibrate {
namespace {

// Number of links a link entry expands to: the product of its "for" variables' value counts
// ("lo..hi" inclusive, or an array), as the loader expands them.
std::size_t expansion_count(const JsonView& entry) {
  auto loops = entry.get("for");
  if (!loops) return 1;
  std::size_t n = 1;
  for (const auto& [name, v] : loops->members()) {
    if (v.is_array()) {
      n *= v.elements().size();
    } else {
      const std::string range = v.as_string();
      const auto dots = range.find("..");
      if (dots == std::string::npos) v.fail("expected \"lo..hi\"");
      const long long lo = std::stoll(range.substr(0, dots));
      const long long hi = std::stoll(range.substr(dots + 2));
      n *= hi >= lo ? static_cast<std::size_t>(hi - lo + 1) : 0;
    }
  }
  return n;
}

bool same_override(const LinkOverride* a, const LinkOverride* b) {
  if (a == nullptr || b == nullptr) return a == b;
  const auto same_range = [](const std::optional<topo::Range>& x,
                             const std::optional<topo::Range>& y) {
    return x.has_value() == y.has_value() && (!x || (x->lo == y->lo && x->hi == y->hi));
  };
  return a->bandwidth_Bps == b->bandwidth_Bps && a->latency_s == b->latency_s &&
         same_range(a->bandwidth_range_Bps, b->bandwidth_range_Bps) &&
         same_range(a->latency_range_s, b->latency_range_s) && a->source() == b->source();
}

void write_override(Json& entry, const LinkOverride& o) {
  if (o.bandwidth_Bps) entry["bandwidth"] = format_bandwidth_field(*o.bandwidth_Bps);
  if (o.latency_s) entry["latency"] = format_latency_field(*o.latency_s);
  // Rounding to 6 digits is monotone, so the written range still holds the written figure.
  if (o.bandwidth_range_Bps) {
    entry["bandwidth_range"] = {format_bandwidth_field(o.bandwidth_range_Bps->lo),
                                format_bandwidth_field(o.bandwidth_range_Bps->hi)};
  }
  if (o.latency_range_s) {
    entry["latency_range"] = {format_latency_field(o.latency_range_s->lo),
                              format_latency_field(o.latency_range_s->hi)};
  }
  entry["basis"] = "effective";
  entry["source"] = o.source();
}

}  // namespace

std::string format_bandwidth_field(double bandwidth_Bps) {
  return fmt::format("{:.6g} GB/s", bandwidth_Bps / 1e9);
}

std::string format_latency_field(double latency_s) {
  return fmt::format("{:.6g} us", latency_s * 1e6);
}

std::string fnv1a64_hex(const std::string& bytes) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return fmt::format("{:016x}", h);
}

Json apply_link_overrides(const Json& document, const std::string& file,
                          const topo::Topology& topology,
                          const std::vector<LinkOverride>& overrides,
                          const CalibrationProvenance& provenance) {
  const JsonView root(document, file);
  if (root.has("base")) root.at("base").fail("expected a self-contained machine (no \"base\")");
  std::map<topo::LinkId, const LinkOverride*> by_link;
  for (const auto& o : overrides)
    by_link[o.link] = &o;

  Json out = document;
  Json links = Json::array();
  std::size_t next_link = 0;
  for (const auto& entry_view : root.at("links").elements()) {
    const std::size_t n = expansion_count(entry_view);
    std::vector<const LinkOverride*> mine;
    for (std::size_t i = 0; i < n; ++i) {
      auto it = by_link.find(static_cast<topo::LinkId>(next_link + i));
      mine.push_back(it == by_link.end() ? nullptr : it->second);
    }
    bool uniform = true;
    for (std::size_t i = 1; i < n; ++i)
      uniform = uniform && same_override(mine[0], mine[i]);
    if (uniform) {
      Json entry = entry_view.raw();
      if (n > 0 && mine[0] != nullptr) write_override(entry, *mine[0]);
      links.push_back(std::move(entry));
    } else {
      for (std::size_t i = 0; i < n; ++i) {
        const auto& link = topology.link(static_cast<topo::LinkId>(next_link + i));
        Json entry = entry_view.raw();
        entry.erase("for");
        entry["a"] = topology.node(link.a).id;
        entry["b"] = topology.node(link.b).id;
        if (entry.contains("host_bridge")) entry["host_bridge"] = link.host_bridge;
        if (mine[i] != nullptr) write_override(entry, *mine[i]);
        links.push_back(std::move(entry));
      }
    }
    next_link += n;
  }
  if (next_link != topology.links().size()) {
    throw InputError(file, "/links",
                     fmt::format("link entries expand to {} links but the loaded machine has {}",
                                 next_link, topology.links().size()));
  }
  out["links"] = std::move(links);
  Json sources = out.contains("sources") ? out["sources"] : Json::array();
  for (const auto& s : provenance.sources)
    sources.push_back(s);
  out["sources"] = std::move(sources);
  Json notes = out.contains("notes") ? out["notes"] : Json::array();
  for (const auto& s : provenance.notes)
    notes.push_back(s);
  out["notes"] = std::move(notes);
  return out;
}

Json self_contained_document(const Json& document, const std::string& file) {
  const JsonView root(document, file);
  if (!root.has("base")) return document;
  const std::filesystem::path base_path =
      std::filesystem::path(file).parent_path() / root.at("base").as_string();
  if (!std::filesystem::exists(base_path)) {
    root.at("base").fail(fmt::format("base machine \"{}\" not found (looked for {})",
                                     root.at("base").as_string(), base_path.string()));
  }
  Json out = self_contained_document(read_json_file(base_path.string()), base_path.string());
  if (document.contains("replace_models")) {
    for (auto& node : out["nodes"]) {
      if (!node.contains("model") || !node["model"].is_string()) continue;
      const std::string model = node["model"];
      if (document["replace_models"].contains(model)) {
        node["model"] = document["replace_models"][model];
      }
    }
  }
  for (const auto& [key, value] : document.items()) {
    if (key == "base" || key == "replace_models") continue;
    if ((key == "sources" || key == "notes") && out.contains(key) && out[key].is_array()) {
      for (const auto& item : value)
        out[key].push_back(item);
    } else {
      out[key] = value;
    }
  }
  out["notes"].push_back(fmt::format(
      "Self-contained: the nodes and links of base \"{}\"{}.", root.at("base").as_string(),
      document.contains("replace_models") ? " with replace_models applied" : ""));
  return out;
}

}  // namespace linksim::calibrate
