#include "sim/report/serving_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "sim/core/units.hpp"
#include "sim/report/price_when.hpp"

namespace linksim::report {
namespace {

using units::format_time;

std::string stats_line(const char* name, const work::LatencyStats& s) {
  return fmt::format("    {:<22} mean {:>9}  p50 {:>9}  p90 {:>9}  p99 {:>9}\n", name,
                     format_time(s.mean_s), format_time(s.p50_s), format_time(s.p90_s),
                     format_time(s.p99_s));
}

Json stats_json(const work::LatencyStats& s) {
  return {{"mean_s", s.mean_s}, {"p50_s", s.p50_s}, {"p90_s", s.p90_s}, {"p99_s", s.p99_s}};
}

std::string plan_line(const work::Scenario& sc) {
  const auto& p = sc.plan;
  std::string s = fmt::format("DP {} x TP {} x PP {}", p.data, p.tensor, p.pipeline);
  const auto& q = sc.job.precision;
  if (!q.weights.empty()) s += fmt::format(", weights {}", q.weights);
  if (!q.kv_cache.empty()) s += fmt::format(", KV cache {}", q.kv_cache);
  return s;
}

// The load: its rate is the scenario's, or with an SLO and no rate, each machine's highest rate
// that meets it (`rate_per_s`, when one machine's).
std::string load_line(const work::Scenario& sc, std::optional<double> rate_per_s) {
  const auto& l = sc.job.serving;
  auto range = [](const work::LengthRange& r) {
    return r.min == r.max ? fmt::format("{}", r.min) : fmt::format("{}-{}", r.min, r.max);
  };
  std::string rate = fmt::format("{:g}/s", l.request_rate_per_s);
  if (!l.rate_stated) {
    rate = rate_per_s ? fmt::format("{:.4g}/s, the highest rate that meets the SLO", *rate_per_s)
                      : std::string("each machine's highest rate that meets the SLO");
  }
  return fmt::format(
      "{} requests at {} (Poisson, seed {}), {} input and {} output tokens, "
      "at most {} sequences at once",
      l.requests, rate, l.seed, range(l.input_tokens), range(l.output_tokens), l.max_batch);
}

// "p99 TTFT <= 500 ms, TPOT <= 50 ms": the bounds the scenario states.
std::string slo_text(const work::ServingSlo& slo) {
  std::string s = fmt::format("p99 TTFT <= {}, TPOT <= {}", format_time(slo.ttft_p99_s),
                              format_time(slo.tpot_p99_s));
  if (slo.e2e_p99_s) s += fmt::format(", E2E <= {}", format_time(*slo.e2e_p99_s));
  return s;
}

// The highest rate under the SLO, and the search's bracket, in words.
std::string max_rate_text(const work::ServingResult& r) {
  const work::ServingCapacity& c = *r.capacity;
  if (!c.feasible) return "none: no rate meets the SLO (see the note)";
  std::string s;
  if (c.bounded) {
    s = fmt::format("{:.4g} requests/s ({:.4g}/s misses the SLO; bisected to {:g}%)",
                    c.max_rate_per_s, c.failing_rate_per_s, c.tolerance * 100);
  } else {
    s = fmt::format("at least {:.4g} requests/s (the SLO held at every rate tried)",
                    c.max_rate_per_s);
  }
  if (r.max_rate_cost_per_mtoken_usd) {
    s += fmt::format(", ${:.4g} per Mtoken of output there", *r.max_rate_cost_per_mtoken_usd);
  }
  return s;
}

// compare with an SLO: cheapest per million output tokens at its own capacity first; then
// unpriced machines, most requests per GPU first; then those with no rate meeting the SLO;
// then those the job does not fit. Ties keep the order run.
std::vector<const work::ServingResult*> ranked_by_capacity_cost(
    const std::vector<work::ServingResult>& results) {
  auto group = [](const work::ServingResult& r) {
    if (!r.failure.empty()) return 3;
    if (!r.capacity || !r.capacity->feasible) return 2;
    return r.max_rate_cost_per_mtoken_usd ? 0 : 1;
  };
  std::vector<const work::ServingResult*> order;
  for (const auto& r : results)
    order.push_back(&r);
  std::stable_sort(order.begin(), order.end(), [&](const auto* a, const auto* b) {
    if (group(*a) != group(*b)) return group(*a) < group(*b);
    if (group(*a) == 0) return *a->max_rate_cost_per_mtoken_usd < *b->max_rate_cost_per_mtoken_usd;
    if (group(*a) == 1) {
      return a->capacity->max_rate_per_s / a->gpus > b->capacity->max_rate_per_s / b->gpus;
    }
    return false;
  });
  return order;
}

std::string format_slo_comparison(const std::vector<work::ServingResult>& results,
                                  const work::Scenario& sc) {
  const auto& l = sc.job.serving;
  std::string out = fmt::format("{}\n{} on {}\nSLO: {}\n", sc.title, load_line(sc, std::nullopt),
                                plan_line(sc), slo_text(*l.slo));
  out += l.rate_stated ? fmt::format(
                             "latencies, tokens/s and $/Mtoken at {:g}/s; ranked by $/Mtoken at "
                             "each machine's max rate\n\n",
                             l.request_rate_per_s)
                       : "latencies, tokens/s and $/Mtoken at each machine's max rate; ranked by "
                         "$/Mtoken there\n\n";
  out += fmt::format("{:<4} {:<22} {:>4} {:>10} {:>12} {:>6} {:>10} {:>10} {:>10} {:>12} {:>10}\n",
                     "rank", "machine", "GPUs", "max req/s", "$/Mtok@max", "SLO", "TTFT p99",
                     "TPOT p99", "E2E p99", "tokens/s/GPU", "$/Mtoken");
  int rank = 0;
  for (const auto* r : ranked_by_capacity_cost(results)) {
    ++rank;
    if (!r->failure.empty()) {
      out += fmt::format("{:<4} {:<22} {:>4}  does not fit: {}\n", rank, r->machine, r->gpus,
                         r->failure);
      continue;
    }
    const work::ServingCapacity& c = *r->capacity;
    const std::string max_rate = !c.feasible ? "none"
                                 : c.bounded ? fmt::format("{:.4g}", c.max_rate_per_s)
                                             : fmt::format(">={:.4g}", c.max_rate_per_s);
    auto usd = [](const std::optional<double>& v) {
      return v ? fmt::format("${:.4g}", *v) : std::string("-");
    };
    out += fmt::format(
        "{:<4} {:<22} {:>4} {:>10} {:>12} {:>6} {:>10} {:>10} {:>10} {:>12.4g} {:>10}\n", rank,
        r->machine, r->gpus, max_rate, usd(r->max_rate_cost_per_mtoken_usd),
        *r->meets_slo ? "met" : "missed", format_time(r->ttft.p99_s), format_time(r->tpot.p99_s),
        format_time(r->e2e.p99_s), r->output_tokens_per_s_per_gpu, usd(r->cost_per_mtoken_usd));
  }
  return out +
         "\n(max req/s: the highest request rate whose run meets every p99 of the SLO; "
         "$/Mtoken: per million output tokens, on a cloud instance file with a price)\n";
}

Json slo_json(const work::ServingSlo& slo) {
  Json j = {{"ttft_p99_s", slo.ttft_p99_s}, {"tpot_p99_s", slo.tpot_p99_s}};
  if (slo.e2e_p99_s) j["e2e_p99_s"] = *slo.e2e_p99_s;
  return j;
}

Json capacity_json(const work::ServingCapacity& c) {
  Json j = {{"feasible", c.feasible}, {"bounded", c.bounded}};
  if (c.bounded) j["failing_rate_per_s"] = c.failing_rate_per_s;
  j["lowest_rate_per_s"] = c.lowest_rate_per_s;
  j["at_lowest_rate"] = {{"ttft_p99_s", c.at_lowest.ttft_s},
                         {"tpot_p99_s", c.at_lowest.tpot_s},
                         {"e2e_p99_s", c.at_lowest.e2e_s}};
  j["tolerance"] = c.tolerance;
  j["rates_simulated"] = c.rates_simulated;
  return j;
}

}  // namespace

std::string format_serving(const work::ServingResult& r, const work::Scenario& sc) {
  std::string out = fmt::format("{}\n", sc.title);
  out += fmt::format("  machine        {} ({} GPUs): {}\n", r.machine, r.gpus, r.machine_title);
  if (!r.failure.empty()) return out + fmt::format("  does not run: {}\n", r.failure);
  out += fmt::format("  model          {}\n", sc.model);
  out += fmt::format("  load           {}\n", load_line(sc, r.request_rate_per_s));
  out += fmt::format("  plan           {}\n", plan_line(sc));
  out += fmt::format(
      "  memory / GPU   weights {}, working activations {}, KV cache {} ({:.0f} tokens per "
      "replica)\n\n",
      units::format_bytes_binary(r.memory.weights_bytes),
      units::format_bytes_binary(r.memory.activations_bytes),
      units::format_bytes_binary(r.memory.kv_cache_bytes), r.kv_capacity_tokens);
  out += "  latency\n";
  out += stats_line("time to first token", r.ttft);
  out += stats_line("time per output token", r.tpot);
  out += stats_line("end to end", r.e2e);
  out += fmt::format("  decode batch       {:.1f} sequences on average, {} at most\n", r.mean_batch,
                     r.max_batch_seen);
  out += fmt::format(
      "  throughput         {:.4g} output tokens/s ({:.4g} per GPU), {:.4g} input "
      "tokens/s, over {}\n",
      r.output_tokens_per_s, r.output_tokens_per_s_per_gpu, r.input_tokens_per_s,
      format_time(r.duration_s));
  if (r.price_per_hour_usd && r.cost_per_mtoken_usd) {
    out += fmt::format("  cost               ${:.2f}/hour ({}), ${:.4g} per Mtoken of output\n",
                       *r.price_per_hour_usd, price_when(r.price_as_of), *r.cost_per_mtoken_usd);
  }
  if (r.energy) {
    out += fmt::format("  energy             {} per output token ({} to {}); mean {}, {}\n",
                       units::format_energy(r.energy->per_output_token_j),
                       units::format_energy(r.energy->per_output_token_j_range.lo),
                       units::format_energy(r.energy->per_output_token_j_range.hi),
                       units::format_power(r.energy->mean_power_w),
                       r.energy->includes_hosts ? "GPUs and hosts" : "GPUs only (no host figure)");
  }
  if (r.capacity && r.meets_slo) {
    out += fmt::format("  SLO                {}: {} at {:.4g}/s\n", slo_text(*sc.job.serving.slo),
                       *r.meets_slo ? "met" : "missed", r.request_rate_per_s);
    out += fmt::format("  max rate           {}\n", max_rate_text(r));
  }
  for (const auto& n : r.notes)
    out += fmt::format("  note: {}\n", n);
  return out;
}

std::string format_serving_comparison(const std::vector<work::ServingResult>& results,
                                      const work::Scenario& sc) {
  if (sc.job.serving.slo) return format_slo_comparison(results, sc);
  std::string out =
      fmt::format("{}\n{} on {}\n\n", sc.title, load_line(sc, std::nullopt), plan_line(sc));
  out += fmt::format("{:<22} {:>4} {:>10} {:>10} {:>10} {:>10} {:>10} {:>12} {:>10}\n", "machine",
                     "GPUs", "TTFT p50", "TTFT p99", "TPOT p50", "TPOT p99", "E2E p99",
                     "tokens/s/GPU", "$/Mtoken");
  for (const auto& r : results) {
    if (!r.failure.empty()) {
      out += fmt::format("{:<22} {:>4}  does not fit: {}\n", r.machine, r.gpus, r.failure);
      continue;
    }
    out += fmt::format(
        "{:<22} {:>4} {:>10} {:>10} {:>10} {:>10} {:>10} {:>12.4g} {:>10}\n", r.machine, r.gpus,
        format_time(r.ttft.p50_s), format_time(r.ttft.p99_s), format_time(r.tpot.p50_s),
        format_time(r.tpot.p99_s), format_time(r.e2e.p99_s), r.output_tokens_per_s_per_gpu,
        r.cost_per_mtoken_usd ? fmt::format("${:.4g}", *r.cost_per_mtoken_usd) : "-");
  }
  return out +
         "\n($/Mtoken: per million output tokens; it needs a cloud instance file with a "
         "price)\n";
}

Json serving_json(const work::ServingResult& r, const work::Scenario& sc) {
  Json j = {{"scenario", sc.name}, {"machine", r.machine}, {"gpus", r.gpus}};
  j["status"] = r.failure.empty() ? "ok" : "does not fit";
  if (!r.failure.empty()) {
    j["failure"] = r.failure;
    return j;
  }
  j["requests"] = r.requests;
  j["request_rate_per_s"] = r.request_rate_per_s;
  if (sc.job.serving.slo) {
    j["slo"] = slo_json(*sc.job.serving.slo);
    if (r.meets_slo) j["meets_slo"] = *r.meets_slo;
    if (r.capacity) {
      j["max_rate_per_s"] = r.capacity->feasible ? Json(r.capacity->max_rate_per_s) : Json();
      if (r.max_rate_cost_per_mtoken_usd) {
        j["max_rate_cost_per_mtoken_usd"] = *r.max_rate_cost_per_mtoken_usd;
      }
      j["capacity"] = capacity_json(*r.capacity);
    }
  }
  j["duration_s"] = r.duration_s;
  j["ttft"] = stats_json(r.ttft);
  j["tpot"] = stats_json(r.tpot);
  j["e2e"] = stats_json(r.e2e);
  j["mean_batch"] = r.mean_batch;
  j["max_batch"] = r.max_batch_seen;
  j["output_tokens_per_s"] = r.output_tokens_per_s;
  j["output_tokens_per_s_per_gpu"] = r.output_tokens_per_s_per_gpu;
  j["input_tokens_per_s"] = r.input_tokens_per_s;
  j["kv_capacity_tokens"] = r.kv_capacity_tokens;
  if (r.price_per_hour_usd) {
    j["price_per_hour_usd"] = *r.price_per_hour_usd;
    j["price_as_of"] = r.price_as_of;
  }
  if (r.cost_per_mtoken_usd) j["cost_per_mtoken_usd"] = *r.cost_per_mtoken_usd;
  if (r.energy) {
    j["energy_per_output_token_j"] = r.energy->per_output_token_j;
    j["energy_per_output_token_j_range"] = {r.energy->per_output_token_j_range.lo,
                                            r.energy->per_output_token_j_range.hi};
    j["mean_power_w"] = r.energy->mean_power_w;
    j["energy_scope"] = r.energy->includes_hosts ? "gpus and hosts" : "gpus";
  }
  j["memory_bytes"] = {{"weights", r.memory.weights_bytes},
                       {"activations", r.memory.activations_bytes},
                       {"kv_cache", r.memory.kv_cache_bytes}};
  j["notes"] = r.notes;
  return j;
}

std::string servings_csv(const std::vector<work::ServingResult>& results,
                         const work::Scenario& sc) {
  std::string out =
      "scenario,machine,gpus,status,ttft_p50_s,ttft_p99_s,tpot_p50_s,tpot_p99_s,e2e_p50_s,"
      "e2e_p99_s,output_tokens_per_s,output_tokens_per_s_per_gpu,cost_per_mtoken_usd,failure\n";
  for (const auto& r : results) {
    if (!r.failure.empty()) {
      std::string reason = r.failure;
      for (auto& c : reason) {
        if (c == '"') c = '\'';
      }
      out += fmt::format("{},{},{},does not fit,,,,,,,,,,\"{}\"\n", sc.name, r.machine, r.gpus,
                         reason);
      continue;
    }
    out += fmt::format(
        "{},{},{},ok,{},{},{},{},{},{},{},{},{},\n", sc.name, r.machine, r.gpus,
        units::exact(r.ttft.p50_s), units::exact(r.ttft.p99_s), units::exact(r.tpot.p50_s),
        units::exact(r.tpot.p99_s), units::exact(r.e2e.p50_s), units::exact(r.e2e.p99_s),
        units::exact(r.output_tokens_per_s), units::exact(r.output_tokens_per_s_per_gpu),
        r.cost_per_mtoken_usd ? units::exact(*r.cost_per_mtoken_usd) : "");
  }
  return out;
}

}  // namespace linksim::report
