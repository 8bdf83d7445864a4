#include "sim/work/plan_search.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>

#include "sim/core/parallel_cases.hpp"
#include "sim/topo/cluster_prefix.hpp"
#include "sim/topo/uncertainty.hpp"
#include "sim/work/job_energy.hpp"
#include "sim/work/job_step_range.hpp"
#include "sim/work/memory.hpp"
#include "sim/work/model_uncertainty.hpp"
#include "sim/work/plan_check.hpp"

namespace linksim::work {
namespace {

std::vector<int> powers_of_two_up_to(int n) {
  std::vector<int> out;
  for (int v = 1; v <= n; v *= 2)
    out.push_back(v);
  return out;
}

int largest_divisor_at_most(int n, int cap) {
  for (int d = std::min(n, cap); d >= 1; --d) {
    if (n % d == 0) return d;
  }
  return 1;
}

struct Candidate {
  const topo::Topology* machine;
  ParallelPlan plan;
  // What it is simulated on: `machine`, or on a cluster the hosts its GPUs occupy
  // (topo::cluster_prefix), which give the same result.
  const topo::Topology* simulated_on = nullptr;
};

// Points each candidate on a cluster at the cluster's first hosts that its GPUs occupy, built
// once per (cluster, host count) into `prefixes`; returns how many candidates it pointed there.
std::size_t simulate_on_occupied_hosts(
    std::vector<Candidate>& candidates, std::size_t count,
    std::map<std::pair<const topo::Topology*, int>, std::unique_ptr<topo::Topology>>& prefixes) {
  std::size_t reduced = 0;
  for (std::size_t i = 0; i < count; ++i) {
    Candidate& c = candidates[i];
    c.simulated_on = c.machine;
    if (!c.machine->is_cluster()) continue;
    const int hosts = topo::hosts_for_gpus(*c.machine, c.plan.gpus());
    if (hosts >= c.machine->cluster->hosts) continue;
    auto& prefix = prefixes[{c.machine, hosts}];
    if (!prefix) prefix = std::make_unique<topo::Topology>(topo::cluster_prefix(*c.machine, hosts));
    c.simulated_on = prefix.get();
    ++reduced;
  }
  return reduced;
}

// The least memory-saving settings at which `p` runs and fits, tried in order of what they
// cost: each ZeRO stage from 0 (a higher one only adds communication); then, for training, the
// same with the optimizer offloaded to host memory (ZeRO-Offload), then with the activations
// offloaded too, each only where the scenario did not already ask for it (host copies cost
// more than ZeRO's collectives on every machine linksim ships). False when none fits.
bool least_fitting_memory_settings(const topo::Topology& machine, const ModelSpec& model,
                                   const Job& job, ParallelPlan& p, const topo::GpuModel& gpu) {
  const bool training = job.kind == JobKind::training;
  const int top = training && p.data > 1 ? 3 : 0;
  const ParallelPlan asked = p;
  const int offload_levels = training ? 3 : 1;
  for (int level = 0; level < offload_levels; ++level) {
    if (level == 1 && asked.optimizer_offload) continue;
    if (level == 2 && asked.activation_offload) continue;
    p.optimizer_offload = asked.optimizer_offload || level >= 1;
    p.activation_offload = asked.activation_offload || level >= 2;
    for (int z = 0; z <= top; ++z) {
      p.zero_stage = z;
      if (plan_problem(machine, model, job, p)) break;
      if (check_fit(model, job, p, gpu).fits) return true;
    }
  }
  p = asked;
  return false;
}

// Megatron's interleaved 1F1B with two model chunks per stage, where it applies to `p` (a
// training pipeline whose stages split evenly in two, micro-batches in groups of the pipeline):
// its bubble is half the plain schedule's for one more send per micro-batch and chunk, so which
// is faster depends on the network, and the search simulates both.
std::optional<ParallelPlan> interleaved(const topo::Topology& machine, const ModelSpec& model,
                                        const Job& job, ParallelPlan p, const topo::GpuModel& gpu) {
  if (job.kind != JobKind::training || p.pipeline < 2) return std::nullopt;
  p.virtual_stages = 2;
  if (plan_problem(machine, model, job, p) || !check_fit(model, job, p, gpu).fits) {
    return std::nullopt;
  }
  return p;
}

std::vector<int> micro_batch_choices(const Job& job, int dp, int pp) {
  if (job.kind != JobKind::training) return {1};
  const int per_replica = job.global_batch / dp;
  std::vector<int> out;
  if (pp == 1) {
    for (int m = 1; m <= per_replica; ++m) {
      if (per_replica % m == 0) out.push_back(m);
    }
    return out;  // the caller keeps the first that fits
  }
  for (int m : {pp, 2 * pp, 4 * pp}) {
    if (m <= per_replica && per_replica % m == 0) out.push_back(m);
  }
  return out;
}

// Enumerates one machine's candidates; `fitting` receives those that run and fit.
std::size_t enumerate(const topo::Topology& machine, const ModelSpec& model, const Scenario& sc,
                      std::vector<Candidate>& fitting) {
  const auto gpus = static_cast<int>(machine.count(topo::NodeKind::gpu));
  const int max_tp = machine.is_cluster() ? machine.cluster->gpus_per_host : gpus;
  const topo::GpuModel& gpu = *machine.node(machine.nodes_of(topo::NodeKind::gpu).front()).gpu;
  std::size_t count = 0;
  for (int tp : powers_of_two_up_to(std::min(max_tp, gpus))) {
    if (model.heads > 0 && model.heads % tp != 0) continue;
    for (int pp : powers_of_two_up_to(std::min(model.layers, gpus / tp))) {
      const int dp = largest_divisor_at_most(sc.job.global_batch, gpus / (tp * pp));
      for (int ep : powers_of_two_up_to(model.is_moe() ? dp : 1)) {
        if (dp % ep != 0 || (model.is_moe() && model.experts % ep != 0)) continue;
        for (int m : micro_batch_choices(sc.job, dp, pp)) {
          ++count;
          ParallelPlan p = sc.plan;
          p.data_fills = false;
          p.shard_group = 0;     // the search ranks plain plans (ZeRO over the whole DP group)
          p.virtual_stages = 1;  // ... and plain 1F1B
          p.first_stage_layers = p.last_stage_layers = 0;  // on even stages
          p.context = 1;                                   // ... without context parallelism
          p.tensor = tp;
          p.pipeline = pp;
          p.data = dp;
          p.expert = ep;
          p.micro_batches = m;
          if (least_fitting_memory_settings(machine, model, sc.job, p, gpu)) {
            fitting.push_back({&machine, p});
            if (auto v = interleaved(machine, model, sc.job, p, gpu)) {
              ++count;
              fitting.push_back({&machine, *v});
            }
            if (pp == 1) break;  // more micro-batches only add steps
          }
        }
      }
    }
  }
  return count;
}

// Reorders the candidates so that machines take turns, each keeping its own order: a cap on
// how many are simulated then leaves no machine out because it was named last.
void take_turns_by_machine(std::vector<Candidate>& fitting) {
  std::vector<const topo::Topology*> machines;
  std::map<const topo::Topology*, std::vector<Candidate>> by_machine;
  for (const auto& c : fitting) {
    auto& mine = by_machine[c.machine];
    if (mine.empty()) machines.push_back(c.machine);
    mine.push_back(c);
  }
  std::vector<Candidate> turns;
  turns.reserve(fitting.size());
  for (std::size_t i = 0; turns.size() < fitting.size(); ++i) {
    for (const auto* m : machines) {
      if (i < by_machine[m].size()) turns.push_back(by_machine[m][i]);
    }
  }
  fitting = std::move(turns);
}

double rank_key(const RankedPlan& r, PlanRanking by) {
  switch (by) {
    case PlanRanking::step_time:
      return r.result.step_s;
    case PlanRanking::tokens_per_s:
      return -r.result.tokens_per_s;
    case PlanRanking::cost_per_mtoken:
      return r.cost_per_mtoken_usd.value_or(1e300);
  }
  return 0;
}

// One case of the search: its own copy of the scenario, a machine shared read-only.
RankedPlan simulate_candidate(const Scenario& scenario, const ModelSpec& model,
                              const Candidate& candidate) {
  Scenario sc = scenario;
  sc.plan = candidate.plan;
  RankedPlan r{candidate.machine->name, candidate.plan,
               simulate_job(*candidate.simulated_on, model, sc), std::nullopt};
  r.result.simulation.reset();  // a search keeps figures, not timelines
  r.result.timeline.reset();
  r.result.names.reset();
  if (r.result.price_per_hour_usd && r.result.tokens_per_s > 0) {
    r.cost_per_mtoken_usd = *r.result.price_per_hour_usd / 3600 / r.result.tokens_per_s * 1e6;
  }
  return r;
}

}  // namespace

PlanSearchResult search_plans(const Scenario& scenario, const ModelSpec& model,
                              const std::vector<const topo::Topology*>& machines,
                              const PlanSearchOptions& options) {
  if (scenario.gradient_sync || scenario.job.kind == JobKind::serving) {
    throw InputError(scenario.file, "/job/kind",
                     "a plan search needs a training, prefill or decode job");
  }
  PlanSearchResult out;
  out.rank_by = options.rank_by;
  std::vector<Candidate> fitting;
  for (const auto* m : machines)
    out.enumerated += enumerate(*m, model, scenario, fitting);
  out.fitting = fitting.size();
  const std::size_t total = std::min(fitting.size(), options.max_simulated);
  if (total < fitting.size()) take_turns_by_machine(fitting);
  std::map<std::pair<const topo::Topology*, int>, std::unique_ptr<topo::Topology>> prefixes;
  out.on_occupied_hosts = simulate_on_occupied_hosts(fitting, total, prefixes);
  out.ranked.resize(total);
  CaseProgress progress;
  if (options.progress) {
    options.progress(0, total);
    progress.finished = [&](std::size_t finished) { options.progress(finished, total); };
  }
  run_cases(
      total, options.threads,
      [&](std::size_t i) {
        out.ranked[i] = simulate_candidate(scenario, model, fitting[i]);
        out.ranked[i].candidate = i;
      },
      progress);
  out.simulated = total;
  std::stable_sort(out.ranked.begin(), out.ranked.end(),
                   [&](const RankedPlan& a, const RankedPlan& b) {
                     return rank_key(a, options.rank_by) < rank_key(b, options.rank_by);
                   });
  // Ranges for the best only: they do not change the ranking, which is by point estimates.
  run_cases(std::min(options.ranges_for_best, out.ranked.size()), options.threads,
            [&](std::size_t i) {
              RankedPlan& r = out.ranked[i];
              const Candidate& c = fitting[r.candidate];
              Scenario sc = scenario;
              sc.plan = c.plan;
              r.result.step_range_s =
                  job_step_range_s(*c.simulated_on, model, sc, stated_compute_factor());
              r.result.network_range_fitted = topo::has_ranges(*c.simulated_on);
              r.result.energy = job_energy(*c.simulated_on, r.result);
            });
  return out;
}

}  // namespace linksim::work
