#include "sim/work/pipeline_schedule.hpp"

#include <algorithm>
#include <cstddef>
#include <stdexcept>

namespace linksim::work {

std::vector<std::vector<PipelineOp>> one_f_one_b(int stages, int micro_batches, bool training) {
  const int m = micro_batches;
  std::vector<std::vector<PipelineOp>> ops(static_cast<std::size_t>(stages));
  for (int s = 0; s < stages; ++s) {
    auto& o = ops[static_cast<std::size_t>(s)];
    if (!training) {
      for (int i = 0; i < m; ++i)
        o.push_back({s, true, i, 0});
      continue;
    }
    const int warm = std::min(stages - s - 1, m);
    for (int i = 0; i < warm; ++i)
      o.push_back({s, true, i, 0});
    for (int i = 0; i < m - warm; ++i) {
      o.push_back({s, true, warm + i, 0});
      o.push_back({s, false, i, 0});
    }
    for (int i = m - warm; i < m; ++i)
      o.push_back({s, false, i, 0});
  }
  return ops;
}

std::vector<std::vector<PipelineOp>> interleaved_one_f_one_b(int stages, int chunks,
                                                             int micro_batches) {
  const int p = stages;
  const int v = chunks;
  const int total = micro_batches * v;
  // Virtual micro-batch k: Megatron's schedule table (get_schedule_table) with groups of p
  // micro-batches, each group running all of chunk 0's, then chunk 1's, ...
  const auto op_of = [&](int s, int k, bool forward) {
    const int group = k / (p * v);
    const int chunk = (k / p) % v;
    const int mb = group * p + k % p;
    return PipelineOp{s, forward, mb, forward ? chunk : v - 1 - chunk};
  };
  std::vector<std::vector<PipelineOp>> ops(static_cast<std::size_t>(p));
  for (int s = 0; s < p; ++s) {
    auto& o = ops[static_cast<std::size_t>(s)];
    // get_pp_rank_microbatches: (p - rank - 1) · 2 + (chunks - 1) · group size, at most all.
    const int warm = std::min((p - s - 1) * 2 + (v - 1) * p, total);
    for (int k = 0; k < warm; ++k)
      o.push_back(op_of(s, k, true));
    for (int k = 0; k < total - warm; ++k) {
      o.push_back(op_of(s, warm + k, true));
      o.push_back(op_of(s, k, false));
    }
    for (int k = total - warm; k < total; ++k)
      o.push_back(op_of(s, k, false));
  }
  return ops;
}

std::vector<PipelineOp> creation_order(const std::vector<std::vector<PipelineOp>>& per_stage,
                                       int micro_batches, int chunks) {
  const std::size_t stages = per_stage.size();
  const auto m = static_cast<std::size_t>(micro_batches);
  const auto v = static_cast<std::size_t>(chunks);
  // done[s][c · m + mb]: forward (or backward) of micro-batch mb by chunk c placed on stage s.
  std::vector<std::vector<char>> fwd_done(stages, std::vector<char>(v * m, 0));
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
        const auto c = static_cast<std::size_t>(op.chunk);
        if (op.forward) {
          // The chunk before: (s - 1, c), or (last stage, c - 1) for stage 0.
          if (s > 0 && !fwd_done[s - 1][c * m + mb]) break;
          if (s == 0 && c > 0 && !fwd_done[stages - 1][(c - 1) * m + mb]) break;
        } else {
          // The chunk after: (s + 1, c), or (stage 0, c + 1) for the last stage.
          if (s + 1 < stages && !bwd_done[s + 1][c * m + mb]) break;
          if (s + 1 == stages && c + 1 < v && !bwd_done[0][(c + 1) * m + mb]) break;
        }
        order.push_back(op);
        (op.forward ? fwd_done : bwd_done)[s][c * m + mb] = 1;
        ++n;
        progress = true;
      }
    }
  }
  for (std::size_t s = 0; s < stages; ++s) {
    if (next[s] != per_stage[s].size()) {
      throw std::logic_error("creation_order: the pipeline schedule deadlocks");
    }
  }
  return order;
}

}  // namespace linksim::work
