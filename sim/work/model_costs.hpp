#pragma once
// Parameter, FLOP and byte counts of a model, computed from its architecture (sim/work/model.hpp).
//
// Parameters (biases ignored: the shipped models have none, GPT-3's are < 0.01%):
//   embeddings       vocab × hidden, plus another vocab × hidden for an untied LM head
//   per layer
//     attention      hidden × hidden (q) + 2 × hidden × kv_heads·head_dim (k, v) + hidden² (o)
//     FFN            (gated ? 3 : 2) × hidden × ffn_hidden, × experts for MoE
//     router (MoE)   hidden × experts
//     norms          2 × hidden (one before attention, one before the FFN)
//   final norm       hidden
// A plain model has only its count: `layers` equal layers hold all of it and the embeddings
// are counted as 0.

#include "sim/work/model.hpp"

namespace linksim::work {

// Per transformer layer, for one GPU holding the whole layer (divide by TP/EP as needed).
struct LayerCosts {
  double params = 0;        // all parameters of the layer (every expert for MoE)
  double weight_bytes = 0;  // params × dtype bytes
  // Matmul FLOPs of the forward pass per token: 2 × parameters a token passes through
  // (attention projections, the top-k experts' FFNs, the router). Backward is 2 × forward.
  double fwd_flops_per_token = 0;
  // Attention scores and weighted sum (QK^T and AV): 2 × 2 × hidden FLOPs per token per
  // context token it attends to. Full context here; a causal generator halves the average.
  double attention_flops_per_token_per_context_token = 0;
  // hidden × dtype bytes: what one token's activation weighs when it crosses a pipeline stage.
  double activation_bytes_per_token = 0;
  // KV cache per token: 2 (K and V) × kv_heads × head_dim × dtype bytes.
  double kv_bytes_per_token = 0;
  // Parameters of the MoE experts alone (0 for dense); sharded over EP instead of replicated.
  double expert_params = 0;
  // Parameters of the linear layers (attention projections and every FFN matrix): what weight
  // quantization applies to (sim/work/precision.hpp). The rest are norms and the router.
  double linear_params = 0;
};

// Every parameter (all experts for MoE); for a plain model, its given count.
double parameter_count(const ModelSpec& model);
// Parameters one token passes through: MoE counts only experts_per_token experts per layer.
double active_parameters_per_token(const ModelSpec& model);
// Input embedding plus untied LM head plus final norm: what is not inside a layer.
double embedding_params(const ModelSpec& model);
// One layer's figures (all layers are equal).
LayerCosts layer_costs(const ModelSpec& model);
// Forward FLOPs per token: 2 × active parameters (layers and LM head, input embedding lookup
// excluded) plus attention over `context_tokens` tokens (full, not halved) in every layer.
double forward_flops_per_token(const ModelSpec& model, double context_tokens);

}  // namespace linksim::work
