#pragma once
// A job as one task graph on the engine (internal to simulate_job, sim/work/job_sim.hpp).
//
// Training: per pipeline stage its micro-batches in 1F1B order, or with plan.virtual_stages
// its model chunks' in Megatron's interleaved 1F1B order (pipeline_schedule.hpp); per layer
// an attention half and an MLP half, each timed by the roofline (layer_roofline.hpp) and
// followed by a Megatron tensor-parallel all-reduce (or a reduce-scatter + all-gather with
// sequence parallelism); activations and their gradients sent between stages; MoE all-to-all
// around the experts; ZeRO-3 weight all-gathers (up to plan.prefetch_depth layers ahead with
// plan.prefetch, bounded by the freeing of gathered layers, in the shard group's stream order)
// and gradient reduce-scatters per layer and micro-batch (job_builder_data_parallel.cpp);
// otherwise DDP gradient buckets all-reduced (reduce-scattered for ZeRO-1/2) as the last
// micro-batch's backward produces them, overlapped with the rest of the backward; then the
// optimizer step.
// Inference: prefill is one forward pass of the prompt; decode is one token's forward pass
// (context at its average length).
//
// The member functions live by concept: job_builder.cpp (the schedule, compute, tensor and
// expert parallelism, stage sends), job_builder_data_parallel.cpp (gradient buckets, ZeRO,
// the optimizer step), job_builder_offload.cpp (activation and optimizer offload).

#include <map>
#include <memory>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "sim/coll/collective.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/topo/topology.hpp"
#include "sim/work/comm_record.hpp"
#include "sim/work/compute_label.hpp"
#include "sim/work/layer_roofline.hpp"
#include "sim/work/model.hpp"
#include "sim/work/placement.hpp"
#include "sim/work/rank_layout.hpp"
#include "sim/work/scenario.hpp"

namespace linksim::work {

class JobBuilder {
 public:
  // All references outlive this. `leave_out_planes`: build the job on one plane of each set of
  // identical planes (job_planes.hpp); build() then throws PlanesDoNotHold where some of its
  // traffic cannot leave them out. `replicas`: the data-parallel replicas to build, from
  // replica 0 (replica_folding.hpp); 0 builds every one.
  JobBuilder(const topo::Topology& machine, const ModelSpec& model, const Scenario& scenario,
             bool leave_out_planes = false, int replicas = 0);

  // Adds the whole step to sim(). Call once.
  void build();

  std::shared_ptr<engine::Simulation> sim() const { return placement_.shared_simulation(); }
  const std::vector<CommRecord>& records() const { return records_; }
  // Every compute task and the rank it runs on, in creation order.
  const std::vector<std::pair<engine::TaskId, int>>& compute_tasks() const {
    return compute_tasks_;
  }
  // What each of compute_tasks() computes, by the same index (for a trace's names).
  const std::vector<ComputeLabel>& compute_labels() const { return compute_labels_; }
  // The most channels any of the job's collectives runs.
  int max_channels() const { return max_channels_; }
  // The planes the graph leaves out, or nullptr when it has every plane.
  // The replicas built (replica_folding.hpp), and the engine indices of their GPUs.
  int replicas() const { return replicas_; }
  std::vector<int> built_gpus() const;
  const coll::PlaneCopies* planes() const { return placement_.planes(); }

 private:
  using TaskId = engine::TaskId;
  // ready[d][t]: what the GPU of replica d and TP rank t waits for before its next compute.
  using Ready = std::vector<std::vector<std::vector<TaskId>>>;

  int gpu_index(int rank) const;
  TaskId compute(int rank, double seconds, std::vector<TaskId> deps, ComputeLabel label);
  TaskId collective(const std::string& group, const std::vector<int>& ranks, coll::Op op,
                    double size, const std::vector<TaskId>& deps);
  // Folded (replica_folding.hpp): a collective over a group with ranks of replicas not built,
  // stood in by a wait of its own time on its whole group, beside the other TP ranks' groups.
  TaskId stand_in(const std::string& group, const std::vector<int>& ranks, coll::Op op, double size,
                  const std::vector<TaskId>& deps);
  bool built(int rank) const;
  // ZeRO shard groups with a replica built: those from replica 0 up to replicas_.
  int built_shard_groups() const {
    const int h = layout_.plan.shard_size();
    return (replicas_ + h - 1) / h;
  }

