#include "sim/coll/in_network_reduction.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace linksim::coll {
namespace {

using engine::PathShare;
using engine::TaskId;
using topo::ChannelId;

// A route path cut where it enters and leaves its switches: `enter[j]` is the index of the
// channel that enters the path's j-th fabric switch.
std::vector<std::size_t> switch_entries(const topo::Topology& t, const topo::Path& p) {
  std::vector<std::size_t> enter;
  for (std::size_t k = 0; k < p.channels.size(); ++k) {
    if (t.node(t.channel_to(p.channels[k])).kind == topo::NodeKind::net_switch) enter.push_back(k);
  }
  return enter;
}

}  // namespace

std::vector<TaskId> add_in_network_all_reduce(Lowering& l, const std::vector<int>& heads,
                                              double payload_bytes, TaskId after) {
  if (heads.size() < 2) throw std::logic_error("an in-network reduction needs 2 heads or more");
  const Communicator& comm = l.comm();
  const topo::Topology& t = comm.topology();
  engine::Simulation& sim = l.sim();
  const double wire_bytes = payload_bytes / l.network_wire_efficiency();
  std::vector<TaskId> flows;
  // The tree's links above the leaves, each direction once: the largest share any head's
  // route gives it (spread routing splits a part evenly over the spines).
  std::map<ChannelId, double> up_links;
  std::map<ChannelId, double> down_links;
  for (std::size_t i = 0; i < heads.size(); ++i) {
    const int head = heads[i];
    const int ref = i + 1 == heads.size() ? heads.front() : heads.back();
    const int gpu = comm.gpu_index(head);
    std::vector<PathShare> up;
    for (const topo::Path& p : comm.route(head, ref).paths) {
      const auto enter = switch_entries(t, p);
      if (p.share <= 0 || enter.empty()) continue;
      const std::size_t top = enter[(enter.size() - 1) / 2];
      const std::vector<ChannelId> host(p.channels.begin(),
                                        p.channels.begin() + static_cast<long>(enter[0]) + 1);
      up.push_back({sim.add_path(host, 0.0), p.share});
      for (std::size_t k = enter[0] + 1; k <= top; ++k) {
        double& share = up_links[p.channels[k]];
        share = std::max(share, p.share);
      }
    }
    std::vector<PathShare> down;
    for (const topo::Path& p : comm.route(ref, head).paths) {
      const auto enter = switch_entries(t, p);
      if (p.share <= 0 || enter.empty()) continue;
      const std::size_t top = enter[(enter.size() - 1) / 2];
      const std::size_t last = enter.back();
      for (std::size_t k = top + 1; k <= last; ++k) {
        double& share = down_links[p.channels[k]];
        share = std::max(share, p.share);
      }
      const std::vector<ChannelId> host(p.channels.begin() + static_cast<long>(last) + 1,
                                        p.channels.end());
      down.push_back({sim.add_path(host, 0.0), p.share});
    }
    if (up.empty() || down.empty()) {
      throw std::logic_error("an in-network reduction head's route crosses no fabric switch");
    }
    flows.push_back(sim.add_transfer(wire_bytes, up, gpu, engine::kNoGpu, {&after, 1}));
    flows.push_back(sim.add_transfer(wire_bytes, down, engine::kNoGpu, gpu, {&after, 1}));
  }
  for (const auto* links : {&up_links, &down_links}) {
    for (const auto& [channel, share] : *links) {
      const engine::PathShare whole{sim.add_path({&channel, 1}, 0.0), 1.0};
      flows.push_back(sim.add_transfer(wire_bytes * share, {&whole, 1}, engine::kNoGpu,
                                       engine::kNoGpu, {&after, 1}));
    }
  }
  return flows;
}

}  // namespace linksim::coll
