#pragma once
// What an algorithm's lowering works with (algorithm.hpp, lower): the call, the communicator,
// the engine, and the costs every transfer of the chosen algorithm and protocol pays:
// - the hop latency of one step (the algorithm's, for the protocol and the links' class);
// - the wire efficiency: payload per wire byte (protocol, algorithm, fitted scales);
// - a per-rank throughput cap, as a private channel per sending rank, where the choice has one.
// Every factor is scaled by the machine's fitted corrections for the operation (topology
// "collective_calibration"), 1 when uncalibrated.

#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "sim/coll/communicator.hpp"
#include "sim/coll/request.hpp"
#include "sim/coll/route_planes.hpp"
#include "sim/engine/simulation.hpp"

namespace linksim::coll {

class CollectiveAlgorithm;

// How finely a lowering moves data: NCCL's slices (slice_pipeline.hpp), or bulk flows, the
// coarse form a job uses (collective_sim.hpp, lower_collective): one set per algorithm step,
// except where every step of a rank goes to the same peer (a ring's, a chain's), which streams
// them all as one flow after the steps' latencies.
// `every_slice` is `slices` with every loop simulated, neither replayed nor merged: the
// reference that tests hold the replay to.
enum class Granularity { slices, steps, every_slice };

// A lone collective's time taken from the trend of its partial runs rather than simulated to
// the end: `simulated_loops` of its `loops` were simulated (the longest partial run).
struct TrendEstimate {
  int simulated_loops = 0;
  int loops = 0;
};

class Lowering {
 public:
  // Adds the per-rank cap channels (if any) to `sim`. All references must outlive this.
  // `alone`: nothing else runs in `sim` (a sweep's one collective), so a plug-in may simulate a
  // repeating part once and stand the repeats in by its time (ring.cpp on thousands of ranks).
  // A lone collective of a plug-in that moves only over rank routes, on ranks whose routes
  // cross identical planes, simulates one plane of each set of copies (route_planes.hpp).
  Lowering(const Communicator& comm, const Request& request, const Choice& choice,
           const CollectiveAlgorithm& algorithm, engine::Simulation& sim, bool alone = false,
           Granularity granularity = Granularity::slices);
  // The same collective, in the same form, lowered in part into `part`, a simulation that holds
  // nothing else (a replay's partial run): not `alone` (it replays nothing itself), and it
  // leaves out the planes `whole` leaves out.
  Lowering(const Lowering& whole, engine::Simulation& part);
  // A collective beside other traffic that leaves out the planes `job_planes` leaves out: a job
  // all of whose transfers cross those planes alike (sim/work/job_planes.hpp). REQUIRES: the
  // algorithm moves only over rank routes, and `job_planes` was found over routes that include
  // every route between this communicator's ranks. Outlives this.
  Lowering(const Communicator& comm, const Request& request, const Choice& choice,
           const CollectiveAlgorithm& algorithm, engine::Simulation& sim, Granularity granularity,
           const PlaneCopies& job_planes);

  const Communicator& comm() const { return comm_; }
  const Request& request() const { return request_; }
  const Choice& choice() const { return choice_; }
  const CollectiveAlgorithm& algorithm() const { return algorithm_; }
  bool alone() const { return alone_; }
  Granularity granularity() const { return granularity_; }
  bool by_slices() const { return granularity_ != Granularity::steps; }
  engine::Simulation& sim() { return sim_; }

  // The operation's base latency, seconds (scaled).
  double base_latency_s() const { return base_s_; }
  // One algorithm step's latency between two GPUs of one node, seconds (scaled), on top of the
  // links' own; on several nodes at least NCCL's net post overhead (x3 for Simple).
  double hop_s() const { return hop_s_; }
  // The same between GPUs of two nodes: NCCL's NET row for the algorithm and protocol.
  double net_hop_s() const { return net_hop_s_; }
  // Payload bytes per wire byte: a transfer of P payload bytes moves P / wire_efficiency();
  // between nodes P / network_wire_efficiency() (protocol.hpp, network_payload_share).
  double wire_efficiency() const { return eta_; }
  double network_wire_efficiency() const { return net_eta_; }

