#include "sim/work/binding_links.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace linksim::work {
namespace {

struct Group {
  const engine::ChannelRow* first = nullptr;  // the lowest channel id of the longest
  int count = 0;
  bool network = false;
};

bool in_network(const topo::Topology& machine, topo::ChannelId ch) {
  const int from = machine.host_of(machine.channel_from(ch));
  const int to = machine.host_of(machine.channel_to(ch));
  return from == topo::kFabricHost || to == topo::kFabricHost || from != to;
}

// "NVLink 4 x5" of "node0/gpu0->node0/nvswitch0 (NVLink 4 x5)": what kind of link it is.
std::string kind_label(const std::string& name) {
  const auto open = name.rfind(" (");
  return open == std::string::npos ? std::string() : name.substr(open);
}

}  // namespace

std::vector<std::string> binding_links(const topo::Topology& machine,
                                       const std::vector<engine::ChannelRow>& channels,
                                       double step_s, std::size_t lines) {
  std::vector<const engine::ChannelRow*> bound;
  for (const auto& c : channels) {
    if (c.channel < machine.channel_count() && c.saturated_s >= 0.01 * step_s &&
        c.saturated_s > 0) {
      bound.push_back(&c);
    }
  }
  std::stable_sort(bound.begin(), bound.end(), [](const auto* a, const auto* b) {
    return a->saturated_s != b->saturated_s ? a->saturated_s > b->saturated_s
                                            : a->channel < b->channel;
  });
  // Longest first, so the links alike of a group arrive together or within 1e-9 of its first:
  // each (place, kind, capacity) keeps its latest group and joins it while within that.
  std::vector<Group> groups;
  std::map<std::tuple<bool, std::string, double>, std::size_t> latest;
  for (const auto* c : bound) {
    const bool network = in_network(machine, c->channel);
    const auto key = std::make_tuple(network, kind_label(c->name), c->capacity_Bps);
    const auto it = latest.find(key);
    if (it != latest.end()) {
      Group& g = groups[it->second];
      if (std::abs(g.first->saturated_s - c->saturated_s) <= 1e-9 * g.first->saturated_s) {
        ++g.count;
        continue;
      }
    }
    latest[key] = groups.size();
    groups.push_back({c, 1, network});
  }
  // The longest of each place first, then the rest, all shown longest first.
  std::vector<std::size_t> chosen;
  for (bool network : {false, true}) {
    for (std::size_t i = 0; i < groups.size(); ++i) {
      if (groups[i].network == network) {
        chosen.push_back(i);
        break;
      }
    }
  }
  for (std::size_t i = 0; i < groups.size() && chosen.size() < lines; ++i) {
    if (std::find(chosen.begin(), chosen.end(), i) == chosen.end()) chosen.push_back(i);
  }
  if (chosen.size() > lines) chosen.resize(lines);
  std::sort(chosen.begin(), chosen.end());  // groups are longest first already
  std::vector<std::string> out;
  for (std::size_t i : chosen) {
    const Group& g = groups[i];
    const std::string alike =
        g.count > 1 ? fmt::format(" and {} more alike", g.count - 1) : std::string();
    out.push_back(fmt::format("{}{}: saturated {:.0f}% of the step", g.first->name, alike,
                              100 * g.first->saturated_s / std::max(step_s, 1e-30)));
  }
  return out;
}

}  // namespace linksim::work
