#pragma once
// The operations one transformer layer (and the model's first and last stage) runs on one
// tensor-parallel rank for one micro-batch, each with its FLOPs, HBM bytes and time on the GPU
// (gemm_time.hpp; formulas and sources: docs/compute-model.md):
//   attention half: norm, QKV projection, rotary, the attention core (FlashAttention, or
//     unfused QK^T, softmax in HBM, AV), output projection, residual add;
//   MLP half: norm, up(+gate) projection, activation, down projection (MoE: router and the
//     local experts' batched GEMMs), residual add; LoRA adapters; QLoRA's dequantization;
//   first stage: embedding lookup (backward: its dense gradient);
//   last stage: final norm, LM head (vocab × hidden / TP), loss (training) or the logits read
//     for sampling (inference, last position of each sequence only).
// Matmuls are sharded as Megatron does: column-parallel QKV and up/gate (N / TP),
// row-parallel output and down projections (K / TP), vocab-parallel LM head (N / TP).
// The backward of a GEMM Y = X·W is dX = dY·Wᵀ and dW = Xᵀ·dY (dW skipped for frozen weights);
// of a memory-bound op, twice its forward bytes (read the input and the output gradient, write
// the input gradient); of FlashAttention, 2.5× its forward FLOPs (it recomputes QKᵀ: five
// matmuls against two; Dao, FlashAttention-2, Sec. 3.1.2). Recomputation puts the forward (full)
// or the attention core (selective) in front of the backward.

#include <string>
#include <vector>

#include "sim/work/gemm_time.hpp"
#include "sim/work/model.hpp"
#include "sim/work/parallel_plan.hpp"

namespace linksim::work {

// What bounds a piece of compute, for the report's split.
enum class OpKind { matmul, attention, memory, lm_head, optimizer };
const char* to_string(OpKind kind);

struct OpCost {
  std::string name;  // "qkv", "attention", "down", ...
  OpKind kind = OpKind::matmul;
  double flops = 0;
  double bytes = 0;  // HBM bytes read and written
  double seconds = 0;
};

// Everything the operations depend on, fixed for a job (LayerRoofline fills it).
struct LayerOpInputs {
  const ModelSpec* model = nullptr;
  GpuRates gpu;
  double tokens = 0;           // of one micro-batch on one DP rank (decode: the sequences)
  double sequences = 0;        // in that micro-batch
  double sequence_length = 0;  // prompt / training sequence
  double context = 0;          // average context a token attends to (causal: half the sequence)
  bool decode = false;
  bool training = false;
  int tensor = 1;
  int expert = 1;
  bool sequence_parallel = false;
  bool flash_attention = false;
  Recompute recompute = Recompute::none;
  double act_bytes = 2;             // model dtype
  double weight_bytes = 2;          // per linear weight as stored (quantized formats: fractional)
  bool dequantize_weights = false;  // QLoRA: NF4 dequantized to the dtype before each matmul
  double kv_bytes_per_token = 0;    // per layer, at the cache's dtype
  double adapters = 0;              // LoRA parameters per layer (0: none)
  double active_adapters = 0;       // ... that one token passes through
  bool frozen_base = false;         // LoRA/QLoRA: no weight gradients for the base
  // precision.matmul "fp8": the linear layers' GEMMs (QKV, attention output, MLP or experts;
  // not the router, attention core, LoRA or LM head) with FP8 operands at the GPU's dense FP8
  // peak and the generation's fp8_gemm_fraction, plus Transformer Engine's casts to FP8 as
  // memory-bound operations (docs/compute-model.md, "FP8 matmuls").
  bool fp8 = false;
  double fp8_peak_flops = 0;
  double fp8_gemm_fraction = 1;
  // TE casts each weight to FP8 (and its transpose) on the first micro-batch of a step and
  // keeps the copies for the others (is_first_microbatch): the share of that cast each
  // micro-batch carries, 1 / micro-batches per step.
  double weight_casts_per_micro_batch = 1;
};

// One whole layer (both halves) forward, or backward with its recomputation.
std::vector<OpCost> layer_ops(const LayerOpInputs& in, bool backward);
// The first stage's embedding lookup (backward: its gradient; nothing when frozen).
std::vector<OpCost> first_stage_ops(const LayerOpInputs& in, bool backward);
// The last stage's final norm, LM head and loss or logits read.
std::vector<OpCost> last_stage_ops(const LayerOpInputs& in, bool backward);

double total_seconds(const std::vector<OpCost>& ops);

}  // namespace linksim::work
