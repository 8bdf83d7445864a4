#include "sim/coll/communicator.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "sim/coll/algorithm_registry.hpp"
#include "sim/topo/link_payload.hpp"

namespace linksim::coll {
namespace {

constexpr std::size_t kMaxRings = 4;
// Exhaustive ring search up to this many ranks ((n-1)! orders); past it, rank order.
constexpr int kExhaustiveRingRanks = 8;
// NCCL's per-channel search speed on NVLink before SM90 (search.cc), used to size channels.
constexpr double kSearchChannel_Bps = 20e9;

}  // namespace

Communicator::Communicator(const topo::Topology& topo, std::vector<topo::NodeId> ranks,
                           topo::RouteOptions options)
    : topo_(&topo), router_(topo), ranks_(std::move(ranks)) {
  capacity_Bps_ = topo::payload_capacities_Bps(topo);
  const std::size_t n = ranks_.size();
  routes_.assign(n, std::vector<topo::Route>(n));
  bool all_nvlink = n > 1;
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      auto r = router_.route(ranks_[i], ranks_[j], options);
      if (!r) {
        throw std::invalid_argument("no route between " + topo.node(ranks_[i]).id + " and " +
                                    topo.node(ranks_[j]).id);
      }
      routes_[i][j] = std::move(*r);
      if (i != j && routes_[i][j].transport != topo::Transport::nvlink) all_nvlink = false;
    }
  }
  // NCCL uses its NVLink latency row only when every path is direct NVLink (NVL); NVB and
  // anything slower take the PCI row.
  intra_class_ = all_nvlink ? HwClass::nvlink : HwClass::pci;
  const auto& first = *topo.node(ranks_.front()).gpu;
  generation_ = generation_of(first.architecture);
  choose_rings();
  const double search_channels =
      std::max(1.0, std::ceil(ring_bus_Bps_ / kSearchChannel_Bps - 1e-9));
  max_channels_ = static_cast<int>(std::min(32.0, 2 * search_channels));
}

bool Communicator::nvls_capable() const {
  return !AlgorithmRegistry::builtin().get(Algorithm::nvls).why_ineligible(*this);
}

int Communicator::gpu_index(int rank) const {
  return topo_->node(gpu(rank)).ordinal;
}

const topo::Route& Communicator::route(int from, int to) const {
  return routes_[static_cast<std::size_t>(from)][static_cast<std::size_t>(to)];
}

double Communicator::route_bandwidth_Bps(const topo::Route& r) const {
  double bw = 0;
  bool first = true;
  for (const auto& p : r.paths) {
    double bottleneck = 0;
    bool f = true;
    for (auto c : p.channels) {
      bottleneck = f ? capacity_Bps_[c] : std::min(bottleneck, capacity_Bps_[c]);
      f = false;
    }
    const double implied = bottleneck / p.share;
    bw = first ? implied : std::min(bw, implied);
    first = false;
  }
  return bw;
}

double Communicator::ring_step_time(const std::vector<Ring>& rings) const {
  std::vector<double> load(capacity_Bps_.size(), 0.0);
  const double per_ring = 1.0 / static_cast<double>(rings.size());
  for (const auto& ring : rings) {
    const std::size_t n = ring.order.size();
    for (std::size_t i = 0; i < n; ++i) {
      const auto& r = route(ring.order[i], ring.order[(i + 1) % n]);
      for (const auto& p : r.paths) {
        for (auto c : p.channels)
          load[c] += per_ring * p.share;
      }
    }
  }
  double worst = 0;
  for (std::size_t c = 0; c < load.size(); ++c) {
    if (load[c] > 0) worst = std::max(worst, load[c] / capacity_Bps_[c]);
  }
  return worst;
}

void Communicator::choose_rings() {
  const int n = size();
  Ring identity;
  identity.order.resize(static_cast<std::size_t>(n));
  std::iota(identity.order.begin(), identity.order.end(), 0);
  if (n <= 1) {
    rings_ = {identity};
    ring_bus_Bps_ = 0;
    return;
  }
  std::vector<Ring> candidates;
  if (n <= kExhaustiveRingRanks) {
    // Every ring through rank 0 (rotations are the same ring).
    std::vector<int> rest(identity.order.begin() + 1, identity.order.end());
    do {
      Ring r;
      r.order.push_back(0);
      r.order.insert(r.order.end(), rest.begin(), rest.end());
      candidates.push_back(std::move(r));
    } while (std::next_permutation(rest.begin(), rest.end()));
  } else {
    candidates.push_back(identity);
  }
  // Greedy: add the ring that lowers the step time most, while it helps by more than 1%.
  std::vector<Ring> chosen;
  double best_time = 0;
  while (chosen.size() < kMaxRings) {
    double t_best = 0;
    std::size_t i_best = 0;
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      auto trial = chosen;
      trial.push_back(candidates[i]);
      const double t = ring_step_time(trial);
      if (i == 0 || t < t_best) {
        t_best = t;
        i_best = i;
      }
    }
    if (!chosen.empty() && t_best > best_time * 0.99) break;
    chosen.push_back(candidates[i_best]);
    best_time = t_best;
  }
  rings_ = std::move(chosen);
  ring_bus_Bps_ = 1.0 / best_time;
}

}  // namespace linksim::coll
