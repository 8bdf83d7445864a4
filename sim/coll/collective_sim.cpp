#include "sim/coll/collective_sim.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <stdexcept>

#include "sim/coll/route_paths.hpp"

namespace linksim::coll {
namespace {

using engine::PathShare;
using engine::TaskId;

// NCCL's p2p LL threshold per channel (enqueue.cc NCCL_P2P_LL_THRESHOLD) and p2p channels
// per peer over PCIe and NVLink (2).
constexpr double kP2pLlThreshold_bytes = 16 * 1024;
constexpr int kP2pChannels = 2;

// Per-rank payload throughput cap (busBw cap) NCCL applies to this choice; 0 = none.
double rank_cap_Bps(const Communicator& comm, const Choice& c) {
  const GpuGeneration g = comm.generation();
  switch (c.protocol) {
    case Protocol::ll:
      return ll_max_total_Bps(g);
    case Protocol::ll128:
      return c.channels * ring_ll128_per_channel_Bps(g);
    case Protocol::simple:
      return c.algorithm == Algorithm::tree ? c.channels * tree_per_channel_Bps(g) : 0.0;
  }
  return 0.0;
}

class Lowerer {
 public:
  Lowerer(const Communicator& comm, const Request& request, const Choice& choice,
          engine::Simulation& sim)
      : comm_(comm), request_(request), choice_(choice), sim_(sim) {
    const topo::CollectiveScales fitted = comm.scales(to_string(request.op));
    latency_scale_ = fitted.latency;
    eta_ = wire_efficiency(choice.protocol) * fitted.bandwidth *
           (choice.protocol == Protocol::ll      ? fitted.ll
            : choice.protocol == Protocol::ll128 ? fitted.ll128
                                                 : 1.0);
    if (choice.algorithm == Algorithm::nvls) eta_ *= nvls_efficiency(comm.generation());
    hop_s_ = hop_latency_s(choice.algorithm, choice.protocol, comm.intra_class()) * latency_scale_;
    const double cap = rank_cap_Bps(comm, choice);
    rank_cap_.assign(static_cast<std::size_t>(comm.size()), std::nullopt);
    if (cap > 0) {
      // Caps are on payload; the transfers carry wire bytes (payload / eta).
      for (auto& c : rank_cap_)
        c = sim.add_channel(cap / eta_);
    }
  }

  TaskId lower(std::span<const TaskId> deps) {
    const int n = comm_.size();
    const double s = request_.size_bytes;
    TaskId start =
        sim_.add_delay(base_latency_s(choice_.algorithm, choice_.protocol) * latency_scale_, deps);
    if (n == 1) return start;
    switch (request_.op) {
      case Op::all_reduce:
        if (choice_.algorithm == Algorithm::nvls) return nvls_all_reduce(start, s);
        if (choice_.algorithm == Algorithm::tree) return chain_both_ways(start, s);
        return ring_steps(start, 2 * (n - 1), s / n);
      case Op::all_gather:
      case Op::reduce_scatter:
        return ring_steps(start, n - 1, s / n);
      case Op::broadcast:
        return chain(start, s, /*towards_root=*/false);
      case Op::reduce:
        return chain(start, s, /*towards_root=*/true);
      case Op::alltoall:
        return all_to_all(start, s / n);
      case Op::sendrecv:
        return shift(start, s);
    }
    return start;
  }

 private:
  std::span<const PathShare> paths(int from, int to) {
    auto key = std::make_pair(from, to);
    auto it = cache_.find(key);
    if (it != cache_.end()) return it->second;
    auto out = add_route_paths(sim_, comm_.route(from, to), hop_s_,
                               rank_cap_[static_cast<std::size_t>(from)]);
    return cache_.emplace(key, std::move(out)).first->second;
  }

  TaskId send(int from, int to, double payload_bytes, std::span<const TaskId> deps) {
    return sim_.add_transfer(payload_bytes / eta_, paths(from, to), comm_.gpu_index(from),
                             comm_.gpu_index(to), deps);
  }

  // `steps` ring steps; in each, every rank sends `chunk` bytes to its successor, split over
  // the rings. Steps are separated by a barrier: a rank needs the previous chunk first.
  TaskId ring_steps(TaskId start, int steps, double chunk) {
    const auto& rings = comm_.rings();
    const double per_ring = chunk / static_cast<double>(rings.size());
    TaskId prev = start;
    std::vector<TaskId> step_tasks;
    for (int k = 0; k < steps; ++k) {
      step_tasks.clear();
      for (const auto& ring : rings) {
        const std::size_t n = ring.order.size();
        for (std::size_t i = 0; i < n; ++i) {
          step_tasks.push_back(send(ring.order[i], ring.order[(i + 1) % n], per_ring, {&prev, 1}));
        }
      }
      prev = sim_.add_barrier(step_tasks);
    }
    return prev;
  }

