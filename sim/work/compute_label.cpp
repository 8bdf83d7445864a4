#include "sim/work/compute_label.hpp"

#include <fmt/format.h>

namespace linksim::work {

std::string to_string(const ComputeLabel& label) {
  const char* pass = label.backward ? "bwd" : "fwd";
  switch (label.op) {
    case ComputeOp::attention:
      return fmt::format("layer {} attention {}", label.layer, pass);
    case ComputeOp::mlp:
      return fmt::format("layer {} mlp {}", label.layer, pass);
    case ComputeOp::embedding:
      return fmt::format("embedding {}", pass);
    case ComputeOp::head:
      return fmt::format("LM head and loss {}", pass);
    case ComputeOp::optimizer:
      return "optimizer step";
  }
  return "compute";
}

}  // namespace linksim::work
