#include "sim/coll/collective_sim.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "sim/coll/host_launch_cost.hpp"
#include "sim/coll/nccl_tuner_model.hpp"
#include "sim/core/error.hpp"
#include "sim/core/memory_bound.hpp"
#include "sim/core/units.hpp"

namespace linksim::coll {
namespace {

// Why `a` gives no candidate for `request` on `comm`. REQUIRES: it gives none.
std::string why_no_candidate(const CollectiveAlgorithm& a, const Communicator& comm,
                             const Request& request) {
  if (!a.serves(request.op)) {
    std::vector<std::string> servers;
    for (const auto* other : AlgorithmRegistry::builtin().algorithms()) {
      if (other->serves(request.op)) servers.emplace_back(other->name());
    }
    return fmt::format("{} does not run {}, which runs as {}", a.name(), to_string(request.op),
                       fmt::join(servers, " or "));
  }
  if (auto why = a.why_ineligible(comm)) return *why;
  std::vector<std::string_view> runs;
  for (Protocol p : a.protocols(comm, request))
    runs.push_back(to_string(p));
  std::string why = fmt::format("{} runs {} here", a.name(), fmt::join(runs, ", "));
  if (request.protocol == Protocol::ll128 && !comm.ll128_enabled()) {
    why += ", as LL128 needs NVLink between every pair";
  }
  return why;
}

std::string algorithm_text(const Request& r) {
  if (r.algorithm) return std::string(to_string(*r.algorithm));
  if (r.allowed_algorithms.empty()) return "any";
  std::vector<std::string> names;
  for (Algorithm a : r.allowed_algorithms)
    names.emplace_back(to_string(a));
  return fmt::format("{}", fmt::join(names, ","));
}

std::string protocol_text(const Request& r) {
  if (r.protocol) return std::string(to_string(*r.protocol));
  if (r.allowed_protocols.empty()) return "any";
  std::vector<std::string> names;
  for (Protocol p : r.allowed_protocols)
    names.emplace_back(to_string(p));
  return fmt::format("{}", fmt::join(names, ","));
}

// A time no way of running `choice` can beat, from bandwidth alone: the busiest rank sends the
// plug-in's least_bytes_sent_by_a_rank, and it can go no faster than the fastest rank's links
// out, nor than the algorithm's throughput cap, if any. Used to skip candidates that cannot
// win, so the pick is the same as simulating every one.
double lower_bound_s(const Communicator& comm, const Request& request, const Choice& choice) {
  const CollectiveAlgorithm& a = AlgorithmRegistry::builtin().get(choice.algorithm);
  const double bytes = a.least_bytes_sent_by_a_rank(comm, request);
  if (bytes <= 0) return 0;
  const auto& topo = comm.topology();
  const auto& capacity = comm.capacities_Bps();
  double out_Bps = 0;  // the fastest rank's links out: every rank may be the busiest
  for (int r = 0; r < comm.size(); ++r) {
    double sum = 0;
    for (topo::ChannelId c : topo.out_channels(comm.gpu(r)))
      sum += capacity[c];
    out_Bps = std::max(out_Bps, sum);
  }
  // A fitted bandwidth scale above 1 lets payload cross a link in fewer wire bytes.
  const topo::CollectiveScales fitted = comm.scales(request.op);
  const double speedup = std::max(
      {1.0, fitted.bandwidth, fitted.bandwidth * fitted.ll, fitted.bandwidth * fitted.ll128});
  const double cap = a.rank_cap_Bps(comm, choice.protocol, choice.channels);
  double bound = out_Bps > 0 ? bytes / out_Bps / speedup : 0;
  if (cap > 0) bound = std::max(bound, bytes / cap);
  return bound;
}

}  // namespace

int channels_for(const Communicator& comm, Algorithm a, Protocol p, double bytes) {
  return AlgorithmRegistry::builtin().get(a).channels(comm, p, bytes);
}

std::vector<Choice> candidate_choices(const Communicator& comm, const Request& request,
                                      std::string* why_empty) {
  const auto& algorithms = AlgorithmRegistry::builtin().algorithms();
  std::vector<Choice> out;
  for (const CollectiveAlgorithm* a : algorithms) {
    if (request.algorithm && *request.algorithm != a->id()) continue;
    if (!allows(request, a->id())) continue;
    if (!a->serves(request.op) || a->why_ineligible(comm)) continue;
    for (Protocol p : a->protocols(comm, request)) {
      if (request.protocol && *request.protocol != p) continue;
      if (!allows(request, p)) continue;
      // The network plugin's NCCL_PROTO holds unless the caller named protocols itself. NCCL's
      // point-to-point path picks LL or Simple by size and buffers alone (enqueue.cc, p2p
      // protocol), never reading NCCL_PROTO, so pairwise sends keep theirs.
      const bool caller_named = request.protocol || !request.allowed_protocols.empty();
      if (!caller_named && a->id() != Algorithm::pairwise && !comm.network_env_allows(p)) {
        continue;
      }
      int channels = a->channels(comm, p, request.size_bytes);
      const bool own_count = !a->follows_channel_bounds();
      if (!own_count && request.max_channels > 0)
        channels = std::min(channels, request.max_channels);
      if (!own_count && request.min_channels > 0)
        channels = std::max(channels, request.min_channels);
      out.push_back({a->id(), p, channels});
    }
  }
  if (out.empty() && why_empty) {
    // Why each algorithm the caller forced, or the operation could use, gave nothing.
    std::vector<std::string> reasons;
    for (const CollectiveAlgorithm* a : algorithms) {
      const bool asked = request.algorithm ? *request.algorithm == a->id()
                                           : allows(request, a->id()) && a->serves(request.op);
      if (asked) {
        reasons.push_back(why_no_candidate(*a, comm, request));
      }
    }
    *why_empty =
        fmt::format("no way to run {} with algorithm {} and protocol {} on this machine ({})",
                    to_string(request.op), algorithm_text(request), protocol_text(request),
                    fmt::join(reasons, "; "));
  }
  return out;
}

namespace {

// What lowering a collective gives: its last task, and what the lowering saw on the way (the
// channels' saturation apart, the trend of a pipeline that never repeats).
struct Lowered {
  engine::TaskId end = 0;
  std::vector<double> saturated_apart_s;
  std::optional<TrendEstimate> trend;
};

Lowered lower_as(const Communicator& comm, const Request& request, const Choice& choice,
                 engine::Simulation& sim, std::span<const engine::TaskId> deps, bool alone,
                 Granularity granularity, const PlaneCopies* job_planes = nullptr) {
  const CollectiveAlgorithm& algorithm = AlgorithmRegistry::builtin().get(choice.algorithm);
  if (!algorithm.serves(request.op)) {
    throw std::logic_error(
        fmt::format("{} does not run {}", algorithm.name(), to_string(request.op)));
  }
  Lowering lowering =
      job_planes != nullptr
          ? Lowering(comm, request, choice, algorithm, sim, granularity, *job_planes)
          : Lowering(comm, request, choice, algorithm, sim, alone, granularity);
  const engine::TaskId start = sim.add_delay(lowering.base_latency_s(), deps);
  if (comm.size() == 1) return Lowered{.end = start};
  const engine::TaskId end = algorithm.lower(lowering, start);
  return Lowered{
      .end = end, .saturated_apart_s = lowering.saturated_apart_s(), .trend = lowering.trend()};
}

double makespan_alone(const Communicator& comm, const Request& request, const Choice& choice,
                      Granularity granularity) {
  engine::Simulation sim(comm.capacities_Bps(), comm.topology().count(topo::NodeKind::gpu));
  lower_as(comm, request, choice, sim, {}, /*alone=*/true, granularity);
  engine::RunOptions options;
  options.record_intervals = false;
  return sim.run(options).makespan_s;
}

std::string alone_key(const Request& request, const Choice& choice, Granularity granularity) {
  return fmt::format("alone {} {} {} {} {} {} {} {}", static_cast<int>(granularity),
                     to_string(request.op), request.size_bytes, request.root,
                     to_string(choice.algorithm), to_string(choice.protocol), choice.channels,
                     request.nccl_version);
}

// How a lone collective of `request` is simulated: by slices, or every loop where asked.
Granularity lone_granularity(const Request& request) {
  return request.simulate_every_loop ? Granularity::every_slice : Granularity::slices;
}

// The collective's time alone in the given form, worked out once per communicator.
double alone_s(const Communicator& comm, const Request& request, const Choice& choice,
               Granularity granularity) {
  return comm.memo(alone_key(request, choice, granularity),
                   [&] { return makespan_alone(comm, request, choice, granularity); });
}

// What NCCL's slices add to the collective over its bulk form when it runs alone: fill, drain
// and per-slice synchronisation (slice_pipeline.hpp).
double slice_overhead_s(const Communicator& comm, const Request& request, const Choice& choice) {
  return std::max(0.0, alone_s(comm, request, choice, Granularity::slices) -
                           alone_s(comm, request, choice, Granularity::steps));
}

// What a job pays beyond the bulk form: the slices' overhead, and the host's launch where that
// is longer than the collective itself. A framework runs one process per GPU and launches its
// collectives back to back, so a call of GPU time T costs max(T, L) (host_launch_cost.hpp).
double job_overhead_s(const Communicator& comm, const Request& request, const Choice& choice) {
  const double sliced_s = alone_s(comm, request, choice, Granularity::slices);
  const double paced_s = std::max(sliced_s, host_launch_per_gpu_s(comm.topology()));
  return std::max(0.0, paced_s - alone_s(comm, request, choice, Granularity::steps));
}

}  // namespace

engine::TaskId lower_collective(const Communicator& comm, const Request& request,
                                const Choice& choice, engine::Simulation& sim,
                                std::span<const engine::TaskId> deps, bool alone,
                                const PlaneCopies* job_planes) {
  if (alone) return lower_as(comm, request, choice, sim, deps, true, Granularity::slices).end;
  // Beside other traffic, a collective's slices would multiply the job's tasks a hundredfold:
  // its bulk flows share the links with the rest, and it then pays what its slices and its
  // launch add.
  const engine::TaskId end =
      lower_as(comm, request, choice, sim, deps, false, Granularity::steps, job_planes).end;
  const double extra_s = job_overhead_s(comm, request, choice);
  return extra_s > 0 ? sim.add_delay(extra_s, {&end, 1}) : end;
}

Outcome simulate_choice(const Communicator& comm, const Request& request, const Choice& choice,
                        Granularity granularity) {
  engine::Simulation sim(comm.capacities_Bps(), comm.topology().count(topo::NodeKind::gpu));
  const Lowered lowered = lower_as(comm, request, choice, sim, {}, /*alone=*/true, granularity);
  engine::RunOptions options;
  options.record_intervals = false;
  const engine::Timeline t = sim.run(options);
  Outcome o;
  o.choice = choice;
  o.data_channels = AlgorithmRegistry::builtin()
                        .get(choice.algorithm)
                        .channel_work(comm, request, choice.channels)
                        .channels;
  o.time_s = t.makespan_s;
  o.trend = lowered.trend;
  o.algbw_Bps = o.time_s > 0 ? request.size_bytes / o.time_s : 0;
  o.busbw_Bps = o.algbw_Bps * busbw_factor(request.op, comm.size());
  double longest = 0;
  const std::size_t topo_channels = comm.topology().channel_count();
  for (std::size_t c = 0; c < topo_channels; ++c) {
    const double saturated =
        (c < t.channels.size() ? t.channels[c].saturated_s : 0.0) +
        (c < lowered.saturated_apart_s.size() ? lowered.saturated_apart_s[c] : 0.0);
    if (saturated > longest) {
      longest = saturated;
      o.bottleneck = static_cast<topo::ChannelId>(c);
    }
  }
  return o;
}

namespace {

// `o`, run as NCCL's cost model picked it, carrying the model's figures for it and for the
// runner-up (what --explain shows).
Outcome with_nccl_pick(Outcome o, const NcclTunerPick& pick, const std::vector<Choice>& choices) {
  o.nccl_model_s = pick.model_s;
  o.picked_by = pick.picked_by;
  if (pick.runner_up) {
    o.nccl_runner_up = choices[*pick.runner_up];
    o.nccl_runner_up_model_s = pick.runner_up_model_s;
  }
  return o;
}

}  // namespace

Outcome simulate_collective_as_in_jobs(const Communicator& comm, const Request& request) {
  const MemoryPhase phase(fmt::format("simulating {} of {} on {} GPUs", to_string(request.op),
                                      units::format_bytes(request.size_bytes), comm.size()));
  std::string why;
  const auto choices = candidate_choices(comm, request, &why);
  if (choices.empty()) throw InputError(comm.topology().file, "", why);
  auto priced = [&](const Choice& c) {
    Outcome o = simulate_choice(comm, request, c, Granularity::steps);
    o.time_s += slice_overhead_s(comm, request, c);
    o.algbw_Bps = o.time_s > 0 ? request.size_bytes / o.time_s : 0;
    o.busbw_Bps = o.algbw_Bps * busbw_factor(request.op, comm.size());
    return o;
  };
  // As simulate_collective chooses: NCCL's pick where its cost model reaches, else the fastest.
  if (const auto pick = request.simulate_every_candidate
                            ? std::nullopt
                            : nccl_tuner_pick(comm, request, choices)) {
    return with_nccl_pick(priced(pick->choice), *pick, choices);
  }
  std::optional<Outcome> best;
  for (const Choice& c : choices) {
    Outcome o = priced(c);
    if (!best || o.time_s < best->time_s) best = o;
  }
  if (choices.size() > 1) best->simulated_candidates = static_cast<int>(choices.size());
  return *best;
}

Outcome simulate_collective(const Communicator& comm, const Request& request) {
  const MemoryPhase phase(fmt::format("simulating {} of {} on {} GPUs", to_string(request.op),
                                      units::format_bytes(request.size_bytes), comm.size()));
  std::string why;
  const auto choices = candidate_choices(comm, request, &why);
  if (choices.empty()) throw InputError(comm.topology().file, "", why);
  // Where NCCL's own cost model covers the candidates, NCCL runs its pick, right or wrong.
  if (const auto pick = request.simulate_every_candidate
                            ? std::nullopt
                            : nccl_tuner_pick(comm, request, choices)) {
    Outcome o = simulate_choice(comm, request, pick->choice, lone_granularity(request));
    comm.memo(alone_key(request, pick->choice, lone_granularity(request)),
              [&] { return o.time_s; });
    return with_nccl_pick(o, *pick, choices);
  }
  // Elsewhere the fastest candidate stands in for NCCL's pick. Cheapest bound first; stop
  // simulating once no remaining candidate's bound beats the best.
  std::vector<std::pair<double, std::size_t>> order;
  for (std::size_t i = 0; i < choices.size(); ++i)
    order.emplace_back(lower_bound_s(comm, request, choices[i]), i);
  std::stable_sort(order.begin(), order.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  std::optional<Outcome> best;
  std::size_t best_index = 0;
  for (const auto& [bound, i] : order) {
    if (best && bound >= best->time_s) break;
    Outcome o = simulate_choice(comm, request, choices[i], lone_granularity(request));
    // simulate_choice ran what makespan_alone runs (the same lowering alone, in the same form,
    // the same run options), so its makespan is the one a job's lowering would ask alone_s for
    // next: kept, it spares that second run of a lone collective (bit for bit the same figure).
    comm.memo(alone_key(request, choices[i], lone_granularity(request)), [&] { return o.time_s; });
    // Ties go to the earlier candidate in NCCL's order, as when every one was simulated.
    if (!best || o.time_s < best->time_s || (o.time_s == best->time_s && i < best_index)) {
      best = o;
      best_index = i;
    }
  }
  if (choices.size() > 1) best->simulated_candidates = static_cast<int>(choices.size());
  return *best;
}

}  // namespace linksim::coll
