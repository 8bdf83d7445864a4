// JobBuilder (job_builder.hpp): data parallelism. ZeRO-3 weight gathers per layer with a
// bounded prefetch and its gradient reduce-scatters per layer and micro-batch (see below);
// gradient buckets (DDP all-reduce, ZeRO-1/2 reduce-scatter) as the last micro-batch's backward
// produces them; the optimizer step with ZeRO-1/2's weight all-gather after it; with hybrid
// sharding (plan.shard_group) each inside its shard group, plus the gradient shards' all-reduce
// across the groups.
#include <algorithm>

#include "sim/work/job_builder.hpp"
#include "sim/work/model_costs.hpp"

namespace linksim::work {

// ZeRO-3 as FSDP (FULL_SHARD, reshard_after_forward) and DeepSpeed stage 3 run it: each
// layer's weights are all-gathered from their shards before the layer computes, in the forward
// and again in the backward of every micro-batch, and freed after it. Sources (PyTorch
// torch/distributed/fsdp/_runtime_utils.py, _unshard, _reshard, _prefetch_handle; the
// FullyShardedDataParallel docs of limit_all_gathers, forward_prefetch and backward_prefetch;
// DeepSpeed's stage-3 parameter coordinator with stage3_prefetch_bucket_size and
// stage3_max_live_parameters), followed as they are documented (the sources were not re-read
// line by line for this model), not fitted to any throughput:
// - The gathers run on their own stream beside compute, so they share the links with every
//   other transfer (the engine) and take SMs from the compute they overlap: they are "DP"
//   collectives in records_, which sm_contention.hpp slows overlapped compute by.
// - Prefetch is bounded. With limit_all_gathers, FSDP's rate limiter (_FreeEventQueue, two
//   in-flight all-gathers) makes the CPU wait, before it issues a gather, for the free event of
//   the layer two back: layer j's gather starts only once layer j - 2 has computed and freed its
//   gathered weights. That is plan.prefetch_depth = 1 (the gathered layers are the computing one
//   and the next); depth k lets k layers be gathered ahead (DeepSpeed's prefetch bucket): layer
//   j's gather waits for layer j - k - 1. The first k + 1 gathers of a pass wait for the GPU's
//   last compute before the pass (the previous pass freed its layers).
// - One process group's collectives run in the order they were issued: ProcessGroupNCCL
//   launches every collective of a group on that group's one NCCL stream per device, so the
//   weight gathers and the gradient reduce-scatters of a shard group queue behind each other
//   (dp_collective), in the order FSDP issues them (the prefetched gather before a layer's
//   backward, its reduce-scatter after it).
// - Nothing scales a gather's time: its size is the layer's weights over TP (each rank
//   receives all shards), and the NCCL lowering through the placement seam prices it, with its
//   latency, so small gathers on many GPUs come out latency-bound by themselves.

// A data-parallel collective over the shard group of (stage s, DP base, TP rank t), after `deps`
// and after the group's previous collective; returns its end. Every stage of ZeRO, and DDP: PyTorch
// launches all of one process group's collectives on its one NCCL stream (ProcessGroupNCCL), so
// DDP's gradient buckets (and Megatron's, with overlap_grad_reduce) run one after another in the
// order the backward fills them, never two at once.
engine::TaskId JobBuilder::dp_collective(int s, int base, int t, coll::Op op, double bytes,
                                         std::vector<TaskId> deps) {
  const auto key = std::make_tuple(s, t, base);
  if (auto it = dp_stream_.find(key); it != dp_stream_.end()) deps.push_back(it->second);
  const TaskId end = collective("DP", layout_.shard_group(s, base, t), op, bytes, deps);
  dp_stream_[key] = end;
  return end;
}

// One layer's weights all-gathered over each TP rank's shard group (its whole DP group without
// hybrid sharding), once every member's `deps` (by rank index d * tensor + t) have ended.
// Returns the ends by (TP rank, shard group built): index t * built_shard_groups() + group.
std::vector<engine::TaskId> JobBuilder::gather_layer_weights(
    int s, const std::vector<std::vector<TaskId>>& deps) {
  const ParallelPlan& p = layout_.plan;
  const int h = p.shard_size();
  std::vector<TaskId> ends;
  for (int t = 0; t < p.tensor; ++t) {
    for (int base = 0; base < replicas_; base += h) {
      std::vector<TaskId> group_deps;
      for (int d = base; d < std::min(base + h, replicas_); ++d) {
        const auto& r = deps[static_cast<std::size_t>(d * p.tensor + t)];
        group_deps.insert(group_deps.end(), r.begin(), r.end());
      }
      ends.push_back(dp_collective(s, base, t, coll::Op::all_gather,
                                   roofline_.layer_weight_bytes() / p.tensor, group_deps));
    }
  }
  return ends;
}

// ZeRO-3: the weights of layer `layer` (of `layers` in this pass), added to what it waits for.
// With plan.prefetch the gathers of the layers up to layer + prefetch_depth are issued here
// (those not issued yet), each after the layer prefetch_depth + 1 before it has freed its
// weights; without, the layer's own gather is issued now, after its inputs and the GPU's last
// compute, so that every gather is exposed.
void JobBuilder::gather_weights(int s, int layer, int layers, Ready& ready, Zero3Pass& pass) {
  const ParallelPlan& p = layout_.plan;
  if (p.zero_stage < 3 || p.shard_size() < 2) return;
  const auto n = static_cast<std::size_t>(p.dp_ranks() * p.tensor);
  // Layer `layer` - 1's weights are freed after each GPU's compute so far.
  std::vector<std::optional<TaskId>> freed(n);
  for (int d = 0; d < replicas_; ++d) {
    for (int t = 0; t < p.tensor; ++t)
      freed[static_cast<std::size_t>(d * p.tensor + t)] =
          last_[static_cast<std::size_t>(layout_.rank(s, d, t))];
  }
  pass.freed.push_back(std::move(freed));
  std::vector<std::vector<TaskId>> deps(n);
  if (!p.prefetch) {
    for (int d = 0; d < replicas_; ++d) {
      for (int t = 0; t < p.tensor; ++t) {
        auto& k = deps[static_cast<std::size_t>(d * p.tensor + t)];
        k = ready[static_cast<std::size_t>(d)][static_cast<std::size_t>(t)];
        if (const auto& f = pass.freed.back()[static_cast<std::size_t>(d * p.tensor + t)])
          k.push_back(*f);
      }
    }
    pass.gathers.push_back(gather_layer_weights(s, deps));
  } else {
    const int depth = std::max(1, p.prefetch_depth);
    const int last = std::min(layers - 1, layer + depth);
    while (static_cast<int>(pass.gathers.size()) <= last) {
      const int j = static_cast<int>(pass.gathers.size());
      // Layer j - depth - 1 freed: pass.freed[j - depth] (index 0: the pass's start).
      const auto& f = pass.freed[static_cast<std::size_t>(std::max(0, j - depth))];
      for (std::size_t k = 0; k < n; ++k)
        deps[k] = f[k] ? std::vector<TaskId>{*f[k]} : std::vector<TaskId>{};
      pass.gathers.push_back(gather_layer_weights(s, deps));
    }
  }
  const std::vector<TaskId>& current = pass.gathers[static_cast<std::size_t>(layer)];
  const int groups = built_shard_groups();
  for (int d = 0; d < replicas_; ++d) {
    for (int t = 0; t < p.tensor; ++t) {
      ready[static_cast<std::size_t>(d)][static_cast<std::size_t>(t)].push_back(
          current[static_cast<std::size_t>(t * groups + d / p.shard_size())]);
    }
  }
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
    std::vector<TaskId> shard_ends(static_cast<std::size_t>(p.dp_ranks()));
    for (int base = 0; base < replicas_; base += h) {
      const int built_end = std::min(base + h, replicas_);
      std::vector<TaskId> deps;
      for (int d = base; d < built_end; ++d) {
        deps.push_back(*last_[static_cast<std::size_t>(layout_.rank(s, d, t))]);
      }
      const TaskId end = dp_collective(s, base, t, op, bytes, std::move(deps));
      for (int d = base; d < built_end; ++d) {
        shard_ends[static_cast<std::size_t>(d)] = end;
        grad_syncs_[layout_.rank(s, d, t)].push_back(end);
      }
    }
    if (!hybrid) continue;
    for (int k = 0; k < std::min(h, replicas_); ++k) {
      std::vector<TaskId> deps;
      for (int d = k; d < replicas_; d += h)
        deps.push_back(shard_ends[static_cast<std::size_t>(d)]);
      const TaskId end = collective("DP replicas", layout_.replica_group(s, k, t),
                                    coll::Op::all_reduce, bytes / h, deps);
      for (int d = k; d < replicas_; d += h)
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
    for (int d = 0; d < replicas_; ++d) {
      for (int tp = 0; tp < p.tensor; ++tp) {
        const int r = layout_.rank(s, d, tp);
        if (!p.optimizer_offload) {
          compute(r, t, grad_syncs_[r], {-1, ComputeOp::optimizer, false});
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
        for (int base = 0; base < replicas_; base += h) {
          std::vector<TaskId> deps;
          for (int d = base; d < std::min(base + h, replicas_); ++d)
            deps.push_back(*last_[static_cast<std::size_t>(layout_.rank(s, d, tp))]);
          collective("DP", layout_.shard_group(s, base, tp), coll::Op::all_gather,
                     params * h * bytes, deps);
        }
      }
    }
  }
}

}  // namespace linksim::work
