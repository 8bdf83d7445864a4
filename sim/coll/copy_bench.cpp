#include "sim/coll/copy_bench.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <type_traits>

#include "sim/coll/route_paths.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/topo/link_payload.hpp"

namespace linksim::coll {
namespace {

const topo::CopyConstants& k = topo::kCopyConstants;

int gpu_of(const topo::Topology& topo, topo::NodeId n) {
  return topo.node(n).kind == topo::NodeKind::gpu ? topo.node(n).ordinal : engine::kNoGpu;
}

// Adds one copy to the simulation as sim/topo/copy_model.hpp describes it.
void add_copy(engine::Simulation& sim, const topo::Topology& topo, const topo::CopyPath& path,
              double bytes) {
  const engine::TaskId launch = sim.add_delay(k.launch_s, {});
  if (!path.staged) {
    const auto shares = add_route_paths(sim, path.direct);
    sim.add_transfer(bytes, shares, gpu_of(topo, path.direct.src), gpu_of(topo, path.direct.dst),
                     {&launch, 1});
    return;
  }
  const auto up_shares = add_route_paths(sim, path.up);
  const auto down_shares = add_route_paths(sim, path.down);
  const int src = gpu_of(topo, path.up.src);
  const int dst = gpu_of(topo, path.down.dst);
  const auto slots = static_cast<std::size_t>(path.slots);
  std::vector<engine::TaskId> downs;  // per chunk: its down leg
  engine::TaskId up = launch;
  engine::TaskId down = launch;
  for (double s : topo::staged_chunks(bytes)) {
    const std::size_t i = downs.size();
    std::vector<engine::TaskId> up_deps{up};
    // The slot this chunk reuses is handed back one hand-off after its last chunk came down.
    if (i >= slots) up_deps.push_back(sim.add_delay(k.staged_handoff_s, {&downs[i - slots], 1}));
    up = sim.add_transfer(s, up_shares, src, engine::kNoGpu, up_deps);
    const engine::TaskId landed = sim.add_delay(k.staged_handoff_s, {&up, 1});
    const engine::TaskId down_deps[] = {landed, down};
    down = sim.add_transfer(s, down_shares, engine::kNoGpu, dst, down_deps);
    downs.push_back(down);
  }
}

double device_copy_Bps(const topo::Topology& topo, topo::NodeId gpu) {
  return topo.node(gpu).gpu->hbm_bandwidth_Bps * k.dram_copy_efficiency;
}

// The routes a copy moves over: up and down when staged, else the direct one.
template <typename Copy>
auto routes_of(Copy& c) {
  using RoutePtr = std::conditional_t<std::is_const_v<Copy>, const topo::Route*, topo::Route*>;
  return c.staged ? std::vector<RoutePtr>{&c.up, &c.down} : std::vector<RoutePtr>{&c.direct};
}

// Runs already simulated, by everything a run depends on: a matrix of a regular machine asks
// the same few shapes of pair again and again.
using CopyRuns = std::map<std::string, double>;

// What the run of `copies` (channels renumbered) depends on, as bytes: each copy's form and
// slots, each path's channels, share and latency, each channel's capacity, and the size.
std::string run_key(const std::vector<topo::CopyPath>& copies,
                    const std::vector<double>& capacity_Bps, double bytes) {
  std::string key;
  const auto put = [&key](const auto& v) {
    key.append(reinterpret_cast<const char*>(&v), sizeof v);
  };
  put(bytes);
  for (double c : capacity_Bps)
    put(c);
  for (const auto& c : copies) {
    put(c.staged);
    put(c.slots);
    for (const topo::Route* r : routes_of(c)) {
      put(r->paths.size());
      for (const topo::Path& p : r->paths) {
        put(p.share);
        put(p.latency_s);
        put(p.channels.size());
        for (topo::ChannelId ch : p.channels)
          put(ch);
      }
    }
  }
  return key;
}

double run_copies(const topo::Topology& topo, const std::vector<topo::CopyPath>& copies,
                  double bytes, CopyRuns* runs) {
  // Only the channels the copies cross, renumbered in their order: a pair's run costs its
  // paths, not the machine (a p2p matrix runs one per pair).
  std::vector<topo::ChannelId> used;
  std::vector<topo::CopyPath> local = copies;
  for (auto& c : local) {
    for (topo::Route* r : routes_of(c)) {
      for (const topo::Path& p : r->paths)
        used.insert(used.end(), p.channels.begin(), p.channels.end());
    }
  }
  std::sort(used.begin(), used.end());
  used.erase(std::unique(used.begin(), used.end()), used.end());
  std::vector<double> capacity_Bps;  // as topo::payload_capacities_Bps gives them
  capacity_Bps.reserve(used.size());
  for (topo::ChannelId c : used)
    capacity_Bps.push_back(topo::payload_bandwidth_Bps(topo.link(topo::Topology::link_of(c))));
  for (auto& c : local) {
    for (topo::Route* r : routes_of(c)) {
      for (topo::Path& p : r->paths) {
        for (topo::ChannelId& ch : p.channels) {
          ch = static_cast<topo::ChannelId>(std::lower_bound(used.begin(), used.end(), ch) -
                                            used.begin());
        }
      }
    }
  }
  std::string key;
  if (runs) {
    key = run_key(local, capacity_Bps, bytes);
    if (auto it = runs->find(key); it != runs->end()) return it->second;
  }
  engine::Simulation sim(std::move(capacity_Bps), topo.count(topo::NodeKind::gpu));
  for (const auto& c : local)
    add_copy(sim, topo, c, bytes);
  engine::RunOptions options;
  options.record_intervals = false;
  const double makespan_s = sim.run(options).makespan_s;
  if (runs) runs->emplace(std::move(key), makespan_s);
  return makespan_s;
}

double run_direct(const topo::Topology& topo, const std::vector<topo::Route>& routes,
                  double bytes) {
  std::vector<topo::CopyPath> copies;
  for (const auto& r : routes) {
    topo::CopyPath p;
    p.direct = r;
    copies.push_back(std::move(p));
  }
  return run_copies(topo, copies, bytes, nullptr);
}

}  // namespace

double simulated_copy_time_s(const topo::Topology& topo, const std::vector<topo::CopyPath>& copies,
                             double bytes) {
  return run_copies(topo, copies, bytes, nullptr);
}

std::vector<std::vector<bool>> peer_access(const topo::Topology& topo) {
  const topo::Router router(topo);
  const auto gpus = topo.nodes_of(topo::NodeKind::gpu);
  std::vector<std::vector<bool>> out(gpus.size(), std::vector<bool>(gpus.size(), false));
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    const auto routes = router.routes_from(gpus[i], gpus, topo::copy_route_options(true));
    for (std::size_t j = 0; j < gpus.size(); ++j) {
      out[i][j] = i == j || (routes[j] && routes[j]->transport != topo::Transport::host_bounce);
    }
  }
  return out;
}

