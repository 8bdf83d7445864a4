#pragma once
// What a job's compute task computes, as a trace names its slice: "layer 12 attention fwd",
// "embedding bwd", "optimizer step". Eight bytes per compute task; the text is made only when a
// trace asks for names (job_names, job_accounting.hpp).

#include <cstdint>
#include <string>

namespace linksim::work {

enum class ComputeOp : std::uint8_t {
  attention,  // a layer's attention half (with its TP collective after it)
  mlp,        // a layer's MLP half
  embedding,  // the embedding lookup (first stage)
  head,       // the final norm, LM head and loss (last stage)
  optimizer,  // the optimizer step
};

struct ComputeLabel {
  int layer = -1;  // the model's layer, from 0; -1 for work outside the layers
  ComputeOp op = ComputeOp::attention;
  bool backward = false;
};

// "layer 12 attention fwd", "layer 3 mlp bwd", "embedding fwd", "LM head and loss bwd",
// "optimizer step".
std::string to_string(const ComputeLabel& label);

}  // namespace linksim::work
