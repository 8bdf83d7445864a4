#pragma once
// What a job is and how it is split over GPUs: the scenario's "job" and "plan" sections.

#include <string>

namespace linksim::work {

enum class JobKind { training, prefill, decode };
std::string_view to_string(JobKind kind);

struct Job {
  JobKind kind = JobKind::training;
  int global_batch = 1;     // sequences per step (training) or per request batch (inference)
  int sequence_length = 1;  // tokens per sequence (prompt length for inference)
  int decode_tokens = 1;    // decode: tokens generated per request
};

struct ParallelPlan {
  int data = 1;        // DP degree
  int tensor = 1;      // TP degree (Megatron)
  int pipeline = 1;    // PP degree
  int expert = 1;      // EP degree (MoE); experts split over `expert` GPUs inside each DP group
  int zero_stage = 0;  // 0: DDP; 1: optimizer sharded; 2: + gradients; 3: + weights (FSDP)
  bool sequence_parallel = false;  // TP with reduce-scatter/all-gather instead of all-reduce
  int micro_batches = 1;           // per pipeline (1F1B); per DP rank gradient accumulation
  double bucket_bytes = 25e6;      // DDP gradient bucket (PyTorch default 25 MB)
  // Full activation recomputation: keep only each layer's input, redo the forward in backward.
  bool recompute = false;
  // ZeRO-3: all-gather the next layer's weights while this layer computes (one layer ahead, as
  // FSDP's forward/backward prefetch and DeepSpeed's stage-3 prefetch do); false gathers each
  // layer's weights only when it needs them.
  bool prefetch = true;
  // "data": "fill": the data-parallel degree is whatever fills the machine (its GPUs over
  // tensor x pipeline), so machines of different sizes run at the same global batch.
  bool data_fills = false;
  int gpus() const { return data * tensor * pipeline; }
};

}  // namespace linksim::work
