#include "sim/coll/lowering.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "sim/coll/algorithm.hpp"
#include "sim/coll/route_paths.hpp"

namespace linksim::coll {

Lowering::Lowering(const Communicator& comm, const Request& request, const Choice& choice,
                   const CollectiveAlgorithm& algorithm, engine::Simulation& sim, bool alone,
                   Granularity granularity)
    : Lowering(comm, request, choice, algorithm, sim, alone, granularity,
               alone ? &comm.plane_copies() : nullptr) {}

Lowering::Lowering(const Lowering& whole, engine::Simulation& part)
    : Lowering(whole.comm_, whole.request_, whole.choice_, whole.algorithm_, part, false,
               whole.granularity_, whole.planes_) {}

Lowering::Lowering(const Communicator& comm, const Request& request, const Choice& choice,
                   const CollectiveAlgorithm& algorithm, engine::Simulation& sim,
                   Granularity granularity, const PlaneCopies& job_planes)
    : Lowering(comm, request, choice, algorithm, sim, false, granularity, &job_planes) {}

Lowering::Lowering(const Communicator& comm, const Request& request, const Choice& choice,
                   const CollectiveAlgorithm& algorithm, engine::Simulation& sim, bool alone,
                   Granularity granularity, const PlaneCopies* leave_out)
    : comm_(comm),
      request_(request),
      choice_(choice),
      algorithm_(algorithm),
      sim_(sim),
      alone_(alone),
      granularity_(granularity) {
  const topo::CollectiveScales fitted = comm.scales(request.op);
  const double fitted_share = fitted.bandwidth *
                              (choice.protocol == Protocol::ll      ? fitted.ll
                               : choice.protocol == Protocol::ll128 ? fitted.ll128
                                                                    : 1.0) *
                              algorithm.bandwidth_efficiency(comm);
  eta_ = coll::wire_efficiency(choice.protocol) * fitted_share;
  net_eta_ = coll::network_payload_share(choice.protocol) * fitted_share;
  hop_s_ = algorithm.hop_latency_s(choice.protocol, comm.intra_class()) * fitted.latency;
  if (comm.node_count() > 1) {
    const double overhead =
        net_overhead_s(comm.amd_cpu()) * (choice.protocol == Protocol::simple ? 3 : 1);
    hop_s_ = std::max(hop_s_, overhead * fitted.latency);
    net_hop_s_ = algorithm.hop_latency_s(choice.protocol, HwClass::net) * fitted.latency;
  }
  base_s_ = algorithm.base_latency_s(choice.protocol) * fitted.latency;
  if (leave_out && leave_out->copies > 1 && algorithm.moves_only_over_rank_routes()) {
    planes_ = leave_out;
  }
  const double cap = algorithm.rank_cap_Bps(comm, choice.protocol, choice.channels);
  rank_cap_Bps_ = cap;
  rank_cap_.assign(static_cast<std::size_t>(comm.size()), std::nullopt);
  if (cap > 0) {
    // Caps are on payload; the transfers carry wire bytes (payload / eta). A cap is shared by
    // a rank's flows on every plane, so with planes left out it keeps their share.
    for (auto& c : rank_cap_)
      c = sim.add_channel(cap / eta_ / plane_copies());
  }
}

std::span<const engine::PathShare> Lowering::paths(int from, int to) {
  auto key = std::make_pair(from, to);
  auto it = cache_.find(key);
  if (it != cache_.end()) return it->second;
  auto out = add_route_paths(sim_, comm_.route(from, to),
                             comm_.crosses_nodes(from, to) ? net_hop_s_ : hop_s_,
                             rank_cap_[static_cast<std::size_t>(from)], keep_path());
  return cache_.emplace(key, std::move(out)).first->second;
}

std::span<const engine::PathShare> Lowering::bare_paths(int from, int to) {
  auto key = std::make_pair(from, to);
  auto it = bare_cache_.find(key);
  if (it != bare_cache_.end()) return it->second;
  auto out = add_route_paths(sim_, comm_.route(from, to), 0.0,
                             rank_cap_[static_cast<std::size_t>(from)], keep_path());
  return bare_cache_.emplace(key, std::move(out)).first->second;
}

std::string Lowering::replay_key() const {
  // Hexadecimal floats: exact, so equal keys mean equal inputs.
  return fmt::format("{}|{}|{}|{:a}|{:a}|{:a}|{:a}|{:a}|{:a}|{}", algorithm_.name(),
                     static_cast<int>(choice_.protocol), choice_.channels, eta_, net_eta_, hop_s_,
                     net_hop_s_, base_s_, rank_cap_Bps_, planes_ ? planes_->copies : 1);
}

void Lowering::add_saturation_apart(const std::vector<std::pair<std::size_t, double>>& saturated_s,
                                    double scale) {
  const std::size_t n = comm_.topology().channel_count();
  for (const auto& [c, s] : saturated_s) {
    if (c >= n) continue;
    if (saturated_apart_s_.size() <= c) saturated_apart_s_.resize(n, 0.0);
    saturated_apart_s_[c] += s * scale;
  }
}

double Lowering::hop_s_between(int from, int to) const {
  return comm_.crosses_nodes(from, to) ? net_hop_s_ : hop_s_;
}

HwClass Lowering::link_class(int from, int to) const {
  return comm_.crosses_nodes(from, to) ? HwClass::net : comm_.intra_class();
}

engine::TaskId Lowering::send_slice(int from, int to, double payload_bytes,
                                    std::span<const engine::TaskId> deps) {
  const double eta = comm_.crosses_nodes(from, to) ? net_eta_ : eta_;
  return sim_.add_transfer(payload_bytes / eta, bare_paths(from, to), comm_.gpu_index(from),
                           comm_.gpu_index(to), deps);
}

engine::TaskId Lowering::send_streaming(int from, int to, double payload_bytes,
                                        std::span<const engine::TaskId> deps) {
  auto key = std::make_pair(from, to);
  auto it = streaming_cache_.find(key);
  if (it == streaming_cache_.end()) {
    std::vector<engine::PathShare> out;
    const auto cap = rank_cap_[static_cast<std::size_t>(from)];
    const std::vector<bool>* keep = keep_path();
    const auto& route_paths = comm_.route(from, to).paths;
    for (std::size_t k = 0; k < route_paths.size(); ++k) {
      const topo::Path& p = route_paths[k];
      if (p.share <= 0 || (keep && !(*keep)[k])) continue;
      std::vector<engine::ChannelId> channels(p.channels.begin(), p.channels.end());
      if (cap) channels.push_back(*cap);
      out.push_back({sim_.add_path(channels, 0.0), p.share});
    }
    it = streaming_cache_.emplace(key, std::move(out)).first;
  }
  const double eta = comm_.crosses_nodes(from, to) ? net_eta_ : eta_;
  return sim_.add_transfer(payload_bytes / eta, it->second, comm_.gpu_index(from),
                           comm_.gpu_index(to), deps);
}

double Lowering::route_latency_s(int from, int to) const {
  return comm_.route(from, to).latency_s();
}

engine::TaskId Lowering::send(int from, int to, double payload_bytes,
                              std::span<const engine::TaskId> deps) {
  const double eta = comm_.crosses_nodes(from, to) ? net_eta_ : eta_;
  return sim_.add_transfer(payload_bytes / eta, paths(from, to), comm_.gpu_index(from),
                           comm_.gpu_index(to), deps);
}

}  // namespace linksim::coll
