#pragma once
// Memory per GPU for a job under a parallel plan, and whether it fits (docs/model-format.md,
// "Memory"). Figures are for the busiest GPU: a GPU of the first or last pipeline stage
// (whichever holds more: the input embedding or the LM head), with ceil(layers / PP) layers.
//
// Weights: the linear layers at the precision's bytes per weight (sim/work/precision.hpp),
// embeddings, norms and routers at the model's dtype bytes.
// FP8 matmuls (precision.matmul "fp8", Transformer Engine): + 2 B per linear weight in training
// (TE's cached FP8 copy and its FP8 transpose; under ZeRO-3 of the gathered layers only), + 1 B
// in prefill. Activations: TE saves the inputs of QKV, the attention output, MLP up and MLP down
// for their weight gradients in FP8, half of each below (for GPT, 7·s·b·h/t bytes less with
// sequence parallelism, halving 2 + 2 + 2 + 8, and s·b·h·(2 + 5/t) less without; memory.cpp).
// Training, mixed-precision Adam, per trained parameter:
//   gradients    dtype bytes
//   optimizer    12 B: fp32 master weights + two fp32 moments (8 B for an fp32 model, whose
//                weights are the master copy); precision.optimizer_states and
//                precision.master_weights change it (sim/work/precision.hpp: NeMo's
//                distributed Adam keeps 10 B, or 4 B with bf16 states)
// Trained parameters are all of them, or with LoRA/QLoRA only the adapters
// (sim/work/finetune.hpp), which add their weights in the model's dtype.
// Parameters are split by TP × PP, the MoE experts also by EP. ZeRO stage z then shards over
// DP (expert parameters over DP / EP): z ≥ 1 the optimizer, z ≥ 2 the gradients, z = 3 the
// weights; with hybrid sharding (plan.shard_group = H) over H instead of DP (experts over
// max(1, H / EP)). ZeRO-Offload (plan.optimizer_offload) moves the optimizer state to host memory.
// ZeRO-3 over a shard group of 2 or more also holds working copies, as FSDP (FULL_SHARD) and
// DeepSpeed stage 3 allocate them (sim/work/job_builder_data_parallel.cpp; docs/compute-model.md):
//   weights   + (1 + prefetch_depth) full layers (1 without prefetch) at the weights' bytes:
//               the computing layer's gathered weights and the ones prefetched (FSDP's
//               unsharded flat parameter is its own allocation beside the local shard)
//   gradients + 2 full layers of trained parameters at dtype bytes: the layer whose backward
//               produces its unsharded gradient and the previous one's, alive until its
//               reduce-scatter ends
// (per layer: its parameters over TP, experts over TP × EP). Left out: the embedding and LM
// head units' gathers (ZeRO-3 gathers them too, but not beside a layer's at the peak assumed
// here), FSDP's flat-parameter padding (under shard-group-size elements per layer) and the
// reduce-scatter's output shard (1 / shard group of a layer).
// Activations (Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer
// Models", arXiv:2205.05198, Sec. 4, counted tensor by tensor), per layer and micro-batch of b
// sequences of s tokens, with h = hidden, a = heads, t = TP, for 2-byte activations (scaled by
// dtype bytes / 2), in units of s·b·h bytes; W (held whole by each TP rank) is 1 without
// sequence parallelism and 1/t with it:
//   two norms' inputs 4·W; QKV's input 2·W; Q, K, V (2 + 4·g)/t with g = kv_heads / heads;
//   the output projection's input 2/t; MLP up's input 2·W; the activation's input
//   2·f·(2 if gated)/t and MLP down's 2·f/t with f = ffn_hidden / h; with dropout (the model's
//   "dropout") two 1-byte masks 2·W; MoE (top-k): the router's input 2·W, MLP up's input 2·k
//   (each token's k routed copies at full width) and the activation's and MLP down's inputs
//   times k
//   GPT (f = 4, not gated, g = 1, dropout): 10·W + 24/t, Korthikanti's s·b·h·(10 + 24/t) and
//   s·b·h·34/t with sequence parallelism; Llama 3 8B (f = 3.5, gated, g = 1/4, no dropout):
//   8·W + 26/t
//   the attention core, without FlashAttention or selective recompute: the softmax's output,
//                           with dropout its mask and output: (2 + 3)·a·s²·b/t bytes (5·a·s in
//                           Korthikanti's units)
//   FlashAttention:         instead, the kernel's fp32 softmax statistics (log-sum-exp),
//                           4·a·s·b / t bytes (Dao et al. 2022, arXiv:2205.14135: it never
//                           writes the s×s matrix)
//   full recompute:         2·s·b·h (the layer input only)
// The micro-batch holds b = ceil(global_batch / (DP × micro_batches)) sequences; under 1F1B the
// first stage holds min(PP, micro_batches) micro-batches in flight, each for its layers (with
// plan.virtual_stages v, min(2(PP - 1) + (v - 1)·PP + 1, micro_batches·v) / v: Megatron's
// interleaved warm-up, memory.cpp). With
// activation offload the GPU keeps two layers of one micro-batch (the one computing, the one
// being copied) and host memory the rest. Embedding and loss activations, MoE's routing
// probabilities and LoRA's rank-r intermediates are left out (a few percent at most).
//
// Inference (prefill, decode, serving): weights + KV cache + one layer's working activations;
// no gradients or optimizer. Each DP replica serves ceil(global_batch / DP) sequences of
//   sequence_length (+ decode_tokens for decode) tokens in the KV cache:
//   kv = layers/PP × batch × tokens × 2 × ceil(kv_heads / t) × head_dim × KV dtype bytes
// (TP splits KV heads; beyond kv_heads they are replicated). Working activations: the tokens
// of one step (batch × sequence_length for prefill, batch for decode) × (2·h + FFN
// intermediate outputs / t) × dtype bytes.
//
// A plain model (only a parameter count) has no activation or KV figures unless it gives
// "hidden"; then activations use a = 0.

