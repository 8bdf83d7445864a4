#include "sim/report/serving_report.hpp"

#include <fmt/format.h>

#include "sim/core/units.hpp"

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

std::string load_line(const work::Scenario& sc) {
  const auto& l = sc.job.serving;
  auto range = [](const work::LengthRange& r) {
    return r.min == r.max ? fmt::format("{}", r.min) : fmt::format("{}-{}", r.min, r.max);
  };
  return fmt::format(
      "{} requests at {:g}/s (Poisson, seed {}), {} input and {} output tokens, "
      "at most {} sequences at once",
      l.requests, l.request_rate_per_s, l.seed, range(l.input_tokens), range(l.output_tokens),
      l.max_batch);
}

}  // namespace

std::string format_serving(const work::ServingResult& r, const work::Scenario& sc) {
  std::string out = fmt::format("{}\n", sc.title);
  out += fmt::format("  machine        {} ({} GPUs): {}\n", r.machine, r.gpus, r.machine_title);
  if (!r.failure.empty()) return out + fmt::format("  does not run: {}\n", r.failure);
  out += fmt::format("  model          {}\n", sc.model);
  out += fmt::format("  load           {}\n", load_line(sc));
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
    out += fmt::format("  cost               ${:.2f}/hour, ${:.4g} per Mtoken of output\n",
                       *r.price_per_hour_usd, *r.cost_per_mtoken_usd);
  }
  for (const auto& n : r.notes)
    out += fmt::format("  note: {}\n", n);
  return out;
}

std::string format_serving_comparison(const std::vector<work::ServingResult>& results,
                                      const work::Scenario& sc) {
  std::string out = fmt::format("{}\n{} on {}\n\n", sc.title, load_line(sc), plan_line(sc));
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
  if (r.price_per_hour_usd) j["price_per_hour_usd"] = *r.price_per_hour_usd;
  if (r.cost_per_mtoken_usd) j["cost_per_mtoken_usd"] = *r.cost_per_mtoken_usd;
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
