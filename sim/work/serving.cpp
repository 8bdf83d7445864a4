#include "sim/work/serving.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <random>

#include "sim/core/units.hpp"
#include "sim/work/model_costs.hpp"

namespace linksim::work {
namespace {

struct Request {
  double arrival_s = 0;
  int input = 0;
  int output = 0;
  double first_token_s = 0;
  double finish_s = 0;
  int generated = 0;
};

// Uniform in [0, 1) from the top 53 bits: the same on every platform (std's distributions are
// not specified bit for bit).
double uniform(std::mt19937_64& rng) {
  return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

int draw_length(std::mt19937_64& rng, const LengthRange& r) {
  const int span = r.max - r.min + 1;
  return r.min + std::min(span - 1, static_cast<int>(uniform(rng) * span));
}

std::vector<Request> draw_requests(const ServingLoad& load) {
  std::mt19937_64 rng(load.seed);
  std::vector<Request> out;
  double t = 0;
  for (int i = 0; i < load.requests; ++i) {
    t += -std::log1p(-uniform(rng)) / load.request_rate_per_s;  // exponential gaps: Poisson
    Request r;
    r.arrival_s = t;
    r.input = draw_length(rng, load.input_tokens);
    r.output = draw_length(rng, load.output_tokens);
    out.push_back(r);
  }
  return out;
}

struct Replica {
  std::vector<Request*> requests;  // in arrival order
};

struct ReplicaStats {
  double busy_s = 0;  // prefill and decode iterations
  double decode_steps = 0;
  double decode_sequences = 0;
  int max_batch = 0;
};

// One replica's continuous batching (see serving.hpp); fills first_token_s and finish_s.
ReplicaStats run_replica(Replica& replica, const ServingLoad& load, double kv_capacity_tokens,
                         const StepTable& prefill, const StepTable& decode) {
  ReplicaStats stats;
  std::deque<Request*> waiting(replica.requests.begin(), replica.requests.end());
  std::vector<Request*> running;
  double kv_used = 0;
  double t = 0;
  while (!waiting.empty() || !running.empty()) {
    if (running.empty() && waiting.front()->arrival_s > t) t = waiting.front()->arrival_s;
    std::vector<Request*> admitted;
    double prefill_tokens = 0;
    while (!waiting.empty() && waiting.front()->arrival_s <= t) {
      Request* r = waiting.front();
      const double need = r->input + r->output;
      const bool room = static_cast<int>(running.size() + admitted.size()) < load.max_batch &&
                        kv_used + need <= kv_capacity_tokens;
      const bool budget = admitted.empty() || prefill_tokens + r->input <= kPrefillTokenBudget;
      if (!room || !budget) break;
      kv_used += need;
      prefill_tokens += r->input;
      admitted.push_back(r);
      waiting.pop_front();
    }
    std::vector<Request*> stepped;
    if (!admitted.empty()) {
      const double step_s = prefill.at(prefill_tokens);
      t += step_s;
      stats.busy_s += step_s;
      for (Request* r : admitted) {
        r->first_token_s = t;
        r->generated = 1;
      }
      stepped = admitted;
      running.insert(running.end(), admitted.begin(), admitted.end());
    } else if (!running.empty()) {
      const double step_s = decode.at(static_cast<double>(running.size()));
      t += step_s;
      stats.busy_s += step_s;
      stats.decode_steps += 1;
      stats.decode_sequences += static_cast<double>(running.size());
      stats.max_batch = std::max(stats.max_batch, static_cast<int>(running.size()));
      for (Request* r : running)
        r->generated += 1;
      stepped = running;
    }
    for (Request* r : stepped) {
      if (r->generated >= r->output) r->finish_s = t;
    }
    std::erase_if(running, [&](Request* r) {
      if (r->generated < r->output) return false;
      kv_used -= r->input + r->output;
      return true;
    });
  }
  return stats;
}

// KV bytes of one token on the busiest GPU of a replica.
double kv_bytes_per_token(const ModelSpec& m, const Job& job, const ParallelPlan& plan) {
  if (m.is_plain()) return 0;
  const double layers = std::ceil(static_cast<double>(m.layers) / plan.pipeline);
  const double heads = std::ceil(static_cast<double>(m.kv_heads) / plan.tensor);
  return layers * 2 * heads * m.head_dim() * kv_cache_bytes_per_element(job.precision, m.dtype);
}

}  // namespace

LatencyStats latency_stats(std::vector<double> values) {
  LatencyStats s;
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  double sum = 0;
  for (double v : values)
    sum += v;
  s.mean_s = sum / static_cast<double>(values.size());
  auto rank = [&](double p) {
    const auto n = static_cast<double>(values.size());
    const auto i = static_cast<std::size_t>(std::max(1.0, std::ceil(p * n)) - 1);
    return values[std::min(i, values.size() - 1)];
  };
  s.p50_s = rank(0.5);
  s.p90_s = rank(0.9);
  s.p99_s = rank(0.99);
  return s;
}

namespace {

// Sizes the KV cache of one replica: what fits beside the weights and a prefill of the token
// budget in 90% of a GPU's memory. Sets res.memory and res.kv_capacity_tokens; returns the
// budget. Throws DoesNotFit when not even one longest request fits.
int fit_kv_cache(const topo::Topology& machine, const ModelSpec& model, const Scenario& scenario,
                 ServingResult& res) {
  const ServingLoad& load = scenario.job.serving;
  const topo::GpuModel& gpu = *machine.node(machine.nodes_of(topo::NodeKind::gpu).front()).gpu;
  const int budget = std::max(kPrefillTokenBudget, load.input_tokens.max);
  Job working = scenario.job;
  working.kind = JobKind::prefill;
  working.global_batch = 1;
  working.sequence_length = budget;
  MemoryBreakdown mem = memory_per_gpu(model, working, scenario.plan);
  const double per_token = kv_bytes_per_token(model, scenario.job, scenario.plan);
  const double free_bytes = 0.9 * gpu.memory_bytes - mem.weights_bytes - mem.activations_bytes;
  res.kv_capacity_tokens = per_token > 0 ? std::floor(free_bytes / per_token) : 1e18;
  mem.kv_cache_bytes = per_token > 0 ? res.kv_capacity_tokens * per_token : 0;
  res.memory = mem;
  const double longest = load.input_tokens.max + load.output_tokens.max;
  if (res.kv_capacity_tokens < longest) {
    throw DoesNotFit(
        scenario.file, "/job",
        fmt::format("{} on {}: the KV cache holds {:g} tokens per replica beside the "
                    "weights and a {}-token prefill, fewer than one request of {:g}",
                    model.name, machine.name, res.kv_capacity_tokens, budget, longest));
  }
  return budget;
}

// Latency percentiles, throughput and cost over the finished requests.
void tally_requests(const std::vector<Request>& requests, double steps, double sequences,
                    ServingResult& res) {
  std::vector<double> ttft, tpot, e2e;
  double output_tokens = 0;
  double input_tokens = 0;
  for (const auto& r : requests) {
    ttft.push_back(r.first_token_s - r.arrival_s);
    if (r.output > 1) tpot.push_back((r.finish_s - r.first_token_s) / (r.output - 1));
    e2e.push_back(r.finish_s - r.arrival_s);
    res.duration_s = std::max(res.duration_s, r.finish_s);
    output_tokens += r.output;
    input_tokens += r.input;
  }
  res.requests = static_cast<int>(requests.size());
  res.ttft = latency_stats(ttft);
  res.tpot = latency_stats(tpot);
  res.e2e = latency_stats(e2e);
  res.mean_batch = steps > 0 ? sequences / steps : 0;
  res.output_tokens_per_s = output_tokens / res.duration_s;
  res.input_tokens_per_s = input_tokens / res.duration_s;
  res.output_tokens_per_s_per_gpu = res.output_tokens_per_s / res.gpus;
  if (res.price_per_hour_usd) {
    res.cost_per_mtoken_usd = *res.price_per_hour_usd / 3600 * res.duration_s / output_tokens * 1e6;
  }
}

}  // namespace

ServingP99s p99s_of(const ServingResult& r) {
  return {r.ttft.p99_s, r.tpot.p99_s, r.e2e.p99_s};
}

ServingSystem::ServingSystem(const topo::Topology& machine, const ModelSpec& model,
                             const Scenario& scenario)
    : energy_note_(energy_unknown_note(machine)), scenario_(scenario) {
  const ServingLoad& load = scenario.job.serving;
  // The memory check and the plan's validity, as a decode of one longest request.
  Scenario one = scenario;
  one.job.kind = JobKind::decode;
  one.job.global_batch = scenario.plan.data;  // one request per replica
  const JobResult check = simulate_job(machine, model, one);
  base_.machine = check.machine;
  base_.machine_title = check.machine_title;
  base_.price_per_hour_usd = check.price_per_hour_usd;
  base_.price_as_of = check.price_as_of;
  base_.gpus = check.gpus;
  power_ = powered_machines(machine, check.gpus);

  const int budget = fit_kv_cache(machine, model, scenario, base_);

  // Iteration times from the engine, on one replica.
  Scenario timing = scenario;
  timing.plan.data = 1;
  timing.plan.data_fills = false;
  JobOptions no_check;
  no_check.check_memory = false;
  prefill_ = StepTable(budget, [&](int tokens) {
    timing.job.kind = JobKind::prefill;
    timing.job.global_batch = 1;
    timing.job.sequence_length = tokens;
    return simulate_job(machine, model, timing, no_check).step_s;
  });
  const int max_concurrent = static_cast<int>(std::min<double>(
      load.max_batch,
      std::floor(base_.kv_capacity_tokens / (load.input_tokens.min + load.output_tokens.min))));
  decode_ = StepTable(std::max(max_concurrent, 1), [&](int batch) {
    timing.job.kind = JobKind::decode;
    timing.job.global_batch = batch;
    timing.job.sequence_length = static_cast<int>(std::lround(load.input_tokens.mean()));
    timing.job.decode_tokens = static_cast<int>(std::lround(load.output_tokens.mean()));
    return simulate_job(machine, model, timing, no_check).step_s;
  });
}

double ServingSystem::unloaded_request_s() const {
  const ServingLoad& load = scenario_.job.serving;
  return prefill_.at(load.input_tokens.mean()) +
         decode_.at(1) * std::max(0.0, load.output_tokens.mean() - 1);
}

ServingResult ServingSystem::at_rate(double request_rate_per_s) const {
  ServingLoad load = scenario_.job.serving;
  load.request_rate_per_s = request_rate_per_s;
  ServingResult res = base_;
  res.request_rate_per_s = request_rate_per_s;
  std::vector<Request> requests = draw_requests(load);
  std::vector<Replica> by_replica(static_cast<std::size_t>(replicas()));
  for (std::size_t i = 0; i < requests.size(); ++i)
    by_replica[i % by_replica.size()].requests.push_back(&requests[i]);
  double steps = 0;
  double sequences = 0;
  double busy_s = 0;
  for (auto& r : by_replica) {
    const ReplicaStats s = run_replica(r, load, res.kv_capacity_tokens, prefill_, decode_);
    busy_s += s.busy_s;
    steps += s.decode_steps;
    sequences += s.decode_sequences;
    res.max_batch_seen = std::max(res.max_batch_seen, s.max_batch);
  }

  tally_requests(requests, steps, sequences, res);
  double output_tokens = 0;
  for (const auto& r : requests)
    output_tokens += r.output;
  res.energy =
      serving_energy(power_, res.duration_s, busy_s * res.gpus / replicas(), output_tokens);
  if (energy_note_) res.notes.push_back(*energy_note_);
  res.notes.push_back(fmt::format(
      "iteration times: engine simulations of prefills and decode steps at powers of two, "
      "interpolated; decode at context {:g} + {:g}/2",
      load.input_tokens.mean(), load.output_tokens.mean()));
  return res;
}

namespace {

// The SLO search starts where each replica would be busy a tenth of the time serving mean
// requests one at a time: nearly unloaded, so a miss there is the hardware's, not the queue's.
constexpr double kSloSearchStartLoad = 0.1;

// Each p99 an SLO bounds against its bound.
std::string slo_misses(const ServingSlo& slo, const ServingP99s& p99) {
  auto one = [](const char* name, double value_s, double bound_s) {
    return fmt::format("{} p99 {} ({} {})", name, units::format_time(value_s),
                       value_s > bound_s ? "over the SLO's" : "within the SLO's",
                       units::format_time(bound_s));
  };
  std::string s =
      one("TTFT", p99.ttft_s, slo.ttft_p99_s) + ", " + one("TPOT", p99.tpot_s, slo.tpot_p99_s);
  if (slo.e2e_p99_s) s += ", " + one("E2E", p99.e2e_s, *slo.e2e_p99_s);
  return s;
}

}  // namespace

ServingResult simulate_serving(const topo::Topology& machine, const ModelSpec& model,
                               const Scenario& scenario) {
  const ServingSystem system(machine, model, scenario);
  const ServingLoad& load = scenario.job.serving;
  if (!load.slo) return system.at_rate(load.request_rate_per_s);

  RateSearchOptions options;
  options.start_rate_per_s = kSloSearchStartLoad * system.replicas() / system.unloaded_request_s();
  const ServingCapacity capacity = search_capacity(
      [&](double rate) { return p99s_of(system.at_rate(rate)); }, *load.slo, options);
  if (!capacity.feasible && !load.rate_stated) {
    throw DoesNotFit(
        scenario.file, "/job/slo",
        fmt::format("no request rate meets the SLO on {}: at {:.4g} requests/s, the lowest "
                    "rate tried, {}",
                    machine.name, capacity.lowest_rate_per_s,
                    slo_misses(*load.slo, capacity.at_lowest)));
  }
  ServingResult res =
      system.at_rate(load.rate_stated ? load.request_rate_per_s : capacity.max_rate_per_s);
  res.capacity = capacity;
  res.meets_slo = meets_slo(*load.slo, p99s_of(res));
  if (capacity.feasible) {
    res.max_rate_cost_per_mtoken_usd =
        load.rate_stated ? system.at_rate(capacity.max_rate_per_s).cost_per_mtoken_usd
                         : res.cost_per_mtoken_usd;
  }
  if (!capacity.feasible) {
    res.notes.push_back(fmt::format(
        "no request rate meets the SLO: at {:.4g} requests/s, the lowest rate tried, {}",
        capacity.lowest_rate_per_s, slo_misses(*load.slo, capacity.at_lowest)));
  } else if (!capacity.bounded) {
    res.notes.push_back(fmt::format(
        "the SLO is met even at {:.4g} requests/s, where the {} requests arrive all but at "
        "once: simulate more requests (job.requests) to find the limit",
        capacity.max_rate_per_s, load.requests));
  }
  res.notes.push_back(fmt::format(
      "SLO search: {} rates simulated from {:.4g}/s (a tenth of the replicas' unloaded rate), "
      "doubling, then bisecting to {:g}%",
      capacity.rates_simulated, options.start_rate_per_s, capacity.tolerance * 100));
  return res;
}

}  // namespace linksim::work
