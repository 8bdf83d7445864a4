#include "sim/work/pipeline_schedule.hpp"

#include <algorithm>
#include <cstddef>

namespace linksim::work {

std::vector<std::vector<PipelineOp>> one_f_one_b(int stages, int micro_batches, bool training) {
  const int m = micro_batches;
  std::vector<std::vector<PipelineOp>> ops(static_cast<std::size_t>(stages));
  for (int s = 0; s < stages; ++s) {
    auto& o = ops[static_cast<std::size_t>(s)];
    if (!training) {
      for (int i = 0; i < m; ++i)
        o.push_back({s, true, i});
      continue;
    }
    const int warm = std::min(stages - s - 1, m);
    for (int i = 0; i < warm; ++i)
      o.push_back({s, true, i});
    for (int i = 0; i < m - warm; ++i) {
      o.push_back({s, true, warm + i});
      o.push_back({s, false, i});
    }
    for (int i = m - warm; i < m; ++i)
      o.push_back({s, false, i});
  }
  return ops;
}

std::vector<PipelineOp> creation_order(const std::vector<std::vector<PipelineOp>>& per_stage,
                                       int micro_batches) {
  const std::size_t stages = per_stage.size();
  const auto m = static_cast<std::size_t>(micro_batches);
  // done[s][mb]: forward (or backward) of micro-batch mb placed on stage s.
  std::vector<std::vector<char>> fwd_done(stages, std::vector<char>(m, 0));
  std::vector<std::vector<char>> bwd_done = fwd_done;
  std::vector<PipelineOp> order;
  std::vector<std::size_t> next(stages, 0);
  for (bool progress = true; progress;) {
    progress = false;
    for (std::size_t s = 0; s < stages; ++s) {
      auto& n = next[s];
      while (n < per_stage[s].size()) {
        const PipelineOp& op = per_stage[s][n];
        const auto mb = static_cast<std::size_t>(op.micro_batch);
        if (op.forward && s > 0 && !fwd_done[s - 1][mb]) break;
        if (!op.forward && s + 1 < stages && !bwd_done[s + 1][mb]) break;
        order.push_back(op);
        (op.forward ? fwd_done : bwd_done)[s][mb] = 1;
        ++n;
        progress = true;
      }
    }
  }
  return order;
}

}  // namespace linksim::work
