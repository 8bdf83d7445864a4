#include "sim/work/layer_roofline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <string>

#include "sim/core/error.hpp"
#include "sim/work/compute_efficiency_table.hpp"
#include "sim/work/finetune.hpp"
#include "sim/work/memory.hpp"
#include "sim/work/precision.hpp"

namespace linksim::work {
namespace {

double peak_flops(const topo::GpuModel& gpu, const std::string& dtype) {
  for (const std::string& d :
       {dtype, std::string("bf16"), std::string("fp16"), std::string("fp32")}) {
    auto it = gpu.peak_flops.find(d);
    if (it != gpu.peak_flops.end()) return it->second;
  }
  return 0;
}

}  // namespace

std::optional<std::string> fp8_matmul_problem(const ModelSpec& model, const Scenario& scenario,
                                              const topo::GpuModel& gpu) {
  if (!fp8_matmul(scenario.job.precision, model.dtype)) return std::nullopt;
  if (!gpu.peak_flops.contains("fp8")) {
    return fmt::format(
        "FP8 matmuls need FP8 tensor cores (Hopper, Ada, Blackwell); {} ({}) has none: its GPU "
        "model (sim/topo/gpu_catalog.cpp, or the topology's gpu_models) gives no \"fp8\" "
        "peak_flops. Expected precision.matmul absent or {}, or a GPU with FP8",
        gpu.name, gpu.architecture, model.dtype);
  }
  if (architecture_efficiency(gpu.architecture).fp8_gemm_fraction <= 0) {
    return fmt::format(
        "FP8 matmuls need FP8 tensor cores; {}'s generation {} has none "
        "(sim/work/compute_efficiency_table.cpp gives it no FP8 GEMM fraction), though its GPU "
        "model gives an \"fp8\" peak",
        gpu.name, gpu.architecture);
  }
  return std::nullopt;
}

int micro_batches_per_step(const Scenario& scenario) {
  const JobKind kind = scenario.job.kind;
  return kind == JobKind::training || kind == JobKind::prefill ? scenario.plan.micro_batches : 1;
}

LayerRoofline::LayerRoofline(const ModelSpec& model, const Scenario& scenario,
                             const topo::GpuModel& gpu)
    : sc_(scenario), gpu_(gpu) {
  peak_ = peak_flops(gpu, model.dtype) * scenario.compute.efficiency.value_or(1);
  lc_ = layer_costs(model);
  bytes_ = work::dtype_bytes(model.dtype);
  const Job& job = scenario.job;
  adam_step_bytes_ = adam_step_bytes_per_param(job.precision, model.dtype);
  adapters_ = adapter_params_per_layer(model, job.finetune);
  active_adapters_ = active_adapter_params_per_layer(model, job.finetune);
  std::string format = job.precision.weights;
  if (format.empty() && job.finetune.method == FinetuneMethod::qlora) format = "nf4";
  const double linear_bytes = weight_bytes_per_param(format, job.precision.group_size, model.dtype);
  layer_weight_bytes_ = lc_.linear_params * linear_bytes +
                        (lc_.params - lc_.linear_params) * bytes_ + adapters_ * bytes_;
  kv_bytes_per_token_ =
      lc_.kv_bytes_per_token * kv_cache_bytes_per_element(job.precision, model.dtype) / bytes_;
  MemoryOptions options;
  options.flash_attention = uses_flash_attention(model, scenario.plan, gpu);
  offload_bytes_per_layer_ = scenario.plan.activation_offload
                                 ? layer_activation_bytes(model, job, scenario.plan, options)
                                 : 0;
  const ParallelPlan& p = scenario.plan;
  const double sequences =
      static_cast<double>(job.global_batch) / p.data / micro_batches_per_step(scenario);
  // Context parallelism: each rank computes its 1/context of every sequence's tokens; with
  // Megatron's load-balanced split (two chunks per rank, one from each end) its tokens attend
  // to half the sequence on average, as without it.
  tokens_mb_ =
      job.kind == JobKind::decode ? sequences : sequences * job.sequence_length / p.context;
  context_ = job.kind == JobKind::decode ? job.sequence_length + job.decode_tokens / 2.0
                                         : job.sequence_length / 2.0;  // causal: half on average

  LayerOpInputs& in = ops_;
  in.model = &model;
  const ArchitectureEfficiency& row = architecture_efficiency(gpu.architecture);
  in.gpu.peak_flops = peak_flops(gpu, model.dtype);
  in.gpu.hbm_Bps = gpu.hbm_bandwidth_Bps;
  if (derived()) {
    in.gpu.sm_count = gpu.sm_count;
    const auto scaled = [&scenario](double fraction) {
      return std::min(1.0, fraction * scenario.compute.fraction_factor);
    };
    in.gpu.gemm_fraction = scaled(row.gemm_fraction);
    in.gpu.attention_fraction = scaled(row.attention_fraction);
    in.gpu.attention_backward_fraction = scaled(row.attention_backward_fraction);
    in.gpu.hbm_fraction = scaled(row.hbm_fraction);
  } else {
    // The override's roofline for the first and last stages: no quantization, FLOPs at
    // peak × efficiency, bytes at the datasheet bandwidth.
    in.gpu.gemm_fraction = in.gpu.attention_fraction = in.gpu.attention_backward_fraction =
        *scenario.compute.efficiency;
  }
  in.tokens = tokens_mb_;
  in.sequences = sequences;
  in.sequence_length = job.sequence_length;
  in.context = context_;
  in.decode = job.kind == JobKind::decode;
  in.training = job.kind == JobKind::training;
  in.tensor = p.tensor;
  in.expert = p.expert;
  in.sequence_parallel = p.sequence_parallel;
  in.flash_attention = options.flash_attention;
  in.recompute = in.training ? p.recompute : Recompute::none;
  in.act_bytes = bytes_;
  in.weight_bytes = linear_bytes;
  in.dequantize_weights = job.finetune.method == FinetuneMethod::qlora;
  in.kv_bytes_per_token = kv_bytes_per_token_;
  in.adapters = adapters_;
  in.active_adapters = active_adapters_;
  in.frozen_base = job.finetune.adapters();
  if (fp8_matmul(job.precision, model.dtype)) {
    if (auto problem = fp8_matmul_problem(model, scenario, gpu)) {
      throw InputError(scenario.file, "/precision/matmul", *problem);
    }
    in.fp8 = true;
    in.fp8_peak_flops = gpu.peak_flops.at("fp8");
    in.fp8_gemm_fraction =
        derived() ? std::min(1.0, row.fp8_gemm_fraction * scenario.compute.fraction_factor)
                  : *scenario.compute.efficiency;
    in.weight_casts_per_micro_batch = 1.0 / micro_batches_per_step(scenario);
  }
  for (int b = 0; b < 2; ++b) {
    const bool backward = b == 1;
    if (backward && !in.training) break;
    if (derived()) half_s_[b] = total_seconds(layer_ops(in, backward)) / 2;
    first_s_[b] = total_seconds(first_stage_ops(in, backward));
    last_s_[b] = total_seconds(last_stage_ops(in, backward));
  }
}

double LayerRoofline::first_stage_s(bool backward) const {
  return first_s_[backward ? 1 : 0];
}

double LayerRoofline::last_stage_s(bool backward) const {
  return last_s_[backward ? 1 : 0];
}

double LayerRoofline::optimizer_s(double params) const {
  // The override keeps the earlier figure: 16 B + the dtype's read and write per parameter at
  // the datasheet bandwidth.
  if (!derived()) return params * (16 + 2 * bytes_) / gpu_.hbm_bandwidth_Bps;
  return memory_time_s(params * adam_step_bytes_, ops_.gpu);
}

double LayerRoofline::trained_params_per_layer() const {
  return sc_.job.finetune.adapters() ? adapters_ : lc_.params;
}

double LayerRoofline::half_layer_s(bool backward) const {
  if (derived()) return half_s_[backward ? 1 : 0];
  const ParallelPlan& p = sc_.plan;
  const double per_rank = tokens_mb_ / p.tensor / 2;
  const double base = per_rank * lc_.fwd_flops_per_token;
  const double adapters = per_rank * 2 * active_adapters_;
  const double scores = per_rank * lc_.attention_flops_per_token_per_context_token * context_;
  const double fwd = base + adapters + scores;
  double bytes = layer_weight_bytes_ / p.tensor / 2;
  if (sc_.job.kind == JobKind::decode)
    bytes += tokens_mb_ * context_ * kv_bytes_per_token_ / p.tensor / 2;
  const double t = std::max(fwd / peak_, bytes / gpu_.hbm_bandwidth_Bps);
  if (!backward) return t;
  // Backward FLOPs over forward FLOPs (the roofline time scales with it): 2 in full
  // training (input and weight gradients); with LoRA the frozen base matmuls skip dW (1x)
  // while attention scores and adapters cost 2x (sim/work/finetune.hpp). Recomputation runs
  // the forward (full) or the attention core (selective) again first.
  double ratio = 2;
  if (sc_.job.finetune.adapters() && fwd > 0) ratio = (base + 2 * adapters + 2 * scores) / fwd;
  if (p.recompute == Recompute::full) ratio += 1;
  if (p.recompute == Recompute::selective && fwd > 0) ratio += scores / fwd;
  return ratio * t;
}

std::vector<std::pair<std::string, double>> compute_shares(const ModelSpec& model,
                                                           const Scenario& scenario,
                                                           const topo::GpuModel& gpu) {
  const LayerRoofline r(model, scenario, gpu);
  if (!r.derived()) return {};
  const bool training = scenario.job.kind == JobKind::training;
  std::map<OpKind, double> by_kind;
  const auto add = [&](const std::vector<OpCost>& ops, double times) {
    for (const auto& op : ops)
      by_kind[op.kind] += op.seconds * times;
  };
  const double mb = micro_batches_per_step(scenario);
  for (bool backward : {false, true}) {
    if (backward && !training) continue;
    add(r.layer_operations(backward), mb * model.layers);
    add(r.first_stage_operations(backward), mb);
    add(r.last_stage_operations(backward), mb);
  }
  if (training) {
    const ParallelPlan& p = scenario.plan;
    const double edge = scenario.job.finetune.adapters() ? 0 : embedding_params(model);
    const double params = (model.layers * r.trained_params_per_layer() + edge) / p.tensor /
                          (p.zero_stage >= 1 ? p.shard_size() : 1);
    by_kind[OpKind::optimizer] += r.optimizer_s(params);
  }
  double total = 0;
  for (const auto& [kind, s] : by_kind)
    total += s;
  std::vector<std::pair<std::string, double>> out;
  for (const auto& [kind, s] : by_kind) {
    if (s > 0 && total > 0) out.emplace_back(to_string(kind), s / total);
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  return out;
}

}  // namespace linksim::work
