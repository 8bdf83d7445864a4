#include "sim/report/job_report.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/core/csv.hpp"
#include "sim/core/units.hpp"
#include "sim/report/price_when.hpp"

namespace linksim::report {
namespace {

using units::format_bytes;
using units::format_time;

std::string plan_text(const work::Scenario& sc) {
  const auto& p = sc.plan;
  std::string s = fmt::format("DP {} x TP {} x PP {}",
                              p.data_fills ? std::string("fill") : std::to_string(p.data), p.tensor,
                              p.pipeline);
  if (p.context > 1) s += fmt::format(" x CP {}", p.context);
  if (p.expert > 1) s += fmt::format(", EP {}", p.expert);
  if (p.zero_stage > 0) s += fmt::format(", ZeRO-{}", p.zero_stage);
  if (p.zero_stage >= 3 && !p.prefetch) s += " without prefetch";
  if (p.zero_stage >= 3 && p.prefetch && p.prefetch_depth > 1) {
    s += fmt::format(" prefetching {} layers ahead", p.prefetch_depth);
  }
  if (p.shard_group > 0) s += fmt::format(" sharded over groups of {} (hybrid)", p.shard_group);
  if (p.sequence_parallel) s += ", sequence parallel";
  if (p.micro_batches > 1) s += fmt::format(", {} micro-batches", p.micro_batches);
  if (p.virtual_stages > 1)
    s += fmt::format(", interleaved 1F1B ({} chunks/stage)", p.virtual_stages);
  if (p.first_stage_layers > 0) s += fmt::format(", first stage {} layers", p.first_stage_layers);
  if (p.last_stage_layers > 0) s += fmt::format(", last stage {} layers", p.last_stage_layers);
  if (p.recompute != work::Recompute::none) {
    s += fmt::format(", {} recompute", work::to_string(p.recompute));
  }
  if (p.flash_attention) s += *p.flash_attention ? ", FlashAttention" : ", no FlashAttention";
  if (p.activation_offload) s += ", activations offloaded";
  if (p.optimizer_offload) s += ", ZeRO-Offload";
  const auto& q = sc.job.precision;
  if (!q.weights.empty()) {
    s += fmt::format(", weights {}", q.weights);
    if (q.weights == "int8" || q.weights == "int4")
      s += fmt::format(" (groups of {})", q.group_size);
  }
  if (!q.kv_cache.empty()) s += fmt::format(", KV cache {}", q.kv_cache);
  return s;
}

std::string job_text(const work::Scenario& sc) {
  if (sc.gradient_sync) return "gradient sync";
  const auto& j = sc.job;
  switch (j.kind) {
    case work::JobKind::training: {
      std::string s =
          fmt::format("training step, {} x {} tokens", j.global_batch, j.sequence_length);
      if (j.finetune.adapters()) {
        s += fmt::format(", {} rank {} on {}",
                         j.finetune.method == work::FinetuneMethod::qlora ? "QLoRA" : "LoRA",
                         j.finetune.rank, fmt::join(j.finetune.target_modules, ", "));
      }
      return s;
    }
    case work::JobKind::prefill:
      return fmt::format("prefill, {} x {} tokens", j.global_batch, j.sequence_length);
    case work::JobKind::decode:
      return fmt::format("decode, batch {}, {} prompt + {} new tokens", j.global_batch,
                         j.sequence_length, j.decode_tokens);
    case work::JobKind::serving:
      return fmt::format("serving {} requests at {:g}/s", j.serving.requests,
                         j.serving.request_rate_per_s);
  }
  return "";
}

std::string step_label(const work::Scenario& sc) {
  if (sc.gradient_sync) return "step";
  switch (sc.job.kind) {
    case work::JobKind::training:
      return "step";
    case work::JobKind::prefill:
      return "request";
    case work::JobKind::decode:
    case work::JobKind::serving:
      return "token";
  }
  return "step";
}

// What a cost column counts: a training step; one request of a prefill batch; one token of a
// decode step (a step makes one token per sequence of the batch), so that $/token x 1e6 is
// $/Mtoken.
struct CostUnit {
  std::string label;
  double per_step = 1;
};
CostUnit cost_unit(const work::Scenario& sc) {
  if (sc.gradient_sync) return {"step", 1};
  switch (sc.job.kind) {
    case work::JobKind::training:
      return {"step", 1};
    case work::JobKind::prefill:
      return {"request", static_cast<double>(sc.job.global_batch)};
    case work::JobKind::decode:
    case work::JobKind::serving:
      return {"token", static_cast<double>(sc.job.global_batch)};
  }
  return {"step", 1};
}

std::string status(const work::JobResult& r) {
  return r.failure.empty() ? "ok" : "does not fit";
}

std::string money(std::optional<double> v, double scale, const char* unit) {
  if (!v) return "-";
  return fmt::format("${:.4g}{}", *v * scale, unit);
}

// What a step range spans, in the report's words. A scenario that states its compute efficiency
// gets that figure at both ends: the stated uncertainty is of the derived compute model, which
// the override replaces.
std::string range_basis(const work::JobResult& r, const work::Scenario& sc) {
  const std::string network = r.network_range_fitted ? "fitted network figures at their 95% bounds"
                                                     : "network constants at their stated bounds";
  if (sc.compute.efficiency) {
    return fmt::format("compute at the scenario's compute.efficiency {:g} throughout, {}",
                       *sc.compute.efficiency, network);
  }
  return r.network_range_fitted ? "compute constants at their stated bounds, " + network
                                : "compute and network constants at their stated bounds";
}

// Joules per step (per request, per token: the cost column's unit), per token beside it, and the
// mean power, each figure with its range (job_energy.hpp).
std::string energy_text(const work::JobResult& r, const work::Scenario& sc) {
  const work::JobEnergy& e = *r.energy;
  const CostUnit unit = cost_unit(sc);
  const auto span = [](double lo, double hi) {
    return fmt::format("{} to {}", units::format_energy(lo), units::format_energy(hi));
  };
  std::string line =
      fmt::format("{} per {} ({})", units::format_energy(e.step_j / unit.per_step), unit.label,
                  span(e.step_j_range.lo / unit.per_step, e.step_j_range.hi / unit.per_step));
  if (unit.label != "token" && e.per_token_j > 0) {
    line += fmt::format(", {} per token ({})", units::format_energy(e.per_token_j),
                        span(e.per_token_j_range.lo, e.per_token_j_range.hi));
  }
  line += fmt::format("; mean {}, {}", units::format_power(e.mean_power_w),
                      e.includes_hosts ? "GPUs and hosts" : "GPUs only (no host figure)");
  return line;
}

std::string energy_line(const work::JobResult& r, const work::Scenario& sc) {
  return "  energy             " + energy_text(r, sc) + "\n";
}

// The model, job, plan and memory lines of a model job.
std::string job_lines(const work::JobResult& r, const work::Scenario& sc) {
  std::string out;
  out += fmt::format("  model          {}\n", sc.model);
  out += fmt::format("  job            {}\n", job_text(sc));
  out += fmt::format("  plan           {}\n", plan_text(sc));
  out += fmt::format(
      "  memory / GPU   {} (weights {}, gradients {}, optimizer {}, "
      "activations {}, KV cache {})\n",
      units::format_bytes_binary(r.memory.total_bytes()),
      units::format_bytes_binary(r.memory.weights_bytes),
      units::format_bytes_binary(r.memory.gradients_bytes),
      units::format_bytes_binary(r.memory.optimizer_bytes),
      units::format_bytes_binary(r.memory.activations_bytes),
      units::format_bytes_binary(r.memory.kv_cache_bytes));
  if (r.memory.host_bytes > 0) {
    out += fmt::format("  host memory    {} per GPU offloaded\n",
                       units::format_bytes_binary(r.memory.host_bytes));
  }
  return out;
}

// The step's split (the first three add up to it), its share, throughput and cost.
std::string step_split_lines(const work::JobResult& r, const work::Scenario& sc) {
  std::string out;
  // The engine's split (sim/engine/summary.hpp): the first three add up to the step.
  out += fmt::format("    compute          {}  (per GPU, average)\n", format_time(r.compute_s));
  if (!r.compute_by_operation.empty()) {
    // The derived compute model's split (sim/work/layer_ops.hpp): what bounds the compute.
    std::vector<std::string> parts;
    for (const auto& [kind, share] : r.compute_by_operation)
      parts.push_back(fmt::format("{} {:.0f}%", kind, 100 * share));
    out += fmt::format("      by operation   {}\n", fmt::join(parts, ", "));
  }
  out +=
      fmt::format("    communication    {}  exposed: the GPU waits on a transfer or collective\n",
                  format_time(r.exposed_comm_s));
  out += fmt::format("    idle / bubble    {}  waiting on another rank's compute\n",
                     format_time(r.idle_s));
  out += fmt::format("    hidden comm      {}  beside compute, not in the sum ({} in all)\n",
                     format_time(r.hidden_comm_s), format_time(r.comm_s));
  out += fmt::format("  communication share  {:.1f}% of the {} (exposed)\n", 100 * r.comm_share,
                     step_label(sc));
  if (r.tokens_per_s > 0)
    out += fmt::format("  throughput         {:.4g} tokens/s\n", r.tokens_per_s);
  if (r.price_per_hour_usd) {
    // The machine's list price, or on a cluster the nodes the job occupies.
    const CostUnit unit = cost_unit(sc);
    std::string cost =
        fmt::format("  cost               ${:.2f}/hour ({}), ${:.4g} per {}", *r.price_per_hour_usd,
                    price_when(r.price_as_of),
                    *r.price_per_hour_usd / 3600 * r.step_s / unit.per_step, unit.label);
    if (r.tokens_per_s > 0) {
      cost +=
          fmt::format(", ${:.4g} per Mtoken", *r.price_per_hour_usd / 3600 / r.tokens_per_s * 1e6);
    }
    out += cost + "\n";
  }
  if (r.energy) out += energy_line(r, sc);
  if (r.to_train) {
    const work::TimeToTrain& t = *r.to_train;
    // Days, GPU-hours and cost scale with the step; energy has its own range (job_energy.hpp).
    const auto ranged = [&r](double v, const char* spec) {
      if (!r.step_range_s) return std::string();
      return fmt::format(" ({} to {})",
                         fmt::format(fmt::runtime(spec), v * r.step_range_s->lo / r.step_s),
                         fmt::format(fmt::runtime(spec), v * r.step_range_s->hi / r.step_s));
    };
    std::string line = fmt::format("  to train           {:.4g} tokens: {:.3g} days{}", t.tokens,
                                   t.time_s / 86400, ranged(t.time_s / 86400, "{:.3g}"));
    if (t.goodput < 1) line += fmt::format(" at {:.0f}% goodput", 100 * t.goodput);
    line += fmt::format(", {:.4g} GPU-hours{}", t.gpu_hours, ranged(t.gpu_hours, "{:.4g}"));
    if (t.cost_usd) line += fmt::format(", ${:.4g}{}", *t.cost_usd, ranged(*t.cost_usd, "${:.4g}"));
    if (r.energy && r.energy->to_train_j) {
      line += fmt::format(", {} ({} to {})", units::format_energy(*r.energy->to_train_j),
                          units::format_energy(r.energy->to_train_j_range->lo),
                          units::format_energy(r.energy->to_train_j_range->hi));
    }
    out += line + "\n";
  }
  if (r.comm_sm_share > 0) {
    out += fmt::format(
        "  compute beside communication runs with {:.0f}% of the SMs taken by "
        "NCCL channels\n",
        100 * r.comm_sm_share);
  }
  return out;
}

// Communication by parallel group and by collective, and the bottleneck links.
std::string breakdown_lines(const work::JobResult& r) {
  std::string out;
  if (!r.by_group.empty()) {
    out += "\n  by parallel group   collectives       bytes        time\n";
    for (const auto& [g, s] : r.by_group) {
      out += fmt::format("    {:<18}{:>11}  {:>10}  {:>10}\n", g, s.collectives,
                         format_bytes(s.bytes), format_time(s.time_s));
    }
  }
  if (!r.by_collective.empty()) {
    out += "  by collective\n";
    for (const auto& [c, s] : r.by_collective) {
      out += fmt::format("    {:<18}{:>11}  {:>10}  {:>10}\n", c, s.collectives,
                         format_bytes(s.bytes), format_time(s.time_s));
    }
  }
  if (!r.bottlenecks.empty()) {
    out += "  bottleneck links\n";
    for (const auto& b : r.bottlenecks)
      out += "    " + b + "\n";
  }
  return out;
}

}  // namespace

std::string format_job(const work::JobResult& r, const work::Scenario& sc) {
  std::string out = fmt::format("{}\n", sc.title);
  if (!r.failure.empty()) {
    return out + fmt::format("  machine        {} ({} GPUs): {}\n  does not run: {}\n", r.machine,
                             r.gpus, r.machine_title, r.failure);
  }
  out += fmt::format("  machine        {} ({} GPUs): {}\n", r.machine, r.gpus, r.machine_title);
  if (!sc.gradient_sync) out += job_lines(r, sc);
  out += fmt::format("\n  {} time{:<10} {}", step_label(sc), "", format_time(r.step_s));
  if (r.step_range_s) {
    out += fmt::format("  (range {} to {}: {})", format_time(r.step_range_s->lo),
                       format_time(r.step_range_s->hi), range_basis(r, sc));
  }
  out += "\n";
  if (sc.job.kind == work::JobKind::decode && !sc.gradient_sync) {
    out += fmt::format("  request time       {} ({} tokens)\n", format_time(r.request_s),
                       sc.job.decode_tokens);
  }
  out += step_split_lines(r, sc);
  out += breakdown_lines(r);
  for (const auto& n : r.notes)
    out += "  note: " + n + "\n";
  if (!r.advice.empty()) {
    out += "  advice\n";
    for (const auto& a : r.advice)
      out += "    - " + a + "\n";
  }
  return out;
}

Json job_json(const work::JobResult& r, const work::Scenario& sc) {
  Json j;
  j["scenario"] = sc.name;
  j["machine"] = r.machine;
  j["gpus"] = r.gpus;
  j["status"] = status(r);
  if (!r.failure.empty()) {
    // No figures: the job did not run here, and zeros would read as a very fast machine.
    j["failure"] = r.failure;
    return j;
  }
  j["step_s"] = r.step_s;
  if (r.step_range_s) j["step_range_s"] = {r.step_range_s->lo, r.step_range_s->hi};
  j["request_s"] = r.request_s;
  j["compute_s"] = r.compute_s;
  j["comm_s"] = r.comm_s;
  j["exposed_comm_s"] = r.exposed_comm_s;
  j["hidden_comm_s"] = r.hidden_comm_s;
  j["idle_s"] = r.idle_s;
  j["comm_share"] = r.comm_share;
  j["tokens_per_s"] = r.tokens_per_s;
  if (!r.compute_by_operation.empty()) {
    Json ops = Json::object();
    for (const auto& [kind, share] : r.compute_by_operation)
      ops[kind] = share;
    j["compute_by_operation"] = ops;
  }
  if (r.price_per_hour_usd) {
    j["price_per_hour_usd"] = *r.price_per_hour_usd;
    j["price_as_of"] = r.price_as_of;
  }
  if (r.to_train) {
    j["train_tokens"] = r.to_train->tokens;
    j["goodput"] = r.to_train->goodput;
    j["time_to_train_s"] = r.to_train->time_s;
    j["gpu_hours"] = r.to_train->gpu_hours;
    if (r.to_train->cost_usd) j["cost_to_train_usd"] = *r.to_train->cost_usd;
  }
  if (r.energy) {
    const work::JobEnergy& e = *r.energy;
    j["energy_per_step_j"] = e.step_j;
    j["energy_per_step_j_range"] = {e.step_j_range.lo, e.step_j_range.hi};
    if (e.per_token_j > 0) {
      j["energy_per_token_j"] = e.per_token_j;
      j["energy_per_token_j_range"] = {e.per_token_j_range.lo, e.per_token_j_range.hi};
    }
    j["mean_power_w"] = e.mean_power_w;
    j["energy_scope"] = e.includes_hosts ? "gpus and hosts" : "gpus";
    if (e.to_train_j) {
      j["energy_to_train_j"] = *e.to_train_j;
      j["energy_to_train_j_range"] = {e.to_train_j_range->lo, e.to_train_j_range->hi};
    }
  }
  Json groups = Json::object();
  for (const auto& [g, s] : r.by_group) {
    groups[g] = {{"collectives", s.collectives}, {"bytes", s.bytes}, {"time_s", s.time_s}};
  }
  j["by_group"] = groups;
  Json colls = Json::object();
  for (const auto& [c, s] : r.by_collective) {
    colls[c] = {{"collectives", s.collectives}, {"bytes", s.bytes}, {"time_s", s.time_s}};
  }
  j["by_collective"] = colls;
  j["memory_bytes"] = {{"weights", r.memory.weights_bytes},
                       {"gradients", r.memory.gradients_bytes},
                       {"optimizer", r.memory.optimizer_bytes},
                       {"activations", r.memory.activations_bytes},
                       {"kv_cache", r.memory.kv_cache_bytes}};
  if (r.memory.host_bytes > 0) j["memory_bytes"]["host"] = r.memory.host_bytes;
  j["bottlenecks"] = r.bottlenecks;
  j["advice"] = r.advice;
  j["notes"] = r.notes;
  return j;
}

std::string jobs_csv(const std::vector<work::JobResult>& results, const work::Scenario& sc) {
  std::string out =
      "scenario,machine,gpus,status,step_s,request_s,compute_s,comm_s,exposed_comm_s,"
      "hidden_comm_s,idle_s,comm_share,tokens_per_s,price_per_hour_usd,failure\n";
  for (const auto& r : results) {
    const std::string price = r.price_per_hour_usd ? units::exact(*r.price_per_hour_usd) : "";
    if (!r.failure.empty()) {
      // Empty figures (not zeros) and the reason, quoted as RFC 4180 has it.
      out += fmt::format("{},{},{},{},,,,,,,,,,{},{}\n", sc.name, r.machine, r.gpus, status(r),
                         price, csv_field(r.failure));
      continue;
    }
    out += fmt::format(
        "{},{},{},{},{},{},{},{},{},{},{},{},{},{},\n", sc.name, r.machine, r.gpus, status(r),
        units::exact(r.step_s), units::exact(r.request_s), units::exact(r.compute_s),
        units::exact(r.comm_s), units::exact(r.exposed_comm_s), units::exact(r.hidden_comm_s),
        units::exact(r.idle_s), units::exact(r.comm_share), units::exact(r.tokens_per_s), price);
  }
  return out;
}

std::string format_comparison(const std::vector<work::JobResult>& results,
                              const work::Scenario& sc) {
  std::string out = fmt::format("{}\n{} on {}\n\n", sc.title, job_text(sc), plan_text(sc));
  const CostUnit unit = cost_unit(sc);
  out += fmt::format("{:<26} {:>4} {:>10} {:>8} {:>12} {:>9} {:>11} {:>11}\n", "machine", "GPUs",
                     step_label(sc), "comm %", "tokens/s", "$/hour", "$/" + unit.label, "$/Mtoken");
  for (const auto& r : results) {
    if (!r.failure.empty()) {
      out += fmt::format("{:<26} {:>4}  does not fit: {}\n", r.machine, r.gpus, r.failure);
      continue;
    }
    std::optional<double> per_unit;
    std::optional<double> per_mtok;
    if (r.price_per_hour_usd) {
      per_unit = *r.price_per_hour_usd / 3600 * r.step_s / unit.per_step;
      if (r.tokens_per_s > 0) per_mtok = *r.price_per_hour_usd / 3600 / r.tokens_per_s * 1e6;
    }
    out += fmt::format("{:<26} {:>4} {:>10} {:>7.1f}% {:>12.4g} {:>9} {:>11} {:>11}\n", r.machine,
                       r.gpus, format_time(r.step_s), 100 * r.comm_share, r.tokens_per_s,
                       money(r.price_per_hour_usd, 1, ""), money(per_unit, 1, ""),
                       money(per_mtok, 1, ""));
  }
  out += "\n($ columns need a cloud instance file with a price; bare machines show -.)\n";
  for (const auto& r : results) {
    std::vector<std::string> parts;
    if (r.step_range_s) {
      parts.push_back(fmt::format("{} {} to {} ({})", step_label(sc),
                                  format_time(r.step_range_s->lo), format_time(r.step_range_s->hi),
                                  range_basis(r, sc)));
    }
    if (r.energy) {
      parts.push_back(fmt::format("{} per {}, mean {} ({})",
                                  units::format_energy(r.energy->step_j / unit.per_step),
                                  unit.label, units::format_power(r.energy->mean_power_w),
                                  r.energy->includes_hosts ? "GPUs and hosts" : "GPUs only"));
    }
    if (!parts.empty()) out += fmt::format("{}: {}\n", r.machine, fmt::join(parts, "; "));
  }
  return out;
}

std::string format_gradient_sync(const std::vector<work::GradientSyncResult>& results,
                                 const work::Scenario& sc) {
  std::string out = fmt::format("{}\n\n", sc.title);
  out += fmt::format("{:<22} {:>24} {:>24}\n", "", "seed's simple model", "simulated all-reduce");
  out += fmt::format("{:<22} {:>12} {:>11} {:>12} {:>11}\n", "machine", "step", "comm %", "step",
                     "comm %");
  for (const auto& r : results) {
    out += fmt::format("{:<22} {:>12} {:>10.1f}% {:>12} {:>10.1f}%\n", r.simple.machine,
                       format_time(r.simple.step_s), 100 * r.simple.comm_share,
                       format_time(r.realistic.step_s), 100 * r.realistic.comm_share);
  }
  out += "\n";
  for (const auto& r : results) {
    out += fmt::format("{}:\n", r.simple.machine);
    for (const auto& n : r.simple.notes)
      out += "  simple: " + n + "\n";
    for (const auto& n : r.realistic.notes)
      out += "  simulated: " + n + "\n";
    if (const auto& range = r.realistic.step_range_s) {
      out += fmt::format(
          "  calibrated range: simulated step {} to {} with every fitted figure at its 95% "
          "bounds\n",
          format_time(range->lo), format_time(range->hi));
    }
    if (r.realistic.energy) out += "  simulated energy: " + energy_text(r.realistic, sc) + "\n";
    for (const auto& a : r.realistic.advice)
      out += "  advice: " + a + "\n";
  }
  return out;
}

namespace {

// What a plan offloads to host memory: "-", "opt" (optimizer state), "opt+act" (and the
// activations), "act".
std::string offload_text(const work::ParallelPlan& p) {
  if (p.optimizer_offload && p.activation_offload) return "opt+act";
  if (p.optimizer_offload) return "opt";
  if (p.activation_offload) return "act";
  return "-";
}

std::string plan_split(const work::ParallelPlan& p) {
  return fmt::format("{:>3} {:>3} {:>3} {:>2} {:>3} {:>5} {:>7} {:>4}", p.data, p.tensor,
                     p.pipeline, p.virtual_stages, p.expert, p.zero_stage, offload_text(p),
                     p.micro_batches);
}

}  // namespace

std::string format_plans(const work::PlanSearchResult& result, const work::Scenario& sc,
                         std::size_t top) {
  std::string out = fmt::format("{}\n{}\n", sc.title, job_text(sc));
  out += fmt::format(
      "{} plans tried, {} run and fit in memory, {} simulated; best {} by {}:\n\n",
      result.enumerated, result.fitting, result.simulated, std::min(top, result.ranked.size()),
      result.rank_by == work::PlanRanking::tokens_per_s      ? std::string("tokens/s")
      : result.rank_by == work::PlanRanking::cost_per_mtoken ? std::string("$/Mtoken")
                                                             : step_label(sc) + " time");
  out += fmt::format(
      "{:>4}  {:<22} {:>4}  {:>3} {:>3} {:>3} {:>2} {:>3} {:>5} {:>7} {:>4} {:>10} {:>10} {:>10} "
      "{:>10} {:>11} {:>9} {:>10}\n",
      "rank", "machine", "GPUs", "DP", "TP", "PP", "VP", "EP", "ZeRO", "offload", "mb",
      step_label(sc), "compute", "exposed", "idle", "tokens/s", "$/Mtoken", "memory/GPU");
  for (std::size_t i = 0; i < std::min(top, result.ranked.size()); ++i) {
    const auto& r = result.ranked[i];
    out += fmt::format(
        "{:>4}  {:<22} {:>4}  {} {:>10} {:>10} {:>10} {:>10} {:>11.4g} {:>9} {:>10}\n", i + 1,
        r.machine, r.result.gpus, plan_split(r.plan), format_time(r.result.step_s),
        format_time(r.result.compute_s), format_time(r.result.exposed_comm_s),
        format_time(r.result.idle_s), r.result.tokens_per_s, money(r.cost_per_mtoken_usd, 1, ""),
        units::format_bytes_binary(r.result.memory.total_bytes()));
  }
  std::string ranges;
  for (std::size_t i = 0; i < std::min(top, result.ranked.size()); ++i) {
    const work::JobResult& r = result.ranked[i].result;
    if (!r.step_range_s) continue;
    std::string line = fmt::format("{:>4}  {} to {}", i + 1, format_time(r.step_range_s->lo),
                                   format_time(r.step_range_s->hi));
    if (r.energy && r.energy->per_token_j > 0) {
      line += fmt::format("; {} per token ({} to {}), mean {}",
                          units::format_energy(r.energy->per_token_j),
                          units::format_energy(r.energy->per_token_j_range.lo),
                          units::format_energy(r.energy->per_token_j_range.hi),
                          units::format_power(r.energy->mean_power_w));
    }
    ranges += line + "\n";
  }
  if (!ranges.empty()) {
    out += fmt::format("\n{} range ({}), energy:\n{}", step_label(sc),
                       range_basis(result.ranked.front().result, sc), ranges);
  }
  if (result.simulated < result.fitting) {
    out += fmt::format("\n({} more plans fit and were not simulated; raise --max-plans)\n",
                       result.fitting - result.simulated);
  }
  out +=
      "\n(VP: model chunks per pipeline stage, 2 for interleaved 1F1B; offload: state kept in host "
      "memory, opt = optimizer, act = activations; exposed: communication the GPU waits on; idle: "
      "waiting on another rank's compute; $/Mtoken needs a cloud instance file with a price)\n";
  return out;
}

Json plans_json(const work::PlanSearchResult& result, const work::Scenario& sc) {
  Json plans = Json::array();
  for (const auto& r : result.ranked) {
    Json j = job_json(r.result, sc);
    j["plan"] = {{"data", r.plan.data},
                 {"tensor", r.plan.tensor},
                 {"pipeline", r.plan.pipeline},
                 {"expert", r.plan.expert},
                 {"zero_stage", r.plan.zero_stage},
                 {"micro_batches", r.plan.micro_batches},
                 {"virtual_stages", r.plan.virtual_stages},
                 {"optimizer_offload", r.plan.optimizer_offload},
                 {"activation_offload", r.plan.activation_offload}};
    if (r.cost_per_mtoken_usd) j["cost_per_mtoken_usd"] = *r.cost_per_mtoken_usd;
    plans.push_back(std::move(j));
  }
  return {{"scenario", sc.name},
          {"enumerated", result.enumerated},
          {"fitting", result.fitting},
          {"simulated", result.simulated},
          {"plans", plans}};
}

std::string plans_csv(const work::PlanSearchResult& result, const work::Scenario& sc) {
  std::string out =
      "scenario,rank,machine,gpus,data,tensor,pipeline,expert,zero_stage,micro_batches,step_s,"
      "compute_s,exposed_comm_s,hidden_comm_s,idle_s,tokens_per_s,cost_per_mtoken_usd,"
      "memory_bytes,virtual_stages,optimizer_offload,activation_offload\n";
  for (std::size_t i = 0; i < result.ranked.size(); ++i) {
    const auto& r = result.ranked[i];
    const auto& p = r.plan;
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
                       csv_field(sc.name), i + 1, csv_field(r.machine), r.result.gpus, p.data,
                       p.tensor, p.pipeline, p.expert, p.zero_stage, p.micro_batches,
                       units::exact(r.result.step_s), units::exact(r.result.compute_s),
                       units::exact(r.result.exposed_comm_s), units::exact(r.result.hidden_comm_s),
                       units::exact(r.result.idle_s), units::exact(r.result.tokens_per_s),
                       r.cost_per_mtoken_usd ? units::exact(*r.cost_per_mtoken_usd) : "",
                       units::exact(r.result.memory.total_bytes()), p.virtual_stages,
                       p.optimizer_offload ? 1 : 0, p.activation_offload ? 1 : 0);
  }
  return out;
}

}  // namespace linksim::report
