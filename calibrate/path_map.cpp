#include "calibrate/path_map.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>

#include "calibrate/text_lines.hpp"
#include "sim/core/error.hpp"

namespace linksim::calibrate {
namespace {

std::optional<std::vector<topo::Route>> routes(const topo::Router& router, const std::string& k,
                                               int src, int dst, std::optional<bool> p2p,
                                               const std::string& file, int line) {
  const auto& t = router.topology();
  const auto gpus = t.nodes_of(topo::NodeKind::gpu);
  auto gpu = [&](int index) {
    if (index < 0 || static_cast<std::size_t>(index) >= gpus.size()) {
      throw InputError(
          file, line > 0 ? line_location(line) : "",
          fmt::format("GPU {} is not in the topology (it has {} GPUs)", index, gpus.size()));
    }
    return gpus[static_cast<std::size_t>(index)];
  };
  topo::RouteOptions options;
  options.allow_p2p = p2p.value_or(true);
  std::vector<topo::Route> out;
  auto add = [&](topo::NodeId a, topo::NodeId b) {
    auto r = router.route(a, b, options);
    if (!r || r->paths.empty()) return false;
    out.push_back(std::move(*r));
    return true;
  };
  if (k == kind::h2d || k == kind::d2h) {
    const int g = k == kind::h2d ? dst : src;
    const topo::NodeId node = gpu(g);
    auto cpu = router.host_socket(node);
    if (!cpu) return std::nullopt;
    if (!(k == kind::h2d ? add(*cpu, node) : add(node, *cpu))) return std::nullopt;
    return out;
  }
  if (k == kind::p2p_uni || k == kind::p2p_latency || k == kind::p2p_bidi) {
    if (src == dst) return std::nullopt;
    if (!add(gpu(src), gpu(dst))) return std::nullopt;
    if (k == kind::p2p_bidi && !add(gpu(dst), gpu(src))) return std::nullopt;
    return out;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::vector<topo::Route>> routes_for(const topo::Router& router, const Record& r) {
  return routes(router, r.kind, r.src_gpu, r.dst_gpu, r.p2p_enabled, r.source_file, r.source_line);
}

std::optional<std::vector<topo::Route>> routes_for(const topo::Router& router, const SeriesKey& k) {
  return routes(router, k.kind, k.src_gpu, k.dst_gpu, k.p2p_enabled, "", 0);
}

double predict_time_s(const topo::Topology& topology, const std::vector<topo::Route>& flows,
                      double size_bytes) {
  // Load on each channel: the shares of all flows' paths that cross it.
  std::map<topo::ChannelId, double> load;
  for (const auto& f : flows) {
    for (const auto& p : f.paths) {
      for (auto c : p.channels)
        load[c] += p.share;
    }
  }
  double worst = 0;
  for (const auto& f : flows) {
    double stream = 0;
    for (const auto& p : f.paths) {
      // This path's rate: each channel's bandwidth split over the shares crossing it, scaled
      // back to this path's own share.
      double rate = std::numeric_limits<double>::infinity();
      for (auto c : p.channels) {
        rate = std::min(rate, topology.channel_bandwidth_Bps(c) * p.share / load[c]);
      }
      stream = std::max(stream, p.share * size_bytes / rate);
    }
    worst = std::max(worst, f.latency_s() + stream);
  }
  return worst;
}

}  // namespace linksim::calibrate
