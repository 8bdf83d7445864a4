#pragma once
// How a job stores its weights and KV cache (the scenario's "precision" section,
// docs/scenario-format.md): weights-only quantization and the KV-cache dtype.
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

#include <string>
#include <vector>

namespace linksim::work {

struct Precision {
  std::string weights;   // empty: the model's dtype
  int group_size = 128;  // int8 and int4: weights per scale
  std::string kv_cache;  // empty: the model's dtype
  std::string matmul;    // empty: the model's dtype; "fp8": Transformer Engine's FP8 GEMMs

  bool quantized() const { return !weights.empty(); }
};

// Whether the linear layers' GEMMs run in FP8 with Transformer Engine's casts: matmul "fp8"
// on a model whose dtype is wider (an fp8 model already runs every matmul at the fp8 peak).
bool fp8_matmul(const Precision& precision, const std::string& model_dtype);

// Accepted weight formats and KV-cache dtypes, in a stable order.
const std::vector<std::string>& weight_format_names();
const std::vector<std::string>& kv_cache_dtype_names();
const std::vector<std::string>& matmul_precision_names();

// Bytes per linear-layer weight for `format` (see above); an empty format is `model_dtype`.
// Throws std::invalid_argument for an unknown name (input is validated where it is read).
double weight_bytes_per_param(const std::string& format, int group_size,
                              const std::string& model_dtype);
// Bytes per KV-cache element: kv_cache's dtype, or the model's when empty.
double kv_cache_bytes_per_element(const Precision& precision, const std::string& model_dtype);

}  // namespace linksim::work
