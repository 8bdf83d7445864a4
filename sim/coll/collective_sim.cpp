#include "sim/coll/collective_sim.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <stdexcept>

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
      out.push_back({a->id(), p, a->channels(comm, p, request.size_bytes)});
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

engine::TaskId lower_collective(const Communicator& comm, const Request& request,
                                const Choice& choice, engine::Simulation& sim,
                                std::span<const engine::TaskId> deps, bool alone) {
  const CollectiveAlgorithm& algorithm = AlgorithmRegistry::builtin().get(choice.algorithm);
  if (!algorithm.serves(request.op)) {
    throw std::logic_error(
        fmt::format("{} does not run {}", algorithm.name(), to_string(request.op)));
  }
  Lowering lowering(comm, request, choice, algorithm, sim, alone);
  const engine::TaskId start = sim.add_delay(lowering.base_latency_s(), deps);
  if (comm.size() == 1) return start;
  return algorithm.lower(lowering, start);
}

Outcome simulate_choice(const Communicator& comm, const Request& request, const Choice& choice) {
  engine::Simulation sim(comm.capacities_Bps(), comm.topology().count(topo::NodeKind::gpu));
  lower_collective(comm, request, choice, sim, {}, /*alone=*/true);
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
