#include "sim/coll/copy_bench.hpp"

#include "sim/coll/link_efficiency.hpp"
#include "sim/coll/route_paths.hpp"
#include "sim/engine/simulation.hpp"

namespace linksim::coll {
namespace {

// A copy's transfers: one over the route, or two in sequence through host memory.
struct CopyPlan {
  std::vector<topo::Route> legs;
};

CopyPlan plan_copy(const topo::Router& router, topo::NodeId src, topo::NodeId dst, bool p2p) {
  topo::RouteOptions options;
  options.allow_p2p = p2p;
  auto r = router.route(src, dst, options);
  CopyPlan plan;
  if (!r) return plan;
  if (r->transport == topo::Transport::host_bounce && r->bounce_cpu) {
    plan.legs.push_back(*router.route(src, *r->bounce_cpu));
    plan.legs.push_back(*router.route(*r->bounce_cpu, dst));
  } else {
    plan.legs.push_back(*r);
  }
  return plan;
}

// Adds a copy to the simulation; returns its last task.
engine::TaskId add_copy(engine::Simulation& sim, const topo::Topology& topo, const CopyPlan& plan,
                        double bytes) {
  engine::TaskId prev = sim.add_delay(kCopyLaunch_s, {});
  for (const auto& leg : plan.legs) {
    const auto shares = add_route_paths(sim, leg);
    const auto gpu_of = [&](topo::NodeId n) {
      return topo.node(n).kind == topo::NodeKind::gpu ? topo.node(n).ordinal : engine::kNoGpu;
    };
    // The second leg of a staged copy starts once the first has landed in host memory.
    prev = sim.add_transfer(bytes, shares, gpu_of(leg.src), gpu_of(leg.dst), {&prev, 1});
  }
  return prev;
}

double run_copies(const topo::Topology& topo, const std::vector<CopyPlan>& plans, double bytes) {
  engine::Simulation sim(payload_capacities_Bps(topo), topo.count(topo::NodeKind::gpu));
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

CopyMatrices p2p_matrices(const topo::Topology& topo, bool p2p_enabled) {
  const topo::Router router(topo);
  const auto gpus = topo.nodes_of(topo::NodeKind::gpu);
  const std::size_t n = gpus.size();
  CopyMatrices m;
  m.uni_Bps.assign(n, std::vector<double>(n, 0));
  m.bidi_Bps.assign(n, std::vector<double>(n, 0));
  m.latency_s.assign(n, std::vector<double>(n, 0));
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      if (i == j) {
        // bandwidthTest-style count (read + write) for a copy within one device.
        m.uni_Bps[i][j] = device_copy_Bps(topo, gpus[i]);
        m.bidi_Bps[i][j] = device_copy_Bps(topo, gpus[i]);
        m.latency_s[i][j] = kCopyLaunch_s;
        continue;
      }
      const CopyPlan there = plan_copy(router, gpus[i], gpus[j], p2p_enabled);
      const CopyPlan back = plan_copy(router, gpus[j], gpus[i], p2p_enabled);
      m.uni_Bps[i][j] = kP2pTestBytes / run_copies(topo, {there}, kP2pTestBytes);
      m.bidi_Bps[i][j] = 2 * kP2pTestBytes / run_copies(topo, {there, back}, kP2pTestBytes);
      m.latency_s[i][j] = run_copies(topo, {there}, 4.0);  // one int
    }
  }
  return m;
}

HostDeviceFigures bandwidth_test(const topo::Topology& topo, topo::NodeId gpu) {
  const topo::Router router(topo);
  HostDeviceFigures f;
  auto cpu = router.host_socket(gpu);
  if (cpu) {
    CopyPlan h2d;
    h2d.legs.push_back(*router.route(*cpu, gpu));
    CopyPlan d2h;
    d2h.legs.push_back(*router.route(gpu, *cpu));
    f.h2d_Bps = kBandwidthTestBytes / run_copies(topo, {h2d}, kBandwidthTestBytes);
    f.d2h_Bps = kBandwidthTestBytes / run_copies(topo, {d2h}, kBandwidthTestBytes);
  }
  f.d2d_Bps = device_copy_Bps(topo, gpu);
  return f;
}

}  // namespace linksim::coll
