#include "sim/coll/communicator.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>
#include <stdexcept>

#include "sim/coll/algorithm_registry.hpp"
#include "sim/coll/nccl_channel_search.hpp"
#include "sim/coll/nccl_net_device.hpp"
#include "sim/coll/p2p_channels.hpp"
#include "sim/coll/pipeline_constants.hpp"
#include "sim/coll/ring_shape.hpp"
#include "sim/core/error.hpp"
#include "sim/topo/link_payload.hpp"

namespace linksim::coll {
namespace {

constexpr std::size_t kMaxRings = 4;
// Exhaustive ring search up to this many ranks ((n-1)! orders); past it, rank order.
constexpr int kExhaustiveRingRanks = 8;
// NCCL's per-channel search speed on NVLink before SM90 (search.cc), used to size channels.
constexpr double kSearchChannel_Bps = 20e9;

// A cluster's nccl_env variables as NCCL reads them (checked when the file was loaded; a clamp's
// note is the caller's to print, from its own reading).
NcclEnvironment network_variables(const topo::Topology& topo) {
  if (!topo.is_cluster() || topo.cluster->fabric.nccl_env.variables.empty()) return {};
  const auto& variables = topo.cluster->fabric.nccl_env.variables;
  std::vector<std::string> notes;
  return read_nccl_environment(
      [&](std::string_view name) {
        const auto it = variables.find(std::string(name));
        return it == variables.end() ? std::string() : it->second;
      },
      notes);
}

}  // namespace

Communicator::Communicator(const topo::Topology& topo, std::vector<topo::NodeId> ranks,
                           topo::RouteOptions options, std::optional<NcclEnvironment> env)
    : topo_(&topo),
      router_(topo),
      options_(options),
      env_(env ? std::move(*env) : network_variables(topo)),
      ranks_(std::move(ranks)) {
  capacity_Bps_ = topo::payload_capacities_Bps(topo);
  const int n = size();
  std::map<int, int> per_host;
  for (int i = 0; i < n; ++i)
    ++per_host[host(i)];
  node_count_ = static_cast<int>(per_host.size());
  for (const auto& [h, count] : per_host)
    ranks_per_node_ = std::max(ranks_per_node_, count);
  // NCCL's intra-node class: NVLINK only when every pair inside a node is direct NVLink (NVB
  // and anything slower take the PCI row). A cluster's hosts are copies of one machine, so the
  // first host that holds two ranks speaks for all; a machine checks every pair, which also
  // proves every rank reaches every other.
  bool all_nvlink = ranks_per_node_ > 1;
  const int checked_host = topo.is_cluster() ? host(0) : 0;
  for (int i = 0; i < n; ++i) {
    if (topo.is_cluster() && host(i) != checked_host) continue;
    for (int j = 0; j < n; ++j) {
      if (i == j || host(i) != host(j)) continue;
      if (route(i, j).transport != topo::Transport::nvlink) all_nvlink = false;
    }
  }
  intra_class_ = all_nvlink ? HwClass::nvlink : HwClass::pci;
  const auto& first = *topo.node(ranks_.front()).gpu;
  generation_ = generation_of(first.architecture);
  if (auto cpu = router_.host_socket(ranks_.front())) {
    amd_cpu_ = topo.node(*cpu).cpu->vendor == "amd";
  }
  compute_capability_ = topo::nccl_compute_capability(first);
  if (node_count_ > 1) {
    choose_node_rings();
    for (const Ring& ring : rings_) {
      const topo::NodeId entry = gpu(ring.order.front());
      const auto nics = router_.nearest_nics(entry);
      if (nics.empty()) continue;
      inter_distance_ = std::max(inter_distance_, topo::net_distance(router_, entry, nics.front()));
    }
  } else {
    choose_rings();
  }
  ring_nics_GBps_ = find_ring_nic_GBps();
  if (!ring_nics_GBps_.empty()) {
    // Across nodes NCCL searches the network's speeds; every channel crosses each GPU of a
    // node once over its NVLinks (none with one rank a node, or without NVLink inside).
    const bool bounded = ranks_per_node_ > 1 && intra_class_ == HwClass::nvlink;
    const NcclNetDevice device =
        topo.is_cluster() ? nccl_net_device(topo.cluster->fabric.kind) : NcclNetDevice::host;
    inter_search_ = nccl_inter_ring_search(ring_nics_GBps_, compute_capability_,
                                           bounded ? gpu_nvlink_GBps() : 0.0, device);
    max_channels_ = inter_search_.run_channels;
  } else if (node_count_ > 1 || n < 2) {
    // No NIC the search can see (a cluster of one GPU per host over its host's network): one
    // channel per 20 GB/s of the rings' bandwidth, twice over.
    const double search_channels =
        std::max(1.0, std::ceil(ring_bus_Bps_ / kSearchChannel_Bps - 1e-9));
    max_channels_ = static_cast<int>(std::min(32.0, 2 * search_channels));
  } else {
    search_ = nccl_ring_search(ring_nccl_GBps(), compute_capability_);
    max_channels_ = search_.run_channels;
  }
}

double Communicator::ring_nccl_GBps() const {
  // The rings' bottleneck channel, as ring_step_time finds it, in NCCL's figure for its link.
  const std::vector<double> load = ring_loads(rings_);
  const auto [channel, worst] = ring_bottleneck(load);
  if (worst <= 0) return 0;
  const auto& link = topo_->link(topo::Topology::link_of(static_cast<topo::ChannelId>(channel)));
  double nccl_GBps = capacity_Bps_[channel] / 1e9;  // other links: their payload rate
  if (link.kind == topo::LinkKind::nvlink) {
    nccl_GBps = link.lanes * nccl_nvlink_GBps(compute_capability_);
  } else if (link.kind == topo::LinkKind::pcie && link.width > 0 && link.generation > 0) {
    nccl_GBps = nccl_pcie_GBps(link.generation, link.width);
  }
  return nccl_GBps / load[channel];
}

double Communicator::gpu_nvlink_GBps() const {
  // The GPU's links in id order (each leaves it by one channel), summed as a scan of every
  // link would sum them, without scanning a cluster's every link per communicator.
  double total = 0;
  for (const topo::ChannelId c : topo_->out_channels(gpu(0))) {
    const auto& l = topo_->link(topo::Topology::link_of(c));
    if (l.kind == topo::LinkKind::nvlink) total += l.lanes * nccl_nvlink_GBps(compute_capability_);
  }
  return total;
}

std::vector<double> Communicator::find_ring_nic_GBps() const {
  if (node_count_ < 2) return {};
  std::set<topo::NodeId> nics;
  for (const Ring& ring : rings_) {
    const auto nearest = router_.nearest_nics(gpu(ring.order.front()));
    if (!nearest.empty()) nics.insert(nearest.front());
  }
  std::vector<double> out;
  for (topo::NodeId nic : nics) {
    const double bw = topo_->node(nic).nic->port_bandwidth_Bps / 1e9;
    if (bw > 0) out.push_back(bw);
  }
  return out;
}

bool Communicator::ll128_enabled() const {
  if (intra_class_ != HwClass::nvlink || compute_capability_ < 70) return false;
  if (node_count_ == 1) return true;
  // NetDistance runs PIX, PXB, P2C, PHB, SYS; NCCL's PXN sits between P2C and PHB.
  return compute_capability_ >= 90 ? inter_distance_ <= topo::NetDistance::p2c
                                   : inter_distance_ <= topo::NetDistance::pxb;
}

bool Communicator::nvls_capable() const {
  return !AlgorithmRegistry::builtin().get(Algorithm::nvls).why_ineligible(*this);
}

const topo::NcclEnvDefaults* Communicator::network_env() const {
  return topo_->is_cluster() ? &topo_->cluster->fabric.nccl_env : nullptr;
}

double Communicator::plugin_latency_us() const {
  if (!topo_->is_cluster() || node_count() < 2) return 0;
  const auto& fabric = topo_->cluster->fabric;
  return fabric.plugin_latency_s.value_or(topo::fabric_figures(fabric.kind).plugin_latency_s) /
         1e-6;
}

bool Communicator::network_env_allows(Protocol p) const {
  const auto* env = network_env();
  if (!env || !env->protocols) return true;
  return (*env->protocols)[static_cast<std::size_t>(p)];  // [LL, LL128, Simple]
}

double Communicator::simple_step_bytes() const {
  if (env_.buffsize_bytes) return *env_.buffsize_bytes / kNcclSteps;
  const auto* env = network_env();
  if (env && env->buffsize_bytes) return *env->buffsize_bytes / kNcclSteps;
  return kDefaultSimpleStepBytes;
}

double Communicator::p2p_net_chunk_bytes() const {
  const auto* env = network_env();
  const double chunk =
      env && env->p2p_net_chunk_bytes ? *env->p2p_net_chunk_bytes : kP2pNetChunk_bytes;
  return std::min(chunk, simple_step_bytes());
}

double Communicator::nvls_max_chunk_bytes() const {
  const auto* env = network_env();
  const double chunk = env && env->nvls_chunk_bytes ? *env->nvls_chunk_bytes : kNvlsChunk_bytes;
  return std::min(chunk, simple_step_bytes());
}

int Communicator::threads_per_channel(Protocol p, int fallback) const {
  if (env_.nthreads && (p == Protocol::ll || p == Protocol::simple)) return *env_.nthreads;
  return fallback;
}

NcclPath Communicator::pair_path(topo::NodeId a, topo::NodeId b, const topo::Route& r) const {
  if (r.transport == topo::Transport::nvlink) return NcclPath::nvl;
  if (r.transport == topo::Transport::nvlink_relay) return NcclPath::nvb;
  switch (router_.path_class(a, b)) {
    case topo::PathClass::self:
      return NcclPath::loc;
    case topo::PathClass::nvlink:
      return NcclPath::nvl;
    case topo::PathClass::pix:
      return NcclPath::pix;
    case topo::PathClass::pxb:
      return NcclPath::pxb;
    case topo::PathClass::phb:
    case topo::PathClass::node:
      return NcclPath::phb;
    case topo::PathClass::sys:
      return NcclPath::sys;
  }
  return NcclPath::sys;
}

bool Communicator::in_network_reduction() const {
  return topo_->is_cluster() &&
         topo_->cluster->fabric.in_network_reduction == topo::InNetworkReduction::sharp;
}

int Communicator::gpu_index(int rank) const {
  return topo_->node(gpu(rank)).ordinal;
}

const topo::Route& Communicator::route(int from, int to) const {
  const std::lock_guard<std::mutex> lock(routes_mutex_);
  const auto key = std::make_pair(from, to);
  auto it = routes_.find(key);
  if (it != routes_.end()) return it->second;
  auto r = router_.route(gpu(from), gpu(to), options_);
  if (r && !crosses_nodes(from, to) && from != to) {
    // paths.cc ncclTopoCheckP2p: P2P only where the pair's path type is at most the level
    // (CUDA's own refusal, p2p_possible, already stands in the router's route); otherwise NCCL
    // tries SHM (shm.cc), which stages through host memory as the router's P2P-less route does.
    if (env_.p2p_level && pair_path(gpu(from), gpu(to), *r) > *env_.p2p_level) {
      topo::RouteOptions staged = options_;
      staged.allow_p2p = false;
      r = router_.route(gpu(from), gpu(to), staged);
    }
    if (r && env_.shm_disable && r->transport == topo::Transport::host_bounce) {
      // transport.cc selectTransport: P2P, SHM, NET in turn; with SHM off NCCL connects the
      // pair through its network plugin (net.cc canConnect, NCCL_NET_DISABLE_INTRA=0).
      throw InputError(
          "", "NCCL_SHM_DISABLE",
          fmt::format("{} and {} need SHM (no P2P between them{}); with SHM disabled NCCL "
                      "connects them through the NET transport, which linksim does not model "
                      "inside one host",
                      topo_->node(gpu(from)).id, topo_->node(gpu(to)).id,
                      env_.p2p_level
                          ? fmt::format(" at NCCL_P2P_LEVEL {}", to_string(*env_.p2p_level))
                          : std::string()));
    }
  }
  if (!r) {
    throw InputError(
        topo_->file, "",
        "no route between " + topo_->node(gpu(from)).id + " and " + topo_->node(gpu(to)).id);
  }
  return routes_.emplace(key, std::move(*r)).first->second;
}

std::vector<double> Communicator::ring_loads(const std::vector<Ring>& rings) const {
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
  return load;
}

std::pair<std::size_t, double> Communicator::ring_bottleneck(
    const std::vector<double>& load) const {
  std::size_t channel = 0;
  double worst = 0;
  for (std::size_t c = 0; c < load.size(); ++c) {
    if (load[c] > 0 && load[c] / capacity_Bps_[c] > worst) {
      worst = load[c] / capacity_Bps_[c];
      channel = c;
    }
  }
  return {channel, worst};
}

double Communicator::ring_step_time(const std::vector<Ring>& rings) const {
  return ring_bottleneck(ring_loads(rings)).second;
}

void Communicator::choose_rings() {
  const int n = size();
  if (n <= 1) {
    Ring identity;
    identity.order.assign(static_cast<std::size_t>(n), 0);
    rings_ = {identity};
    ring_bus_Bps_ = 0;
    return;
  }
  // Past the exhaustive bound the search tries rank order alone: nothing to share.
  const RingChoice choice =
      n <= kExhaustiveRingRanks
          ? shared_ring_choice(
                ring_shape(
                    n, [&](int i, int j) -> const topo::Route& { return route(i, j); },
                    capacity_Bps_),
                [&] { return search_rings(); })
          : search_rings();
  rings_.clear();
  for (const auto& order : choice.orders)
    rings_.push_back(Ring{order});
  ring_bus_Bps_ = 1.0 / choice.step_time;
}

RingChoice Communicator::search_rings() const {
  const int n = size();
  Ring identity;
  identity.order.resize(static_cast<std::size_t>(n));
  std::iota(identity.order.begin(), identity.order.end(), 0);
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
  // Each trial is ring_step_time(chosen + candidate), worked out with the same additions in the
  // same order (so bit for bit the same): the chosen rings' load is summed once per round, and
  // a candidate only adds its own edges; a channel's load only grows, so the worst channel is
  // the worst of the chosen rings' or of the channels the candidate touches.
  std::vector<const topo::Route*> pair_route(static_cast<std::size_t>(n) * n, nullptr);
  const auto edge_route = [&](int from, int to) -> const topo::Route& {
    const topo::Route*& r = pair_route[static_cast<std::size_t>(from) * n + to];
    if (!r) r = &route(from, to);
    return *r;
  };
  const auto add_ring = [&](std::vector<double>& load, const Ring& ring, double per_ring,
                            std::vector<topo::ChannelId>* touched) {
    const std::size_t m = ring.order.size();
    for (std::size_t i = 0; i < m; ++i) {
      for (const auto& p : edge_route(ring.order[i], ring.order[(i + 1) % m]).paths) {
        for (auto c : p.channels) {
          load[c] += per_ring * p.share;
          if (touched) touched->push_back(c);
        }
      }
    }
  };
  std::vector<Ring> chosen;
  double best_time = 0;
  std::vector<double> base(capacity_Bps_.size());
  std::vector<double> load(capacity_Bps_.size());
  std::vector<topo::ChannelId> touched;
  while (chosen.size() < kMaxRings) {
    const double per_ring = 1.0 / static_cast<double>(chosen.size() + 1);
    std::fill(base.begin(), base.end(), 0.0);
    for (const Ring& r : chosen)
      add_ring(base, r, per_ring, nullptr);
    double base_worst = 0;
    for (std::size_t c = 0; c < base.size(); ++c) {
      if (base[c] > 0) base_worst = std::max(base_worst, base[c] / capacity_Bps_[c]);
    }
    double t_best = 0;
    std::size_t i_best = 0;
    load = base;
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      touched.clear();
      add_ring(load, candidates[i], per_ring, &touched);
      double t = base_worst;
      for (auto c : touched) {
        if (load[c] > 0) t = std::max(t, load[c] / capacity_Bps_[c]);
      }
      for (auto c : touched)
        load[c] = base[c];  // back to the chosen rings' load for the next candidate
      if (i == 0 || t < t_best) {
        t_best = t;
        i_best = i;
      }
    }
    if (!chosen.empty() && t_best > best_time * 0.99) break;
    chosen.push_back(candidates[i_best]);
    best_time = t_best;
  }
  RingChoice choice;
  for (const Ring& r : chosen)
    choice.orders.push_back(r.order);
  choice.step_time = best_time;
  return choice;
}