  // job_builder.cpp: the schedule's ops, layers, tensor and expert parallelism, stage sends.
  // Chunk c of stage s (the model's chunk c · pipeline + s; 0 without interleaving).
  void forward(int s, int c, int mb);
  void backward(int s, int c, int mb, bool last_micro_batch);
  // `layer`: the model's layer (from 0), for the compute's label.
  void layer_half(int s, int layer, bool backward, bool mlp, Ready& ready);
  // The model's first layer in chunk c of stage s.
  int first_layer(int s, int c) const;
  void exchange_experts(int s, Ready& ready);
  std::vector<std::vector<TaskId>> exchange_kv(int s, bool backward, const Ready& ready);
  Ready ready_from_stage_input(int s, int c, int mb, bool backward);
  TaskId send(int a, int b, double bytes, TaskId dep);
  std::vector<TaskId> flatten_ends(int s, const Ready& ready) const;

  // job_builder_data_parallel.cpp: ZeRO weight gathers, gradient buckets, the optimizer step.
  // One forward or backward pass of a stage under ZeRO-3: the layers' gathers issued so far
  // (each its ends by (TP rank, shard group)), and per layer l the tasks after which layer
  // l - 1's gathered weights are freed (by rank index d * tensor + t; l = 0: the pass's start).
  struct Zero3Pass {
    std::vector<std::vector<TaskId>> gathers;
    std::vector<std::vector<std::optional<TaskId>>> freed;
  };
  std::vector<TaskId> gather_layer_weights(int s, const std::vector<std::vector<TaskId>>& deps);
  void gather_weights(int s, int layer, int layers, Ready& ready, Zero3Pass& pass);
  TaskId dp_collective(int s, int base, int t, coll::Op op, double bytes, std::vector<TaskId> deps);
  void reduce_gradients(int s, double bytes, coll::Op op);
  void optimizer_step();

  // job_builder_offload.cpp: copies to and from host memory.
  void store_activations(int s, int mb, int layer);
  void fetch_activations(int s, int mb, int layer, Ready& ready);
  TaskId host_copy(int r, bool to_host, double bytes, const std::vector<TaskId>& deps);
  double host_memory_bandwidth_Bps(int r);

  const topo::Topology& machine_;
  const ModelSpec& model_;
  const Scenario& sc_;
  RankLayout layout_;
  std::vector<topo::NodeId> gpus_;
  Placement placement_;
  std::vector<std::optional<TaskId>> last_;  // per rank: its last compute (or host step)
  const topo::GpuModel* gpu_ = nullptr;
  LayerRoofline roofline_;
  std::map<std::tuple<int, int, int>, TaskId> stored_;  // (rank, micro-batch, layer) -> copy
  std::map<int, TaskId> last_fetch_;
  std::vector<int> layers_;  // per stage (all its chunks)
  int chunks_ = 1;           // model chunks per stage (plan.virtual_stages)
  int replicas_ = 1;         // data-parallel replicas built, 0 .. replicas_ - 1
  // Folded: per (ranks of TP rank 0's group, op, bytes), each TP rank's group's time alone.
  std::map<std::tuple<std::vector<int>, int, double>, std::vector<double>> stand_in_s_;
  // [stage][chunk · micro-batches + micro-batch]: the ends of a forward (backward) by GPU.
  std::vector<std::vector<std::vector<TaskId>>> fwd_out_;
  std::vector<std::vector<std::vector<TaskId>>> bwd_out_;
  std::map<int, std::vector<TaskId>> grad_syncs_;  // per rank: the syncs its step waits for
  // Per (stage, TP rank, shard group's first DP rank), the last collective issued on its
  // process group, which the next one waits for (one NCCL stream per process group).
  std::map<std::tuple<int, int, int>, TaskId> dp_stream_;
  std::vector<CommRecord> records_;
  std::vector<std::pair<TaskId, int>> compute_tasks_;
  std::vector<ComputeLabel> compute_labels_;  // by compute_tasks_'s index
  int max_channels_ = 0;
};

}  // namespace linksim::work
