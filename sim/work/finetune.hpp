#pragma once
// Parameter-efficient fine-tuning: LoRA and QLoRA (the scenario's "job.finetune"; Hu et al.
// 2021, "LoRA", arXiv:2106.09685; Dettmers et al. 2023, "QLoRA", arXiv:2305.14314).
//
// The base model is frozen: its weights stay (in the model's dtype for LoRA, 4-bit NF4 or the
// scenario's precision.weights for QLoRA), with no gradients and no optimizer state. Each
// target module, a d_in x d_out linear layer, gains adapters A (d_in x r) and B (r x d_out):
// r·(d_in + d_out) trainable parameters, in the model's dtype, with gradients and Adam state
// (12 B per parameter) like any trained weight. Target modules by their Hugging Face names:
//   q_proj h x h, k_proj and v_proj h x (kv_heads·head_dim), o_proj h x h,
//   gate_proj and up_proj h x f, down_proj f x h (per expert for MoE: f is per expert);
// gate_proj only in a gated FFN.
//
// Compute: the forward adds 2 FLOPs per adapter parameter per token; the backward skips the
// frozen weights' gradients (dW) but still needs the input gradients (dX = dY·Wᵀ), so the base
// matmuls cost 1x the forward in the backward instead of 2x; attention scores (no weights)
// and the adapters cost 2x. Only the adapters' gradients are all-reduced over DP, and only
// they take an optimizer step.

#include <string>
#include <vector>

#include "sim/work/model.hpp"

namespace linksim::work {

enum class FinetuneMethod { full, lora, qlora };

struct Finetune {
  FinetuneMethod method = FinetuneMethod::full;
  int rank = 16;
  std::vector<std::string> target_modules = {"q_proj",    "k_proj",  "v_proj",   "o_proj",
                                             "gate_proj", "up_proj", "down_proj"};
  bool adapters() const { return method != FinetuneMethod::full; }
};

// Accepted target module names, in a stable order.
const std::vector<std::string>& lora_module_names();
// Trainable adapter parameters of one transformer layer (every expert for MoE); 0 for full
// fine-tuning and for a plain model. A module the model lacks (gate_proj in a GPT FFN) counts
// 0: the scenario loader refuses it with the model in hand.
double adapter_params_per_layer(const ModelSpec& model, const Finetune& finetune);
// Adapter parameters one token passes through in a layer (top-k experts for MoE).
double active_adapter_params_per_layer(const ModelSpec& model, const Finetune& finetune);

}  // namespace linksim::work