  // A pipelined chain along the first ring, starting at the root (broadcast) or ending there
  // (reduce): every hop streams the whole buffer at once, after the pipeline fills.
  TaskId chain(TaskId start, double bytes, bool towards_root) {
    const auto& order = comm_.rings().front().order;
    const int n = comm_.size();
    const auto root_pos = std::find(order.begin(), order.end(), request_.root) - order.begin();
    std::vector<int> seq;
    for (int i = 0; i < n; ++i)
      seq.push_back(order[static_cast<std::size_t>((root_pos + i) % n)]);
    if (towards_root) std::reverse(seq.begin(), seq.end());
    const TaskId fill = sim_.add_delay(hop_s_ * (n - 2 > 0 ? n - 2 : 0), {&start, 1});
    std::vector<TaskId> hops;
    for (std::size_t i = 0; i + 1 < seq.size(); ++i)
      hops.push_back(send(seq[i], seq[i + 1], bytes, {&fill, 1}));
    return sim_.add_barrier(hops);
  }

  // Tree all-reduce inside a node is a chain: reduce towards one end while the result streams
  // back, both pipelined, so every hop carries the buffer in both directions at once.
  TaskId chain_both_ways(TaskId start, double bytes) {
    const auto& order = comm_.rings().front().order;
    const int n = comm_.size();
    const TaskId fill = sim_.add_delay(hop_s_ * (2 * (n - 1) - 1), {&start, 1});
    std::vector<TaskId> hops;
    for (std::size_t i = 0; i + 1 < order.size(); ++i) {
      hops.push_back(send(order[i + 1], order[i], bytes, {&fill, 1}));
      hops.push_back(send(order[i], order[i + 1], bytes, {&fill, 1}));
    }
    return sim_.add_barrier(hops);
  }

  // NVLink SHARP: each GPU pulls the switch-reduced values of its 1/n slice and multicasts its
  // reduced slice; each sends and receives S (n+1)/n through its NVSwitch ports.
  TaskId nvls_all_reduce(TaskId start, double bytes) {
    const int n = comm_.size();
    const double each = bytes * (n + 1) / n;
    const auto& topo = comm_.topology();
    const TaskId fill = sim_.add_delay(hop_s_, {&start, 1});
    std::vector<TaskId> flows;
    for (int r = 0; r < n; ++r) {
      const topo::NodeId g = comm_.gpu(r);
      std::vector<PathShare> up;
      std::vector<PathShare> down;
      double lanes = 0;
      for (topo::LinkId l = 0; l < topo.links().size(); ++l) {
        const auto& link = topo.link(l);
        if (link.kind == topo::LinkKind::nvlink && (link.a == g || link.b == g))
          lanes += link.lanes;
      }
      for (topo::LinkId l = 0; l < topo.links().size(); ++l) {
        const auto& link = topo.link(l);
        if (link.kind != topo::LinkKind::nvlink || (link.a != g && link.b != g)) continue;
        const bool g_is_a = link.a == g;
        const engine::ChannelId out = topo::Topology::channel(l, g_is_a);
        const engine::ChannelId in = topo::Topology::channel(l, !g_is_a);
        up.push_back({sim_.add_path({&out, 1}, link.latency_s), link.lanes / lanes});
        down.push_back({sim_.add_path({&in, 1}, link.latency_s), link.lanes / lanes});
      }
      const int gi = comm_.gpu_index(r);
      flows.push_back(sim_.add_transfer(each / eta_, up, gi, engine::kNoGpu, {&fill, 1}));
      flows.push_back(sim_.add_transfer(each / eta_, down, engine::kNoGpu, gi, {&fill, 1}));
    }
    return sim_.add_barrier(flows);
  }

  // Every rank sends `per_peer` bytes to every other rank, all at once (ncclGroup of sends).
  TaskId all_to_all(TaskId start, double per_peer) {
    const int n = comm_.size();
    std::vector<TaskId> flows;
    for (int a = 0; a < n; ++a) {
      for (int b = 0; b < n; ++b) {
        if (a != b) flows.push_back(send(a, b, per_peer, {&start, 1}));
      }
    }
    return sim_.add_barrier(flows);
  }

  // sendrecv_perf: rank r sends to r+1 and receives from r-1, all at once.
  TaskId shift(TaskId start, double bytes) {
    const int n = comm_.size();
    std::vector<TaskId> flows;
    for (int r = 0; r < n; ++r)
      flows.push_back(send(r, (r + 1) % n, bytes, {&start, 1}));
    return sim_.add_barrier(flows);
  }