  // Rank `from` sends `payload_bytes` to rank `to` over their route, after `deps`: the route's
  // paths with the hop latency, through `from`'s cap channel when there is one.
  engine::TaskId send(int from, int to, double payload_bytes, std::span<const engine::TaskId> deps);

  // For slice pipelines (slice_pipeline.hpp), which pay the step latency after the slice moved
  // rather than before: the same transfer over paths without the hop latency.
  engine::TaskId send_slice(int from, int to, double payload_bytes,
                            std::span<const engine::TaskId> deps);
  // For pipelines whose link latency overlaps the next slice (p2p through a network proxy,
  // which keeps several chunks on the wire): the transfer streams over paths without any
  // latency, and the caller pays route_latency_s after it.
  engine::TaskId send_streaming(int from, int to, double payload_bytes,
                                std::span<const engine::TaskId> deps);
  // The route's own latency between two ranks (its slowest path's links), seconds.
  double route_latency_s(int from, int to) const;
  // A plug-in that simulated part of the collective apart (a replay, a collapse) and stands it
  // in by a delay reports the time each channel was saturated there, so the bottleneck report
  // still sees those links (by topology channel id; accumulated).
  // `saturated_s`: (engine channel id, time at capacity) pairs; ids past the topology's
  // channels (the partial run's own cap channels) are skipped.
  void add_saturation_apart(const std::vector<std::pair<std::size_t, double>>& saturated_s,
                            double scale);
  const std::vector<double>& saturated_apart_s() const { return saturated_apart_s_; }
  // A lone pipeline whose loops never settle into a repeating period, so that its time was
  // extrapolated from the trend of partial runs (slice_pipeline.hpp) says so here.
  void note_trend(TrendEstimate estimate) { trend_ = estimate; }
  const std::optional<TrendEstimate>& trend() const { return trend_; }

  // Every cost this lowering adds to a transfer, as text: the algorithm, protocol and channels,
  // the wire efficiencies, step latencies, per-rank cap and the planes left out. Two lowerings
  // of one communicator with the same key move the same slices alike (partial_run_memo.hpp).
  std::string replay_key() const;

  // How many identical planes each simulated plane stands for (1: every path is simulated).
  int plane_copies() const { return planes_ ? planes_->copies : 1; }

  // The step latency between two ranks (hop_s or net_hop_s) and their links' class.
  double hop_s_between(int from, int to) const;
  HwClass link_class(int from, int to) const;

 private:
  Lowering(const Communicator& comm, const Request& request, const Choice& choice,
           const CollectiveAlgorithm& algorithm, engine::Simulation& sim, bool alone,
           Granularity granularity, const PlaneCopies* leave_out);

  std::span<const engine::PathShare> paths(int from, int to);
  std::span<const engine::PathShare> bare_paths(int from, int to);
  // Which route paths are simulated (by index), or nullptr for all.
  const std::vector<bool>* keep_path() const { return planes_ ? &planes_->keep_path : nullptr; }

  const Communicator& comm_;
  const Request& request_;
  const Choice& choice_;
  const CollectiveAlgorithm& algorithm_;
  engine::Simulation& sim_;
  bool alone_ = false;
  Granularity granularity_ = Granularity::slices;
  double eta_ = 1;
  double net_eta_ = 1;
  double hop_s_ = 0;
  double net_hop_s_ = 0;
  double base_s_ = 0;
  double rank_cap_Bps_ = 0;
  const PlaneCopies* planes_ = nullptr;  // the planes left out (copies > 1), or none
  std::vector<std::optional<engine::ChannelId>> rank_cap_;
  std::vector<double> saturated_apart_s_;
  std::optional<TrendEstimate> trend_;
  std::map<std::pair<int, int>, std::vector<engine::PathShare>> cache_;
  std::map<std::pair<int, int>, std::vector<engine::PathShare>> bare_cache_;
  std::map<std::pair<int, int>, std::vector<engine::PathShare>> streaming_cache_;
};

}  // namespace linksim::coll