void Communicator::choose_node_rings() {
  // NCCL's rings on several nodes (graph/search.cc, connect.cc): each channel's ring runs
  // through every GPU of a node, entering by one GPU's NIC and leaving by the same rail (PXN
  // forwards over NVLink to that NIC where the last GPU has another), then on to the next node.
  // Here: one ring per GPU of the first node that has a NIC of its own, each entering every node
  // at that GPU's counterpart, the node's GPUs in rank order from there.
  std::map<int, std::vector<int>> by_host;
  for (int i = 0; i < size(); ++i)
    by_host[host(i)].push_back(i);
  const std::vector<int>& first = by_host.begin()->second;
  std::vector<std::size_t> entries;
  for (std::size_t k = 0; k < first.size(); ++k) {
    if (!router_.nearest_nics(gpu(first[k])).empty()) entries.push_back(k);
  }
  if (entries.empty()) entries.push_back(0);
  rings_.clear();
  for (std::size_t entry : entries) {
    Ring ring;
    for (const auto& [h, members] : by_host) {
      const std::size_t m = members.size();
      for (std::size_t k = 0; k < m; ++k)
        ring.order.push_back(members[(entry + k) % m]);
    }
    rings_.push_back(std::move(ring));
  }
  ring_bus_Bps_ = 1.0 / ring_step_time(rings_);
}

