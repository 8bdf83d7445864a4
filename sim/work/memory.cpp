#include "sim/work/memory.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "sim/core/units.hpp"
#include "sim/work/finetune.hpp"
#include "sim/work/model_costs.hpp"
#include "sim/work/precision.hpp"
#include "sim/work/stage_layers.hpp"

namespace linksim::work {
namespace {

// Parameters on the busiest GPU, after TP, PP and EP (before ZeRO).
struct GpuParams {
  double dense_linear = 0;  // replicated over DP, quantizable
  double dense_other = 0;   // norms, router, embeddings: the model's dtype
  double expert = 0;        // MoE experts: replicated over DP / EP, quantizable
  double adapters = 0;      // LoRA/QLoRA: trained, the model's dtype
  double all() const { return dense_linear + dense_other + expert; }
};

// The busiest stage's layers (stage_layers.hpp): each GPU is sized for it.
int layers_per_stage(const ModelSpec& m, const ParallelPlan& plan) {
  if (plan.first_stage_layers == 0 && plan.last_stage_layers == 0)
    return (m.layers + plan.pipeline - 1) / plan.pipeline;
  return most_stage_layers(m, plan);
}

GpuParams gpu_params(const ModelSpec& m, const Job& job, const ParallelPlan& plan) {
  const LayerCosts c = layer_costs(m);
  const double layers = layers_per_stage(m, plan);
  const double tp = plan.tensor;
  GpuParams p;
  p.dense_linear = layers * (c.linear_params - c.expert_params) / tp;
  p.dense_other = layers * (c.params - c.linear_params) / tp;
  p.expert = layers * c.expert_params / (tp * plan.expert);
  p.adapters = layers * adapter_params_per_layer(m, job.finetune) / tp;
  if (!m.is_plain()) {
    const double table = static_cast<double>(m.vocab) * m.hidden;
    // One stage holds everything; else the first holds the input embedding and the last the
    // LM head (a copy of the table when tied) and the final norm: the larger counts.
    const double outside = plan.pipeline == 1 ? embedding_params(m) : table + m.hidden;
    p.dense_other += outside / tp;
  }
  return p;
}

// Bytes of the base weights on the GPU, each part divided by its replication `shard`.
double base_weight_bytes(const ModelSpec& m, const Job& job, const GpuParams& p, double dense_dp,
                         double expert_dp) {
  const Precision& q = job.precision;
  std::string format = q.weights;
  if (format.empty() && job.finetune.method == FinetuneMethod::qlora) format = "nf4";
  const double linear = weight_bytes_per_param(format, q.group_size, m.dtype);
  return linear * (p.dense_linear / dense_dp + p.expert / expert_dp) +
         dtype_bytes(m.dtype) * p.dense_other / dense_dp;
}

void check_plan(const ParallelPlan& plan) {
  if (plan.data < 1 || plan.tensor < 1 || plan.pipeline < 1 || plan.expert < 1 ||
      plan.micro_batches < 1 || plan.virtual_stages < 1 || plan.zero_stage < 0 ||
      plan.zero_stage > 3 || plan.shard_group < 0 || plan.context < 1 ||
      plan.dp_ranks() % plan.shard_size() != 0) {
    throw std::invalid_argument(
        fmt::format("memory_per_gpu: invalid plan (data {}, tensor {}, pipeline {}, expert {}, "
                    "micro_batches {}, zero_stage {}, shard_group {})",
                    plan.data, plan.tensor, plan.pipeline, plan.expert, plan.micro_batches,
                    plan.zero_stage, plan.shard_group));
  }
}

double ceil_div(double a, double b) {
  return std::ceil(a / b);
}

// Korthikanti et al. 2022's count, per layer and micro-batch (see memory.hpp), in bytes, taken
// tensor by tensor so that grouped-query attention, a gated or MoE FFN and dropout change it.
double activation_bytes_per_layer(const ModelSpec& m, double s, double b, const ParallelPlan& plan,
                                  bool flash_attention, bool fp8 = false) {
  const double h = m.hidden;
  const double a = m.heads;
  const double t = plan.tensor;
  const double scale = dtype_bytes(m.dtype) / 2;
  if (h == 0) return 0;
  if (plan.recompute == Recompute::full) return 2 * s * b * h * scale;
  // Per token, in units of h bytes at 2 bytes an element: `whole` tensors are held by every
  // tensor-parallel rank without sequence parallelism and split over t with it; `split` ones
  // are split over t either way.
  const double whole = plan.sequence_parallel ? 1 / t : 1;
  const double split = 1 / t;
  const double kv_share = static_cast<double>(m.kv_heads) / m.heads;
  const double f = m.ffn_hidden / h;
  const double k = m.is_moe() ? m.experts_per_token : 1;
  const double mask = m.dropout ? 1 : 0;  // a 1-byte dropout mask an element
  const double norm_inputs = 2 * 2 * whole;
  const double qkv_input = 2 * whole;
  const double q_k_v = (2 + 2 * 2 * kv_share) * split;
  const double projection_input = 2 * split;
  // MoE: the router's input, then each token's k routed copies at full width: the experts are
  // split over TP as linksim runs them (Megatron's expert tensor parallelism equal to TP), so
  // each TP rank gathers its group's tokens and its experts' first GEMM splits its output over
  // t, not its input.
  const double up_input = m.is_moe() ? 2 * whole + 2 * k : 2 * whole;
  const double activation_input = 2 * f * (m.gated_ffn ? 2 : 1) * k * split;
  const double down_input = 2 * f * k * split;
  const double dropout_masks = 2 * mask * whole;
  double per_token = norm_inputs + qkv_input + q_k_v + projection_input + up_input +
                     activation_input + down_input + dropout_masks;
  // FP8 matmuls: Transformer Engine saves the four linear layers' inputs for their weight
  // gradients in FP8 (LayerNormLinear its FP8 norm output, Linear its FP8 transpose): half of
  // each. MoE's router keeps its 16-bit input.
  if (fp8) {
    const double routed = m.is_moe() ? 2 * k : 2 * whole;
    per_token -= (qkv_input + projection_input + routed + down_input) / 2;
  }
  double stored = s * b * h * per_token;
  // Without FlashAttention or selective recompute, the attention core's s x s per head: the
  // softmax's output (2 B), with dropout its mask (1 B) and output (2 B).
  const bool keeps_scores = !flash_attention && plan.recompute != Recompute::selective;
  if (keeps_scores) stored += s * b * a * s * (2 + 3 * mask) * split;
  const double softmax_stats = flash_attention ? 4 * a * s * b / t : 0;
  return stored * scale + softmax_stats;
}

MemoryBreakdown training_memory(const ModelSpec& m, const Job& job, const ParallelPlan& plan,
                                const MemoryOptions& options) {
  const double bytes = dtype_bytes(m.dtype);
  const double optimizer_bytes = optimizer_bytes_per_param(job.precision, m.dtype);
  const GpuParams p = gpu_params(m, job, plan);
  // ZeRO shards over the shard group (the whole DP group without hybrid sharding); an expert's
  // parameters over its copies inside that group.
  const double dp = plan.shard_size();
  const double expert_dp = std::max(1.0, dp / plan.expert);
  const bool zero3 = plan.zero_stage >= 3;
  // FP8 matmuls: Transformer Engine keeps each linear weight's FP8 copy and its FP8 transpose
  // between micro-batches (is_first_microbatch), 2 B per linear weight beside the bf16 one.
  const bool fp8 = fp8_matmul(job.precision, m.dtype);
  MemoryBreakdown out;
  out.weights_bytes = base_weight_bytes(m, job, p, zero3 ? dp : 1, zero3 ? expert_dp : 1) +
                      bytes * p.adapters / (zero3 ? dp : 1);
  if (job.finetune.adapters()) {
    out.gradients_bytes = bytes * p.adapters / (plan.zero_stage >= 2 ? dp : 1);
    out.optimizer_bytes = optimizer_bytes * p.adapters / (plan.zero_stage >= 1 ? dp : 1);
  } else {
    auto params = [&](bool sharded) {
      return sharded ? (p.dense_linear + p.dense_other) / dp + p.expert / expert_dp : p.all();
    };
    out.gradients_bytes = bytes * params(plan.zero_stage >= 2);
    out.optimizer_bytes = optimizer_bytes * params(plan.zero_stage >= 1);
  }
  if (zero3 && dp > 1) {
    // ZeRO-3's working copies (memory.hpp): gathered full layers and unsharded gradients.
    const LayerCosts c = layer_costs(m);
    const double tp = plan.tensor;
    GpuParams layer;
    layer.dense_linear = (c.linear_params - c.expert_params) / tp;
    layer.dense_other = (c.params - c.linear_params) / tp;
    layer.expert = c.expert_params / (tp * plan.expert);
    const double adapters = adapter_params_per_layer(m, job.finetune) / tp;
    const double gathered = base_weight_bytes(m, job, layer, 1, 1) + bytes * adapters;
    const double live_layers = 1 + (plan.prefetch ? std::max(1, plan.prefetch_depth) : 0);
    out.weights_bytes += live_layers * gathered;
    const double layer_grads = job.finetune.adapters() ? adapters : layer.all();
    out.gradients_bytes += 2 * bytes * layer_grads;
    // FP8 copies only of the gathered layers (the shards are not cast).
    if (fp8) out.weights_bytes += 2 * live_layers * (layer.dense_linear + layer.expert);
  } else if (fp8) {
    out.weights_bytes += 2 * (p.dense_linear + p.expert);
  }
  if (plan.optimizer_offload) {
    out.host_bytes += out.optimizer_bytes;
    out.optimizer_bytes = 0;
  }

  // Micro-batches whose activations the first stage holds at once, in units of its whole
  // stage: under 1F1B min(PP, m); interleaved (v chunks), Megatron's first stage holds its
  // warm-up + 1 chunk-micro-batches, min(2(PP - 1) + (v - 1)·PP + 1, m·v), of 1/v of its layers
  // each: PP + (PP - 1)/v when m is large, Korthikanti et al. 2022's 1 + (PP - 1)/(PP·v) times
  // the non-interleaved PP.
  const int v = plan.virtual_stages;
  const int warm_up_chunks = 2 * (plan.pipeline - 1) + (v - 1) * plan.pipeline;
  const int held = v > 1 ? std::min(warm_up_chunks + 1, plan.micro_batches * v)
                         : std::min(plan.pipeline, plan.micro_batches);
  const double in_flight = static_cast<double>(held) / v;
  const double per_layer = layer_activation_bytes(m, job, plan, options);
  const double layers = layers_per_stage(m, plan);
  if (plan.activation_offload) {
    out.activations_bytes = per_layer * std::min(layers, 2.0);
    out.host_bytes += per_layer * layers * in_flight;
  } else {
    out.activations_bytes = per_layer * layers * in_flight;
  }
  return out;
}

MemoryBreakdown inference_memory(const ModelSpec& m, const Job& job, const ParallelPlan& plan) {
  const double bytes = dtype_bytes(m.dtype);
  const GpuParams p = gpu_params(m, job, plan);
  MemoryBreakdown out;
  out.weights_bytes = base_weight_bytes(m, job, p, 1, 1);
  // FP8 matmuls (prefill): each linear weight's FP8 copy, 1 B (no transpose without a backward).
  if (fp8_matmul(job.precision, m.dtype)) out.weights_bytes += p.dense_linear + p.expert;

  const double batch = ceil_div(job.global_batch, plan.data);
  const bool decode = job.kind == JobKind::decode || job.kind == JobKind::serving;
  const double cached_tokens = job.sequence_length + (decode ? job.decode_tokens : 0);
  if (!m.is_plain()) {
    const double kv_heads_per_gpu = ceil_div(m.kv_heads, plan.tensor);
    out.kv_cache_bytes = layers_per_stage(m, plan) * batch * cached_tokens * 2 * kv_heads_per_gpu *
                         m.head_dim() * kv_cache_bytes_per_element(job.precision, m.dtype);
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

double layer_activation_bytes(const ModelSpec& model, const Job& job, const ParallelPlan& plan,
                              const MemoryOptions& options) {
  check_plan(plan);
  const double micro_batch = ceil_div(job.global_batch, plan.data * plan.micro_batches);
  // Context parallelism: each rank keeps its 1/context of every sequence's tokens.
  return activation_bytes_per_layer(model, static_cast<double>(job.sequence_length) / plan.context,
                                    micro_batch, plan, options.flash_attention,
                                    fp8_matmul(job.precision, model.dtype));
}

bool uses_flash_attention(const ModelSpec& model, const ParallelPlan& plan,
                          const topo::GpuModel& gpu) {
  if (plan.flash_attention) return *plan.flash_attention;
  if (model.is_plain() || model.heads == 0 || model.head_dim() > 256) return false;
  const std::string& arch = gpu.architecture;
  const bool fa2_gpu = arch == "ampere" || arch == "ada" || arch == "hopper" || arch == "blackwell";
  if (model.dtype == "fp16" || model.dtype == "bf16") return fa2_gpu;
  return model.dtype == "fp8" && arch == "hopper";
}

MemoryBreakdown memory_per_gpu(const ModelSpec& model, const Job& job, const ParallelPlan& plan,
                               const MemoryOptions& options) {
  check_plan(plan);
  return job.kind == JobKind::training ? training_memory(model, job, plan, options)
                                       : inference_memory(model, job, plan);
}

FitResult check_fit(const ModelSpec& model, const Job& job, const ParallelPlan& plan,
                    const topo::GpuModel& gpu, double usable_fraction) {
  FitResult r;
  MemoryOptions options;
  options.flash_attention = uses_flash_attention(model, plan, gpu);
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
  const std::string host =
      r.need.host_bytes > 0
          ? fmt::format("; {} offloaded to host memory", units::format_bytes(r.need.host_bytes))
          : std::string();
  r.explanation =
      fmt::format("{} needs {} per GPU ({}) {} {} usable on {} ({:g}% of {}){}", model.name,
                  units::format_bytes(r.need.total_bytes()), fmt::join(parts, ", "),
                  r.fits ? "<=" : ">", units::format_bytes(r.capacity_bytes), gpu.name,
                  usable_fraction * 100, units::format_bytes_binary(gpu.memory_bytes), host);
  return r;
}

std::optional<ParallelPlan> smallest_fitting_plan(const ModelSpec& model, const Job& job,
                                                  const topo::GpuModel& gpu, int max_gpus,
                                                  double usable_fraction, const ParallelPlan& like,
                                                  int max_tensor, const PlanFilter& allowed) {
  const bool training = job.kind == JobKind::training;
  const std::vector<int> pipelines = divisors(model.layers);
  auto fits = [&](int dp, int zero, int tp, int pp) -> std::optional<ParallelPlan> {
    if (tp > max_tensor || (!model.is_plain() && model.heads % tp != 0)) return std::nullopt;
    if (std::find(pipelines.begin(), pipelines.end(), pp) == pipelines.end()) return std::nullopt;
    ParallelPlan p = like;
    p.expert = 1;
    p.shard_group = 0;
    p.data_fills = false;
    p.data = dp;
    p.tensor = tp;
    p.pipeline = pp;
    p.zero_stage = zero;
    p.micro_batches = training ? job.global_batch / dp : 1;
    p.virtual_stages = 1;                            // suggested plans are plain 1F1B
    p.first_stage_layers = p.last_stage_layers = 0;  // on even stages
    p.context = 1;
    if (allowed && !allowed(p)) return std::nullopt;
    if (!check_fit(model, job, p, gpu, usable_fraction).fits) return std::nullopt;
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
