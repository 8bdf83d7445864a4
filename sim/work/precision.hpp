#pragma once
// How a job stores its weights, KV cache and optimizer state (the scenario's "precision"
// section, docs/scenario-format.md): weights-only quantization, the KV-cache dtype, the GEMMs'
// precision and Adam's state.
//
// Bytes per weight of the transformer blocks' linear layers (attention q/k/v/o and the FFN
// matrices, every expert); embeddings, LM head, norms and MoE routers stay in the model's
// dtype, as AWQ, GPTQ and bitsandbytes leave them:
//   bf16, fp16 2; fp32 4; fp8 1 (one per-tensor scale: nothing per weight)
//   int8   1 + 2/g        symmetric, one fp16 scale per group of g weights
//   int4   0.5 + 2.5/g    AWQ/GPTQ-style: an fp16 scale and a 4-bit zero point per group of g
//                         (g = 128 by default: 0.5 + 2.5/128 = 0.51953125 B)
//   nf4    4.126953125 / 8 = 0.515869140625  QLoRA's 4-bit NormalFloat, blocks of 64 with
//                         double-quantized constants: 4 + 8/64 + 32/(64·256) bits (Dettmers et
//                         al. 2023, "QLoRA", arXiv:2305.14314, Sec. 3)
// Quantization is weights-only: matmuls run at the model dtype's rate (the weights are
// dequantized on the fly, W4A16), and only weight bytes — memory and HBM traffic — shrink.
// The KV cache is kept in kv_cache (default the model's dtype); "fp8" halves a bf16 cache.
//
// matmul: the precision the linear layers' GEMMs run at in training and prefill (default the
// model's dtype). "fp8" is FP8 training as Transformer Engine runs it under Megatron-LM/NeMo
// (docs/compute-model.md, "FP8 matmuls"): the linear layers' GEMMs at the GPU's dense FP8 peak
// with TE's casts to FP8 around them; attention, norms, the LM head and every collective but
// sequence parallelism's all-gathers keep the model's dtype.
//
// Training with Adam keeps, per trained parameter, two moments and (for a 16-bit model) a master
// copy of the weight (optimizer_bytes_per_param):
//   optimizer_states  the moments' dtype: fp32 (default), bf16 or fp16 (Apex's
//                     DistributedFusedAdam `dtype`, which NeMo's `optim.dtype` sets)
//   master_weights    fp32 (default for a 16-bit model: 4 B), "remainder" (Apex's
//                     store_param_remainders: the 16 low bits a bf16 weight lacks of its fp32
//                     value, 2 B; NeMo's default for a bf16 model with fp32 states), or "none"
//                     (the model's own weights are the master: no copy; NeMo's choice when the
//                     states are in the model's dtype). An fp32 model's weights are always the
//                     master copy.

#include <string>
#include <vector>

namespace linksim::work {

struct Precision {
  // The dtype the model runs in, its file's by default: a run states "bf16" for a model whose
  // published checkpoint is fp16 (scenario_model applies it). Every "model's dtype" below is
  // this one.
  std::string dtype;
  std::string weights;           // empty: the model's dtype
  int group_size = 128;          // int8 and int4: weights per scale
  std::string kv_cache;          // empty: the model's dtype
  std::string matmul;            // empty: the model's dtype; "fp8": Transformer Engine's FP8 GEMMs
  std::string optimizer_states;  // empty: fp32
  std::string master_weights;    // empty: fp32 for a 16-bit model, none for an fp32 one

  bool quantized() const { return !weights.empty(); }
};

// Whether the linear layers' GEMMs run in FP8 with Transformer Engine's casts: matmul "fp8"
// on a model whose dtype is wider (an fp8 model already runs every matmul at the fp8 peak).
bool fp8_matmul(const Precision& precision, const std::string& model_dtype);

// Accepted weight formats and KV-cache dtypes, in a stable order.
const std::vector<std::string>& model_dtype_names();
const std::vector<std::string>& weight_format_names();
const std::vector<std::string>& kv_cache_dtype_names();
const std::vector<std::string>& matmul_precision_names();
const std::vector<std::string>& optimizer_state_dtype_names();
const std::vector<std::string>& master_weight_names();

// Adam's bytes per trained parameter: two moments at the states' dtype and the master copy
// (above). Defaults: 12 for a 16-bit model, 8 for an fp32 one.
double optimizer_bytes_per_param(const Precision& precision, const std::string& model_dtype);
// HBM bytes one Adam step moves per parameter: the moments and master copy read and written,
// the gradient read, and the model's weight written (read too when the master copy is not a
// full fp32 value of its own: "remainder" rebuilds it from the weight, "none" is the weight).
double adam_step_bytes_per_param(const Precision& precision, const std::string& model_dtype);

// Bytes per linear-layer weight for `format` (see above); an empty format is `model_dtype`.
// Throws std::invalid_argument for an unknown name (input is validated where it is read).
double weight_bytes_per_param(const std::string& format, int group_size,
                              const std::string& model_dtype);
// Bytes per KV-cache element: kv_cache's dtype, or the model's when empty.
double kv_cache_bytes_per_element(const Precision& precision, const std::string& model_dtype);

}  // namespace linksim::work
