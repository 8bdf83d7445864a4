#include "sim/work/memory.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "sim/core/units.hpp"
#include "sim/work/model_costs.hpp"

namespace linksim::work {
namespace {

// Parameters on the busiest GPU, after TP, PP and EP (before ZeRO).
struct GpuParams {
  double dense = 0;   // replicated over DP
  double expert = 0;  // MoE experts: replicated over DP / EP
};

int layers_per_stage(const ModelSpec& m, const ParallelPlan& plan) {
  return (m.layers + plan.pipeline - 1) / plan.pipeline;
}

GpuParams gpu_params(const ModelSpec& m, const ParallelPlan& plan) {
  const LayerCosts c = layer_costs(m);
  const double layers = layers_per_stage(m, plan);
  const double tp = plan.tensor;
  GpuParams p;
  p.dense = layers * (c.params - c.expert_params) / tp;
  p.expert = layers * c.expert_params / (tp * plan.expert);
  if (!m.is_plain()) {
    const double table = static_cast<double>(m.vocab) * m.hidden;
    // One stage holds everything; else the first holds the input embedding and the last the
    // LM head (a copy of the table when tied) and the final norm: the larger counts.
    const double outside = plan.pipeline == 1 ? embedding_params(m) : table + m.hidden;
    p.dense += outside / tp;
  }
  return p;
}

void check_plan(const ParallelPlan& plan) {
  if (plan.data < 1 || plan.tensor < 1 || plan.pipeline < 1 || plan.expert < 1 ||
      plan.micro_batches < 1 || plan.zero_stage < 0 || plan.zero_stage > 3) {
    throw std::invalid_argument(fmt::format(
        "memory_per_gpu: invalid plan (data {}, tensor {}, pipeline {}, expert {}, "
        "micro_batches {}, zero_stage {})",
        plan.data, plan.tensor, plan.pipeline, plan.expert, plan.micro_batches, plan.zero_stage));
  }
}

double ceil_div(double a, double b) {
  return std::ceil(a / b);
}

// Korthikanti et al. 2022, per layer and micro-batch, for 2-byte activations.
double activation_bytes_per_layer(const ModelSpec& m, double s, double b, const ParallelPlan& plan,
                                  bool recompute) {
  const double h = m.hidden;
  const double a = m.heads;
  const double t = plan.tensor;
  if (h == 0) return 0;
  if (recompute) return 2 * s * b * h;
  if (plan.sequence_parallel) return s * b * h * (34 + 5 * a * s / h) / t;
  return s * b * h * (10 + 24 / t + 5 * a * s / (h * t));
}

MemoryBreakdown training_memory(const ModelSpec& m, const Job& job, const ParallelPlan& plan,
                                const MemoryOptions& options) {
  const double bytes = dtype_bytes(m.dtype);
  const double optimizer_bytes_per_param = m.dtype == "fp32" ? 8 : 12;
  const GpuParams p = gpu_params(m, plan);
  const double dp = plan.data;
  const double expert_dp = std::max(1.0, dp / plan.expert);
  auto params = [&](bool sharded) {
    return sharded ? p.dense / dp + p.expert / expert_dp : p.dense + p.expert;
  };
  MemoryBreakdown out;
  out.weights_bytes = bytes * params(plan.zero_stage >= 3);
  out.gradients_bytes = bytes * params(plan.zero_stage >= 2);
  out.optimizer_bytes = optimizer_bytes_per_param * params(plan.zero_stage >= 1);

  const double micro_batch = ceil_div(job.global_batch, dp * plan.micro_batches);
  const double in_flight = std::min(plan.pipeline, plan.micro_batches);
  out.activations_bytes = activation_bytes_per_layer(m, job.sequence_length, micro_batch, plan,
                                                     options.recompute || plan.recompute) *
                          (bytes / 2) * layers_per_stage(m, plan) * in_flight;
  return out;
}

MemoryBreakdown inference_memory(const ModelSpec& m, const Job& job, const ParallelPlan& plan) {
  const double bytes = dtype_bytes(m.dtype);
  const GpuParams p = gpu_params(m, plan);
  MemoryBreakdown out;
  out.weights_bytes = bytes * (p.dense + p.expert);

  const double batch = ceil_div(job.global_batch, plan.data);
  const bool decode = job.kind == JobKind::decode;
  const double cached_tokens = job.sequence_length + (decode ? job.decode_tokens : 0);
  if (!m.is_plain()) {
    const double kv_heads_per_gpu = ceil_div(m.kv_heads, plan.tensor);
    out.kv_cache_bytes = layers_per_stage(m, plan) * batch * cached_tokens * 2 * kv_heads_per_gpu *
                         m.head_dim() * bytes;
  }
  const double step_tokens = batch * (decode ? 1 : job.sequence_length);
  double per_token = 2.0 * m.hidden;
  if (!m.is_plain()) {
    const double outputs = (m.gated_ffn ? 2.0 : 1.0) * m.ffn_hidden;
    const double active = m.is_moe() ? m.experts_per_token : 1;
    per_token += outputs * active / plan.tensor;
  }
  out.activations_bytes = step_tokens * per_token * bytes;
  return out;
}

std::vector<int> divisors(int n) {
  std::vector<int> out;
  for (int d = 1; d <= n; ++d) {
    if (n % d == 0) out.push_back(d);
  }
  return out;
}

}  // namespace

MemoryBreakdown memory_per_gpu(const ModelSpec& model, const Job& job, const ParallelPlan& plan,
                               const MemoryOptions& options) {
  check_plan(plan);
  return job.kind == JobKind::training ? training_memory(model, job, plan, options)
                                       : inference_memory(model, job, plan);
}

FitResult check_fit(const ModelSpec& model, const Job& job, const ParallelPlan& plan,
                    const topo::GpuModel& gpu, double usable_fraction,
                    const MemoryOptions& options) {
  FitResult r;
  r.need = memory_per_gpu(model, job, plan, options);
  r.capacity_bytes = usable_fraction * gpu.memory_bytes;
  r.fits = r.need.total_bytes() <= r.capacity_bytes;
  std::vector<std::string> parts;
  auto part = [&](const char* name, double v) {
    if (v > 0) parts.push_back(fmt::format("{} {}", name, units::format_bytes(v)));
  };
  part("weights", r.need.weights_bytes);
  part("gradients", r.need.gradients_bytes);
  part("optimizer", r.need.optimizer_bytes);
  part("activations", r.need.activations_bytes);
  part("KV cache", r.need.kv_cache_bytes);
  r.explanation =
      fmt::format("{} needs {} per GPU ({}) {} {} usable on {} ({:g}% of {})", model.name,
                  units::format_bytes(r.need.total_bytes()), fmt::join(parts, ", "),
                  r.fits ? "<=" : ">", units::format_bytes(r.capacity_bytes), gpu.name,
                  usable_fraction * 100, units::format_bytes_binary(gpu.memory_bytes));
  return r;
}

std::optional<ParallelPlan> smallest_fitting_plan(const ModelSpec& model, const Job& job,
                                                  const topo::GpuModel& gpu, int max_gpus,
                                                  double usable_fraction,
                                                  const MemoryOptions& options) {
  const bool training = job.kind == JobKind::training;
  const double capacity = usable_fraction * gpu.memory_bytes;
  const std::vector<int> pipelines = divisors(model.layers);
  auto fits = [&](int dp, int zero, int tp, int pp) -> std::optional<ParallelPlan> {
    if (!model.is_plain() && model.heads % tp != 0) return std::nullopt;
    if (std::find(pipelines.begin(), pipelines.end(), pp) == pipelines.end()) return std::nullopt;
    ParallelPlan p;
    p.data = dp;
    p.tensor = tp;
    p.pipeline = pp;
    p.zero_stage = zero;
    p.micro_batches = training ? job.global_batch / dp : 1;
    p.recompute = options.recompute;
    if (memory_per_gpu(model, job, p, options).total_bytes() > capacity) return std::nullopt;
    return p;
  };
  for (int n = 1; n <= max_gpus; ++n) {
    // Candidates in preference order (higher DP, lower ZeRO, lower TP); the first that fits wins.
    for (int dp = std::min(n, std::max(job.global_batch, 1)); dp >= 1; --dp) {
      if (n % dp != 0 || (training && job.global_batch % dp != 0)) continue;
      const int model_parallel = n / dp;
      for (int zero = 0; zero <= (training && dp > 1 ? 3 : 0); ++zero) {
        for (int tp : {1, 2, 4, 8}) {
          if (model_parallel % tp != 0) continue;
          if (auto p = fits(dp, zero, tp, model_parallel / tp)) return p;
        }
      }
    }
  }
  return std::nullopt;
}

}  // namespace linksim::work