#include <functional>
#include <optional>
#include <string>

#include "sim/topo/gpu_model.hpp"
#include "sim/work/model.hpp"
#include "sim/work/parallel_plan.hpp"

namespace linksim::work {

struct MemoryBreakdown {
  double weights_bytes = 0;
  double gradients_bytes = 0;
  double optimizer_bytes = 0;
  double activations_bytes = 0;
  double kv_cache_bytes = 0;
  // Host memory the GPU's offloaded state takes (optimizer, activations); not in the total.
  double host_bytes = 0;
  double total_bytes() const {
    return weights_bytes + gradients_bytes + optimizer_bytes + activations_bytes + kv_cache_bytes;
  }
};

struct MemoryOptions {
  // FlashAttention-style activations (no s² term); check_fit decides it by
  // uses_flash_attention.
  bool flash_attention = false;
};

// Whether attention runs as a FlashAttention kernel, which stores no s² activations. The
// plan's flash_attention decides when it is set; otherwise the rule is what FlashAttention-2
// (github.com/Dao-AILab/flash-attention, README "Installation and features") supports: an
// architecture model (heads known) in fp16 or bf16 with head_dim ≤ 256, on an Ampere, Ada,
// Hopper or Blackwell GPU (FlashAttention-3 adds fp8 on Hopper: fp8 counts there too).
bool uses_flash_attention(const ModelSpec& model, const ParallelPlan& plan,
                          const topo::GpuModel& gpu);

// Memory of the busiest GPU (see above). Throws std::invalid_argument for a plan with a degree
// below 1 or a ZeRO stage outside 0..3 (plans are validated where they are read).
MemoryBreakdown memory_per_gpu(const ModelSpec& model, const Job& job, const ParallelPlan& plan,
                               const MemoryOptions& options = {});

// One layer's saved activations for one micro-batch on the busiest GPU: what activation
// offload copies to host memory after the layer's forward.
double layer_activation_bytes(const ModelSpec& model, const Job& job, const ParallelPlan& plan,
                              const MemoryOptions& options);

struct FitResult {
  bool fits = false;
  double capacity_bytes = 0;  // usable_fraction × GPU memory
  MemoryBreakdown need;
  std::string explanation;  // one line: need (with its parts) vs usable capacity
};

// usable_fraction (default 0.9) leaves room for the CUDA context, NCCL buffers, the caching
// allocator's fragmentation and temporary workspaces. FlashAttention by uses_flash_attention.
FitResult check_fit(const ModelSpec& model, const Job& job, const ParallelPlan& plan,
                    const topo::GpuModel& gpu, double usable_fraction = 0.9);

// Says whether a candidate plan may be used (on a given machine, say); empty: every plan.
using PlanFilter = std::function<bool(const ParallelPlan&)>;

// Fewest GPUs (1 ≤ n ≤ max_gpus) on which the job fits. For each n, searched: TP in
// {1, 2, 4, 8} dividing heads (any of these for a plain model) and at most `max_tensor`, PP
// dividing layers, DP = n / (TP × PP), EP = 1; training: DP must divide global_batch,
// micro-batches of one sequence (micro_batches = global_batch / DP), ZeRO stage 0..3 (only 0
// when DP = 1); inference: DP ≤ global_batch, micro_batches = 1, ZeRO 0. Recompute, sequence
// parallelism, FlashAttention and offloads are taken from `like`. Among fits with the same n,
// the one with less communication wins, in this order: higher DP (fewer GPUs per model copy),
// then lower ZeRO stage (stage 3 gathers weights every step), then lower TP (TP all-reduces
// every layer; PP only sends activations across stage boundaries). Plans `allowed` refuses
// are skipped. nullopt when nothing fits.
std::optional<ParallelPlan> smallest_fitting_plan(const ModelSpec& model, const Job& job,
                                                  const topo::GpuModel& gpu, int max_gpus,
                                                  double usable_fraction = 0.9,
                                                  const ParallelPlan& like = {}, int max_tensor = 8,
                                                  const PlanFilter& allowed = {});

}  // namespace linksim::work
