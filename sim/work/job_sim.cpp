#include "sim/work/job_sim.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>

#include "sim/coll/collective_sim.hpp"
#include "sim/coll/route_paths.hpp"
#include "sim/core/error.hpp"
#include "sim/core/units.hpp"
#include "sim/topo/link_payload.hpp"
#include "sim/topo/routing.hpp"
#include "sim/work/advice.hpp"
#include "sim/work/finetune.hpp"
#include "sim/work/model_costs.hpp"
#include "sim/work/plan_check.hpp"

namespace linksim::work {
namespace {

using engine::TaskId;

struct CollRecord {
  std::string group;
  coll::Op op;
  TaskId first_task = 0;  // tasks [first_task, end] belong to it
  TaskId end = 0;
  double size_bytes = 0;
  std::vector<int> gpus;  // engine GPU indices of its ranks
};

// The records as the engine's accounting sees them (sim/engine/summary.hpp).
std::vector<engine::CommOp> comm_ops(const std::vector<CollRecord>& records) {
  std::vector<engine::CommOp> ops;
  ops.reserve(records.size());
  for (const auto& r : records)
    ops.push_back({r.first_task, r.end, r.gpus});
  return ops;
}

// Rank layout: tensor fastest, then data, then pipeline (Megatron's order), so a TP group sits
// on neighbouring GPUs.
struct Layout {
  ParallelPlan plan;
  int rank(int stage, int replica, int tp) const {
    return (stage * plan.data + replica) * plan.tensor + tp;
  }
};

double peak_flops(const topo::GpuModel& gpu, const std::string& dtype) {
  for (const std::string& d :
       {dtype, std::string("bf16"), std::string("fp16"), std::string("fp32")}) {
    auto it = gpu.peak_flops.find(d);
    if (it != gpu.peak_flops.end()) return it->second;
  }
  return 0;
}

// The GPUs a plan runs on: the first data x tensor x pipeline of the machine, in GPU order, so
// that on a cluster tensor groups stay inside a node and the job fills whole nodes first.
std::vector<topo::NodeId> plan_gpus(const topo::Topology& machine, const ParallelPlan& plan) {
  auto gpus = machine.nodes_of(topo::NodeKind::gpu);
  gpus.resize(std::min(gpus.size(), static_cast<std::size_t>(std::max(plan.gpus(), 1))));
  return gpus;
}

class JobBuilder {
 public:
  JobBuilder(const topo::Topology& machine, const ModelSpec& model, const Scenario& scenario,
             std::vector<double> scale)
      : machine_(machine),
        model_(model),
        sc_(scenario),
        layout_{scenario.plan},
        scale_(std::move(scale)),
        gpus_(plan_gpus(machine, scenario.plan)) {
    sim_ =
        std::make_shared<engine::Simulation>(topo::payload_capacities_Bps(machine), gpus_.size());
    last_.assign(gpus_.size(), std::nullopt);
    const topo::GpuModel& gpu = *machine.node(gpus_.front()).gpu;
    gpu_ = &gpu;
    peak_ = peak_flops(gpu, model.dtype) * scenario.compute.efficiency;
    lc_ = layer_costs(model);
    bytes_ = dtype_bytes(model.dtype);
    const Job& job = scenario.job;
    adapters_ = adapter_params_per_layer(model, job.finetune);
    active_adapters_ = active_adapter_params_per_layer(model, job.finetune);
    std::string format = job.precision.weights;
    if (format.empty() && job.finetune.method == FinetuneMethod::qlora) format = "nf4";
    const double linear_bytes =
        weight_bytes_per_param(format, job.precision.group_size, model.dtype);
    layer_weight_bytes_ = lc_.linear_params * linear_bytes +
                          (lc_.params - lc_.linear_params) * bytes_ + adapters_ * bytes_;
    kv_bytes_per_token_ =
        lc_.kv_bytes_per_token * kv_cache_bytes_per_element(job.precision, model.dtype) / bytes_;
    MemoryOptions options;
    options.flash_attention = uses_flash_attention(model, scenario.plan, gpu);
    offload_bytes_per_layer_ = scenario.plan.activation_offload
                                   ? layer_activation_bytes(model, job, scenario.plan, options)
                                   : 0;
  }

