#pragma once
// `linksim plan`: the parallel plans that fit a job on each of the scenario's machines, each
// simulated and ranked (docs/scenario-format.md, "Finding a plan").
//
// Enumerated per machine of N GPUs: TP in {1, 2, 4, 8, ...} up to a node's GPUs, dividing the
// heads; PP in {1, 2, 4, ...} up to the layers; DP the largest divisor of global_batch with
// TP × PP × DP ≤ N (a plan fills the machine as far as the batch splits); for MoE, EP dividing
// DP and the experts; micro-batches: for PP = 1 the fewest (gradient accumulation only saves
// memory), for PP > 1 PP, 2·PP and 4·PP (fewer bubbles against more, smaller steps) where the
// batch splits so; ZeRO stage: the lowest that fits (a higher one only adds communication);
// for training where no stage fits, the optimizer offloaded to the host (ZeRO-Offload), then
// the activations too; for a training pipeline, beside each plain 1F1B candidate the same with
// interleaved 1F1B over two chunks per stage where Megatron allows it. Everything else
// (recompute, sequence parallelism, FlashAttention, precision, fine-tuning, bucket size,
// prefetch, offloads the scenario asks for) is the scenario's. Inference plans have one
// micro-batch and no ZeRO. A candidate must pass plan_problem and check_fit; those that do are
// simulated, at most `max_simulated` of them, in the order above (TP, then PP, then EP, then micro-
// batches, ascending; past the cap, the machines take turns so that none is left out), and ranked.
//
// On a cluster, a candidate is simulated on the cluster's first hosts that its GPUs occupy
// (topo::cluster_prefix): its traffic never leaves them and the fabric switches, so the result is
// the one the whole cluster gives, while what is sized by the machine (channel tables, route
// searches, each engine run's link state) shrinks from the cluster's 1.67 million channels on
// 65,536 DGX A100 GPUs to those of the candidate's hosts and the fabric's switches. That is what
// bounds a plan search on a large cluster; the candidates themselves are the same as on any cluster
// that holds them.

#include <functional>
#include <string>
#include <vector>

#include "sim/topo/topology.hpp"
#include "sim/work/job_sim.hpp"

namespace linksim::work {

enum class PlanRanking { step_time, tokens_per_s, cost_per_mtoken };

struct PlanSearchOptions {
  PlanRanking rank_by = PlanRanking::step_time;
  std::size_t max_simulated = 64;  // per search, over all machines
  // Called, one call at a time, with (0, total) before the first candidate and (done, total)
  // as each is simulated; the last call is (total, total).
  std::function<void(std::size_t done, std::size_t total)> progress;
  // Candidates simulated at once; 0: one per core. The ranking is the same for any count.
  int threads = 0;
  // The best this many plans also get a step range (job_step_range.hpp: two more simulations
  // each, after the ranking) and their energy over it.
  std::size_t ranges_for_best = 0;
};

struct RankedPlan {
  std::string machine;
  ParallelPlan plan;
  JobResult result;
  std::optional<double> cost_per_mtoken_usd;  // machines with a price
  std::size_t candidate = 0;                  // the search's own index of it, before ranking
};

struct PlanSearchResult {
  std::size_t enumerated = 0;  // candidates tried over all machines
  std::size_t fitting = 0;     // of those, runnable and fitting in memory
  std::size_t simulated = 0;
  // Of those, candidates simulated on the hosts they occupy of a larger cluster (the same result).
  std::size_t on_occupied_hosts = 0;
  PlanRanking rank_by = PlanRanking::step_time;
  std::vector<RankedPlan> ranked;  // best first; ties keep enumeration order
};

// Throws InputError for a scenario kind without a plan (gradient_sync, serving).
PlanSearchResult search_plans(const Scenario& scenario, const ModelSpec& model,
                              const std::vector<const topo::Topology*>& machines,
                              const PlanSearchOptions& options = {});

}  // namespace linksim::work
