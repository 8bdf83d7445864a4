#include "sim/coll/nccl_graph_compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace linksim::coll {
namespace {

std::vector<std::int64_t> devs_of(const NcclGraphChannel& c) {
  std::vector<std::int64_t> devs;
  for (const auto& g : c.gpus)
    devs.push_back(g.dev);
  return devs;
}

// Whether `b` is `a` started elsewhere.
bool is_rotation(const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b) {
  if (a.size() != b.size()) return false;
  if (a.empty()) return true;
  const auto start = std::find(b.begin(), b.end(), a.front());
  if (start == b.end()) return false;
  std::vector<std::int64_t> rotated(start, b.end());
  rotated.insert(rotated.end(), b.begin(), start);
  return rotated == a;
}

NcclChannelMatch match_cycles(const std::vector<std::int64_t>& nccl,
                              const std::vector<std::int64_t>& linksim) {
  if (is_rotation(nccl, linksim)) return NcclChannelMatch::same;
  const std::vector<std::int64_t> reversed(linksim.rbegin(), linksim.rend());
  if (is_rotation(nccl, reversed)) return NcclChannelMatch::reversed;
  return NcclChannelMatch::different;
}

std::string devs_text(const std::vector<std::int64_t>& devs) {
  return fmt::format("{}", fmt::join(devs, " "));
}

std::string gbps(double Bps) {
  return fmt::format("{:g} GB/s", std::round(Bps / 1e9 * 1000) / 1000);
}

NcclGraphComparison compare_graph(const NcclGraph& nccl, const NcclGraph& linksim) {
  NcclGraphComparison c;
  c.id = nccl.id;
  c.compared = true;
  c.nccl_channels = static_cast<int>(nccl.channels.size());
  c.linksim_channels = static_cast<int>(linksim.channels.size());
  c.nccl_speed_intra_Bps = nccl.speed_intra_Bps;
  c.linksim_speed_intra_Bps = linksim.speed_intra_Bps;
  c.nccl_type_intra = nccl.type_intra;
  c.linksim_type_intra = linksim.type_intra;
  if (c.nccl_channels != c.linksim_channels) {
    c.differences.push_back(
        fmt::format("channels: NCCL {}, linksim {}", c.nccl_channels, c.linksim_channels));
  }
  const int common = std::min(c.nccl_channels, c.linksim_channels);
  for (int i = 0; i < common; ++i) {
    NcclChannelComparison ch;
    ch.index = i;
    ch.nccl_devs = devs_of(nccl.channels[static_cast<std::size_t>(i)]);
    ch.linksim_devs = devs_of(linksim.channels[static_cast<std::size_t>(i)]);
    ch.match = match_cycles(ch.nccl_devs, ch.linksim_devs);
    if (ch.match != NcclChannelMatch::same) {
      c.differences.push_back(
          fmt::format("channel {} order{}: NCCL {}, linksim {}", i,
                      ch.match == NcclChannelMatch::reversed ? " (reversed)" : "",
                      devs_text(ch.nccl_devs), devs_text(ch.linksim_devs)));
    }
    c.channels.push_back(std::move(ch));
  }
  const double larger = std::max(c.nccl_speed_intra_Bps, c.linksim_speed_intra_Bps);
  if (std::abs(c.nccl_speed_intra_Bps - c.linksim_speed_intra_Bps) > kNcclSpeedTolerance * larger) {
    c.differences.push_back(fmt::format("speedintra per channel: NCCL {}, linksim {}",
                                        gbps(c.nccl_speed_intra_Bps),
                                        gbps(c.linksim_speed_intra_Bps)));
  }
  // With different channel counts the per-channel figures say little alone: the ring's busBw
  // is nchannels x speedintra (NCCL's tuning.cc), compared the same way.
  const double nccl_total = c.nccl_speed_intra_Bps * c.nccl_channels;
  const double linksim_total = c.linksim_speed_intra_Bps * c.linksim_channels;
  if (c.nccl_channels != c.linksim_channels &&
      std::abs(nccl_total - linksim_total) >
          kNcclSpeedTolerance * std::max(nccl_total, linksim_total)) {
    c.differences.push_back(fmt::format("channels x speedintra: NCCL {}, linksim {}",
                                        gbps(nccl_total), gbps(linksim_total)));
  }
  if (c.nccl_type_intra != c.linksim_type_intra) {
    c.differences.push_back(fmt::format("typeintra: NCCL {}, linksim {}",
                                        to_string(c.nccl_type_intra),
                                        to_string(c.linksim_type_intra)));
  }
  return c;
}

Json side_json(int channels, double speed_Bps, NcclPathType type) {
  Json j;
  j["channels"] = channels;
  j["speed_intra_Bps"] = speed_Bps;
  j["type_intra"] = std::string(to_string(type));
  return j;
}

}  // namespace

