#include "sim/work/job_builder.hpp"

#include <algorithm>

#include "sim/work/model_costs.hpp"
#include "sim/work/pipeline_schedule.hpp"

namespace linksim::work {

JobBuilder::JobBuilder(const topo::Topology& machine, const ModelSpec& model,
                       const Scenario& scenario, bool leave_out_planes)
    : machine_(machine),
      model_(model),
      sc_(scenario),
      layout_{scenario.plan},
      gpus_(plan_gpus(machine, scenario.plan)),
      placement_(machine, gpus_, {LinkRates::payload, leave_out_planes}),
      last_(gpus_.size(), std::nullopt),
      gpu_(&*machine.node(gpus_.front()).gpu),
      roofline_(model, scenario, *machine.node(gpus_.front()).gpu) {}

void JobBuilder::build() {
  const ParallelPlan& p = layout_.plan;
  const int stages = p.pipeline;
  const int m = micro_batches_per_step(sc_);
  // Layers per stage, the remainder on the first stages.
  for (int s = 0; s < stages; ++s) {
    layers_.push_back(model_.layers / stages + (s < model_.layers % stages ? 1 : 0));
  }
  const bool training = sc_.job.kind == JobKind::training;
  // Interleaving (plan_check: training, pipeline >= 2, chunks dividing every stage's layers).
  chunks_ = training ? std::max(1, p.virtual_stages) : 1;
  fwd_out_.assign(static_cast<std::size_t>(stages),
                  std::vector<std::vector<TaskId>>(static_cast<std::size_t>(chunks_ * m)));
  bwd_out_ = fwd_out_;
  const auto schedule =
      chunks_ > 1 ? interleaved_one_f_one_b(stages, chunks_, m) : one_f_one_b(stages, m, training);
  for (const PipelineOp& op : creation_order(schedule, m, chunks_)) {
    if (op.forward) {
      forward(op.stage, op.chunk, op.micro_batch);
    } else {
      backward(op.stage, op.chunk, op.micro_batch, op.micro_batch == m - 1);
    }
  }
  if (training) optimizer_step();
}

// The model's chunk c · pipeline + s follows every chunk numbered below it, each of its stage's
// layers / chunks layers.
int JobBuilder::first_layer(int s, int c) const {
  const int stages = layout_.plan.pipeline;
  int first = 0;
  for (int k = 0; k < c * stages + s; ++k)
    first += layers_[static_cast<std::size_t>(k % stages)] / chunks_;
  return first;
}

int JobBuilder::gpu_index(int rank) const {
  return machine_.node(gpus_[static_cast<std::size_t>(rank)]).ordinal;
}

// Compute on `rank` after its previous compute and `deps`.
engine::TaskId JobBuilder::compute(int rank, double seconds, std::vector<TaskId> deps,
                                   ComputeLabel label) {
  auto& last = last_[static_cast<std::size_t>(rank)];
  if (last) deps.push_back(*last);
  const TaskId t = placement_
                       .add({.kind = WorkKind::compute,
                             .amount = seconds,
                             .gpu = gpus_[static_cast<std::size_t>(rank)]},
                            deps)
                       .end;
  compute_tasks_.emplace_back(t, rank);
  compute_labels_.push_back(label);
  last = t;
  return t;
}

// A collective over `ranks`, after `deps`; returns its end.
engine::TaskId JobBuilder::collective(const std::string& group, const std::vector<int>& ranks,
                                      coll::Op op, double size, const std::vector<TaskId>& deps) {
  if (ranks.size() < 2 || size <= 0) return placement_.add({.kind = WorkKind::barrier}, deps).end;
  CollectiveWork c;
  c.op = op;
  for (int rank : ranks)
    c.gpus.push_back(gpus_[static_cast<std::size_t>(rank)]);
  c.algorithm = sc_.algorithm;
  c.protocol = sc_.protocol;
  const coll::Choice& choice = placement_.choice(c, size);
  max_channels_ = std::max(max_channels_, choice.channels);
  const Placed placed =
      placement_.add({.kind = WorkKind::collective, .amount = size, .collective = &c}, deps);
  const TaskId first = placed.first;
  const TaskId end = placed.end;
  std::vector<int> gpus;
  for (int rank : ranks)
    gpus.push_back(gpu_index(rank));
  records_.push_back({group, op, first, end, size, std::move(gpus), choice});
  return end;
}

// One layer half on every GPU of stage s (all replicas and TP ranks), then the TP
// collective(s). `ready[d][t]` are the tasks each GPU waits for; updated to the half's end.
void JobBuilder::layer_half(int s, int layer, bool backward, bool mlp, Ready& ready) {
  const ParallelPlan& p = layout_.plan;
  const double act =
      roofline_.tokens_per_micro_batch() * roofline_.costs().activation_bytes_per_token;
  for (int d = 0; d < p.data; ++d) {
    std::vector<TaskId> ends;
    for (int t = 0; t < p.tensor; ++t) {
      auto& r = ready[static_cast<std::size_t>(d)][static_cast<std::size_t>(t)];
      ends.push_back(compute(layout_.rank(s, d, t), roofline_.half_layer_s(backward), r,
                             {layer, mlp ? ComputeOp::mlp : ComputeOp::attention, backward}));
    }
    std::vector<TaskId> after;
    if (p.tensor > 1) {
      const auto g = layout_.tp_group(s, d);
      if (p.sequence_parallel) {
        const TaskId rs = collective("TP", g, coll::Op::reduce_scatter, act, ends);
        after = {collective("TP", g, coll::Op::all_gather, act, {rs})};
      } else {
        after = {collective("TP", g, coll::Op::all_reduce, act, ends)};
      }
    }
    for (int t = 0; t < p.tensor; ++t) {
      ready[static_cast<std::size_t>(d)][static_cast<std::size_t>(t)] =
          p.tensor > 1 ? after : std::vector<TaskId>{ends[static_cast<std::size_t>(t)]};
    }
  }
  if (mlp && model_.is_moe() && p.expert > 1) exchange_experts(s, ready);
}

// MoE: tokens to their experts and back, around the MLP half: one all-to-all over each
// expert-parallel group that carries both ways.
void JobBuilder::exchange_experts(int s, Ready& ready) {
  const ParallelPlan& p = layout_.plan;
  const double act =
      roofline_.tokens_per_micro_batch() * roofline_.costs().activation_bytes_per_token;
  const double a2a = act * model_.experts_per_token;
  for (int d = 0; d < p.data; d += p.expert) {
    for (int t = 0; t < p.tensor; ++t) {
      const auto g = layout_.ep_group(s, d, t);
      std::vector<TaskId> deps;
      for (int k = 0; k < p.expert; ++k) {
        const auto& rd = ready[static_cast<std::size_t>(d + k)][static_cast<std::size_t>(t)];
        deps.insert(deps.end(), rd.begin(), rd.end());
      }
      const TaskId end = collective("EP", g, coll::Op::alltoall, 2 * a2a, deps);
      for (int k = 0; k < p.expert; ++k) {
        ready[static_cast<std::size_t>(d + k)][static_cast<std::size_t>(t)] = {end};
      }
    }
  }
}

// What chunk c of stage s takes in for micro-batch mb: the output of the model chunk before it
// (forward) or after it (backward), sent from the stage that ran it. The model's chunk
// c · pipeline + s follows chunk c of stage s - 1, and for stage 0 chunk c - 1 of the last
// stage (the activations go from the last rank back to the first at a chunk boundary).
JobBuilder::Ready JobBuilder::ready_from_stage_input(int s, int c, int mb, bool backward) {
  const ParallelPlan& p = layout_.plan;
  Ready ready(static_cast<std::size_t>(p.data),
              std::vector<std::vector<TaskId>>(static_cast<std::size_t>(p.tensor)));
  int from = backward ? s + 1 : s - 1;
  int from_chunk = c;
  if (from < 0) {
    from = p.pipeline - 1;
    from_chunk = c - 1;
  } else if (from >= p.pipeline) {
    from = 0;
    from_chunk = c + 1;
  }
  if (from_chunk < 0 || from_chunk >= chunks_) return ready;
  const auto slot = static_cast<std::size_t>(from_chunk * micro_batches_per_step(sc_) + mb);
  const auto& src = backward ? bwd_out_[static_cast<std::size_t>(from)][slot]
                             : fwd_out_[static_cast<std::size_t>(from)][slot];
  // Activations (or their gradients) cross the stage boundary, each TP rank its 1/tp share.
  const double bytes =
      roofline_.tokens_per_micro_batch() * roofline_.costs().activation_bytes_per_token / p.tensor;
  for (int d = 0; d < p.data; ++d) {
    for (int t = 0; t < p.tensor; ++t) {
      const int a = layout_.rank(from, d, t);
      const int b = layout_.rank(s, d, t);
      const TaskId dep = src[static_cast<std::size_t>(d * p.tensor + t)];
      const TaskId first = static_cast<TaskId>(placement_.simulation().task_count());
      const TaskId x = send(a, b, bytes, dep);
      records_.push_back({"PP", coll::Op::sendrecv, first, x, bytes, {gpu_index(a), gpu_index(b)}});
      ready[static_cast<std::size_t>(d)][static_cast<std::size_t>(t)] = {x};
    }
  }
  return ready;
}

// One way only (a 2-rank sendrecv would send both ways): NCCL's point-to-point send.
engine::TaskId JobBuilder::send(int a, int b, double bytes, TaskId dep) {
  const Work w{.kind = WorkKind::send,
               .amount = bytes,
               .src = gpus_[static_cast<std::size_t>(a)],
               .dst = gpus_[static_cast<std::size_t>(b)]};
  return placement_.add(w, {&dep, 1}).end;
}

std::vector<engine::TaskId> JobBuilder::flatten_ends(int s, const Ready& ready) const {
  const ParallelPlan& p = layout_.plan;
  std::vector<TaskId> out;
  for (int d = 0; d < p.data; ++d) {
    for (int t = 0; t < p.tensor; ++t) {
      const auto& r = ready[static_cast<std::size_t>(d)][static_cast<std::size_t>(t)];
      // The GPU's own last compute is the end of its part; collectives are in `r`.
      out.push_back(r.empty() ? *last_[static_cast<std::size_t>(layout_.rank(s, d, t))] : r.back());
    }
  }
  return out;
}

void JobBuilder::forward(int s, int c, int mb) {
  Ready ready = ready_from_stage_input(s, c, mb, false);
  // The embedding lookup (first stage) and the final norm, LM head and loss (last stage): one
  // compute on every GPU of the stage (layer_roofline.hpp); interleaved, in the model's first
  // chunk (chunk 0 of stage 0) and its last (the last chunk of the last stage).
  const auto on_stage = [&](double seconds, ComputeOp op) {
    if (seconds <= 0) return;
    for (int d = 0; d < layout_.plan.data; ++d) {
      for (int t = 0; t < layout_.plan.tensor; ++t) {
        auto& r = ready[static_cast<std::size_t>(d)][static_cast<std::size_t>(t)];
        r = {compute(layout_.rank(s, d, t), seconds, r, {-1, op, false})};
      }
    }
  };
  if (s == 0 && c == 0) on_stage(roofline_.first_stage_s(false), ComputeOp::embedding);
  // The chunk's layers: the stage's layers c · layers .. (c + 1) · layers - 1.
  const int layers = layers_[static_cast<std::size_t>(s)] / chunks_;
  Zero3Pass zero3;
  for (int l = 0; l < layers; ++l) {
    gather_weights(s, l, layers, ready, zero3);
    layer_half(s, first_layer(s, c) + l, false, false, ready);
    layer_half(s, first_layer(s, c) + l, false, true, ready);
    if (roofline_.offload_bytes_per_layer() > 0 && sc_.job.kind == JobKind::training) {
      store_activations(s, mb, c * layers + l);
    }
  }
  if (s == layout_.plan.pipeline - 1 && c == chunks_ - 1) {
    on_stage(roofline_.last_stage_s(false), ComputeOp::head);
  }
  fwd_out_[static_cast<std::size_t>(s)]
          [static_cast<std::size_t>(c * micro_batches_per_step(sc_) + mb)] = flatten_ends(s, ready);
}

// Interleaved, each chunk's backward of the last micro-batch produces that chunk's gradients and
// sends its buckets off, as Megatron's DDP does per model chunk.
void JobBuilder::backward(int s, int c, int mb, bool last_micro_batch) {
  const ParallelPlan& p = layout_.plan;
  Ready ready = ready_from_stage_input(s, c, mb, true);
  // The loss and LM head gradients first on the last stage, the embedding's last on the first
  // (in the layer loop, before the last gradient bucket); interleaved, in the model's last and
  // first chunks.
  const bool first_chunk = s == 0 && c == 0;
  const bool last_chunk = s == p.pipeline - 1 && c == chunks_ - 1;
  const auto on_stage = [&](double seconds, ComputeOp op) {
    if (seconds <= 0) return;
    for (int d = 0; d < p.data; ++d) {
      for (int t = 0; t < p.tensor; ++t) {
        auto& r = ready[static_cast<std::size_t>(d)][static_cast<std::size_t>(t)];
        r = {compute(layout_.rank(s, d, t), seconds, r, {-1, op, true})};
      }
    }
  };
  if (last_chunk) on_stage(roofline_.last_stage_s(true), ComputeOp::head);
  const int layers = layers_[static_cast<std::size_t>(s)] / chunks_;
  double pending = 0;  // gradient bytes not yet in a bucket, per TP rank
  const double bytes = roofline_.element_bytes();
  const double grad_per_layer = roofline_.trained_params_per_layer() / p.tensor * bytes;
  // Embedding and LM head gradients belong to the first and last stages (frozen with LoRA).
  const double edge = sc_.job.finetune.adapters() ? 0
                                                  : embedding_params(model_) / p.tensor * bytes /
                                                        (p.pipeline > 1 ? 2.0 : 1.0) *
                                                        ((first_chunk || last_chunk) ? 1 : 0);
  if (last_micro_batch) pending += edge;
  Zero3Pass zero3;
  for (int l = 0; l < layers; ++l) {
    gather_weights(s, l, layers, ready, zero3);
    if (roofline_.offload_bytes_per_layer() > 0) {
      fetch_activations(s, mb, c * layers + layers - 1 - l, ready);
    }
    const int layer = first_layer(s, c) + layers - 1 - l;
    layer_half(s, layer, true, true, ready);
    layer_half(s, layer, true, false, ready);
    // The embedding's gradient, last of the backward, before the bucket that carries it.
    if (first_chunk && l == layers - 1)
      on_stage(roofline_.first_stage_s(true), ComputeOp::embedding);
    // ZeRO-3 (FSDP FULL_SHARD, DeepSpeed stage 3) keeps only gradient shards, so every
    // micro-batch reduce-scatters each layer's gradients (the edge ones with the last layer)
    // right after its backward, beside the next layer's.
    if (p.zero_stage >= 3 && p.data >= 2) {
      reduce_gradients(s, grad_per_layer + (l == layers - 1 ? edge : 0), coll::Op::reduce_scatter);
      continue;
    }
    if (!last_micro_batch || p.data < 2) continue;
    pending += grad_per_layer;
    if (pending >= p.bucket_bytes || l == layers - 1) {
      reduce_gradients(s, pending,
                       p.zero_stage >= 1 ? coll::Op::reduce_scatter : coll::Op::all_reduce);
      pending = 0;
    }
  }
  bwd_out_[static_cast<std::size_t>(s)]
          [static_cast<std::size_t>(c * micro_batches_per_step(sc_) + mb)] = flatten_ends(s, ready);
}

}  // namespace linksim::work
