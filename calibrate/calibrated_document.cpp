#include "calibrate/calibrated_document.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <map>

#include "sim/core/error.hpp"
#include "sim/topo/machine_writer.hpp"

namespace linksim::calibrate {
namespace {

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

// The figures linksim fit writes for a link: effective, with where they came from.
topo::LinkFigures fitted_figures(const LinkOverride& o) {
  topo::LinkFigures f;
  f.bandwidth_Bps = o.bandwidth_Bps;
  f.latency_s = o.latency_s;
  f.bandwidth_range_Bps = o.bandwidth_range_Bps;
  f.latency_range_s = o.latency_range_s;
  f.basis = "effective";
  f.source = o.source();
  return f;
}

}  // namespace

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
  topo::expect_self_contained(root);
  std::map<topo::LinkId, const LinkOverride*> by_link;
  for (const auto& o : overrides)
    by_link[o.link] = &o;

  Json links = Json::array();
  std::size_t next_link = 0;
  for (const auto& entry_view : topo::link_entries(root)) {
    const std::size_t n = topo::link_entry_expansion(entry_view);
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
      if (n > 0 && mine[0] != nullptr) topo::write_link_figures(entry, fitted_figures(*mine[0]));
      links.push_back(std::move(entry));
    } else {
      for (std::size_t i = 0; i < n; ++i) {
        const auto& link = topology.link(static_cast<topo::LinkId>(next_link + i));
        Json entry = topo::concrete_link_entry(entry_view.raw(), topology.node(link.a).id,
                                               topology.node(link.b).id, link.host_bridge);
        if (mine[i] != nullptr) topo::write_link_figures(entry, fitted_figures(*mine[i]));
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
  Json out = document;
  topo::set_link_entries(out, std::move(links));
  topo::append_sources(out, provenance.sources);
  topo::append_notes(out, provenance.notes);
  return out;
}

Json self_contained_document(const Json& document, const std::string& file) {
  return topo::self_contained_machine_document(document, file);
}

}  // namespace linksim::calibrate
