#pragma once
// The order in which a pipeline's stages run their micro-batches: 1F1B for training (each stage
// warms up with as many forwards as stages follow it, then alternates one forward and one
// backward, then drains the backwards), forwards only for inference.

#include <vector>

namespace linksim::work {

struct PipelineOp {
  int stage = 0;
  bool forward = true;
  int micro_batch = 0;
};

// Per stage, its ops in the order the stage runs them.
std::vector<std::vector<PipelineOp>> one_f_one_b(int stages, int micro_batches, bool training);

// All ops of `per_stage` in an order where every op comes after the op on the neighbouring
// stage whose output it takes (a forward after the previous stage's forward of its
// micro-batch, a backward after the next stage's backward of it): sweeps over the stages, each
// stage advancing as far as its inputs allow. Task graphs are built in this order, as each
// task's dependencies must exist before it. 1F1B never deadlocks, so every op is placed.
std::vector<PipelineOp> creation_order(const std::vector<std::vector<PipelineOp>>& per_stage,
                                       int micro_batches);

}  // namespace linksim::work
