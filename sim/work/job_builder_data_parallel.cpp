// JobBuilder (job_builder.hpp): data parallelism. ZeRO-3 weight gathers per layer, gradient
// buckets (DDP all-reduce, ZeRO reduce-scatter) as the last micro-batch's backward produces
// them, and the optimizer step with ZeRO-1/2's weight all-gather after it; with hybrid sharding
// (plan.shard_group) each inside its shard group, plus the gradient shards' all-reduce across
// the groups.
#include "sim/work/job_builder.hpp"
#include "sim/work/model_costs.hpp"

namespace linksim::work {

// ZeRO-3: one layer's weights all-gathered over each TP rank's shard group (its whole DP group
// without hybrid sharding), once every member's `after` entries and its last compute have ended
// (weights are gathered where the GPU's stream reaches them, never before its previous work).
// Returns the ends by (TP rank, shard group): index t * groups + group.
std::vector<engine::TaskId> JobBuilder::gather_layer_weights(int s, const Ready& after) {
  const ParallelPlan& p = layout_.plan;
  const int h = p.shard_size();
  std::vector<TaskId> ends;
  for (int t = 0; t < p.tensor; ++t) {
    for (int base = 0; base < p.data; base += h) {
      std::vector<TaskId> deps;
      for (int d = base; d < base + h; ++d) {
        const auto& r = after[static_cast<std::size_t>(d)][static_cast<std::size_t>(t)];
        deps.insert(deps.end(), r.begin(), r.end());
        if (const auto& last = last_[static_cast<std::size_t>(layout_.rank(s, d, t))]) {
          deps.push_back(*last);
        }
      }
      ends.push_back(collective("DP", layout_.shard_group(s, base, t), coll::Op::all_gather,
                                roofline_.layer_weight_bytes() / p.tensor, deps));
    }
  }
  return ends;
}

// ZeRO-3: the weights of the layer about to run, added to what it waits for. Gathered now,
// unless the previous layer prefetched them into `prefetched`. With plan.prefetch the next
// layer's gather (when `next_layer`) is issued here, after this layer's gather and inputs, so
// that it runs while this layer computes (FSDP's forward/backward prefetch, DeepSpeed's
// stage-3 prefetch: one layer ahead).
void JobBuilder::gather_weights(int s, Ready& ready, std::vector<TaskId>& prefetched,
                                bool next_layer) {
  const ParallelPlan& p = layout_.plan;
  if (p.zero_stage < 3 || p.shard_size() < 2) return;
  const std::vector<TaskId> current =
      prefetched.empty() ? gather_layer_weights(s, ready) : prefetched;
  prefetched.clear();
  const int groups = p.shard_replicas();
  for (int d = 0; d < p.data; ++d) {
    for (int t = 0; t < p.tensor; ++t) {
      ready[static_cast<std::size_t>(d)][static_cast<std::size_t>(t)].push_back(
          current[static_cast<std::size_t>(t * groups + d / p.shard_size())]);
    }
  }
  if (p.prefetch && next_layer) prefetched = gather_layer_weights(s, ready);
}

// A gradient bucket over the DP group, after the compute that produced it; the backward
// goes on beside it. With hybrid sharding a reduce-scatter runs inside each shard group, then
// each rank's shard (bytes / shard size) is all-reduced over its replica group (the ranks that
// hold the same shard in the other groups), as FSDP's HYBRID_SHARD does.
void JobBuilder::reduce_gradients(int s, double bytes, coll::Op op) {
  const ParallelPlan& p = layout_.plan;
  const int h = p.shard_size();
  const bool hybrid = op == coll::Op::reduce_scatter && p.shard_replicas() > 1;
  for (int t = 0; t < p.tensor; ++t) {
    std::vector<TaskId> shard_ends(static_cast<std::size_t>(p.data));
    for (int base = 0; base < p.data; base += h) {
      std::vector<TaskId> deps;
      for (int d = base; d < base + h; ++d) {
        deps.push_back(*last_[static_cast<std::size_t>(layout_.rank(s, d, t))]);
      }
      const TaskId end = collective("DP", layout_.shard_group(s, base, t), op, bytes, deps);
      for (int d = base; d < base + h; ++d) {
        shard_ends[static_cast<std::size_t>(d)] = end;
        grad_syncs_[layout_.rank(s, d, t)].push_back(end);
      }
    }
    if (!hybrid) continue;
    for (int k = 0; k < h; ++k) {
      std::vector<TaskId> deps;
      for (int d = k; d < p.data; d += h)
        deps.push_back(shard_ends[static_cast<std::size_t>(d)]);
      const TaskId end = collective("DP replicas", layout_.replica_group(s, k, t),
                                    coll::Op::all_reduce, bytes / h, deps);
      for (int d = k; d < p.data; d += h)
        grad_syncs_[layout_.rank(s, d, t)].push_back(end);
    }
  }
}

// Adam: read and write weights, master weights, moments and gradients, memory-bound
// (LayerRoofline::optimizer_s): on the GPU, or with ZeRO-Offload on the CPU after the
// gradients came down (a delay: the GPU waits), the weights going back up.
void JobBuilder::optimizer_step() {
  const ParallelPlan& p = layout_.plan;
  const bool adapters = sc_.job.finetune.adapters();
  const double bytes = roofline_.element_bytes();
  for (int s = 0; s < p.pipeline; ++s) {
    const double edge = adapters || (s != 0 && s != p.pipeline - 1) ? 0 : embedding_params(model_);
    const double params =
        (layers_[static_cast<std::size_t>(s)] * roofline_.trained_params_per_layer() + edge) /
        p.tensor / (p.zero_stage >= 1 ? p.shard_size() : 1);
    const double t = roofline_.optimizer_s(params);
    for (int d = 0; d < p.data; ++d) {
      for (int tp = 0; tp < p.tensor; ++tp) {
        const int r = layout_.rank(s, d, tp);
        if (!p.optimizer_offload) {
          compute(r, t, grad_syncs_[r]);
          continue;
        }
        auto deps = grad_syncs_[r];
        if (const auto& last = last_[static_cast<std::size_t>(r)]) deps.push_back(*last);
        const TaskId down = host_copy(r, true, params * bytes, deps);
        const Work step{.kind = WorkKind::delay,
                        .amount = params * (16 + 2 * bytes) / host_memory_bandwidth_Bps(r)};
        const TaskId cpu_step = placement_.add(step, {&down, 1}).end;
        last_[static_cast<std::size_t>(r)] = host_copy(r, false, params * bytes, {cpu_step});
      }
    }
    // ZeRO-1/2: each shard group gathers its updated weights.
    const int h = p.shard_size();
    if (p.zero_stage >= 1 && p.zero_stage < 3 && h > 1) {
      for (int tp = 0; tp < p.tensor; ++tp) {
        for (int base = 0; base < p.data; base += h) {
          std::vector<TaskId> deps;
          for (int d = base; d < base + h; ++d)
            deps.push_back(*last_[static_cast<std::size_t>(layout_.rank(s, d, tp))]);
          collective("DP", layout_.shard_group(s, base, tp), coll::Op::all_gather,
                     params * h * bytes, deps);
        }
      }
    }
  }
}

}  // namespace linksim::work