  void build() {
    const ParallelPlan& p = layout_.plan;
    const int stages = p.pipeline;
    const int m = sc_.job.kind == JobKind::training  ? p.micro_batches
                  : sc_.job.kind == JobKind::prefill ? p.micro_batches
                                                     : 1;
    const double sequences = static_cast<double>(sc_.job.global_batch) / p.data / m;
    tokens_mb_ = sc_.job.kind == JobKind::decode ? sequences : sequences * sc_.job.sequence_length;
    context_ = sc_.job.kind == JobKind::decode
                   ? sc_.job.sequence_length + sc_.job.decode_tokens / 2.0
                   : sc_.job.sequence_length / 2.0;  // causal: half the prompt on average
    // Layers per stage, the remainder on the first stages.
    for (int s = 0; s < stages; ++s) {
      layers_.push_back(model_.layers / stages + (s < model_.layers % stages ? 1 : 0));
    }
    const bool training = sc_.job.kind == JobKind::training;
    // Ops per stage in 1F1B order: +i forward of micro-batch i, -(i+1) backward.
    std::vector<std::vector<int>> ops(static_cast<std::size_t>(stages));
    for (int s = 0; s < stages; ++s) {
      auto& o = ops[static_cast<std::size_t>(s)];
      if (!training) {
        for (int i = 0; i < m; ++i)
          o.push_back(i);
        continue;
      }
      const int warm = std::min(stages - s - 1, m);
      for (int i = 0; i < warm; ++i)
        o.push_back(i);
      for (int i = 0; i < m - warm; ++i) {
        o.push_back(warm + i);
        o.push_back(-(i + 1));
      }
      for (int i = m - warm; i < m; ++i)
        o.push_back(-(i + 1));
    }
    // Create ops whenever their cross-stage input exists (1F1B never deadlocks).
    fwd_out_.assign(static_cast<std::size_t>(stages),
                    std::vector<std::vector<TaskId>>(static_cast<std::size_t>(m)));
    bwd_out_ = fwd_out_;
    std::vector<std::size_t> next(static_cast<std::size_t>(stages), 0);
    for (bool progress = true; progress;) {
      progress = false;
      for (int s = 0; s < stages; ++s) {
        auto& n = next[static_cast<std::size_t>(s)];
        while (n < ops[static_cast<std::size_t>(s)].size()) {
          const int op = ops[static_cast<std::size_t>(s)][n];
          const bool fwd = op >= 0;
          const int mb = fwd ? op : -op - 1;
          if (fwd && s > 0 &&
              fwd_out_[static_cast<std::size_t>(s - 1)][static_cast<std::size_t>(mb)].empty())
            break;
          if (!fwd && s + 1 < stages &&
              bwd_out_[static_cast<std::size_t>(s + 1)][static_cast<std::size_t>(mb)].empty()) {
            break;
          }
          if (fwd) {
            forward(s, mb);
          } else {
            backward(s, mb, mb == m - 1);
          }
          ++n;
          progress = true;
        }
      }
    }
    if (training) optimizer_step();
  }

  std::shared_ptr<engine::Simulation> sim() const { return sim_; }
  const std::vector<CollRecord>& records() const { return records_; }
  const std::vector<std::pair<TaskId, int>>& compute_tasks() const { return compute_tasks_; }
  int max_channels() const { return max_channels_; }
  double tokens_mb() const { return tokens_mb_; }

 private:
  int gpu_index(int rank) const {
    return machine_.node(gpus_[static_cast<std::size_t>(rank)]).ordinal;
  }

  // Compute on `rank` after its previous compute and `deps`.
  TaskId compute(int rank, double seconds, std::vector<TaskId> deps) {
    auto& last = last_[static_cast<std::size_t>(rank)];
    if (last) deps.push_back(*last);
    const std::size_t k = compute_tasks_.size();
    const double s = k < scale_.size() ? scale_[k] : 1.0;
    const TaskId t = sim_->add_compute(gpu_index(rank), seconds * s, deps);
    compute_tasks_.emplace_back(t, rank);
    last = t;
    return t;
  }

  // A collective over `ranks`, after `deps`; returns its end.
  TaskId collective(const std::string& group, const std::vector<int>& ranks, coll::Op op,
                    double size, const std::vector<TaskId>& deps) {
    if (ranks.size() < 2 || size <= 0) return sim_->add_barrier(deps);
    auto& comm = communicator(ranks);
    coll::Request r;
    r.op = op;
    r.size_bytes = size;
    r.algorithm = sc_.algorithm;
    r.protocol = sc_.protocol;
    auto key = std::make_tuple(ranks, static_cast<int>(op), size);
    auto it = choices_.find(key);
    if (it == choices_.end()) {
      it = choices_.emplace(key, coll::simulate_collective(comm, r).choice).first;
    }
    max_channels_ = std::max(max_channels_, it->second.channels);
    const TaskId first = static_cast<TaskId>(sim_->task_count());
    const TaskId end = coll::lower_collective(comm, r, it->second, *sim_, deps);
    std::vector<int> gpus;
    for (int rank : ranks)
      gpus.push_back(gpu_index(rank));
    records_.push_back({group, op, first, end, size, std::move(gpus)});
    return end;
  }

  coll::Communicator& communicator(const std::vector<int>& ranks) {
    auto it = comms_.find(ranks);
    if (it != comms_.end()) return *it->second;
    std::vector<topo::NodeId> nodes;
    for (int r : ranks)
      nodes.push_back(gpus_[static_cast<std::size_t>(r)]);
    auto c = std::make_unique<coll::Communicator>(machine_, nodes);
    return *comms_.emplace(ranks, std::move(c)).first->second;
  }