std::string_view to_string(NcclChannelMatch m) {
  switch (m) {
    case NcclChannelMatch::same:
      return "same";
    case NcclChannelMatch::reversed:
      return "reversed";
    case NcclChannelMatch::different:
      return "different";
  }
  return "?";
}

bool NcclGraphsComparison::same() const {
  return std::all_of(graphs.begin(), graphs.end(),
                     [](const auto& g) { return !g.compared || g.differences.empty(); });
}

NcclGraphsComparison compare_nccl_graphs(const NcclGraphDump& nccl, const NcclGraphDump& linksim) {
  NcclGraphsComparison out;
  for (const auto& g : nccl.graphs) {
    const auto mine = std::find_if(linksim.graphs.begin(), linksim.graphs.end(),
                                   [&](const NcclGraph& l) { return l.id == g.id; });
    if (mine != linksim.graphs.end()) {
      out.graphs.push_back(compare_graph(g, *mine));
      continue;
    }
    NcclGraphComparison c;
    c.id = g.id;
    c.nccl_channels = static_cast<int>(g.channels.size());
    c.nccl_speed_intra_Bps = g.speed_intra_Bps;
    c.nccl_type_intra = g.type_intra;
    out.graphs.push_back(std::move(c));
  }
  return out;
}

std::string format_nccl_graph_comparison(const NcclGraphsComparison& c) {
  std::string out;
  for (const auto& g : c.graphs) {
    out += fmt::format("graph {} ({}): ", g.id, nccl_graph_name(g.id));
    if (!g.compared) {
      if (g.nccl_channels == 0) {
        out += "not searched by NCCL (0 channels), not modelled by linksim\n";
      } else {
        out += fmt::format("not compared: NCCL {} channel{}, linksim has no such graph\n",
                           g.nccl_channels, g.nccl_channels == 1 ? "" : "s");
      }
      continue;
    }
    if (g.differences.empty()) {
      out += fmt::format("same ({} channel{}, {} per channel, {})\n", g.nccl_channels,
                         g.nccl_channels == 1 ? "" : "s", gbps(g.nccl_speed_intra_Bps),
                         to_string(g.nccl_type_intra));
      continue;
    }
    const std::size_t n = g.differences.size();
    out += fmt::format("{} difference{}\n", n, n == 1 ? "" : "s");
    for (const auto& d : g.differences)
      out += "  " + d + "\n";
  }
  out += c.same() ? "same\n" : "different\n";
  return out;
}

Json nccl_graph_comparison_json(const NcclGraphsComparison& c) {
  Json graphs = Json::array();
  for (const auto& g : c.graphs) {
    Json j;
    j["id"] = g.id;
    j["name"] = std::string(nccl_graph_name(g.id));
    j["compared"] = g.compared;
    j["nccl"] = side_json(g.nccl_channels, g.nccl_speed_intra_Bps, g.nccl_type_intra);
    if (g.compared) {
      j["linksim"] = side_json(g.linksim_channels, g.linksim_speed_intra_Bps, g.linksim_type_intra);
    } else {
      j["linksim"] = nullptr;
    }
    Json channels = Json::array();
    for (const auto& ch : g.channels) {
      channels.push_back({{"index", ch.index},
                          {"match", std::string(to_string(ch.match))},
                          {"nccl", ch.nccl_devs},
                          {"linksim", ch.linksim_devs}});
    }
    j["channels"] = std::move(channels);
    j["differences"] = g.differences;
    graphs.push_back(std::move(j));
  }
  Json out;
  out["same"] = c.same();
  out["graphs"] = std::move(graphs);
  return out;
}

}  // namespace linksim::coll
