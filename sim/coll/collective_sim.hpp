#pragma once
// Collectives lowered onto the engine: every step of the chosen algorithm becomes transfers
// over the routed paths between GPUs, so concurrent traffic shares links as it would on the
// machine, not as a formula assumes.
//
// Each algorithm is a plug-in (algorithm.hpp, one file each under algorithms/, listed by
// algorithm_registry.hpp): it says which requests it can run and how it lowers them. This file
// asks every eligible plug-in for its candidates, then simulates the one NCCL's own cost model
// picks (nccl_tuner_model.hpp: one node, Ring, Tree and NVLS), or, where that model does not
// reach, simulates each candidate and keeps the fastest.
//
// Costs, and where they come from:
// - a base latency per operation and a hop latency per algorithm step, by protocol and by the
//   class of the links (NCCL's tuning constants, in each algorithm's file) plus the route's own
//   latency;
// - the data, inflated by the protocol's wire efficiency (LL carries 4 B of data per 8 B), over
//   channels whose capacity is the link's payload rate (sim/topo/link_payload.hpp);
// - per-rank throughput caps of LL/LL128/Tree as NCCL models them, as a private channel per
//   sending rank, so they bind only the flows they limit.
//
// Granularity: a lone collective (a sweep's) moves its data in NCCL's chunks and slices, with
// buffer slots and per-slice synchronisation (slice_pipeline.hpp), so fill and drain come out of
// the simulation. Inside a job it runs as one set of bulk flows per algorithm step, sharing the
// links with everything else, and then pays what its slices add when it runs alone, and the
// host's launch where that is longer than the call (a framework's one process per GPU launching
// back to back: max(T, L)); both worked out once per size and choice.

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sim/coll/algorithm_registry.hpp"
#include "sim/coll/collective.hpp"
#include "sim/coll/communicator.hpp"
#include "sim/coll/lowering.hpp"
#include "sim/coll/request.hpp"
#include "sim/engine/simulation.hpp"

namespace linksim::coll {

// Algorithm x protocol pairs NCCL would consider for this request on this communicator,
// narrowed by the request's overrides. Empty when an override is impossible here (NVLS on a
// machine without NVLink SHARP, say); `why_empty` then says why.
std::vector<Choice> candidate_choices(const Communicator& comm, const Request& request,
                                      std::string* why_empty = nullptr);

// NCCL's channel count for `bytes` (fewer channels for small messages; comm.h thresholds).
int channels_for(const Communicator& comm, Algorithm a, Protocol p, double bytes);

// Adds the collective to `sim`, starting after `deps`; returns the task that ends it.
// Engine GPU indices are the GPUs' ordinals. Channel ids of `sim` must be the topology's,
// possibly followed by others.
// `alone`: the collective is all that runs in `sim` (see Lowering): it is lowered slice by
// slice; otherwise by steps plus its slices' overhead (see Granularity above).
// `job_planes` (not alone): simulate only the planes it keeps, as Lowering's job-planes
// constructor says; REQUIRES then that the choice's algorithm moves only over rank routes.
engine::TaskId lower_collective(const Communicator& comm, const Request& request,
                                const Choice& choice, engine::Simulation& sim,
                                std::span<const engine::TaskId> deps, bool alone = false,
                                const PlaneCopies* job_planes = nullptr);

struct Outcome {
  Choice choice;
  // Of choice.channels, those that carry data: fewer where a small message does not reach every
  // channel (channel_work.hpp; NVLS's split depends on the NCCL release).
  int data_channels = 0;
  double time_s = 0;
  double algbw_Bps = 0;  // nccl-tests' algbw: size / time
  double busbw_Bps = 0;  // algbw x busbw_factor
  // The channel saturated longest (the bottleneck), or none for latency-bound runs.
  std::optional<topo::ChannelId> bottleneck;
  // Set when the host's launch rate, not the GPUs, set the time (see sweep.hpp).
  bool host_bound = false;
  // Where NCCL's cost model made the choice (nccl_tuner_model.hpp): its predicted time for it,
  // and the candidate it ranked next with that one's predicted time.
  std::optional<double> nccl_model_s;
  std::optional<Choice> nccl_runner_up;
  double nccl_runner_up_model_s = 0;
  // Where a tuner plugin overrode NCCL's model (NcclTunerPick::picked_by): which; the runner-up
  // is then NCCL's model's own pick.
  std::string_view picked_by;
  // Where NCCL's model is not followed and several candidates could run: how many there were
  // (the choice is the fastest of them simulated); 0 otherwise.
  int simulated_candidates = 0;
  // Set when the time comes from the trend of partial runs (slice_pipeline.hpp).
  std::optional<TrendEstimate> trend;
};

// Simulates the request alone on the machine with NCCL's pick (see above), or with each
// candidate, keeping the fastest, where NCCL's model does not reach. Throws InputError (the
// machine's file) when no candidate remains (see candidate_choices: the reason why).
Outcome simulate_collective(const Communicator& comm, const Request& request);
// The same as a job's bulk form prices it: NCCL's pick (or every candidate) by steps plus its
// slices' overhead (no launch: the caller paces launches, as nccl-tests does), worked out
// once per communicator, size and choice (see Granularity above). Much cheaper when one
// communicator simulates many calls, as `linksim fit` does while it varies the calibration: the
// overhead then stays at the calibration of its first call (fill and synchronisation, which the
// fitted scales barely move).
Outcome simulate_collective_as_in_jobs(const Communicator& comm, const Request& request);
// Simulates one given choice, alone, by slices (as sweeps run) or by steps (the bulk form a
// job's collectives take before their slices' overhead is added).
Outcome simulate_choice(const Communicator& comm, const Request& request, const Choice& choice,
                        Granularity granularity = Granularity::slices);

}  // namespace linksim::coll
