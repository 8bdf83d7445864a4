#pragma once
// What a job is and how it is split over GPUs: the scenario's "job" and "plan" sections.

#include <optional>
#include <string>

#include "sim/work/finetune.hpp"
#include "sim/work/precision.hpp"
#include "sim/work/serving_load.hpp"

namespace linksim::work {

enum class JobKind { training, prefill, decode, serving };
std::string_view to_string(JobKind kind);

struct Job {
  JobKind kind = JobKind::training;
  int global_batch = 1;     // sequences per step (training) or per request batch (inference)
  int sequence_length = 1;  // tokens per sequence (prompt length for inference)
  int decode_tokens = 1;    // decode: tokens generated per request
  Finetune finetune;        // training: full, or LoRA / QLoRA adapters on a frozen base
  Precision precision;      // weight and KV-cache formats
  ServingLoad serving;      // serving: the request stream
  // Training: the run's token budget (time_to_train.hpp), and the share of wall-clock time in
  // useful steps.
  std::optional<double> train_tokens;
  double goodput = 1;
};

// Activation recomputation (Korthikanti et al. 2022, arXiv:2205.05198): none; selective (the
// attention core, whose s² activations it stops storing, is recomputed in the backward); full
// (only each layer's input is kept; the whole forward runs again in the backward).
enum class Recompute { none, selective, full };
std::string_view to_string(Recompute recompute);

struct ParallelPlan {
  int data = 1;      // DP degree
  int tensor = 1;    // TP degree (Megatron)
  int pipeline = 1;  // PP degree
  int expert = 1;    // EP degree (MoE); experts split over `expert` GPUs inside each DP group
  // CP degree (Megatron-LM's context_parallel_size): each sequence's tokens split over
  // `context` GPUs, which pass the attention's K and V around a ring (Transformer Engine's
  // ring attention). They hold the same weights, so gradients are reduced, and ZeRO shards,
  // over data x context ranks (dp_ranks()). Ranks are laid out tensor, context, data, pipeline
  // (Megatron's order). REQUIRES (plan_check): dividing the sequence length; expert 1.
  int context = 1;
  int zero_stage = 0;  // 0: DDP; 1: optimizer sharded; 2: + gradients; 3: + weights (FSDP)
  // Hybrid sharding (FSDP's HYBRID_SHARD, _HYBRID_SHARD_ZERO2; HSDP): ZeRO shards its state
  // over groups of `shard_group` neighbouring DP ranks (typically a node) instead of the whole
  // DP group, and the groups are replicas of each other: the weight all-gathers and gradient
  // reduce-scatters run inside a group, and each rank's gradient shard is then all-reduced
  // with the ranks holding the same shard in the other groups. 0: the whole DP group (plain
  // ZeRO). REQUIRES (plan_check): zero_stage >= 1 and shard_group dividing data.
  int shard_group = 0;
  bool sequence_parallel = false;  // TP with reduce-scatter/all-gather instead of all-reduce
  int micro_batches = 1;           // per pipeline (1F1B); per DP rank gradient accumulation
  // Interleaved 1F1B (Megatron-LM's virtual pipeline, pipeline_schedule.hpp): each stage holds
  // this many model chunks of layers-per-stage / virtual_stages layers; 1 is plain 1F1B.
  // REQUIRES (plan_check): a training job, pipeline >= 2, dividing the layers per stage, and
  // micro_batches a multiple of pipeline.
  int virtual_stages = 1;
  // Uneven stages (Megatron-LM's --decoder-first-pipeline-num-layers and
  // --decoder-last-pipeline-num-layers): the first and/or last stage's layers, the rest split
  // evenly over the stages between (stage_layers.hpp). 0: the even split.
  int first_stage_layers = 0;
  int last_stage_layers = 0;
  double bucket_bytes = 25e6;  // DDP gradient bucket (PyTorch default 25 MB)
  Recompute recompute = Recompute::none;
  // FlashAttention-style attention (no s² activations): nullopt follows the rule of
  // uses_flash_attention (sim/work/memory.hpp); true or false forces it.
  std::optional<bool> flash_attention;
  // Training: each layer's saved activations go to host memory after its forward and come
  // back before its backward, over the GPU's link to its CPU socket.
  bool activation_offload = false;
  // ZeRO-Offload (Ren et al. 2021, arXiv:2101.06840): fp32 master weights and Adam moments in
  // host memory, the optimizer step on the CPU; gradients go down and weights come back up.
  bool optimizer_offload = false;
  // ZeRO-3: all-gather the next layers' weights while this layer computes (up to
  // prefetch_depth layers ahead, as FSDP's forward/backward prefetch and DeepSpeed's stage-3
  // prefetch do); false gathers each layer's weights only when it needs them.
  bool prefetch = true;
  // ZeRO-3 with prefetch: how many layers ahead of the computing one may be gathered. The
  // gather of layer j waits until layer j - prefetch_depth - 1 has computed and freed its
  // gathered weights. 1 is FSDP's limit_all_gathers (two gathered layers at a time: the one
  // computing, the next); larger values are DeepSpeed-like (stage3_prefetch_bucket_size,
  // stage3_max_live_parameters). REQUIRES >= 1.
  int prefetch_depth = 1;
  // "data": "fill": the data-parallel degree is whatever fills the machine (its GPUs over
  // tensor x pipeline), so machines of different sizes run at the same global batch.
  bool data_fills = false;
  int gpus() const { return data * context * tensor * pipeline; }
  // The ranks of a stage's TP rank that hold the same weights: data x context (Megatron's
  // data-parallel group with context parallelism).
  int dp_ranks() const { return data * context; }
  // The DP ranks ZeRO shards over, and how many replicas of each shard there are.
  int shard_size() const { return shard_group > 0 ? shard_group : dp_ranks(); }
  int shard_replicas() const { return dp_ranks() / shard_size(); }
};

}  // namespace linksim::work
