#include "sim/coll/copy_bench.hpp"

#include "sim/coll/route_paths.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/topo/link_payload.hpp"

namespace linksim::coll {
namespace {

// A copy's transfers: one over the route, or two in sequence through host memory.
struct CopyPlan {
  std::vector<topo::Route> legs;
  bool staged = false;
};

CopyPlan plan_copy(const topo::Router& router, topo::NodeId src, topo::NodeId dst, bool p2p) {
  topo::RouteOptions options;
  options.allow_p2p = p2p;
  auto r = router.route(src, dst, options);
  CopyPlan plan;
  if (!r) return plan;
  const bool direct = p2p && r->transport != topo::Transport::host_bounce;
  if (direct) {
    plan.legs.push_back(*r);
    return plan;
  }
  // Staged through the pinned buffer of the router's bounce socket, else the source's own.
  const auto cpu = r->transport == topo::Transport::host_bounce && r->bounce_cpu
                       ? r->bounce_cpu
                       : router.host_socket(src);
  if (!cpu) return plan;
  plan.legs.push_back(*router.route(src, *cpu));
  plan.legs.push_back(*router.route(*cpu, dst));
  plan.staged = true;
  return plan;
}

// Adds a copy to the simulation; returns its last task.
engine::TaskId add_copy(engine::Simulation& sim, const topo::Topology& topo, const CopyPlan& plan,
                        double bytes) {
  engine::TaskId prev = sim.add_delay(kCopyLaunch_s, {});
  for (std::size_t i = 0; i < plan.legs.size(); ++i) {
    const auto& leg = plan.legs[i];
    const auto shares = add_route_paths(sim, leg);
    const auto gpu_of = [&](topo::NodeId n) {
      return topo.node(n).kind == topo::NodeKind::gpu ? topo.node(n).ordinal : engine::kNoGpu;
    };
    // The second leg of a staged copy is issued once the host has seen the first land.
    if (i > 0) prev = sim.add_delay(kStagedCopyHandoff_s, {&prev, 1});
    prev = sim.add_transfer(bytes, shares, gpu_of(leg.src), gpu_of(leg.dst), {&prev, 1});
  }
  return prev;
}

double run_copies(const topo::Topology& topo, const std::vector<CopyPlan>& plans, double bytes) {
  engine::Simulation sim(topo::payload_capacities_Bps(topo), topo.count(topo::NodeKind::gpu));
  for (const auto& p : plans)
    add_copy(sim, topo, p, bytes);
  engine::RunOptions options;
  options.record_intervals = false;
  return sim.run(options).makespan_s;
}

double device_copy_Bps(const topo::Topology& topo, topo::NodeId gpu) {
  return topo.node(gpu).gpu->hbm_bandwidth_Bps * kDramCopyEfficiency;
}

}  // namespace

std::vector<std::vector<bool>> peer_access(const topo::Topology& topo) {
  const topo::Router router(topo);
  const auto gpus = topo.nodes_of(topo::NodeKind::gpu);
  std::vector<std::vector<bool>> out(gpus.size(), std::vector<bool>(gpus.size(), false));
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    for (std::size_t j = 0; j < gpus.size(); ++j) {
      auto r = router.route(gpus[i], gpus[j]);
      out[i][j] = i == j || (r && r->transport != topo::Transport::host_bounce);
    }
  }
  return out;
}

CopyMatrices p2p_matrices(const topo::Topology& topo, bool p2p_enabled, double copy_bytes) {
  const topo::Router router(topo);
  const auto gpus = topo.nodes_of(topo::NodeKind::gpu);
  const std::size_t n = gpus.size();
  CopyMatrices m;
  m.uni_Bps.assign(n, std::vector<double>(n, 0));
  m.bidi_Bps.assign(n, std::vector<double>(n, 0));
  m.latency_s.assign(n, std::vector<double>(n, 0));
  m.cpu_latency_s.assign(n, std::vector<double>(n, 0));
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      if (i == j) {
        // bandwidthTest-style count (read + write) for a copy within one device.
        m.uni_Bps[i][j] = device_copy_Bps(topo, gpus[i]);
        m.bidi_Bps[i][j] = device_copy_Bps(topo, gpus[i]);
        m.latency_s[i][j] = kCopyLaunch_s;
        m.cpu_latency_s[i][j] = kCopyEnqueue_s;
        continue;
      }
      const CopyPlan there = plan_copy(router, gpus[i], gpus[j], p2p_enabled);
      const CopyPlan back = plan_copy(router, gpus[j], gpus[i], p2p_enabled);
      m.uni_Bps[i][j] = copy_bytes / run_copies(topo, {there}, copy_bytes);
      m.bidi_Bps[i][j] = 2 * copy_bytes / run_copies(topo, {there, back}, copy_bytes);
      m.latency_s[i][j] = run_copies(topo, {there}, 4.0);  // one int
      m.cpu_latency_s[i][j] = there.staged ? kStagedCopyEnqueue_s : kCopyEnqueue_s;
    }
  }
  return m;
}

HostDeviceFigures bandwidth_test(const topo::Topology& topo, topo::NodeId gpu, double copy_bytes) {
  const topo::Router router(topo);
  HostDeviceFigures f;
  auto cpu = router.host_socket(gpu);
  if (cpu) {
    CopyPlan h2d;
    h2d.legs.push_back(*router.route(*cpu, gpu));
    CopyPlan d2h;
    d2h.legs.push_back(*router.route(gpu, *cpu));
    f.h2d_Bps = copy_bytes / run_copies(topo, {h2d}, copy_bytes);
    f.d2h_Bps = copy_bytes / run_copies(topo, {d2h}, copy_bytes);
  }
  f.d2d_Bps = device_copy_Bps(topo, gpu);
  return f;
}

}  // namespace linksim::coll