const PlaneCopies& Communicator::plane_copies() const {
  std::call_once(planes_once_, [this] {
    const int n = size();
    if (node_count_ != 1 || n < 2 || n > kMaxPlaneRanks) return;
    std::vector<const topo::Route*> all;
    all.reserve(static_cast<std::size_t>(n) * static_cast<std::size_t>(n - 1));
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        if (i != j) all.push_back(&route(i, j));
    planes_ = find_plane_copies(all, capacity_Bps_);
  });
  return planes_;
}

void Communicator::adopt_figures(const Communicator& twin) const {
  if (&twin == this) return;
  std::map<std::string, double> theirs;
  {
    const std::lock_guard<std::mutex> lock(twin.memo_mutex_);
    theirs = twin.memo_;
  }
  const std::lock_guard<std::mutex> lock(memo_mutex_);
  memo_.insert(theirs.begin(), theirs.end());  // keeps any figure already here
}

double Communicator::memo(const std::string& key, const std::function<double()>& compute) const {
  {
    const std::lock_guard<std::mutex> lock(memo_mutex_);
    auto it = memo_.find(key);
    if (it != memo_.end()) return it->second;
  }
  const double value = compute();  // outside the lock: it may simulate for a while
  const std::lock_guard<std::mutex> lock(memo_mutex_);
  return memo_.emplace(key, value).first->second;
}

}  // namespace linksim::coll
