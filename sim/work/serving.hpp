#pragma once
// Inference serving: prefill and decode together under continuous batching, at a request rate
// (the scenario's job kind "serving"; docs/scenario-format.md, "Serving").
//
// Requests arrive as a Poisson process at request_rate, with input and output lengths drawn
// uniformly from their ranges; all from the seed (std::mt19937_64, whose sequence the C++
// standard fixes), so the same scenario gives the same result everywhere. Each of the plan's DP
// replicas (TP × PP GPUs) serves every DP-th request, alone.
//
// A replica runs iteration-level scheduling (Orca, OSDI 2022; vLLM without chunked prefill):
// at each iteration it admits waiting requests in arrival order while the sequences stay within
// max_batch, the prefill within kPrefillTokenBudget tokens, and the KV cache within its
// capacity — a request reserves KV for its whole input + output at admission, so nothing is
// ever preempted. If it admitted any, the iteration is their prefill (which makes each one's
// first token); otherwise one decode step for every running sequence. Iteration times come from
// the engine: simulate_job (sim/work/job_sim.hpp) of a prefill of T tokens and of a decode step
// at batch b (context: mean input + mean output / 2), each at powers of two and interpolated
// linearly between them.
//
// KV capacity per GPU: usable memory (90%) - weights - working activations of a full prefill
// budget, over the KV bytes of one token on the GPU (its layers, its share of KV heads).
//
// Reported: time to first token (arrival to the end of its prefill), time per output token
// ((finish - first token) / (output - 1)), end-to-end latency; mean, p50, p90, p99 (nearest
// rank); output tokens per second in all and per GPU; $ per million output tokens.
//
// With an SLO (job.slo), the highest request rate that meets it is searched
// (sim/work/serving_capacity.hpp) on one ServingSystem, whose engine iteration times are
// measured once: each rate tried costs only the queue. The figures are at the scenario's
// request_rate if it states one, else at the rate found.

#include <optional>
#include <string>
#include <vector>

#include "sim/topo/topology.hpp"
#include "sim/work/job_sim.hpp"
#include "sim/work/power_model.hpp"
#include "sim/work/serving_capacity.hpp"
#include "sim/work/serving_step_table.hpp"

namespace linksim::work {

// Most prompt tokens one prefill iteration takes (vLLM's max_num_batched_tokens); a longer
// prompt is prefilled alone.
inline constexpr int kPrefillTokenBudget = 8192;

struct LatencyStats {
  double mean_s = 0;
  double p50_s = 0;
  double p90_s = 0;
  double p99_s = 0;
};

// Nearest-rank percentiles and the mean of `values` (all 0 when empty).
LatencyStats latency_stats(std::vector<double> values);

struct ServingResult {
  std::string machine;
  std::string machine_title;
  std::optional<double> price_per_hour_usd;
  std::string price_as_of;  // with a price: when it was the list price (topo::Instance)
  int gpus = 0;
  MemoryBreakdown memory;         // weights, working activations, KV cache at capacity
  double kv_capacity_tokens = 0;  // per replica
  int requests = 0;
  double request_rate_per_s = 0;  // the rate the figures below are at
  double duration_s = 0;          // first arrival (t = 0) to the last request's finish
  LatencyStats ttft;
  LatencyStats tpot;
  LatencyStats e2e;
  double mean_batch = 0;  // sequences per decode step, averaged over decode steps
  int max_batch_seen = 0;
  double output_tokens_per_s = 0;
  double output_tokens_per_s_per_gpu = 0;
  double input_tokens_per_s = 0;
  std::optional<double> cost_per_mtoken_usd;  // per million output tokens
  std::optional<ServingEnergy> energy;        // GPUs with a known board power
  std::vector<std::string> notes;
  std::string failure;  // set when it does not fit (compare goes on)

  // With an SLO only: the search for the highest rate that meets it, whether the figures above
  // meet it, and the cost per million output tokens at that highest rate (priced machines;
  // absent when no rate meets the SLO).
  std::optional<ServingCapacity> capacity;
  std::optional<bool> meets_slo;
  std::optional<double> max_rate_cost_per_mtoken_usd;
};

// The p99s an SLO bounds, of a result.
ServingP99s p99s_of(const ServingResult& r);

// One serving scenario on one machine, ready to run at any request rate: the plan checked, the
// KV cache sized and the engine's iteration times measured once, at construction.
class ServingSystem {
 public:
  // Throws as simulate_serving does. Keeps nothing of `machine` but its figures.
  ServingSystem(const topo::Topology& machine, const ModelSpec& model, const Scenario& scenario);
  // The scenario's requests (their lengths and arrival draws) at this mean rate (> 0).
  ServingResult at_rate(double request_rate_per_s) const;
  // A mean request alone on a replica: a prefill of the mean input, then a decode step at batch
  // 1 per later output token. The SLO search starts from a tenth of the replicas' rate at it.
  double unloaded_request_s() const;
  int replicas() const { return scenario_.plan.data; }

 private:
  PoweredMachines power_;                   // the plan's GPUs and hosts, for energy
  std::optional<std::string> energy_note_;  // why energy is not reported, if it is not
  Scenario scenario_;
  ServingResult base_;  // machine, memory, KV capacity
  StepTable prefill_;
  StepTable decode_;
};

// Throws InputError for a plan that does not match the machine and DoesNotFit when one
// request of the longest input and output does not fit beside the weights, or when the
// scenario states an SLO and no request rate but not even the lowest rate tried meets it (the
// message gives the p99s reached there).
ServingResult simulate_serving(const topo::Topology& machine, const ModelSpec& model,
                               const Scenario& scenario);

}  // namespace linksim::work
