#pragma once
// The order in which a pipeline's stages run their micro-batches: 1F1B for training (each stage
// warms up with as many forwards as stages follow it, then alternates one forward and one
// backward, then drains the backwards), forwards only for inference; and Megatron-LM's
// interleaved 1F1B (virtual pipeline stages), where each stage runs several model chunks.

#include <vector>

namespace linksim::work {

struct PipelineOp {
  int stage = 0;
  bool forward = true;
  int micro_batch = 0;
  // Interleaved 1F1B: which of the stage's model chunks runs (chunk c of stage s is the model's
  // chunk c · stages + s); 0 without interleaving.
  int chunk = 0;
};

// Per stage, its ops in the order the stage runs them.
std::vector<std::vector<PipelineOp>> one_f_one_b(int stages, int micro_batches, bool training);

// Megatron-LM's interleaved 1F1B for training (megatron/core/pipeline_parallel/schedules.py,
// forward_backward_pipelining_with_interleaving, with get_pp_rank_microbatches and
// get_schedule_table at microbatch_group_size_per_vp_stage = stages, its default). Each stage s
// runs `chunks` model chunks over m micro-batches: m · chunks forward and as many backward
// "virtual micro-batches". Forward k runs, for the group of `stages` micro-batches
// g = k / (stages · chunks), chunk (k / stages) % chunks on micro-batch g · stages + k % stages;
// backward k the same micro-batch on chunk chunks - 1 - that chunk. Stage s warms up with
// min((stages - s - 1) · 2 + (chunks - 1) · stages, m · chunks) forwards, then alternates
// forward warm-up + i and backward i, then drains the backwards. REQUIRES: stages >= 2,
// chunks >= 1, m a multiple of stages (Megatron refuses other counts; plan_check.cpp too).
std::vector<std::vector<PipelineOp>> interleaved_one_f_one_b(int stages, int chunks,
                                                             int micro_batches);

// All ops of `per_stage` in an order where every op comes after the op whose output it takes:
// a forward after the forward of its micro-batch by the model chunk before it (the previous
// stage's same chunk, or for stage 0 the last stage's previous chunk), a backward after the
// backward by the chunk after it (the next stage's same chunk, or for the last stage stage 0's
// next chunk). Sweeps over the stages, each stage advancing as far as its inputs allow. Task
// graphs are built in this order, as each task's dependencies must exist before it. Neither
// 1F1B nor its interleaved form deadlocks, so every op is placed (std::logic_error otherwise).
std::vector<PipelineOp> creation_order(const std::vector<std::vector<PipelineOp>>& per_stage,
                                       int micro_batches, int chunks = 1);

}  // namespace linksim::work