  // Roofline time of a layer half for `tokens` tokens on one TP rank.
  double half_layer_s(bool backward) const {
    const ParallelPlan& p = layout_.plan;
    const double per_rank = tokens_mb_ / p.tensor / 2;
    const double base = per_rank * lc_.fwd_flops_per_token;
    const double adapters = per_rank * 2 * active_adapters_;
    const double scores = per_rank * lc_.attention_flops_per_token_per_context_token * context_;
    const double fwd = base + adapters + scores;
    double bytes = layer_weight_bytes_ / p.tensor / 2;
    if (sc_.job.kind == JobKind::decode)
      bytes += tokens_mb_ * context_ * kv_bytes_per_token_ / p.tensor / 2;
    const double t = std::max(fwd / peak_, bytes / gpu_->hbm_bandwidth_Bps);
    if (!backward) return t;
    // Backward FLOPs over forward FLOPs (the roofline time scales with it): 2 in full
    // training (input and weight gradients); with LoRA the frozen base matmuls skip dW (1x)
    // while attention scores and adapters cost 2x (sim/work/finetune.hpp). Recomputation runs
    // the forward (full) or the attention core (selective) again first.
    double ratio = 2;
    if (sc_.job.finetune.adapters() && fwd > 0) ratio = (base + 2 * adapters + 2 * scores) / fwd;
    if (p.recompute == Recompute::full) ratio += 1;
    if (p.recompute == Recompute::selective && fwd > 0) ratio += scores / fwd;
    return ratio * t;
  }

  std::vector<int> tp_group(int s, int d) const {
    std::vector<int> g;
    for (int t = 0; t < layout_.plan.tensor; ++t)
      g.push_back(layout_.rank(s, d, t));
    return g;
  }
  std::vector<int> dp_group(int s, int t) const {
    std::vector<int> g;
    for (int d = 0; d < layout_.plan.data; ++d)
      g.push_back(layout_.rank(s, d, t));
    return g;
  }
  std::vector<int> ep_group(int s, int d, int t) const {
    std::vector<int> g;
    const int ep = layout_.plan.expert;
    const int base = d / ep * ep;
    for (int k = 0; k < ep; ++k)
      g.push_back(layout_.rank(s, base + k, t));
    return g;
  }

