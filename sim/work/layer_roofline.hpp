#pragma once
// What one layer costs one GPU in a job: the time of each layer half (attention, MLP) on one
// tensor-parallel rank, the first and last stages' embedding and LM head, the optimizer step,
// and the byte counts the job's communication moves for a layer. Fixed for a job: its model,
// precision, fine-tuning, plan and micro-batch shape.
//
// Two ways to time compute:
//  - derived (the default): every operation from its shape on the GPU's SMs, tiles, peak and
//    HBM bandwidth at the generation's achievable fractions (layer_ops.hpp, gemm_time.hpp,
//    compute_efficiency_table.hpp; docs/compute-model.md);
//  - compute.efficiency set in the scenario: the earlier single-number roofline, FLOPs at
//    peak × efficiency or bytes at the datasheet HBM bandwidth, whichever is longer (the LM
//    head, loss and embedding are timed the same way).

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/topo/topology.hpp"
#include "sim/work/layer_ops.hpp"
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
  // Derived: both halves take half of the whole layer's operations.
  double half_layer_s(bool backward) const;
  // The first stage's embedding lookup (backward: its gradient) and the last stage's final
  // norm, LM head and loss, per micro-batch on one TP rank; 0 where there is none.
  double first_stage_s(bool backward) const;
  double last_stage_s(bool backward) const;
  // Adam over `params` parameters held by one GPU, memory-bound.
  double optimizer_s(double params) const;
  // Whether compute.efficiency overrides the derived model.
  bool derived() const { return !sc_.compute.efficiency.has_value(); }
  // The derived operations (layer_ops.hpp), for the report's split and the tests.
  std::vector<OpCost> layer_operations(bool backward) const { return layer_ops(ops_, backward); }
  std::vector<OpCost> first_stage_operations(bool backward) const {
    return first_stage_ops(ops_, backward);
  }
  std::vector<OpCost> last_stage_operations(bool backward) const {
    return last_stage_ops(ops_, backward);
  }
  const GpuRates& rates() const { return ops_.gpu; }
  // precision.matmul "fp8": the linear layers' GEMMs in FP8 (Transformer Engine).
  bool fp8_matmuls() const { return ops_.fp8; }

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
  double peak_ = 0;  // override only: peak × compute.efficiency
  LayerCosts lc_;
  LayerOpInputs ops_;      // the derived model's inputs
  double half_s_[2] = {};  // derived: forward, backward half-layer time
  double first_s_[2] = {};
  double last_s_[2] = {};
  double bytes_ = 2;
  double adam_step_bytes_ = 28;    // per parameter (precision.hpp)
  double adapters_ = 0;            // LoRA adapter parameters per layer
  double active_adapters_ = 0;     // ... that one token passes through
  double layer_weight_bytes_ = 0;  // one layer's stored weights (quantized, with adapters)
  double kv_bytes_per_token_ = 0;  // per layer, at the KV cache's dtype
  double offload_bytes_per_layer_ = 0;
  double tokens_mb_ = 0;
  double context_ = 0;
};

// Why precision.matmul "fp8" cannot run on `gpu` (no FP8 tensor cores: no "fp8" dense peak in
// its GPU model, or a generation whose fp8_gemm_fraction is 0), or nullopt when it can or the
// scenario does not ask for it.
std::optional<std::string> fp8_matmul_problem(const ModelSpec& model, const Scenario& scenario,
                                              const topo::GpuModel& gpu);

// The derived model's split of one replica's compute for a step (every stage's layers, the
// embedding and LM head, the optimizer on one GPU's shard): each OpKind's share, largest
// first. Empty under the compute.efficiency override.
std::vector<std::pair<std::string, double>> compute_shares(const ModelSpec& model,
                                                           const Scenario& scenario,
                                                           const topo::GpuModel& gpu);

}  // namespace linksim::work