  const Communicator& comm_;
  const Request& request_;
  const Choice& choice_;
  engine::Simulation& sim_;
  double eta_ = 1;
  double hop_s_ = 0;
  double latency_scale_ = 1;
  std::vector<std::optional<engine::ChannelId>> rank_cap_;
  std::map<std::pair<int, int>, std::vector<PathShare>> cache_;
};

}  // namespace

int channels_for(const Communicator& comm, Algorithm a, Protocol p, double bytes) {
  if (a == Algorithm::pairwise) return kP2pChannels;
  if (a == Algorithm::nvls) return 16;  // nvls.cc: 16 NVLS channels on SM90
  int nc = comm.max_channels();
  const double per_channel = threads_per_channel(a, p) * channel_threshold_bytes(a, p, comm.size());
  while (nc > 1 && bytes < nc * per_channel)
    --nc;
  return nc;
}

std::vector<Choice> candidate_choices(const Communicator& comm, const Request& request,
                                      std::string* why_empty) {
  std::vector<Algorithm> algorithms;
  switch (request.op) {
    case Op::all_reduce:
      algorithms = {Algorithm::ring, Algorithm::tree};
      if (comm.nvls_capable()) algorithms.push_back(Algorithm::nvls);
      break;
    case Op::all_gather:
    case Op::reduce_scatter:
    case Op::broadcast:
    case Op::reduce:
      algorithms = {Algorithm::ring};
      break;
    case Op::alltoall:
    case Op::sendrecv:
      algorithms = {Algorithm::pairwise};
      break;
  }
  std::vector<Protocol> protocols{Protocol::ll};
  if (comm.ll128_enabled()) protocols.push_back(Protocol::ll128);
  protocols.push_back(Protocol::simple);

  std::vector<Choice> out;
  for (Algorithm a : algorithms) {
    if (request.algorithm && *request.algorithm != a) continue;
    for (Protocol p : protocols) {
      if (request.protocol && *request.protocol != p) continue;
      if (a == Algorithm::nvls && p != Protocol::simple) continue;  // NVLS is Simple only
      if (a == Algorithm::pairwise && !request.protocol) {
        // p2p picks its protocol by size, not by cost: LL up to 16 KiB per channel.
        const double per_peer =
            request.op == Op::alltoall ? request.size_bytes / comm.size() : request.size_bytes;
        const Protocol auto_p =
            per_peer <= kP2pChannels * kP2pLlThreshold_bytes ? Protocol::ll : Protocol::simple;
        if (p != auto_p) continue;
      }
      out.push_back({a, p, channels_for(comm, a, p, request.size_bytes)});
    }
  }
  if (out.empty() && why_empty) {
    *why_empty = fmt::format(
        "no way to run {} with algorithm {} and protocol {} on this machine (NVLS needs an "
        "NVSwitch with NVLink 4 or later; LL128 needs NVLink between every pair; {} runs as {})",
        to_string(request.op), request.algorithm ? to_string(*request.algorithm) : "any",
        request.protocol ? to_string(*request.protocol) : "any", to_string(request.op),
        algorithms.empty() ? "nothing" : to_string(algorithms.front()));
  }
  return out;
}

engine::TaskId lower_collective(const Communicator& comm, const Request& request,
                                const Choice& choice, engine::Simulation& sim,
                                std::span<const engine::TaskId> deps) {
  Lowerer lowerer(comm, request, choice, sim);
  return lowerer.lower(deps);
}

Outcome simulate_choice(const Communicator& comm, const Request& request, const Choice& choice) {
  engine::Simulation sim(comm.capacities_Bps(), comm.topology().count(topo::NodeKind::gpu));
  lower_collective(comm, request, choice, sim, {});
  engine::RunOptions options;
  options.record_intervals = false;
  const engine::Timeline t = sim.run(options);
  Outcome o;
  o.choice = choice;
  o.time_s = t.makespan_s;
  o.algbw_Bps = o.time_s > 0 ? request.size_bytes / o.time_s : 0;
  o.busbw_Bps = o.algbw_Bps * busbw_factor(request.op, comm.size());
  double longest = 0;
  const std::size_t topo_channels = comm.topology().channel_count();
  for (std::size_t c = 0; c < topo_channels && c < t.channels.size(); ++c) {
    if (t.channels[c].saturated_s > longest) {
      longest = t.channels[c].saturated_s;
      o.bottleneck = static_cast<topo::ChannelId>(c);
    }
  }
  return o;
}

Outcome simulate_collective(const Communicator& comm, const Request& request) {
  std::string why;
  const auto choices = candidate_choices(comm, request, &why);
  if (choices.empty()) throw std::invalid_argument(why);
  std::optional<Outcome> best;
  for (const auto& c : choices) {
    Outcome o = simulate_choice(comm, request, c);
    if (!best || o.time_s < best->time_s) best = o;
  }
  return *best;
}

}  // namespace linksim::coll
