#include "sim/work/job_builder.hpp"

#include <algorithm>

#include "sim/work/model_costs.hpp"
#include "sim/work/pipeline_schedule.hpp"
#include "sim/work/stage_layers.hpp"

namespace linksim::work {

JobBuilder::JobBuilder(const topo::Topology& machine, const ModelSpec& model,
                       const Scenario& scenario, bool leave_out_planes, int replicas)
    : machine_(machine),
      model_(model),
      sc_(scenario),
      layout_{scenario.plan},
      gpus_(plan_gpus(machine, scenario.plan)),
      placement_(machine, gpus_, {LinkRates::payload, leave_out_planes}),
      last_(gpus_.size(), std::nullopt),
      gpu_(&*machine.node(gpus_.front()).gpu),
      roofline_(model, scenario, *machine.node(gpus_.front()).gpu),
      replicas_(replicas > 0 ? replicas : scenario.plan.dp_ranks()) {}

bool JobBuilder::built(int rank) const {
  return (rank / layout_.plan.tensor) % layout_.plan.dp_ranks() < replicas_;
}

std::vector<int> JobBuilder::built_gpus() const {
  std::vector<int> out;
  for (int r = 0; r < static_cast<int>(gpus_.size()); ++r) {
    if (built(r)) out.push_back(gpu_index(r));
  }
  return out;
}

void JobBuilder::build() {
  const ParallelPlan& p = layout_.plan;
  const int stages = p.pipeline;
  const int m = micro_batches_per_step(sc_);
  // Layers per stage: even, the remainder on the first stages, or uneven (stage_layers.hpp).
  layers_ = stage_layers(model_, p);
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
  if (!std::all_of(ranks.begin(), ranks.end(), [&](int r) { return built(r); })) {
    return stand_in(group, ranks, op, size, deps);
  }
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

// Every rank of a stood-in group has the same TP rank t (data-parallel groups do), and the
// groups of the other TP ranks are its ranks shifted by t' - t: they run the same collective at
// the same moment, over their own GPUs of the same hosts, so they are simulated together.
engine::TaskId JobBuilder::stand_in(const std::string& group, const std::vector<int>& ranks,
                                    coll::Op op, double size, const std::vector<TaskId>& deps) {
  const int tensor = layout_.plan.tensor;
  const int t = ranks.front() % tensor;
  std::vector<int> base = ranks;
  for (int& r : base)
    r -= t;
  const auto works_for = [&](int tp) {
    CollectiveWork c;
    c.op = op;
    for (int r : base)
      c.gpus.push_back(gpus_[static_cast<std::size_t>(r + tp)]);
    c.algorithm = sc_.algorithm;
    c.protocol = sc_.protocol;
    return c;
  };
  const auto key = std::make_tuple(base, static_cast<int>(op), size);
  auto it = stand_in_s_.find(key);
  if (it == stand_in_s_.end()) {
    std::vector<CollectiveWork> concurrent;
    for (int tp = 0; tp < tensor; ++tp)
      concurrent.push_back(works_for(tp));
    it = stand_in_s_.emplace(key, placement_.concurrent_seconds(concurrent, size)).first;
  }
  const coll::Choice& choice = placement_.choice(works_for(t), size);
  max_channels_ = std::max(max_channels_, choice.channels);
  const TaskId end =
      placement_
          .add({.kind = WorkKind::delay, .amount = it->second[static_cast<std::size_t>(t)]}, deps)
          .end;
  std::vector<int> gpus;
  for (int rank : ranks) {
    if (built(rank)) gpus.push_back(gpu_index(rank));
  }
  records_.push_back({group, op, end, end, size, std::move(gpus), choice});
  return end;
}

// One layer half on every GPU of stage s (all replicas and TP ranks), then the TP
// collective(s). `ready[d][t]` are the tasks each GPU waits for; updated to the half's end.
void JobBuilder::layer_half(int s, int layer, bool backward, bool mlp, Ready& ready) {
  const ParallelPlan& p = layout_.plan;
  const double act =
      roofline_.tokens_per_micro_batch() * roofline_.costs().activation_bytes_per_token;
  // Sequence parallelism's all-gather: with FP8 matmuls Transformer Engine gathers FP8 (the
  // norm's FP8 output forward, the output gradient cast to FP8 backward: LayerNormLinear's
  // forward and grad_output_preprocess), 1 byte an element; the reduce-scatter stays bf16.
  const double gathered = roofline_.fp8_matmuls() ? act / roofline_.element_bytes() : act;
  // Context parallelism: the attention half's K and V exchange, by replica and TP rank.
  const std::vector<std::vector<TaskId>> kv =
      mlp || p.context < 2 ? std::vector<std::vector<TaskId>>{} : exchange_kv(s, backward, ready);
  for (int d = 0; d < replicas_; ++d) {
    std::vector<TaskId> ends;
    for (int t = 0; t < p.tensor; ++t) {
      auto& r = ready[static_cast<std::size_t>(d)][static_cast<std::size_t>(t)];
      ends.push_back(compute(layout_.rank(s, d, t), roofline_.half_layer_s(backward), r,
                             {layer, mlp ? ComputeOp::mlp : ComputeOp::attention, backward}));
    }
    // The half ends when its compute and its ring exchange have both ended.
    std::vector<TaskId> done = ends;
    if (!kv.empty()) {
      const auto& k = kv[static_cast<std::size_t>(d)];
      done.insert(done.end(), k.begin(), k.end());
    }
    std::vector<TaskId> after;
    if (p.tensor > 1) {
      const auto g = layout_.tp_group(s, d);
      if (p.sequence_parallel) {
        const TaskId rs = collective("TP", g, coll::Op::reduce_scatter, act, done);
        after = {collective("TP", g, coll::Op::all_gather, gathered, {rs})};
      } else {
        after = {collective("TP", g, coll::Op::all_reduce, act, done)};
      }
    }
    for (int t = 0; t < p.tensor; ++t) {
      auto& r = ready[static_cast<std::size_t>(d)][static_cast<std::size_t>(t)];
      if (p.tensor > 1) {
        r = after;
      } else {
        r = {ends[static_cast<std::size_t>(t)]};
        if (!kv.empty())
          r.insert(r.end(), kv[static_cast<std::size_t>(d)].begin(),
                   kv[static_cast<std::size_t>(d)].end());
      }
    }
  }
  if (mlp && model_.is_moe() && p.expert > 1) exchange_experts(s, ready);
}

// Ring attention as Transformer Engine runs it for Megatron-LM's context parallelism
// (transformer_engine/pytorch/attention.py, AttnFuncWithCPAndKVP2P): over context - 1 steps each
// rank sends the K and V chunk it holds to the next rank of its CP group and receives the
// previous rank's, while the attention of the chunk in hand computes; the backward passes K and
// V around again and the partial dK and dV the other way. So the exchange starts with the half
// (after the same inputs) and runs beside its compute: in the forward an all-gather of the KV
// chunks (each rank receives the other context - 1), in the backward that all-gather and a
// reduce-scatter of their gradients at once, over each TP rank's CP group. Returns, by replica,
// the exchanges the half must also wait for.
std::vector<std::vector<engine::TaskId>> JobBuilder::exchange_kv(int s, bool backward,
                                                                 const Ready& ready) {
  const ParallelPlan& p = layout_.plan;
  const double kv_width = model_.is_plain() ? 0 : 2.0 * model_.kv_heads * model_.head_dim();
  // The whole group's K and V for this micro-batch: every CP rank's tokens, each rank's 1/tp.
  const double bytes = roofline_.tokens_per_micro_batch() * p.context * kv_width *
                       roofline_.element_bytes() / p.tensor;
  std::vector<std::vector<TaskId>> out(static_cast<std::size_t>(p.dp_ranks()));
  if (bytes <= 0) return out;
  for (int base = 0; base < replicas_; base += p.context) {
    for (int t = 0; t < p.tensor; ++t) {
      std::vector<TaskId> deps;
      for (int d = base; d < base + p.context; ++d) {
        const auto& r = ready[static_cast<std::size_t>(d)][static_cast<std::size_t>(t)];
        deps.insert(deps.end(), r.begin(), r.end());
        if (const auto& last = last_[static_cast<std::size_t>(layout_.rank(s, d, t))])
          deps.push_back(*last);
      }
      const auto g = layout_.cp_group(s, base, t);
      std::vector<TaskId> ends = {collective("CP", g, coll::Op::all_gather, bytes, deps)};
      if (backward) ends.push_back(collective("CP", g, coll::Op::reduce_scatter, bytes, deps));
      for (int d = base; d < base + p.context; ++d) {
        auto& o = out[static_cast<std::size_t>(d)];
        o.insert(o.end(), ends.begin(), ends.end());
      }
    }
  }
  return out;
}

// MoE: tokens to their experts and back, around the MLP half: one all-to-all over each
// expert-parallel group that carries both ways.
void JobBuilder::exchange_experts(int s, Ready& ready) {
  const ParallelPlan& p = layout_.plan;
  const double act =
      roofline_.tokens_per_micro_batch() * roofline_.costs().activation_bytes_per_token;
  const double a2a = act * model_.experts_per_token;
  for (int d = 0; d < replicas_; d += p.expert) {
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
  Ready ready(static_cast<std::size_t>(p.dp_ranks()),
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
  for (int d = 0; d < replicas_; ++d) {
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
  for (int d = 0; d < replicas_; ++d) {
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
    for (int d = 0; d < replicas_; ++d) {
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
    for (int d = 0; d < replicas_; ++d) {
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
    if (p.zero_stage >= 3 && p.dp_ranks() >= 2) {
      reduce_gradients(s, grad_per_layer + (l == layers - 1 ? edge : 0), coll::Op::reduce_scatter);
      continue;
    }
    if (!last_micro_batch || p.dp_ranks() < 2) continue;
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