CopyMatrices p2p_matrices(const topo::Topology& topo, bool p2p_enabled, double copy_bytes) {
  const topo::Router router(topo);
  const auto gpus = topo.nodes_of(topo::NodeKind::gpu);
  const std::size_t n = gpus.size();
  CopyRuns runs;
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
        m.latency_s[i][j] = k.launch_s;
        m.cpu_latency_s[i][j] = k.enqueue_s;
        continue;
      }
      const auto there = topo::copy_path(router, gpus[i], gpus[j], p2p_enabled);
      const auto back = topo::copy_path(router, gpus[j], gpus[i], p2p_enabled);
      if (!there || !back) continue;
      m.uni_Bps[i][j] = topo::pair_copy_bandwidth_Bps(topo, *there, copy_bytes);
      m.bidi_Bps[i][j] = 2 * copy_bytes / run_copies(topo, {*there, *back}, copy_bytes, &runs);
      m.latency_s[i][j] = topo::copy_time_s(topo, *there, kLatencyCopyBytes);
      m.cpu_latency_s[i][j] = there->staged ? k.staged_enqueue_s : k.enqueue_s;
    }
  }
  return m;
}

HostDeviceFigures bandwidth_test(const topo::Topology& topo, topo::NodeId gpu, double copy_bytes) {
  const topo::Router router(topo);
  HostDeviceFigures f;
  auto cpu = router.host_socket(gpu);
  if (cpu) {
    f.h2d_Bps = copy_bytes / run_direct(topo, {*router.route(*cpu, gpu)}, copy_bytes);
    f.d2h_Bps = copy_bytes / run_direct(topo, {*router.route(gpu, *cpu)}, copy_bytes);
  }
  f.d2d_Bps = device_copy_Bps(topo, gpu);
  return f;
}

}  // namespace linksim::coll
