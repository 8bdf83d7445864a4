#pragma once
// What one layer costs one GPU in a job: the roofline time of each layer half (attention, MLP)
// on one tensor-parallel rank (FLOPs at the achieved rate, or bytes at HBM bandwidth, whichever
// is longer), and the byte counts the job's communication moves for a layer. Fixed for a job:
// its model, precision, fine-tuning, plan and micro-batch shape.

#include "sim/topo/topology.hpp"
#include "sim/work/model.hpp"
#include "sim/work/model_costs.hpp"
#include "sim/work/scenario.hpp"

namespace linksim::work {

// Micro-batches one pipeline runs per step: the plan's for training and prefill, one for decode.
int micro_batches_per_step(const Scenario& scenario);

class LayerRoofline {
 public:
  LayerRoofline(const ModelSpec& model, const Scenario& scenario, const topo::GpuModel& gpu);

  // One layer half (attention or MLP: each is half the layer) on one TP rank for one
  // micro-batch, seconds; the backward with its recomputation.
  double half_layer_s(bool backward) const;

  // Tokens of one micro-batch per DP rank (decode: one per sequence), and the context each
  // attends to on average.
  double tokens_per_micro_batch() const { return tokens_mb_; }
  double context_tokens() const { return context_; }
  const LayerCosts& costs() const { return lc_; }
  double element_bytes() const { return bytes_; }
  // One layer's stored weights (quantized, with adapters), bytes.
  double layer_weight_bytes() const { return layer_weight_bytes_; }
  // Parameters a training step updates: every one, or with LoRA only the adapters.
  double trained_params_per_layer() const;
  // Activation offload: one layer's saved activations per GPU, bytes (0 without offload).
  double offload_bytes_per_layer() const { return offload_bytes_per_layer_; }

 private:
  const Scenario& sc_;
  const topo::GpuModel& gpu_;
  double peak_ = 0;
  LayerCosts lc_;
  double bytes_ = 2;
  double adapters_ = 0;            // LoRA adapter parameters per layer
  double active_adapters_ = 0;     // ... that one token passes through
  double layer_weight_bytes_ = 0;  // one layer's stored weights (quantized, with adapters)
  double kv_bytes_per_token_ = 0;  // per layer, at the KV cache's dtype
  double offload_bytes_per_layer_ = 0;
  double tokens_mb_ = 0;
  double context_ = 0;
};

}  // namespace linksim::work
