#include "sim/topo/summary.hpp"

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/push_relabel_max_flow.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <set>

#include "sim/topo/copy_model.hpp"
#include "sim/topo/link_payload.hpp"

namespace linksim::topo {
namespace {

using FlowTraits = boost::adjacency_list_traits<boost::vecS, boost::vecS, boost::directedS>;
using FlowGraph = boost::adjacency_list<
    boost::vecS, boost::vecS, boost::directedS, boost::no_property,
    boost::property<
        boost::edge_capacity_t, std::int64_t,
        boost::property<boost::edge_residual_capacity_t, std::int64_t,
                        boost::property<boost::edge_reverse_t, FlowTraits::edge_descriptor>>>>;

// Capacities in whole kB/s: push-relabel's flow check needs exact (integer) arithmetic.
constexpr double kUnit_Bps = 1e3;

void add_arc(FlowGraph& g, std::size_t from, std::size_t to, std::int64_t capacity) {
  auto cap = boost::get(boost::edge_capacity, g);
  auto rev = boost::get(boost::edge_reverse, g);
  auto e = boost::add_edge(from, to, g).first;
  auto r = boost::add_edge(to, from, g).first;
  cap[e] = capacity;
  cap[r] = 0;
  rev[e] = r;
  rev[r] = e;
}

}  // namespace

std::vector<std::size_t> pair_source_indices(std::size_t gpu_count, std::size_t pair_route_budget) {
  const bool every_pair = gpu_count < 2 || gpu_count * (gpu_count - 1) <= pair_route_budget;
  const std::size_t k =
      every_pair ? gpu_count : std::max<std::size_t>(1, pair_route_budget / gpu_count);
  std::vector<std::size_t> sources;
  sources.reserve(k);
  for (std::size_t i = 0; i < k; ++i)
    sources.push_back(i * gpu_count / k);
  return sources;
}

double cut_bandwidth_Bps(const Topology& topo, const std::vector<NodeId>& side_a,
                         const std::vector<NodeId>& side_b) {
  const std::size_t n = topo.nodes().size();
  FlowGraph g(n + 2);
  const std::size_t source = n;
  const std::size_t sink = n + 1;
  for (LinkId l = 0; l < topo.links().size(); ++l) {
    const Link& link = topo.link(l);
    const auto cap = static_cast<std::int64_t>(std::llround(link.bandwidth_Bps / kUnit_Bps));
    add_arc(g, link.a, link.b, cap);
    add_arc(g, link.b, link.a, cap);
  }
  const std::int64_t inf = std::int64_t{1} << 50;
  for (NodeId a : side_a)
    add_arc(g, source, a, inf);
  for (NodeId b : side_b)
    add_arc(g, b, sink, inf);
  return static_cast<double>(boost::push_relabel_max_flow(g, source, sink)) * kUnit_Bps;
}

MachineSummary summarize(const Topology& topo, const Router& router,
                         std::size_t pair_route_budget) {
  MachineSummary s;
  const auto gpus = topo.nodes_of(NodeKind::gpu);
  s.gpu_count = gpus.size();
  for (NodeId g : gpus)
    s.gpu_models[topo.node(g).model]++;
  for (const auto& l : topo.links())
    s.link_labels[link_label(l.kind, l.generation, l.lanes, l.width)]++;
  s.nvswitch_count = topo.count(NodeKind::nvswitch);
  s.pcie_switch_count = topo.count(NodeKind::pcie_switch);
  s.cpu_count = topo.count(NodeKind::cpu);
  s.nic_count = topo.count(NodeKind::nic);
  std::set<int> sockets;
  for (NodeId c : topo.nodes_of(NodeKind::cpu))
    sockets.insert(topo.node(c).cpu->socket);
  s.socket_count = sockets.size();

  // Injection: one pass over the links, summed per GPU end.
  std::map<NodeId, std::pair<double, double>> leaving;  // gpu -> (NVLink, host fabric)
  for (NodeId g : gpus)
    leaving[g] = {0, 0};
  for (const Link& link : topo.links()) {
    for (NodeId end : {link.a, link.b}) {
      auto it = leaving.find(end);
      if (it == leaving.end()) continue;
      (link.kind == LinkKind::nvlink ? it->second.first : it->second.second) += link.bandwidth_Bps;
    }
  }
  bool first = true;
  for (NodeId g : gpus) {
    const auto [nv, host] = leaving[g];
    s.nvlink_injection_Bps = first ? nv : std::min(s.nvlink_injection_Bps, nv);
    s.pcie_injection_Bps = first ? host : std::min(s.pcie_injection_Bps, host);
    first = false;
  }

  const RouteOptions copy_options = copy_route_options(true);
  const std::vector<std::size_t> sources = pair_source_indices(gpus.size(), pair_route_budget);
  s.pair_sources = sources.size();
  for (std::size_t i : sources) {
    const auto nccl = router.routes_from(gpus[i], gpus);
    const auto copies = router.routes_from(gpus[i], gpus, copy_options);
    for (std::size_t j = 0; j < gpus.size(); ++j) {
      if (i == j) continue;
      if (nccl[j]) s.transports[std::string(to_string(nccl[j]->transport))]++;
      const auto path = copy_path(router, copies[j]);
      if (!path) continue;
      PairFigure f{gpus[i], gpus[j], path->staged ? Transport::host_bounce : path->direct.transport,
                   pair_copy_bandwidth_Bps(topo, *path, kP2pTestBytes)};
      if (!s.slowest_pair || f.bandwidth_Bps < s.slowest_pair->bandwidth_Bps) s.slowest_pair = f;
      if (!s.fastest_pair || f.bandwidth_Bps > s.fastest_pair->bandwidth_Bps) s.fastest_pair = f;
    }
  }

  // Bisection: every split into equal halves, the first GPU always on side A.
  if (gpus.size() >= 2 && gpus.size() <= 16) {
    const std::size_t n = gpus.size();
    const std::size_t half = n / 2;
    double best = std::numeric_limits<double>::max();
    for (std::uint32_t mask = 0; mask < (1u << n); ++mask) {
      if ((mask & 1u) == 0 || static_cast<std::size_t>(__builtin_popcount(mask)) != half) continue;
      std::vector<NodeId> a;
      std::vector<NodeId> b;
      for (std::size_t i = 0; i < n; ++i)
        ((mask >> i) & 1u ? a : b).push_back(gpus[i]);
      best = std::min(best, cut_bandwidth_Bps(topo, a, b));
    }
    s.bisection_Bps = best;
  }
  return s;
}

}  // namespace linksim::topo
