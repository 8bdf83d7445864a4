#include "sim/work/placement.hpp"

#include <fmt/format.h>

#include "sim/coll/algorithm.hpp"
#include "sim/coll/algorithm_registry.hpp"
#include "sim/coll/collective_sim.hpp"
#include "sim/coll/communicator_twins.hpp"
#include "sim/coll/point_to_point.hpp"
#include "sim/coll/route_paths.hpp"
#include "sim/core/error.hpp"
#include "sim/topo/link_payload.hpp"
#include "sim/work/job_planes.hpp"

namespace linksim::work {
namespace {

std::vector<double> capacities_for(const topo::Topology& machine, LinkRates rates) {
  if (rates == LinkRates::payload) return topo::payload_capacities_Bps(machine);
  std::vector<double> capacity(machine.channel_count());
  for (topo::ChannelId c = 0; c < capacity.size(); ++c)
    capacity[c] = machine.channel_bandwidth_Bps(c);
  return capacity;
}

std::string optional_index(const std::optional<coll::Algorithm>& a) {
  return a ? std::string(a->name()) : std::string();
}
int optional_index(const std::optional<coll::Protocol>& p) {
  return p ? static_cast<int>(*p) : -1;
}

}  // namespace

Placement::Placement(const topo::Topology& machine, std::vector<topo::NodeId> gpus, Options options)
    : machine_(machine),
      gpus_(std::move(gpus)),
      rates_(options.rates),
      capacities_Bps_(capacities_for(machine, options.rates)),
      sim_(std::make_shared<engine::Simulation>(capacities_Bps_, gpus_.size())),
      router_(machine) {
  const auto n = gpus_.size();
  if (!options.leave_out_planes || machine.is_cluster() || n < 2 ||
      n > static_cast<std::size_t>(coll::Communicator::kMaxPlaneRanks)) {
    return;
  }
  planes_ = communicator(gpus_).plane_copies();
}

int Placement::engine_gpu(topo::NodeId node) const {
  const topo::Node& n = machine_.node(node);
  return n.kind == topo::NodeKind::gpu ? n.ordinal : engine::kNoGpu;
}

Placed Placement::add(const Work& work, std::span<const engine::TaskId> deps) {
  engine::Simulation& sim = *sim_;
  const auto first = static_cast<engine::TaskId>(sim.task_count());
  engine::TaskId end = first;
  switch (work.kind) {
    case WorkKind::compute:
      end = sim.add_compute(gpu_index(work.gpu), work.amount, deps);
      break;
    case WorkKind::delay:
      end = sim.add_delay(work.amount, deps);
      break;
    case WorkKind::barrier:
      end = sim.add_barrier(deps);
      break;
    case WorkKind::send:
      end = rates_ == LinkRates::line ? add_copy(work, deps) : add_send(work, deps);
      break;
    case WorkKind::copy:
      end = add_copy(work, deps);
      break;
    case WorkKind::collective:
      end = add_collective(work, deps);
      break;
  }
  return {first, end};
}

const topo::Route& Placement::route(topo::NodeId src, topo::NodeId dst) {
  auto [it, fresh] = routes_.try_emplace({src, dst});
  if (fresh) it->second = router_.route(src, dst);
  if (!it->second || it->second->paths.empty()) {
    throw PlacementError(
        "dst", fmt::format("no route from {} to {} in topology \"{}\"", machine_.node(src).id,
                           machine_.node(dst).id, machine_.name));
  }
  return *it->second;
}

// Raw bytes over the route (DMA to host memory, a NIC's traffic, a send whose bytes already
// include every overhead at line rates).
engine::TaskId Placement::add_copy(const Work& w, std::span<const engine::TaskId> deps) {
  auto [it, fresh] = copy_paths_.try_emplace({w.src, w.dst});
  if (fresh) {
    const topo::Route& r = route(w.src, w.dst);
    if (planes() && !off_planes(*planes(), r)) {
      copy_paths_.erase(it);
      throw PlanesDoNotHold{};
    }
    it->second = coll::add_route_paths(*sim_, r);
  }
  return sim_->add_transfer(w.amount, it->second, engine_gpu(w.src), engine_gpu(w.dst), deps);
}

engine::TaskId Placement::add_send(const Work& w, std::span<const engine::TaskId> deps) {
  auto [it, fresh] = send_paths_.try_emplace({w.src, w.dst});
  if (fresh) {
    try {
      route(w.src, w.dst);
      const coll::Communicator& pair = communicator({w.src, w.dst});
      it->second = coll::add_send_paths(*sim_, pair, planes() ? &planes()->keep_path : nullptr);
    } catch (...) {
      send_paths_.erase(it);
      throw;
    }
  }
  return sim_->add_transfer(coll::send_wire_bytes(w.amount), it->second, engine_gpu(w.src),
                            engine_gpu(w.dst), deps);
}

coll::Communicator& Placement::communicator(const std::vector<topo::NodeId>& gpus) {
  auto it = comms_.find(gpus);
  if (it != comms_.end()) return *it->second;
  std::unique_ptr<coll::Communicator> c;
  try {
    c = std::make_unique<coll::Communicator>(machine_, gpus);
  } catch (const InputError& e) {
    throw PlacementError("gpus",
                         fmt::format("these GPUs cannot all reach each other: {}", e.message()));
  }
  return *comms_.emplace(gpus, std::move(c)).first->second;
}

bool Placement::twins(const Group& a, const Group& b) {
  const auto key = std::make_pair(a, b);
  auto it = twins_.find(key);
  if (it == twins_.end()) {
    it = twins_.emplace(key, coll::are_twins(communicator(a), communicator(b))).first;
  }
  return it->second;
}

const coll::Choice& Placement::choice(const CollectiveWork& c, double bytes) {
  const int op = static_cast<int>(c.op);
  const std::string algorithm = optional_index(c.algorithm);
  const int protocol = optional_index(c.protocol);
  const CallKey key{c.gpus, op, bytes, algorithm, protocol};
  auto it = choices_.find(key);
  if (it != choices_.end()) return it->second;
  // A twin group that has made this call already (communicator_twins.hpp) ran every candidate
  // as this group would, renamed.
  auto& chosen_on = chosen_on_[std::make_tuple(op, bytes, algorithm, protocol)];
  for (const Group& other : chosen_on) {
    if (twins(other, c.gpus)) {
      const coll::Choice reused = choices_.at(CallKey{other, op, bytes, algorithm, protocol});
      return choices_.emplace(key, reused).first->second;
    }
  }
  coll::Request r;
  r.op = c.op;
  r.size_bytes = bytes;
  r.algorithm = c.algorithm;
  r.protocol = c.protocol;
  const coll::Communicator& comm = communicator(c.gpus);
  try {
    it = choices_.emplace(key, coll::simulate_collective(comm, r).choice).first;
  } catch (const InputError& e) {
    throw PlacementError(
        c.algorithm  ? "algorithm"
        : c.protocol ? "protocol"
                     : "op",
        fmt::format("no way to run {} on these GPUs: {}", coll::to_string(c.op), e.message()));
  }
  chosen_on.push_back(c.gpus);
  return it->second;
}

// Lowered as the planner runs it (coll::lower_collective), recorded once per call.
const RecordedCollective& Placement::recorded(const CollectiveWork& c, double bytes) {
  const CallKey key{c.gpus, static_cast<int>(c.op), bytes, optional_index(c.algorithm),
                    optional_index(c.protocol)};
  auto it = lowered_.find(key);
  if (it == lowered_.end()) {
    const coll::Choice& chosen = choice(c, bytes);
    if (planes() != nullptr &&
        !coll::AlgorithmRegistry::builtin().get(chosen.algorithm).moves_only_over_rank_routes()) {
      throw PlanesDoNotHold{};
    }
    // A twin group that ran this call's choice has worked out what the call costs alone (the
    // slices' overhead over its bulk form, collective_sim.cpp): this group's figures, renamed.
    const auto ran = chosen_on_.find(
        std::make_tuple(std::get<1>(key), bytes, std::get<3>(key), std::get<4>(key)));
    if (ran != chosen_on_.end()) {
      for (const Group& other : ran->second) {
        if (other != c.gpus && twins(other, c.gpus)) {
          communicator(c.gpus).adopt_figures(communicator(other));
          break;
        }
      }
    }
    coll::Request r;
    r.op = c.op;
    r.size_bytes = bytes;
    r.algorithm = c.algorithm;
    r.protocol = c.protocol;
    auto lowered = std::make_unique<RecordedCollective>(communicator(c.gpus), r, chosen,
                                                        capacities_Bps_, planes());
    it = lowered_.emplace(key, std::move(lowered)).first;
  }
  return *it->second;
}

engine::TaskId Placement::add_collective(const Work& w, std::span<const engine::TaskId> deps) {
  return recorded(*w.collective, w.amount).add_to(*sim_, deps);
}

std::vector<double> Placement::concurrent_seconds(const std::vector<CollectiveWork>& concurrent,
                                                  double bytes) {
  engine::Simulation alone(capacities_Bps_, gpus_.size());
  std::vector<engine::TaskId> ends;
  for (const CollectiveWork& c : concurrent)
    ends.push_back(recorded(c, bytes).add_to(alone, {}));
  engine::RunOptions options;
  options.record_intervals = false;
  const engine::Timeline t = alone.run(options);
  std::vector<double> seconds;
  for (engine::TaskId end : ends)
    seconds.push_back(t.task_end_s[end]);
  return seconds;
}

}  // namespace linksim::work
