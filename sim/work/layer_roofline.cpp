#include "sim/work/layer_roofline.hpp"

#include <algorithm>
#include <string>

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

int micro_batches_per_step(const Scenario& scenario) {
  const JobKind kind = scenario.job.kind;
  return kind == JobKind::training || kind == JobKind::prefill ? scenario.plan.micro_batches : 1;
}

LayerRoofline::LayerRoofline(const ModelSpec& model, const Scenario& scenario,
                             const topo::GpuModel& gpu)
    : sc_(scenario), gpu_(gpu) {
  peak_ = peak_flops(gpu, model.dtype) * scenario.compute.efficiency;
  lc_ = layer_costs(model);
  bytes_ = work::dtype_bytes(model.dtype);
  const Job& job = scenario.job;
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
  tokens_mb_ = job.kind == JobKind::decode ? sequences : sequences * job.sequence_length;
  context_ = job.kind == JobKind::decode ? job.sequence_length + job.decode_tokens / 2.0
                                         : job.sequence_length / 2.0;  // causal: half on average
}

double LayerRoofline::trained_params_per_layer() const {
  return sc_.job.finetune.adapters() ? adapters_ : lc_.params;
}

double LayerRoofline::half_layer_s(bool backward) const {
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

}  // namespace linksim::work
