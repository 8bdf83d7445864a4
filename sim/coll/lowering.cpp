#include "sim/coll/lowering.hpp"

#include "sim/coll/algorithm.hpp"
#include "sim/coll/route_paths.hpp"

namespace linksim::coll {

Lowering::Lowering(const Communicator& comm, const Request& request, const Choice& choice,
                   const CollectiveAlgorithm& algorithm, engine::Simulation& sim)
    : comm_(comm), request_(request), choice_(choice), sim_(sim) {
  const topo::CollectiveScales fitted = comm.scales(to_string(request.op));
  eta_ = coll::wire_efficiency(choice.protocol) * fitted.bandwidth *
         (choice.protocol == Protocol::ll      ? fitted.ll
          : choice.protocol == Protocol::ll128 ? fitted.ll128
                                               : 1.0);
  eta_ *= algorithm.bandwidth_efficiency(comm);
  hop_s_ = algorithm.hop_latency_s(choice.protocol, comm.intra_class()) * fitted.latency;
  base_s_ = algorithm.base_latency_s(choice.protocol) * fitted.latency;
  const double cap = algorithm.rank_cap_Bps(comm, choice.protocol, choice.channels);
  rank_cap_.assign(static_cast<std::size_t>(comm.size()), std::nullopt);
  if (cap > 0) {
    // Caps are on payload; the transfers carry wire bytes (payload / eta).
    for (auto& c : rank_cap_)
      c = sim.add_channel(cap / eta_);
  }
}

std::span<const engine::PathShare> Lowering::paths(int from, int to) {
  auto key = std::make_pair(from, to);
  auto it = cache_.find(key);
  if (it != cache_.end()) return it->second;
  auto out = add_route_paths(sim_, comm_.route(from, to), hop_s_,
                             rank_cap_[static_cast<std::size_t>(from)]);
  return cache_.emplace(key, std::move(out)).first->second;
}

engine::TaskId Lowering::send(int from, int to, double payload_bytes,
                              std::span<const engine::TaskId> deps) {
  return sim_.add_transfer(payload_bytes / eta_, paths(from, to), comm_.gpu_index(from),
                           comm_.gpu_index(to), deps);
}

}  // namespace linksim::coll