  // One layer half on every GPU of stage s (all replicas and TP ranks), then the TP
  // collective(s). `ready[d][t]` are the tasks each GPU waits for; updated to the half's end.
  void layer_half(int s, bool backward, bool mlp,
                  std::vector<std::vector<std::vector<TaskId>>>& ready) {
    const ParallelPlan& p = layout_.plan;
    const double act = tokens_mb_ * lc_.activation_bytes_per_token;
    for (int d = 0; d < p.data; ++d) {
      std::vector<TaskId> ends;
      for (int t = 0; t < p.tensor; ++t) {
        auto& r = ready[static_cast<std::size_t>(d)][static_cast<std::size_t>(t)];
        ends.push_back(compute(layout_.rank(s, d, t), half_layer_s(backward), r));
      }
      std::vector<TaskId> after;
      if (p.tensor > 1) {
        const auto g = tp_group(s, d);
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
    // MoE: tokens to their experts and back, around the MLP half.
    if (mlp && model_.is_moe() && p.expert > 1) {
      const double a2a = act * model_.experts_per_token;
      for (int d = 0; d < p.data; d += p.expert) {
        for (int t = 0; t < p.tensor; ++t) {
          const auto g = ep_group(s, d, t);
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
  }

  using Ready = std::vector<std::vector<std::vector<TaskId>>>;

  // ZeRO-3: one layer's weights all-gathered over each TP rank's DP group, once every DP rank's
  // `after` entries and its last compute have ended (weights are gathered where the GPU's
  // stream reaches them, never before its previous work). Returns the ends, by TP rank.
  std::vector<TaskId> gather_layer_weights(int s, const Ready& after) {
    const ParallelPlan& p = layout_.plan;
    std::vector<TaskId> ends;
    for (int t = 0; t < p.tensor; ++t) {
      std::vector<TaskId> deps;
      for (int d = 0; d < p.data; ++d) {
        const auto& r = after[static_cast<std::size_t>(d)][static_cast<std::size_t>(t)];
        deps.insert(deps.end(), r.begin(), r.end());
        if (const auto& last = last_[static_cast<std::size_t>(layout_.rank(s, d, t))]) {
          deps.push_back(*last);
        }
      }
      ends.push_back(collective("DP", dp_group(s, t), coll::Op::all_gather,
                                layer_weight_bytes_ / p.tensor, deps));
    }
    return ends;
  }

  // ZeRO-3: the weights of the layer about to run, added to what it waits for. Gathered now,
  // unless the previous layer prefetched them into `prefetched`. With plan.prefetch the next
  // layer's gather (when `next_layer`) is issued here, after this layer's gather and inputs, so
  // that it runs while this layer computes (FSDP's forward/backward prefetch, DeepSpeed's
  // stage-3 prefetch: one layer ahead).
  void gather_weights(int s, Ready& ready, std::vector<TaskId>& prefetched, bool next_layer) {
    const ParallelPlan& p = layout_.plan;
    if (p.zero_stage < 3 || p.data < 2) return;
    const std::vector<TaskId> current =
        prefetched.empty() ? gather_layer_weights(s, ready) : prefetched;
    prefetched.clear();
    for (int d = 0; d < p.data; ++d) {
      for (int t = 0; t < p.tensor; ++t) {
        ready[static_cast<std::size_t>(d)][static_cast<std::size_t>(t)].push_back(
            current[static_cast<std::size_t>(t)]);
      }
    }
    if (p.prefetch && next_layer) prefetched = gather_layer_weights(s, ready);
  }

  Ready ready_from_stage_input(int s, int mb, bool backward) {
    const ParallelPlan& p = layout_.plan;
    Ready ready(static_cast<std::size_t>(p.data),
                std::vector<std::vector<TaskId>>(static_cast<std::size_t>(p.tensor)));
    const int from = backward ? s + 1 : s - 1;
    if (from < 0 || from >= p.pipeline) return ready;
    const auto& src = backward
                          ? bwd_out_[static_cast<std::size_t>(from)][static_cast<std::size_t>(mb)]
                          : fwd_out_[static_cast<std::size_t>(from)][static_cast<std::size_t>(mb)];
    // Activations (or their gradients) cross the stage boundary, each TP rank its 1/tp share.
    const double bytes = tokens_mb_ * lc_.activation_bytes_per_token / p.tensor;
    for (int d = 0; d < p.data; ++d) {
      for (int t = 0; t < p.tensor; ++t) {
        const int a = layout_.rank(from, d, t);
        const int b = layout_.rank(s, d, t);
        const TaskId dep = src[static_cast<std::size_t>(d * p.tensor + t)];
        const TaskId first = static_cast<TaskId>(sim_->task_count());
        const TaskId x = send(a, b, bytes, dep);
        records_.push_back(
            {"PP", coll::Op::sendrecv, first, x, bytes, {gpu_index(a), gpu_index(b)}});
        ready[static_cast<std::size_t>(d)][static_cast<std::size_t>(t)] = {x};
      }
    }
    return ready;
  }

  TaskId send(int a, int b, double bytes, TaskId dep) {
    // One way only (a 2-rank sendrecv would send both ways): a single Simple transfer.
    auto& comm = communicator({a, b});
    const double hop =
        coll::hop_latency_s(coll::Algorithm::pairwise, coll::Protocol::simple, comm.intra_class());
    const auto shares = coll::add_route_paths(*sim_, comm.route(0, 1), hop);
    return sim_->add_transfer(bytes / coll::wire_efficiency(coll::Protocol::simple), shares,
                              gpu_index(a), gpu_index(b), {&dep, 1});
  }

  std::vector<TaskId> flatten_ends(int s, const Ready& ready) const {
    const ParallelPlan& p = layout_.plan;
    std::vector<TaskId> out;
    for (int d = 0; d < p.data; ++d) {
      for (int t = 0; t < p.tensor; ++t) {
        const auto& r = ready[static_cast<std::size_t>(d)][static_cast<std::size_t>(t)];
        // The GPU's own last compute is the end of its part; collectives are in `r`.
        out.push_back(r.empty() ? *last_[static_cast<std::size_t>(layout_.rank(s, d, t))]
                                : r.back());
      }
    }
    return out;
  }

  void forward(int s, int mb) {
    Ready ready = ready_from_stage_input(s, mb, false);
    const int layers = layers_[static_cast<std::size_t>(s)];
    std::vector<TaskId> prefetched;
    for (int l = 0; l < layers; ++l) {
      gather_weights(s, ready, prefetched, l + 1 < layers);
      layer_half(s, false, false, ready);
      layer_half(s, false, true, ready);
      if (offload_bytes_per_layer_ > 0 && sc_.job.kind == JobKind::training) {
        store_activations(s, mb, l);
      }
    }
    fwd_out_[static_cast<std::size_t>(s)][static_cast<std::size_t>(mb)] = flatten_ends(s, ready);
  }

  void backward(int s, int mb, bool last_micro_batch) {
    const ParallelPlan& p = layout_.plan;
    Ready ready = ready_from_stage_input(s, mb, true);
    const int layers = layers_[static_cast<std::size_t>(s)];
    double pending = 0;  // gradient bytes not yet in a bucket, per TP rank
    const double grad_per_layer = trained_params_per_layer() / p.tensor * bytes_;
    // Embedding and LM head gradients belong to the first and last stages (frozen with LoRA).
    const double edge = sc_.job.finetune.adapters() ? 0
                                                    : embedding_params(model_) / p.tensor * bytes_ /
                                                          (p.pipeline > 1 ? 2.0 : 1.0) *
                                                          ((s == 0 || s == p.pipeline - 1) ? 1 : 0);
    if (last_micro_batch) pending += edge;
    std::vector<TaskId> prefetched;
    for (int l = 0; l < layers; ++l) {
      gather_weights(s, ready, prefetched, l + 1 < layers);
      if (offload_bytes_per_layer_ > 0) fetch_activations(s, mb, layers - 1 - l, ready);
      layer_half(s, true, true, ready);
      layer_half(s, true, false, ready);
      if (!last_micro_batch || p.data < 2) continue;
      if (p.zero_stage >= 3) {
        reduce_gradients(s, grad_per_layer, coll::Op::reduce_scatter);
        continue;
      }
      pending += grad_per_layer;
      if (pending >= p.bucket_bytes || l == layers - 1) {
        reduce_gradients(s, pending,
                         p.zero_stage >= 1 ? coll::Op::reduce_scatter : coll::Op::all_reduce);
        pending = 0;
      }
    }
    bwd_out_[static_cast<std::size_t>(s)][static_cast<std::size_t>(mb)] = flatten_ends(s, ready);
  }

  // A gradient bucket over the DP group, after the compute that produced it; the backward
  // goes on beside it.
  void reduce_gradients(int s, double bytes, coll::Op op) {
    const ParallelPlan& p = layout_.plan;
    for (int t = 0; t < p.tensor; ++t) {
      std::vector<TaskId> deps;
      for (int d = 0; d < p.data; ++d) {
        deps.push_back(*last_[static_cast<std::size_t>(layout_.rank(s, d, t))]);
      }
      const TaskId end = collective("DP", dp_group(s, t), op, bytes, deps);
      for (int d = 0; d < p.data; ++d)
        grad_syncs_[layout_.rank(s, d, t)].push_back(end);
    }
  }

  // Parameters a training step updates: every one, or with LoRA only the adapters.
  double trained_params_per_layer() const {
    return sc_.job.finetune.adapters() ? adapters_ : lc_.params;
  }

  // Activation offload: one layer's saved activations to host memory after its forward.
  void store_activations(int s, int mb, int layer) {
    const ParallelPlan& p = layout_.plan;
    for (int d = 0; d < p.data; ++d) {
      for (int t = 0; t < p.tensor; ++t) {
        const int r = layout_.rank(s, d, t);
        stored_[{r, mb, layer}] =
            host_copy(r, true, offload_bytes_per_layer_, {*last_[static_cast<std::size_t>(r)]});
      }
    }
  }

  // ... and back before its backward, after the previous copy back (one copy engine each way,
  // so the copies run one after another, ahead of the compute that needs them).
  void fetch_activations(int s, int mb, int layer, Ready& ready) {
    const ParallelPlan& p = layout_.plan;
    for (int d = 0; d < p.data; ++d) {
      for (int t = 0; t < p.tensor; ++t) {
        const int r = layout_.rank(s, d, t);
        std::vector<TaskId> deps = {stored_.at({r, mb, layer})};
        if (auto it = last_fetch_.find(r); it != last_fetch_.end()) deps.push_back(it->second);
        const TaskId x = host_copy(r, false, offload_bytes_per_layer_, deps);
        last_fetch_[r] = x;
        ready[static_cast<std::size_t>(d)][static_cast<std::size_t>(t)].push_back(x);
      }
    }
  }

  // A copy between rank r's GPU and its CPU socket's memory, recorded as "offload"
  // communication of that GPU.
  TaskId host_copy(int r, bool to_host, double bytes, const std::vector<TaskId>& deps) {
    if (!router_) router_ = std::make_unique<topo::Router>(machine_);
    const topo::NodeId g = gpus_[static_cast<std::size_t>(r)];
    const auto cpu = router_->host_socket(g);
    if (!cpu) {
      throw InputError(sc_.file, "/plan",
                       fmt::format("offloading needs a CPU socket reachable from {}; {} has none",
                                   machine_.node(g).id, machine_.name));
    }
    const auto route = to_host ? router_->route(g, *cpu) : router_->route(*cpu, g);
    const auto shares = coll::add_route_paths(*sim_, *route);
    const int gi = gpu_index(r);
    const TaskId first = static_cast<TaskId>(sim_->task_count());
    const TaskId x = sim_->add_transfer(bytes, shares, to_host ? gi : engine::kNoGpu,
                                        to_host ? engine::kNoGpu : gi, deps);
    records_.push_back({"offload", coll::Op::sendrecv, first, x, bytes, {gi}});
    return x;
  }

  // Memory bandwidth the CPU optimizer step of rank r gets: its socket's, shared by the GPUs
  // attached to it (100 GB/s per socket assumed when the machine file gives none).
  double host_memory_bandwidth_Bps(int r) {
    if (!router_) router_ = std::make_unique<topo::Router>(machine_);
    const auto cpu = router_->host_socket(gpus_[static_cast<std::size_t>(r)]);
    double bw = cpu ? machine_.node(*cpu).cpu->memory_bandwidth_Bps : 0;
    if (bw <= 0) bw = 100e9;
    int sharing = 0;
    for (auto g : gpus_)
      sharing += router_->host_socket(g) == cpu ? 1 : 0;
    return bw / std::max(sharing, 1);
  }

  // Adam: read and write weights, master weights, moments and gradients (~16 B per parameter
  // per GPU shard plus the dtype copy), memory-bound: on the GPU, or with ZeRO-Offload on the
  // CPU after the gradients came down (a delay: the GPU waits), the weights going back up.
  void optimizer_step() {
    const ParallelPlan& p = layout_.plan;
    const bool adapters = sc_.job.finetune.adapters();
    for (int s = 0; s < p.pipeline; ++s) {
      const double edge =
          adapters || (s != 0 && s != p.pipeline - 1) ? 0 : embedding_params(model_);
      const double params =
          (layers_[static_cast<std::size_t>(s)] * trained_params_per_layer() + edge) / p.tensor /
          (p.zero_stage >= 1 ? p.data : 1);
      const double t = params * (16 + 2 * bytes_) / gpu_->hbm_bandwidth_Bps;
      for (int d = 0; d < p.data; ++d) {
        for (int tp = 0; tp < p.tensor; ++tp) {
          const int r = layout_.rank(s, d, tp);
          if (!p.optimizer_offload) {
            compute(r, t, grad_syncs_[r]);
            continue;
          }
          auto deps = grad_syncs_[r];
          if (const auto& last = last_[static_cast<std::size_t>(r)]) deps.push_back(*last);
          const TaskId down = host_copy(r, true, params * bytes_, deps);
          const TaskId cpu_step = sim_->add_delay(
              params * (16 + 2 * bytes_) / host_memory_bandwidth_Bps(r), {&down, 1});
          last_[static_cast<std::size_t>(r)] = host_copy(r, false, params * bytes_, {cpu_step});
        }
      }
      if (p.zero_stage >= 1 && p.zero_stage < 3 && p.data > 1) {
        for (int tp = 0; tp < p.tensor; ++tp) {
          std::vector<TaskId> deps;
          for (int d = 0; d < p.data; ++d)
            deps.push_back(*last_[static_cast<std::size_t>(layout_.rank(s, d, tp))]);
          collective("DP", dp_group(s, tp), coll::Op::all_gather, params * p.data * bytes_, deps);
        }
      }
    }
  }

  const topo::Topology& machine_;
  const ModelSpec& model_;
  const Scenario& sc_;
  Layout layout_;
  std::vector<double> scale_;
  std::vector<topo::NodeId> gpus_;
  std::shared_ptr<engine::Simulation> sim_;
  std::vector<std::optional<TaskId>> last_;
  const topo::GpuModel* gpu_ = nullptr;
  double peak_ = 0;
  LayerCosts lc_;
  double bytes_ = 2;
  double adapters_ = 0;            // LoRA adapter parameters per layer
  double active_adapters_ = 0;     // ... that one token passes through
  double layer_weight_bytes_ = 0;  // one layer's stored weights (quantized, with adapters)
  double kv_bytes_per_token_ = 0;  // per layer, at the KV cache's dtype
  double offload_bytes_per_layer_ = 0;
  std::unique_ptr<topo::Router> router_;
  std::map<std::tuple<int, int, int>, TaskId> stored_;  // (rank, micro-batch, layer) -> copy
  std::map<int, TaskId> last_fetch_;
  double tokens_mb_ = 0;
  double context_ = 0;
  std::vector<int> layers_;
  std::vector<std::vector<std::vector<TaskId>>> fwd_out_;
  std::vector<std::vector<std::vector<TaskId>>> bwd_out_;
  std::map<int, std::vector<TaskId>> grad_syncs_;
  std::map<std::vector<int>, std::unique_ptr<coll::Communicator>> comms_;
  std::map<std::tuple<std::vector<int>, int, double>, coll::Choice> choices_;
  std::vector<CollRecord> records_;
  std::vector<std::pair<TaskId, int>> compute_tasks_;
  int max_channels_ = 0;
};

// Fraction of each compute task's time that communication on its GPU overlapped, with
// communication as the engine's accounting defines it (the whole span of a collective the GPU
// takes part in: its kernel holds SMs from launch to end).
std::vector<double> overlap_fractions(const engine::Simulation& sim, const engine::Timeline& tl,
                                      const std::vector<CollRecord>& records,
                                      const std::vector<std::pair<TaskId, int>>& tasks,
                                      const std::vector<int>& gpu_of_rank) {
  const auto comm = engine::comm_intervals(sim, tl, comm_ops(records));
  std::vector<double> out;
  out.reserve(tasks.size());
  for (const auto& [task, rank] : tasks) {
    const double a = tl.task_start_s[task];
    const double b = tl.task_end_s[task];
    if (b <= a) {
      out.push_back(0);
      continue;
    }
    const auto g = static_cast<std::size_t>(gpu_of_rank[static_cast<std::size_t>(rank)]);
    out.push_back(std::min(1.0, engine::covered_length(comm[g], a, b) / (b - a)));
  }
  return out;
}

void check_plan(const topo::Topology& machine, const ModelSpec& model, const Scenario& sc) {
  if (auto problem = plan_problem(machine, model, sc.job, sc.plan)) {
    throw InputError(sc.file, problem->pointer, problem->message);
  }
}

// The message of a plan that does not fit: the breakdown, then the smallest plan that fits and
// that this machine can run, or how many GPUs the job needs.
std::string does_not_fit_message(const topo::Topology& machine, const ModelSpec& model,
                                 const Scenario& sc, const topo::GpuModel& gpu,
                                 const FitResult& fit) {
  std::string msg =
      fmt::format("{} does not fit on {}: {}", model.name, machine.name, fit.explanation);
  const int max_tensor = machine.is_cluster() ? machine.cluster->gpus_per_host : 8;
  const auto machine_gpus = static_cast<int>(machine.count(topo::NodeKind::gpu));
  const auto better = smallest_fitting_plan(
      model, sc.job, gpu, machine_gpus, 0.9, sc.plan, max_tensor,
      [&](const ParallelPlan& p) { return !plan_problem(machine, model, sc.job, p); });
  if (better) {
    return msg + fmt::format(
                     "; the smallest plan that fits is data {} x tensor {} x pipeline {} with "
                     "ZeRO stage {} and {} micro-batches (`linksim plan` ranks every plan "
                     "that fits)",
                     better->data, better->tensor, better->pipeline, better->zero_stage,
                     better->micro_batches);
  }
  const auto any = smallest_fitting_plan(model, sc.job, gpu, 4096, 0.9, sc.plan, max_tensor);
  return msg + (any ? fmt::format("; no plan on {}'s {} GPUs fits: it needs at least {} GPUs "
                                  "(data {} x tensor {} x pipeline {}), which takes several "
                                  "nodes: run it on a cluster (a cluster file, or --nodes)",
                                  machine.name, machine_gpus, any->gpus(), any->data, any->tensor,
                                  any->pipeline)
                    : std::string("; no plan fits even on 4096 GPUs"));
}

}  // namespace

JobResult simulate_job(const topo::Topology& machine, const ModelSpec& model,
                       const Scenario& scenario, const JobOptions& options) {
  if (scenario.job.kind == JobKind::serving) {
    throw std::invalid_argument("simulate_job: a serving job is simulate_serving's");
  }
  Scenario sc = scenario;
  if (sc.plan.data_fills) {
    const auto gpus = static_cast<int>(machine.count(topo::NodeKind::gpu));
    const int per_replica = sc.plan.tensor * sc.plan.pipeline;
    if (gpus % per_replica != 0) {
      throw InputError(sc.file, "/plan/data",
                       fmt::format("\"fill\" needs tensor x pipeline = {} to divide {}'s {} GPUs",
                                   per_replica, machine.name, gpus));
    }
    sc.plan.data = gpus / per_replica;
  }
  check_plan(machine, model, sc);
  const topo::GpuModel& gpu = *machine.node(machine.nodes_of(topo::NodeKind::gpu).front()).gpu;
  JobResult res;
  res.machine = machine.name;
  res.machine_title = machine.title;
  res.gpus = sc.plan.gpus();
  if (machine.instance && machine.instance->price_per_hour_usd) {
    // A job pays for the whole machine, or on a cluster for the nodes it occupies.
    double price = *machine.instance->price_per_hour_usd;
    if (machine.is_cluster()) {
      const int per = machine.cluster->gpus_per_host;
      price = price / machine.cluster->hosts * ((res.gpus + per - 1) / per);
    }
    res.price_per_hour_usd = price;
  }

  const FitResult fit = check_fit(model, sc.job, sc.plan, gpu, 0.9);
  res.memory = fit.need;
  res.fit_explanation = fit.explanation;
  if (!fit.fits && options.check_memory) {
    throw DoesNotFit(sc.file, "/plan", does_not_fit_message(machine, model, sc, gpu, fit));
  }

  std::vector<int> gpu_of_rank;
  for (auto g : plan_gpus(machine, sc.plan))
    gpu_of_rank.push_back(machine.node(g).ordinal);

  // Pass 1: find how much of each compute overlaps communication; pass 2: slow that part.
  JobBuilder first(machine, model, sc, {});
  first.build();
  engine::Timeline tl1 = first.sim()->run();
  const double share = sc.compute.comm_sm_share.value_or(
      gpu.sm_count > 0 ? std::min(0.5, static_cast<double>(first.max_channels()) / gpu.sm_count)
                       : 0.0);
  res.comm_sm_share = share;
  std::vector<double> scale;
  for (double f :
       overlap_fractions(*first.sim(), tl1, first.records(), first.compute_tasks(), gpu_of_rank)) {
    scale.push_back((1 - f) + f / (1 - share));
  }
  JobBuilder second(machine, model, sc, scale);
  second.build();
  auto sim = second.sim();
  auto tl = std::make_shared<engine::Timeline>(sim->run());

  auto names = std::make_shared<engine::Names>();
  names->tasks.resize(sim->task_count());
  for (std::size_t i = 0; i < sim->task_count(); ++i)
    names->tasks[i] = fmt::format("t{}", i);
  for (const auto& r : second.records()) {
    for (TaskId t = r.first_task; t <= r.end; ++t) {
      names->tasks[t] = fmt::format("{} {} #{}", r.group, coll::to_string(r.op), t);
    }
  }
  for (const auto& [task, rank] : second.compute_tasks())
    names->tasks[task] = fmt::format("compute #{}", task);
  for (auto g : plan_gpus(machine, sc.plan))
    names->gpus.push_back(machine.node(g).id);
  for (std::size_t c = 0; c < sim->channel_count(); ++c) {
    names->channels.push_back(c < machine.channel_count()
                                  ? machine.channel_name(static_cast<topo::ChannelId>(c))
                                  : fmt::format("protocol cap {}", c));
  }
  const engine::Summary summary = engine::summarize(*sim, *tl, *names, comm_ops(second.records()));

  res.step_s = tl->makespan_s;
  for (const auto& g : summary.gpus) {
    res.compute_s += g.compute_s;
    res.comm_s += g.comm_s;
    res.exposed_comm_s += g.exposed_comm_s;
    res.hidden_comm_s += g.hidden_comm_s;
    res.idle_s += g.idle_s;
  }
  const double n = static_cast<double>(summary.gpus.size());
  res.compute_s /= n;
  res.comm_s /= n;
  res.exposed_comm_s /= n;
  res.hidden_comm_s /= n;
  res.idle_s /= n;
  res.comm_share = res.step_s > 0 ? res.exposed_comm_s / res.step_s : 0;
  for (const auto& r : second.records()) {
    const double d = tl->task_end_s[r.end] - tl->task_start_s[r.first_task];
    for (auto* m :
         {&res.by_group[r.group], &res.by_collective[std::string(coll::to_string(r.op))]}) {
      m->collectives += 1;
      m->time_s += d;
      m->bytes += r.size_bytes;
    }
  }
  for (std::size_t i : summary.bottlenecks) {
    const auto& ch = summary.channels[i];
    if (ch.channel >= machine.channel_count() || ch.saturated_s < 0.01 * res.step_s) continue;
    res.bottlenecks.push_back(fmt::format("{}: saturated {:.0f}% of the step", ch.name,
                                          100 * ch.saturated_s / std::max(res.step_s, 1e-30)));
    if (res.bottlenecks.size() == 3) break;
  }
  switch (sc.job.kind) {
    case JobKind::training:
    case JobKind::prefill:
    case JobKind::serving:  // refused above
      res.tokens_per_step = static_cast<double>(sc.job.global_batch) * sc.job.sequence_length;
      res.request_s = res.step_s;
      break;
    case JobKind::decode:
      res.tokens_per_step = sc.job.global_batch;
      res.request_s = res.step_s * sc.job.decode_tokens;
      res.notes.push_back(
          fmt::format("decode: one token simulated at the average context ({} + {}/2 "
                      "tokens) and repeated {} times",
                      sc.job.sequence_length, sc.job.decode_tokens, sc.job.decode_tokens));
      break;
  }
  res.tokens_per_s = res.step_s > 0 ? res.tokens_per_step / res.step_s : 0;
  res.simulation = sim;
  res.timeline = tl;
  res.names = names;
  res.advice = advise(res, sc);
  return res;
}

namespace {

// Compute, then the sync, nothing beside it: everything after the compute is exposed.
void fill_sync_result(JobResult& r, double makespan_s, const GradientSync& g) {
  r.step_s = makespan_s;
  r.request_s = r.step_s;
  r.compute_s = g.compute_s;
  r.comm_s = r.step_s - g.compute_s;
  r.exposed_comm_s = r.comm_s;
  r.comm_share = r.exposed_comm_s / r.step_s;
  r.by_group["DP"] = {1, r.comm_s, g.gradient_bytes};
}

}  // namespace

GradientSyncResult simulate_gradient_sync(const topo::Topology& machine, const Scenario& sc) {
  const GradientSync& g = *sc.gradient_sync;
  const auto gpus = machine.nodes_of(topo::NodeKind::gpu);
  GradientSyncResult out;
  for (JobResult* r : {&out.simple, &out.realistic}) {
    r->machine = machine.name;
    r->machine_title = machine.title;
    if (machine.instance) r->price_per_hour_usd = machine.instance->price_per_hour_usd;
    r->gpus = static_cast<int>(gpus.size());
  }
  // The seed's model: all gradient bytes at the GPU's line rate (its NVLinks together, or its
  // PCIe link), after the compute, nothing overlapped.
  {
    double nvlink = 0;
    double pcie = 0;
    for (const auto& l : machine.links()) {
      if (l.a != gpus.front() && l.b != gpus.front()) continue;
      (l.kind == topo::LinkKind::nvlink ? nvlink : pcie) += l.bandwidth_Bps;
    }
    const double line = nvlink > 0 ? nvlink : pcie;
    engine::Simulation sim({line}, gpus.size());
    const TaskId c = sim.add_compute(0, g.compute_s, {});
    const engine::ChannelId ch = 0;
    const engine::PathShare path{sim.add_path({&ch, 1}, 0), 1.0};
    sim.add_transfer(g.gradient_bytes, {&path, 1}, 0, 1, {&c, 1});
    JobResult& r = out.simple;
    fill_sync_result(r, sim.run().makespan_s, g);
    r.notes.push_back(
        fmt::format("the seed's simple model: {} at the GPU's line rate of {} ({}), "
                    "after the compute, nothing overlapped",
                    units::format_bytes(g.gradient_bytes), units::format_bandwidth(line),
                    nvlink > 0 ? "all its NVLinks" : "its PCIe link"));
  }
  // Realistic: compute on every GPU, then an NCCL all-reduce over all of them.
  {
    const coll::Communicator comm(machine, gpus);
    engine::Simulation sim(comm.capacities_Bps(), gpus.size());
    std::vector<TaskId> computes;
    for (int r = 0; r < comm.size(); ++r)
      computes.push_back(sim.add_compute(comm.gpu_index(r), g.compute_s, {}));
    coll::Request req;
    req.op = coll::Op::all_reduce;
    req.size_bytes = g.gradient_bytes;
    req.algorithm = sc.algorithm;
    req.protocol = sc.protocol;
    const coll::Outcome best = coll::simulate_collective(comm, req);
    coll::lower_collective(comm, req, best.choice, sim, computes);
    JobResult& r = out.realistic;
    fill_sync_result(r, sim.run().makespan_s, g);
    r.by_collective["all_reduce"] = {1, r.comm_s, g.gradient_bytes};
    r.notes.push_back(fmt::format("NCCL all-reduce over {} GPUs ({}/{}), simulated: busbw {}",
                                  comm.size(), coll::to_string(best.choice.algorithm),
                                  coll::to_string(best.choice.protocol),
                                  units::format_bandwidth(best.busbw_Bps)));
    if (best.bottleneck) r.bottlenecks.push_back(machine.channel_name(*best.bottleneck));
    r.advice = advise(r, sc);
  }
  out.simple.advice = advise(out.simple, sc);
  return out;
}

}  // namespace linksim::work
